// SPDX-License-Identifier: MIT
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* Parses leading decimal digits; -ERANGE on uint64 overflow. */
static int parse_digits(const char **sp, uint64_t *out, const char **why)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s)) {
		*why = "expected a decimal number";
		return -EINVAL;
	}
	while (isdigit((unsigned char)*s)) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10) {
			*why = "number too large";
			return -ERANGE;
		}
		v = v * 10 + d;
		s++;
	}
	*sp = s;
	*out = v;
	return 0;
}

/*
 * Whether @s cannot start a number: empty (@empty is the reason), or
 * signed or spaced before its digits; the reason in *@why.
 */
static int bad_start(const char *s, const char *empty, const char **why)
{
	if (!s || !*s) {
		*why = empty;
		return 1;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-') {
		*why = "negative values are not allowed";
		return 1;
	}
	if (*s == '+' || isspace((unsigned char)*s)) {
		*why = "expected a decimal number";
		return 1;
	}
	return 0;
}

/* What a size looks like, for the reasons parse_size() gives. */
#define SIZE_FORM "bytes with optional K, M, G, T, P or E suffix"

int parse_size(const char *s, int allow_zero, uint64_t *out, const char **why)
{
	static const char suffixes[] = "KMGTPE";
	const char *p = s, *hit;
	unsigned shift = 0;
	uint64_t v;
	int err;

	if (bad_start(s, "empty size (expected " SIZE_FORM ")", why))
		return -EINVAL;
	err = parse_digits(&p, &v, why);
	if (err) {
		if (err == -ERANGE)
			*why = "size too large (the limit is 2^62 bytes)";
		else
			*why = "expected " SIZE_FORM;
		return err;
	}
	if (*p == '.') {
		*why = "a size is a whole number (no decimal point: 1536K, not 1.5M)";
		return -EINVAL;
	}
	if (*p) {
		hit = strchr(suffixes, toupper((unsigned char)*p));
		if (!hit) {
			*why = "unknown size suffix (expected K, M, G, T, P or E)";
			return -EINVAL;
		}
		shift = 10 * (unsigned)(hit - suffixes + 1);
		p++;
		if (strcmp(p, "iB") == 0 || strcmp(p, "B") == 0)
			p += strlen(p);
		if (*p) {
			*why = "unknown size suffix (expected K, M, G, T, P or E)";
			return -EINVAL;
		}
	}
	if (shift && v > (PARSE_SIZE_MAX >> shift)) {
		*why = "size too large (the limit is 2^62 bytes)";
		return -ERANGE;
	}
	v <<= shift;
	if (v > PARSE_SIZE_MAX) {
		*why = "size too large (the limit is 2^62 bytes)";
		return -ERANGE;
	}
	if (v == 0 && !allow_zero) {
		*why = "size must be at least 1 byte";
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
	       const char **why)
{
	const char *p = s;
	uint64_t v;
	int err;

	if (bad_start(s, "empty value (expected a decimal number)", why))
		return -EINVAL;
	err = parse_digits(&p, &v, why);
	if (err)
		return err;
	if (*p) {
		*why = "trailing characters after the number";
		return -EINVAL;
	}
	if (v < min || v > max) {
		*why = "value out of range";
		return -ERANGE;
	}
	*out = v;
	return 0;
}
