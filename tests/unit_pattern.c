// SPDX-License-Identifier: MIT
/*
 * The public pattern API: parsing, formatting, the stamp header layout and
 * the promise that every byte is a pure function of (pattern, name, offset).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <testfs/pattern.h>

#include "store/pattern_gen.h"

#define PAGE TESTFS_STAMP_PAGE
#define HDR TESTFS_STAMP_HEADER

static const struct testfs_pattern stamp = { TESTFS_PATTERN_STAMP, 0 };
static const struct testfs_pattern zero = { TESTFS_PATTERN_ZERO, 0 };

static struct testfs_pattern random_seed(uint64_t seed)
{
	return (struct testfs_pattern){ TESTFS_PATTERN_RANDOM, seed };
}

static unsigned char *fill(const struct testfs_pattern *p, const char *name,
			   uint64_t off, size_t len)
{
	unsigned char *buf = malloc(len);

	cr_assert_not_null(buf);
	testfs_pattern_fill(p, name, off, buf, len);
	return buf;
}

/* The 64-byte header the stamp pattern should put at page @page. */
static void expected_header(char *dst, uint64_t page, const char *name)
{
	char text[HDR + 400];
	size_t n;

	n = (size_t)snprintf(text, sizeof(text), "testfs page %llu file %s",
			     (unsigned long long)page, name);
	if (n > HDR - 1)
		n = HDR - 1;
	memset(dst, ' ', HDR - 1);
	memcpy(dst, text, n);
	dst[HDR - 1] = '\n';
}

/* --- parse and format --- */

static void parse_ok(const char *spec, enum testfs_pattern_kind kind,
		     uint64_t seed)
{
	struct testfs_pattern p = { TESTFS_PATTERN_ZERO, 12345 };
	int ret;

	ret = testfs_pattern_parse(spec, &p);
	cr_assert_eq(ret, 0, "parse(\"%s\") = %d", spec, ret);
	cr_assert_eq(p.kind, kind, "parse(\"%s\") kind %d, want %d", spec,
		     p.kind, kind);
	cr_assert_eq(p.seed, seed, "parse(\"%s\") seed %llu, want %llu", spec,
		     (unsigned long long)p.seed, (unsigned long long)seed);
}

static void parse_bad(const char *spec)
{
	struct testfs_pattern p = { TESTFS_PATTERN_ZERO, 12345 };
	int ret;

	ret = testfs_pattern_parse(spec, &p);
	cr_assert_eq(ret, -EINVAL, "parse(\"%s\") = %d, want -EINVAL",
		     spec ? spec : "(null)", ret);
	cr_assert_eq(p.kind, TESTFS_PATTERN_ZERO, "output touched on error");
	cr_assert_eq(p.seed, 12345, "output touched on error");
}

Test(pattern_parse, valid)
{
	parse_ok("stamp", TESTFS_PATTERN_STAMP, 0);
	parse_ok("zero", TESTFS_PATTERN_ZERO, 0);
	parse_ok("random", TESTFS_PATTERN_RANDOM, 0);
	parse_ok("random:42", TESTFS_PATTERN_RANDOM, 42);
	parse_ok("random:0", TESTFS_PATTERN_RANDOM, 0);
	parse_ok("random:18446744073709551615", TESTFS_PATTERN_RANDOM,
		 UINT64_MAX);
}

Test(pattern_parse, invalid)
{
	parse_bad(NULL);
	parse_bad("");
	parse_bad("rand");
	parse_bad("random:");
	parse_bad("random:x");
	parse_bad("random:-1");
	parse_bad("random:+1");
	parse_bad("random: 1");
	parse_bad("random:1x");
	parse_bad("random:0x10");
	parse_bad("random:18446744073709551616");
	parse_bad("Stamp");
	parse_bad("stamp ");
	parse_bad(" zero");
	parse_bad("zero:1");
	parse_bad("randomx");
}

static void round_trip(const char *spec, const char *canonical)
{
	struct testfs_pattern p, q;
	char buf[64];
	int n;

	cr_assert_eq(testfs_pattern_parse(spec, &p), 0, "parse(\"%s\")", spec);
	n = testfs_pattern_format(&p, buf, sizeof(buf));
	cr_assert_str_eq(buf, canonical);
	cr_assert_eq(n, (int)strlen(canonical));
	cr_assert_eq(testfs_pattern_parse(buf, &q), 0, "parse(\"%s\")", buf);
	cr_assert_eq(q.kind, p.kind);
	cr_assert_eq(q.seed, p.seed);
}

