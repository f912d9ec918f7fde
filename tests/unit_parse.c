// SPDX-License-Identifier: MIT
/*
 * parse_size() and parse_uint(): every class of bad input, every suffix,
 * and the bounds.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/parse.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define TiB (1ull << 40)
#define PiB (1ull << 50)
#define EiB (1ull << 60)

/* Sentinel: a failed parse must not touch *out. */
#define UNTOUCHED 0x5a5a5a5a5a5a5a5aull

static void size_ok(const char *s, int allow_zero, uint64_t want)
{
	const char *why = NULL;
	uint64_t v = UNTOUCHED;
	int ret;

	ret = parse_size(s, allow_zero, &v, &why);
	cr_assert_eq(ret, 0, "parse_size(\"%s\") = %d (%s), want 0", s, ret,
		     why ? why : "no reason");
	cr_assert_eq(v, want, "parse_size(\"%s\") = %llu, want %llu", s,
		     (unsigned long long)v, (unsigned long long)want);
}

static const char *size_bad(const char *s, int allow_zero, int want_err)
{
	const char *why = NULL;
	uint64_t v = UNTOUCHED;
	int ret;

	ret = parse_size(s, allow_zero, &v, &why);
	cr_assert_eq(ret, want_err, "parse_size(\"%s\") = %d, want %d",
		     s ? s : "(null)", ret, want_err);
	cr_assert_not_null(why, "parse_size(\"%s\") gave no reason",
			   s ? s : "(null)");
	cr_assert_gt(strlen(why), 0);
	cr_assert_eq(v, UNTOUCHED, "parse_size(\"%s\") wrote *out on error",
		     s ? s : "(null)");
	return why;
}

static void uint_ok(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
	const char *why = NULL;
	uint64_t v = UNTOUCHED;
	int ret;

	ret = parse_uint(s, min, max, &v, &why);
	cr_assert_eq(ret, 0, "parse_uint(\"%s\") = %d (%s), want 0", s, ret,
		     why ? why : "no reason");
	cr_assert_eq(v, want, "parse_uint(\"%s\") = %llu, want %llu", s,
		     (unsigned long long)v, (unsigned long long)want);
}

static const char *uint_bad(const char *s, uint64_t min, uint64_t max,
			    int want_err)
{
	const char *why = NULL;
	uint64_t v = UNTOUCHED;
	int ret;

	ret = parse_uint(s, min, max, &v, &why);
	cr_assert_eq(ret, want_err, "parse_uint(\"%s\") = %d, want %d",
		     s ? s : "(null)", ret, want_err);
	cr_assert_not_null(why, "parse_uint(\"%s\") gave no reason",
			   s ? s : "(null)");
	cr_assert_gt(strlen(why), 0);
	cr_assert_eq(v, UNTOUCHED, "parse_uint(\"%s\") wrote *out on error",
		     s ? s : "(null)");
	return why;
}

Test(parse_size, plain_bytes)
{
	size_ok("1", 0, 1);
	size_ok("4096", 0, 4096);
	size_ok("123456789", 0, 123456789);
	/* Leading zeros are still decimal, not octal. */
	size_ok("010", 0, 10);
}

Test(parse_size, suffixes_upper_case)
{
	size_ok("1K", 0, KiB);
	size_ok("3M", 0, 3 * MiB);
	size_ok("2G", 0, 2 * GiB);
	size_ok("5T", 0, 5 * TiB);
	size_ok("7P", 0, 7 * PiB);
	size_ok("1E", 0, EiB);
}

Test(parse_size, suffixes_lower_case)
{
	size_ok("1k", 0, KiB);
	size_ok("3m", 0, 3 * MiB);
	size_ok("2g", 0, 2 * GiB);
	size_ok("5t", 0, 5 * TiB);
	size_ok("7p", 0, 7 * PiB);
	size_ok("1e", 0, EiB);
}

Test(parse_size, iec_forms)
{
	size_ok("1KiB", 0, KiB);
	size_ok("64MiB", 0, 64 * MiB);
	size_ok("2GiB", 0, 2 * GiB);
	size_ok("1TiB", 0, TiB);
	size_ok("1PiB", 0, PiB);
	size_ok("2EiB", 0, 2 * EiB);
	/* The letter is case-insensitive, the "iB" tail is not. */
	size_ok("1kiB", 0, KiB);
}

Test(parse_size, b_tail_is_binary_too)
{
	/* "KB" means the same as "K": sizes are binary throughout. */
	size_ok("1KB", 0, KiB);
	size_ok("3MB", 0, 3 * MiB);
	size_ok("1gB", 0, GiB);
}

Test(parse_size, empty_and_null)
{
	const char *why;

	why = size_bad("", 0, -EINVAL);
	cr_assert(strstr(why, "empty"), "why = \"%s\"", why);
	size_bad("", 1, -EINVAL);
	size_bad(NULL, 0, -EINVAL);
	size_bad(NULL, 1, -EINVAL);
}

Test(parse_size, negative)
{
	const char *why;

	why = size_bad("-1", 0, -EINVAL);
	cr_assert(strstr(why, "negative"), "why = \"%s\"", why);
	size_bad("-0", 1, -EINVAL);
	size_bad("-1K", 0, -EINVAL);
	size_bad(" -1", 0, -EINVAL);
}

