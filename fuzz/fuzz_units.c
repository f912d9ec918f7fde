// SPDX-License-Identifier: MIT
/*
 * Sizes, plain integers, durations, rates and decimal fractions
 * (src/common/parse.c, src/slow/units.c): each parser gets the input as a
 * string. A value accepted must lie in the documented range, a value
 * refused must come with a reason, and formatting an accepted value must
 * parse back to the same value (units.h promises that).
 */
#include <errno.h>

#include "fuzz.h"

#include "parse.h"
#include "strbuf.h"
#include "latency.h"
#include "units.h"

static void refused(int ret, const char *why, const char *what)
{
	FUZZ_CHECK(ret == -EINVAL || ret == -ERANGE, "%s returned %d", what,
		   ret);
	FUZZ_CHECK(why && *why, "%s refused without a reason", what);
}

static void sizes(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *why = NULL;
	uint64_t v, back;
	int ret, zero;

	for (zero = 0; zero < 2; zero++) {
		ret = parse_size(s, zero, &v, &why);
		if (ret) {
			refused(ret, why, "parse_size");
			continue;
		}
		FUZZ_CHECK(v <= PARSE_SIZE_MAX, "size %llu",
			   (unsigned long long)v);
		FUZZ_CHECK(zero || v, "zero accepted");
		strbuf_reset(&sb);
		units_format_size(&sb, v);
		FUZZ_CHECK(!sb.oom, "out of memory");
		FUZZ_CHECK(parse_size(sb.data, zero, &back, &why) == 0 &&
				   back == v,
			   "%llu formats as '%s'", (unsigned long long)v,
			   sb.data);
	}
	strbuf_free(&sb);
}

static void integers(const char *s)
{
	const char *why = NULL;
	uint64_t v;
	int ret;

	ret = parse_uint(s, 3, 1000000, &v, &why);
	if (ret)
		refused(ret, why, "parse_uint");
	else
		FUZZ_CHECK(v >= 3 && v <= 1000000, "%llu out of range",
			   (unsigned long long)v);
	ret = parse_uint(s, 0, UINT64_MAX, &v, &why);
	if (ret)
		refused(ret, why, "parse_uint");
}

/*
 * @s through @parse (named @what); an accepted value, in *@v, must format
 * (@format) as text that parses back to it. Whether @s was accepted.
 */
static bool round_trip(const char *s,
		       int (*parse)(const char *, uint64_t *, const char **),
		       void (*format)(struct strbuf *, uint64_t),
		       const char *what, uint64_t *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *why = NULL;
	uint64_t back;
	int ret;

	ret = parse(s, v, &why);
	if (ret) {
		refused(ret, why, what);
		return false;
	}
	format(&sb, *v);
	FUZZ_CHECK(parse(sb.data, &back, &why) == 0 && back == *v,
		   "%s: %llu formats as '%s'", what, (unsigned long long)*v,
		   sb.data);
	strbuf_free(&sb);
	return true;
}

static void durations(const char *s)
{
	uint64_t ns;

	if (round_trip(s, parse_duration, units_format_duration,
		       "parse_duration", &ns))
		FUZZ_CHECK(ns <= UNITS_DURATION_MAX, "duration %llu",
			   (unsigned long long)ns);
}

static void rates(const char *s)
{
	uint64_t bps;

	if (!round_trip(s, parse_rate, units_format_rate, "parse_rate", &bps))
		return;
	FUZZ_CHECK(bps > 0, "a rate of 0 accepted");
	/* The delay of a 1 MiB transfer at that rate must not trap. */
	(void)units_transfer_ns(1u << 20, bps);
	(void)units_transfer_ns(UINT64_MAX, bps);
}

static void decimals(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *why = NULL;
	uint64_t v, back;
	unsigned places;
	int ret;

	for (places = 0; places <= 9; places += 3) {
		ret = units_parse_decimal(s, places, 1000000000000ull, &v,
					  &why);
		if (ret) {
			refused(ret, why, "units_parse_decimal");
			continue;
		}
		FUZZ_CHECK(v <= 1000000000000ull, "decimal %llu",
			   (unsigned long long)v);
		strbuf_reset(&sb);
		units_format_decimal(&sb, v, places);
		FUZZ_CHECK(units_parse_decimal(sb.data, places,
					       1000000000000ull, &back,
					       &why) == 0 &&
				   back == v,
			   "%llu/10^%u formats as '%s'", (unsigned long long)v,
			   places, sb.data);
	}
	strbuf_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	sizes(s);
	integers(s);
	durations(s);
	rates(s);
	decimals(s);
	free(s);
	return 0;
}