Test(pattern_format, round_trip)
{
	round_trip("stamp", "stamp");
	round_trip("zero", "zero");
	round_trip("random", "random:0");
	round_trip("random:42", "random:42");
	round_trip("random:18446744073709551615",
		   "random:18446744073709551615");
}

Test(pattern_format, truncates_like_snprintf)
{
	struct testfs_pattern p = random_seed(42);
	char buf[4] = "xxx";
	int n;

	n = testfs_pattern_format(&p, buf, sizeof(buf));
	cr_assert_eq(n, (int)strlen("random:42"));
	cr_assert_str_eq(buf, "ran");
	n = testfs_pattern_format(&p, NULL, 0);
	cr_assert_eq(n, (int)strlen("random:42"));
}

/* --- stamp header --- */

Test(pattern_stamp, header_page_0)
{
	unsigned char buf[HDR];
	char want[HDR];

	testfs_pattern_fill(&stamp, "a.bin", 0, buf, sizeof(buf));
	expected_header(want, 0, "a.bin");
	cr_assert_arr_eq(buf, want, HDR, "header: %.64s", (char *)buf);
	cr_assert_eq(memcmp(buf, "testfs page 0 file a.bin ", 25), 0);
	cr_assert_eq(buf[62], ' ');
	cr_assert_eq(buf[63], '\n');
}

Test(pattern_stamp, header_page_1234567)
{
	unsigned char buf[HDR];
	char want[HDR];

	testfs_pattern_fill(&stamp, "dir/big.bin", 1234567ull * PAGE, buf,
			    sizeof(buf));
	expected_header(want, 1234567, "dir/big.bin");
	cr_assert_arr_eq(buf, want, HDR, "header: %.64s", (char *)buf);
	cr_assert_eq(memcmp(buf, "testfs page 1234567 file dir/big.bin ", 37),
		     0);
}

Test(pattern_stamp, header_at_every_page)
{
	unsigned char *buf = fill(&stamp, "f", 0, 5 * PAGE);
	char want[HDR];
	uint64_t i;

	for (i = 0; i < 5; i++) {
		expected_header(want, i, "f");
		cr_assert_arr_eq(buf + i * PAGE, want, HDR, "page %llu",
				 (unsigned long long)i);
	}
	free(buf);
}

Test(pattern_stamp, header_huge_page_index)
{
	/* The last page of a 2^62-byte file. */
	uint64_t page = (1ull << 62) / PAGE - 1;
	unsigned char buf[HDR];
	char want[HDR];

	testfs_pattern_fill(&stamp, "huge.bin", page * PAGE, buf, sizeof(buf));
	expected_header(want, page, "huge.bin");
	cr_assert_arr_eq(buf, want, HDR);
}

Test(pattern_stamp, long_name_cut_without_overflow)
{
	unsigned char buf[PAGE + 64];
	char name[301], want[HDR];
	size_t i;

	memset(name, 'L', 300);
	name[300] = '\0';
	memset(buf, 0xee, sizeof(buf));
	testfs_pattern_fill(&stamp, name, 0, buf, PAGE);
	expected_header(want, 0, name);
	cr_assert_arr_eq(buf, want, HDR);
	cr_assert_eq(buf[HDR - 2], 'L', "name should fill the header");
	cr_assert_eq(buf[HDR - 1], '\n');
	for (i = PAGE; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 0xee, "byte %zu past the buffer written",
			     i);
}

Test(pattern_stamp, long_names_differ_after_the_cut)
{
	/* Same visible header, but the data hashes the full name. */
	char a[301], b[301];
	unsigned char *ba, *bb;

	memset(a, 'L', 300);
	a[300] = '\0';
	memcpy(b, a, sizeof(b));
	b[299] = 'M';
	ba = fill(&stamp, a, 0, PAGE);
	bb = fill(&stamp, b, 0, PAGE);
	cr_assert_eq(memcmp(ba, bb, HDR), 0);
	cr_assert_neq(memcmp(ba + HDR, bb + HDR, PAGE - HDR), 0);
	free(ba);
	free(bb);
}