Test(parse_size, leading_plus_or_space)
{
	size_bad("+1", 0, -EINVAL);
	size_bad(" 1", 0, -EINVAL);
	size_bad("\t1", 0, -EINVAL);
	size_bad("  +1", 0, -EINVAL);
}

Test(parse_size, trailing_space)
{
	size_bad("1 ", 0, -EINVAL);
	size_bad("1K ", 0, -EINVAL);
	size_bad("1 K", 0, -EINVAL);
}

Test(parse_size, garbage)
{
	size_bad("abc", 0, -EINVAL);
	size_bad("12abc", 0, -EINVAL);
	size_bad("K", 0, -EINVAL);
	size_bad("0x10", 0, -EINVAL);
	size_bad("1.5M", 0, -EINVAL);
	size_bad("1_000", 0, -EINVAL);
}

Test(parse_size, unknown_suffix)
{
	const char *why;

	why = size_bad("1Q", 0, -EINVAL);
	cr_assert(strstr(why, "suffix"), "why = \"%s\"", why);
	size_bad("1B", 0, -EINVAL);
	size_bad("1Z", 0, -EINVAL);
	size_bad("1KK", 0, -EINVAL);
	size_bad("1Kib", 0, -EINVAL);
	size_bad("1KiBx", 0, -EINVAL);
	size_bad("1KBB", 0, -EINVAL);
	size_bad("1Ki", 0, -EINVAL);
}

Test(parse_size, zero)
{
	const char *why;

	why = size_bad("0", 0, -EINVAL);
	cr_assert(strstr(why, "at least 1"), "why = \"%s\"", why);
	size_bad("0K", 0, -EINVAL);
	size_bad("000", 0, -EINVAL);
	size_ok("0", 1, 0);
	size_ok("0K", 1, 0);
	size_ok("0E", 1, 0);
}

Test(parse_size, limit_is_2_pow_62)
{
	size_ok("4E", 0, PARSE_SIZE_MAX);
	size_ok("4096P", 0, PARSE_SIZE_MAX);
	size_ok("4611686018427387904", 0, PARSE_SIZE_MAX);
	size_ok("4611686018427387903", 0, PARSE_SIZE_MAX - 1);
}

Test(parse_size, overflow)
{
	const char *why;

	why = size_bad("4611686018427387905", 0, -ERANGE);
	cr_assert(strstr(why, "too large"), "why = \"%s\"", why);
	/* 5 * 2^60 fits in 64 bits but is over the limit. */
	size_bad("5E", 0, -ERANGE);
	size_bad("4097P", 0, -ERANGE);
	size_bad("4194305T", 0, -ERANGE);
	/* Shifting these would wrap around 2^64 without the check. */
	size_bad("16E", 0, -ERANGE);
	size_bad("17179869184G", 0, -ERANGE);
	size_bad("18446744073709551615", 0, -ERANGE);
	/* More than 64 bits of digits. */
	why = size_bad("99999999999999999999", 0, -ERANGE);
	cr_assert(strstr(why, "too large"), "why = \"%s\"", why);
	size_bad("18446744073709551616", 0, -ERANGE);
	size_bad("99999999999999999999K", 1, -ERANGE);
}

Test(parse_uint, valid)
{
	uint_ok("0", 0, 10, 0);
	uint_ok("10", 0, 10, 10);
	uint_ok("007", 0, 10, 7);
	uint_ok("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
}

Test(parse_uint, bounds)
{
	const char *why;

	uint_ok("1", 1, 256, 1);
	uint_ok("256", 1, 256, 256);
	why = uint_bad("0", 1, 256, -ERANGE);
	cr_assert(strstr(why, "range"), "why = \"%s\"", why);
	uint_bad("257", 1, 256, -ERANGE);
	uint_ok("16", 16, 16, 16);
	uint_bad("15", 16, 16, -ERANGE);
	uint_bad("17", 16, 16, -ERANGE);
}

Test(parse_uint, empty_and_null)
{
	const char *why;

	why = uint_bad("", 0, 10, -EINVAL);
	cr_assert(strstr(why, "empty"), "why = \"%s\"", why);
	uint_bad(NULL, 0, 10, -EINVAL);
}

Test(parse_uint, signs_and_spaces)
{
	const char *why;

	why = uint_bad("-1", 0, 10, -EINVAL);
	cr_assert(strstr(why, "negative"), "why = \"%s\"", why);
	uint_bad("-0", 0, 10, -EINVAL);
	uint_bad("+1", 0, 10, -EINVAL);
	uint_bad(" 1", 0, 10, -EINVAL);
	uint_bad("1 ", 0, 10, -EINVAL);
}

Test(parse_uint, garbage)
{
	const char *why;

	why = uint_bad("12abc", 0, 100, -EINVAL);
	cr_assert(strstr(why, "trailing"), "why = \"%s\"", why);
	uint_bad("abc", 0, 100, -EINVAL);
	/* No suffixes here, unlike sizes. */
	uint_bad("1K", 0, UINT64_MAX, -EINVAL);
	uint_bad("0x1", 0, 100, -EINVAL);
}

Test(parse_uint, overflow)
{
	uint_bad("18446744073709551616", 0, UINT64_MAX, -ERANGE);
	uint_bad("99999999999999999999", 0, UINT64_MAX, -ERANGE);
}
