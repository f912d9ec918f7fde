// SPDX-License-Identifier: MIT
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "latency.h"

#define DURATION_EXPECTED "expected a number with ns, us, ms or s"
#define RATE_EXPECTED                                                          \
	"expected a number with B, kB, MB, GB, TB, KiB, MiB, GiB or TiB and /s"

/* 10^19 is the largest power of ten in 64 bits. */
#define FRAC_DIGITS_MAX 19

/* A decimal number as written: whole part and fraction digits. */
struct number {
	uint64_t whole;	  /* UINT64_MAX when it does not fit */
	uint64_t frac;	  /* the first fdigits decimals, as an integer */
	unsigned fdigits; /* at most FRAC_DIGITS_MAX */
	bool dropped;	  /* a non-zero decimal past FRAC_DIGITS_MAX */
	bool overflow;	  /* the whole part is 2^64 or more */
};

static uint64_t pow10u(unsigned n)
{
	uint64_t v = 1;

	while (n--)
		v *= 10;
	return v;
}

/*
 * Reads DIGITS[.DIGITS] at *sp and leaves *sp after it. No sign, no
 * exponent, no blanks: a digit must come first and follow the point.
 */
static int scan_number(const char **sp, struct number *n)
{
	const char *s = *sp;

	memset(n, 0, sizeof(*n));
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		uint64_t d = (uint64_t)(*s - '0');

		/* Saturate: every caller finds UINT64_MAX out of range. */
		if (n->whole > (UINT64_MAX - d) / 10)
			n->overflow = true;
		if (!n->overflow)
			n->whole = n->whole * 10 + d;
	}
	if (n->overflow)
		n->whole = UINT64_MAX;
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++) {
			if (n->fdigits < FRAC_DIGITS_MAX) {
				n->frac = n->frac * 10 + (uint64_t)(*s - '0');
				n->fdigits++;
			} else if (*s != '0') {
				n->dropped = true;
			}
		}
	}
	*sp = s;
	return 0;
}

/*
 * The number that starts *@p, which is neither missing nor negative: the
 * first part of a duration and of a rate. *@why is @empty, @negative or
 * @expected when it fails.
 */
static int scan_unsigned(const char **p, struct number *n, const char *empty,
			 const char *negative, const char *expected,
			 const char **why)
{
	if (!*p || !**p) {
		*why = empty;
		return -EINVAL;
	}
	if (**p == '-') {
		*why = negative;
		return -EINVAL;
	}
	if (scan_number(p, n)) {
		*why = expected;
		return -EINVAL;
	}
	return 0;
}

/* The fraction of @n times @unit, rounded down. */
static uint64_t frac_times(const struct number *n, uint64_t unit)
{
	return (uint64_t)((unsigned __int128)n->frac * unit /
			  pow10u(n->fdigits));
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A unit's name and what one of it is worth (nanoseconds, bytes). */
struct unit {
	const char *name;
	uint64_t value;
};

/* The value of the unit of @units named by the @len bytes at @p; 0: none. */
static uint64_t unit_of(const struct unit *units, size_t n, const char *p,
			size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(units[i].name) == len &&
		    strncmp(p, units[i].name, len) == 0)
			return units[i].value;
	return 0;
}

int parse_duration(const char *s, uint64_t *ns, const char **why)
{
	static const struct unit units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", 1000000000 },
	};
	struct number n;
	const char *p = s;
	uint64_t unit = 0, v;

	if (scan_unsigned(&p, &n, "empty duration (" DURATION_EXPECTED ")",
			  "negative durations are not allowed",
			  DURATION_EXPECTED, why))
		return -EINVAL;
	if (!*p) {
		*why = "missing unit (" DURATION_EXPECTED ")";
		return -EINVAL;
	}
	unit = unit_of(units, ARRAY_LEN(units), p, strlen(p));
	if (!unit) {
		*why = DURATION_EXPECTED;
		return -EINVAL;
	}
	if (n.whole > UNITS_DURATION_MAX / unit)
		goto out_range;
	v = n.whole * unit + frac_times(&n, unit);
	if (v > UNITS_DURATION_MAX)
		goto out_range;
	*ns = v;
	return 0;
out_range:
	*why = "longer than 3600s";
	return -ERANGE;
}