Test(pattern_stamp, different_names_different_bytes)
{
	unsigned char *a = fill(&stamp, "a.bin", 0, 2 * PAGE);
	unsigned char *b = fill(&stamp, "b.bin", 0, 2 * PAGE);
	size_t i, same = 0;

	for (i = HDR; i < PAGE; i++)
		same += a[i] == b[i];
	/* Random-looking bytes agree about 1 time in 256. */
	cr_assert_lt(same, 64, "%zu of %u data bytes equal", same, PAGE - HDR);
	cr_assert_neq(memcmp(a + PAGE + HDR, b + PAGE + HDR, PAGE - HDR), 0);
	free(a);
	free(b);
}

Test(pattern_stamp, pages_differ)
{
	unsigned char *buf = fill(&stamp, "a.bin", 0, 2 * PAGE);

	cr_assert_neq(memcmp(buf + HDR, buf + PAGE + HDR, PAGE - HDR), 0);
	free(buf);
}

/* --- fill --- */

Test(pattern_fill, unaligned_equals_aligned_cut)
{
	const struct testfs_pattern pats[] = { stamp, zero, random_seed(5) };
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		unsigned char *all = fill(&pats[i], "x.bin", 0, 3 * PAGE);
		unsigned char *part = fill(&pats[i], "x.bin", 100, 10000);

		cr_assert_arr_eq(part, all + 100, 10000, "pattern %zu", i);
		free(all);
		free(part);
	}
}

Test(pattern_fill, every_small_range_is_consistent)
{
	unsigned char *all = fill(&stamp, "s", 0, 3 * PAGE);
	unsigned char buf[300];
	size_t off, len;

	/* Starts and ends around the header and page boundaries. */
	for (off = 0; off < 3 * PAGE - 300; off += 61) {
		for (len = 1; len <= 300; len += 37) {
			testfs_pattern_fill(&stamp, "s", off, buf, len);
			cr_assert_arr_eq(buf, all + off, len, "off %zu len %zu",
					 off, len);
		}
	}
	free(all);
}

Test(pattern_fill, unaligned_far_offset)
{
	struct testfs_pattern r = random_seed(3);
	uint64_t base = 1ull << 40;
	unsigned char *all = fill(&r, "r", base, 2 * PAGE);
	unsigned char *part = fill(&r, "r", base + PAGE - 5, 10);

	cr_assert_arr_eq(part, all + PAGE - 5, 10);
	free(all);
	free(part);
}

Test(pattern_fill, deterministic)
{
	const struct testfs_pattern pats[] = { stamp, zero, random_seed(0),
					       random_seed(77) };
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		unsigned char *a = fill(&pats[i], "d.bin", 12345, 3 * PAGE);
		unsigned char *b = fill(&pats[i], "d.bin", 12345, 3 * PAGE);

		cr_assert_arr_eq(a, b, 3 * PAGE, "pattern %zu", i);
		free(a);
		free(b);
	}
}

Test(pattern_fill, zero_is_all_zeros)
{
	unsigned char buf[3 * PAGE];
	size_t i;

	memset(buf, 0xaa, sizeof(buf));
	testfs_pattern_fill(&zero, "z", 777, buf, sizeof(buf));
	for (i = 0; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 0, "byte %zu = %#x", i, buf[i]);
}

Test(pattern_fill, zero_length_writes_nothing)
{
	unsigned char buf[8];

	memset(buf, 0xaa, sizeof(buf));
	testfs_pattern_fill(&stamp, "z", 10, buf, 0);
	testfs_pattern_fill(&zero, "z", 10, buf, 0);
	cr_assert_eq(buf[0], 0xaa);
}

Test(pattern_fill, random_seeds_differ)
{
	struct testfs_pattern r1 = random_seed(1), r2 = random_seed(2);
	unsigned char *a = fill(&r1, "r", 0, PAGE);
	unsigned char *b = fill(&r2, "r", 0, PAGE);

	cr_assert_neq(memcmp(a, b, PAGE), 0);
	free(a);
	free(b);
}

Test(pattern_fill, random_ignores_name)
{
	struct testfs_pattern r = random_seed(9);
	unsigned char *a = fill(&r, "one.bin", 4096, 2 * PAGE);
	unsigned char *b = fill(&r, "other/name.bin", 4096, 2 * PAGE);

	cr_assert_arr_eq(a, b, 2 * PAGE);
	free(a);
	free(b);
}

Test(pattern_fill, random_has_no_header_and_no_zeros)
{
	struct testfs_pattern r = random_seed(0);
	unsigned char *a = fill(&r, "r", 0, PAGE);
	size_t i, zeros = 0;

	cr_assert_neq(memcmp(a, "testfs", 6), 0);
	for (i = 0; i < PAGE; i++)
		zeros += a[i] == 0;
	cr_assert_lt(zeros, 64, "%zu zero bytes in a random page", zeros);
	free(a);
}

Test(pattern_fill, generator_matches_public_fill)
{
	struct testfs_pattern pats[] = { stamp, zero, random_seed(11) };
	struct pattern_source src;
	unsigned char gen[5000];
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		unsigned char *want = fill(&pats[i], "g/en.bin", 333, 5000);

		pattern_source_init(&src, &pats[i], "g/en.bin");
		pattern_generate(&src, 333, gen, sizeof(gen));
		cr_assert_arr_eq(gen, want, sizeof(gen), "pattern %zu", i);
		free(want);
	}
}

/* --- the generators against a slow reference --- */

/*
 * The generator as first written, kept here as the definition of the
 * bytes: a snprintf() header and one mix64() per word, one byte at a time.
 * Every fast generator must produce exactly this.
 */
static uint64_t ref_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t ref_key(const struct testfs_pattern *p, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (p->kind == TESTFS_PATTERN_RANDOM)
		return ref_mix64(p->seed ^ 0x7465737466735f72ull);
	for (; *name; name++) {
		h ^= (unsigned char)*name;
		h *= 0x100000001b3ull;
	}
	return h;
}

static void ref_fill(const struct testfs_pattern *p, const char *name,
		     uint64_t off, unsigned char *buf, size_t len)
{
	uint64_t key = ref_key(p, name), page = UINT64_MAX, o, v;
	char hdr[HDR + 1];
	size_t i;
	int n;

	for (i = 0; i < len; i++) {
		o = off + i;
		if (p->kind == TESTFS_PATTERN_ZERO) {
			buf[i] = 0;
			continue;
		}
		if (p->kind == TESTFS_PATTERN_STAMP && o % PAGE < HDR) {
			if (o / PAGE != page) {
				page = o / PAGE;
				n = snprintf(hdr, sizeof(hdr),
					     "testfs page %llu file %s",
					     (unsigned long long)page, name);
				if (n > (int)HDR - 1)
					n = HDR - 1;
				memset(hdr + n, ' ', HDR - 1 - (size_t)n);
				hdr[HDR - 1] = '\n';
			}
			buf[i] = (unsigned char)hdr[o % PAGE];
			continue;
		}
		v = ref_mix64(key + (o / 8) * 0x9e3779b97f4a7c15ull);
		buf[i] = (unsigned char)(v >> (8 * (o % 8)));
	}
}

/* xorshift64*: the same cases in every run. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static const char *const generators[] = { "avx512", "avx2", "scalar" };

#define NGEN (sizeof(generators) / sizeof(generators[0]))

/* Names around the header's cut (the name starts at byte 19 to 38). */
static void make_names(char names[][320], size_t *count)
{
	static const char *const fixed[] = {
		"a", "big.bin", "dir/nested.bin", "sp ace", "\xc3\xa9t\xc3\xa9",
	};
	size_t i, n = 0, len;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		snprintf(names[n++], 320, "%s", fixed[i]);
	for (len = 20; len <= 50; len++) {
		for (i = 0; i < len; i++)
			names[n][i] = (char)('a' + (len + i) % 26);
		names[n++][len] = '\0';
	}
	memset(names[n], 'L', 300);
	names[n++][300] = '\0';
	*count = n;
}