int parse_rate(const char *s, uint64_t *bytes_per_s, const char **why)
{
	static const struct unit units[] = {
		{ "B", 1 },
		{ "kB", 1000ull },
		{ "MB", 1000000ull },
		{ "GB", 1000000000ull },
		{ "TB", 1000000000000ull },
		{ "KiB", 1ull << 10 },
		{ "MiB", 1ull << 20 },
		{ "GiB", 1ull << 30 },
		{ "TiB", 1ull << 40 },
	};
	struct number n;
	const char *p = s;
	uint64_t unit = 0, v, f;
	size_t len;

	if (scan_unsigned(&p, &n, "empty rate (" RATE_EXPECTED ")",
			  "negative rates are not allowed", RATE_EXPECTED, why))
		return -EINVAL;
	len = strlen(p);
	if (len < 2 || strcmp(p + len - 2, "/s") != 0) {
		*why = "missing /s (" RATE_EXPECTED ")";
		return -EINVAL;
	}
	unit = unit_of(units, ARRAY_LEN(units), p, len - 2);
	if (!unit) {
		*why = "unknown unit (" RATE_EXPECTED ")";
		return -EINVAL;
	}
	f = frac_times(&n, unit);
	if (n.overflow || n.whole > (UINT64_MAX - f) / unit) {
		*why = "rate too large";
		return -ERANGE;
	}
	v = n.whole * unit + f;
	if (v == 0) {
		*why = "a rate must be more than 0 B/s";
		return -EINVAL;
	}
	*bytes_per_s = v;
	return 0;
}

int units_parse_decimal(const char *s, unsigned places, uint64_t max,
			uint64_t *out, const char **why)
{
	struct number n;
	const char *p = s;
	uint64_t scale = pow10u(places), f;

	if (!s || !*s) {
		*why = "empty number";
		return -EINVAL;
	}
	if (*s == '-') {
		*why = "negative values are not allowed";
		return -EINVAL;
	}
	if (scan_number(&p, &n) || *p) {
		*why = "expected a plain decimal number such as 0.25";
		return -EINVAL;
	}
	/* Decimals past @places are accepted only when they are zeros. */
	if (n.dropped ||
	    (n.fdigits > places && n.frac % pow10u(n.fdigits - places) != 0)) {
		*why = "too many decimal places";
		return -EINVAL;
	}
	f = frac_times(&n, scale);
	if (n.overflow || f > max || n.whole > (max - f) / scale) {
		*why = "value out of range";
		return -ERANGE;
	}
	*out = n.whole * scale + f;
	return 0;
}

void units_format_duration(struct strbuf *sb, uint64_t ns)
{
	if (ns && ns % 1000000000 == 0)
		strbuf_addf(sb, "%" PRIu64 "s", ns / 1000000000);
	else if (ns && ns % 1000000 == 0)
		strbuf_addf(sb, "%" PRIu64 "ms", ns / 1000000);
	else if (ns && ns % 1000 == 0)
		strbuf_addf(sb, "%" PRIu64 "us", ns / 1000);
	else
		strbuf_addf(sb, "%" PRIu64 "ns", ns);
}

void units_format_rate(struct strbuf *sb, uint64_t bps)
{
	static const char *const dec[] = { "kB", "MB", "GB", "TB" };
	static const char *const bin[] = { "KiB", "MiB", "GiB", "TiB" };
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t unit = pow10u(3 * (unsigned)(i + 1));

		if (bps % unit == 0) {
			strbuf_addf(sb, "%" PRIu64 "%s/s", bps / unit, dec[i]);
			return;
		}
	}
	for (i = 3; i >= 0; i--) {
		uint64_t unit = 1ull << (10 * (i + 1));

		if (bps % unit == 0) {
			strbuf_addf(sb, "%" PRIu64 "%s/s", bps / unit, bin[i]);
			return;
		}
	}
	strbuf_addf(sb, "%" PRIu64 "B/s", bps);
}

void units_format_size(struct strbuf *sb, uint64_t bytes)
{
	static const char suffixes[] = "KMGTPE";
	int i;

	for (i = 5; i >= 0 && bytes; i--) {
		unsigned shift = 10 * (unsigned)(i + 1);

		if (bytes % (1ull << shift) == 0) {
			strbuf_addf(sb, "%" PRIu64 "%c", bytes >> shift,
				    suffixes[i]);
			return;
		}
	}
	strbuf_addf(sb, "%" PRIu64, bytes);
}

void units_format_decimal(struct strbuf *sb, uint64_t v, unsigned places)
{
	uint64_t scale = pow10u(places), frac = v % scale;
	unsigned digits = places;

	strbuf_addf(sb, "%" PRIu64, v / scale);
	if (!frac)
		return;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	strbuf_addf(sb, ".%0*" PRIu64, (int)digits, frac);
}

uint64_t units_transfer_ns(uint64_t len, uint64_t bps)
{
	unsigned __int128 t;

	if (!bps)
		return 0;
	t = (unsigned __int128)len * 1000000000u / bps;
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}