/* Asserts that @len bytes at @off are the reference bytes, three ways. */
static void compare_range(const char *gen, const struct testfs_pattern *p,
			  const char *name, uint64_t off, size_t len,
			  unsigned char *got, unsigned char *want)
{
	struct pattern_source src;
	size_t i;

	ref_fill(p, name, off, want, len);
	memset(got, 0xa5, len + 1);
	pattern_source_init(&src, p, name);
	pattern_generate(&src, off, got, len);
	if (memcmp(got, want, len) != 0) {
		for (i = 0; got[i] == want[i]; i++)
			;
		cr_assert_fail("%s: kind %d name \"%.40s\" off %llu len %zu: "
			       "byte %zu is %#x, want %#x",
			       gen, p->kind, name, (unsigned long long)off, len,
			       i, got[i], want[i]);
	}
	cr_assert_eq(got[len], 0xa5, "%s: wrote past the end", gen);
	memset(got, 0x5a, len);
	testfs_pattern_fill(p, name, off, got, len);
	cr_assert_arr_eq(got, want, len, "%s: testfs_pattern_fill", gen);
	cr_assert_eq(testfs_pattern_verify(p, name, off, want, len, NULL), 0,
		     "%s: verify of the reference bytes", gen);
}

Test(pattern_generators, match_the_reference)
{
	static char names[64][320];
	const size_t max_len = 3 * PAGE + 200;
	unsigned char *got = malloc(max_len + 1);
	unsigned char *want = malloc(max_len);
	uint64_t rnd = 0x1234567887654321ull, off, page;
	struct testfs_pattern p;
	size_t g, n, names_count, len, tested = 0;

	cr_assert(got && want);
	make_names(names, &names_count);
	for (g = 0; g < NGEN; g++) {
		if (pattern_select_words(generators[g]) == -ENOTSUP) {
			cr_log_info("generator %s: not on this CPU",
				    generators[g]);
			continue;
		}
		cr_assert_str_eq(pattern_words_name(), generators[g]);
		tested++;
		for (n = 0; n < 1500; n++) {
			switch (n % 4) {
			case 0:
			case 1:
				p = stamp;
				break;
			case 2:
				p = random_seed(next_rand(&rnd) % 4);
				break;
			default:
				p = zero;
			}
			/* Small pages, large ones, the last of 2^62 bytes. */
			page = next_rand(&rnd);
			page = n % 3 == 0   ? page % 1000
			       : n % 3 == 1 ? page % (1ull << 50)
					    : (1ull << 50) - 1 - page % 4;
			/* Aligned whole pages, or any start and length. */
			if (n % 5 == 0) {
				off = page * PAGE;
				len = PAGE * (1 + next_rand(&rnd) % 3);
			} else {
				off = page * PAGE + next_rand(&rnd) % PAGE;
				len = 1 + next_rand(&rnd) % max_len;
			}
			compare_range(generators[g], &p, names[n % names_count],
				      off, len, got, want);
		}
	}
	cr_assert_geq(tested, 1, "no generator ran");
	free(got);
	free(want);
}

Test(pattern_generators, every_header_cut_and_page_digit_count)
{
	static char names[64][320];
	unsigned char got[2 * PAGE + 1], want[2 * PAGE];
	struct testfs_pattern p = stamp;
	uint64_t page = 0;
	size_t g, i, digits, names_count;

	make_names(names, &names_count);
	for (g = 0; g < NGEN; g++) {
		if (pattern_select_words(generators[g]) == -ENOTSUP)
			continue;
		for (i = 0; i < names_count; i++) {
			/* 0, 9, 10, 99, 100 ... up to 16 digits. */
			for (digits = 0, page = 0; digits < 16; digits++) {
				compare_range(generators[g], &p, names[i],
					      page * PAGE, 2 * PAGE, got, want);
				compare_range(generators[g], &p, names[i],
					      (page + 1) * PAGE - 70, 140, got,
					      want);
				page = page ? page * 10 : 9;
				compare_range(generators[g], &p, names[i],
					      page * PAGE, PAGE, got, want);
				page++;
			}
		}
	}
}

Test(pattern_generators, select_unknown)
{
	cr_assert_eq(pattern_select_words("sse9"), -EINVAL);
	cr_assert_eq(pattern_select_words("scalar"), 0);
	cr_assert_str_eq(pattern_words_name(), "scalar");
}

/* --- verify --- */

Test(pattern_verify, correct_data)
{
	const struct testfs_pattern pats[] = { stamp, zero, random_seed(4) };
	uint64_t bad = 999;
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		unsigned char *buf = fill(&pats[i], "v.bin", 100, 10000);

		cr_assert_eq(testfs_pattern_verify(&pats[i], "v.bin", 100, buf,
						   10000, &bad),
			     0, "pattern %zu", i);
		cr_assert_eq(bad, 999, "bad_off written on success");
		free(buf);
	}
}

static void flip_and_check(const struct testfs_pattern *p, uint64_t off,
			   size_t len, size_t at)
{
	unsigned char *buf = fill(p, "v.bin", off, len);
	uint64_t bad = 0;
	int ret;

	buf[at] ^= 0x01;
	ret = testfs_pattern_verify(p, "v.bin", off, buf, len, &bad);
	cr_assert_eq(ret, -EILSEQ, "flip at %zu: ret %d", at, ret);
	cr_assert_eq(bad, off + at, "flip at %zu: bad_off %llu, want %llu", at,
		     (unsigned long long)bad, (unsigned long long)(off + at));
	/* A NULL bad_off is allowed. */
	ret = testfs_pattern_verify(p, "v.bin", off, buf, len, NULL);
	cr_assert_eq(ret, -EILSEQ);
	free(buf);
}

Test(pattern_verify, reports_first_bad_offset)
{
	struct testfs_pattern r = random_seed(4);

	flip_and_check(&stamp, 100, 10000, 0);
	flip_and_check(&stamp, 100, 10000, 5);
	flip_and_check(&stamp, 100, 10000, 4096 - 100);
	flip_and_check(&stamp, 100, 10000, 4096 - 100 + 63);
	flip_and_check(&stamp, 100, 10000, 7777);
	flip_and_check(&stamp, 100, 10000, 9999);
	flip_and_check(&zero, 0, 8192, 4097);
	flip_and_check(&r, 1ull << 40, 3 * PAGE, 2 * PAGE + 1);
}

Test(pattern_verify, first_of_two_bad_bytes)
{
	unsigned char *buf = fill(&stamp, "v.bin", 0, 3 * PAGE);
	uint64_t bad = 0;

	buf[2 * PAGE + 7] ^= 0xff;
	buf[PAGE + 300] ^= 0xff;
	cr_assert_eq(
		testfs_pattern_verify(&stamp, "v.bin", 0, buf, 3 * PAGE, &bad),
		-EILSEQ);
	cr_assert_eq(bad, PAGE + 300);
	free(buf);
}

Test(pattern_verify, wrong_name_or_offset)
{
	unsigned char *buf = fill(&stamp, "v.bin", 0, PAGE);
	uint64_t bad = 0;

	cr_assert_eq(testfs_pattern_verify(&stamp, "w.bin", 0, buf, PAGE, &bad),
		     -EILSEQ);
	/* "testfs page 0 file " is shared; the name differs first. */
	cr_assert_eq(bad, strlen("testfs page 0 file "));
	cr_assert_eq(
		testfs_pattern_verify(&stamp, "v.bin", PAGE, buf, PAGE, &bad),
		-EILSEQ);
	cr_assert_eq(bad, PAGE + strlen("testfs page "));
	free(buf);
}

Test(pattern_verify, text_api)
{
	unsigned char *buf = fill(&stamp, "t.bin", 50, 5000);
	struct testfs_pattern r = random_seed(42);
	unsigned char *rbuf = fill(&r, "t.bin", 0, 100);
	uint64_t bad = 0;

	cr_assert_eq(testfs_verify("stamp", "t.bin", 50, buf, 5000, &bad), 0);
	cr_assert_eq(testfs_verify("random:42", "t.bin", 0, rbuf, 100, NULL),
		     0);
	cr_assert_eq(testfs_verify("random:43", "t.bin", 0, rbuf, 100, &bad),
		     -EILSEQ);
	cr_assert_eq(testfs_verify("zero", "t.bin", 50, buf, 5000, &bad),
		     -EILSEQ);
	cr_assert_eq(bad, 50);
	free(buf);
	free(rbuf);
}

Test(pattern_verify, text_api_bad_pattern)
{
	unsigned char buf[16] = { 0 };

	cr_assert_eq(testfs_verify("bogus", "t", 0, buf, sizeof(buf), NULL),
		     -EINVAL);
	cr_assert_eq(testfs_verify("", "t", 0, buf, sizeof(buf), NULL),
		     -EINVAL);
	cr_assert_eq(testfs_verify(NULL, "t", 0, buf, sizeof(buf), NULL),
		     -EINVAL);
	cr_assert_eq(testfs_verify("random:", "t", 0, buf, sizeof(buf), NULL),
		     -EINVAL);
}
