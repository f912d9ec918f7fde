// SPDX-License-Identifier: MIT
/*
 * libtestfs without a mount: page extents (against a bitmap model), the
 * set queries and checks on hand-made log snapshots, and the client
 * helpers on a regular file posing as a mount.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib_fake_log.h"
#include "lib_i.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* Builds a set from "first last" pairs, ending with UINT64_MAX. */
static void build(struct testfs_extents *e, ...)
{
	va_list ap;
	uint64_t first, last;

	va_start(ap, e);
	for (;;) {
		first = va_arg(ap, uint64_t);
		if (first == UINT64_MAX)
			break;
		last = va_arg(ap, uint64_t);
		cr_assert_eq(testfs_extents_add(e, first, last), 0);
	}
	va_end(ap);
}

#define END UINT64_MAX
#define U(x) ((uint64_t)(x))

static const char *fmt(const struct testfs_extents *e)
{
	static char buf[4096];

	testfs_extents_format(e, buf, sizeof(buf));
	return buf;
}

static void expect(const struct testfs_extents *e, const char *want,
		   uint64_t pages)
{
	cr_assert_str_eq(fmt(e), want);
	cr_assert_eq(e->pages, pages,
		     "%s: pages %" PRIu64 ", expected %" PRIu64, want, e->pages,
		     pages);
}

/* Sorted, non-empty, neither overlapping nor touching, pages right. */
static void assert_canonical(const struct testfs_extents *e)
{
	uint64_t pages = 0;
	size_t i;

	cr_assert_leq(e->n, e->cap);
	for (i = 0; i < e->n; i++) {
		cr_assert_leq(e->v[i].first, e->v[i].last);
		if (i)
			cr_assert_gt(e->v[i].first, e->v[i - 1].last + 1,
				     "extents %zu and %zu touch: %s", i - 1, i,
				     fmt(e));
		pages += e->v[i].last - e->v[i].first + 1;
	}
	cr_assert_eq(pages, e->pages);
}

/* xorshift64*: the tests' own reproducible generator. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* ------------------------------------------------------------------ */
/* Extents                                                             */
/* ------------------------------------------------------------------ */

Test(extents, empty)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;

	expect(&e, "(none)", 0);
	cr_assert_not(testfs_extents_contains(&e, 0));
	cr_assert_not(testfs_extents_contains(&e, UINT64_MAX));
	testfs_extents_free(&e);
	testfs_extents_free(&e);
	testfs_extents_free(NULL);
}

Test(extents, add_rejects_reversed)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;

	cr_assert_eq(testfs_extents_add(&e, 5, 4), -EINVAL);
	cr_assert_eq(testfs_extents_add(NULL, 1, 2), -EINVAL);
	expect(&e, "(none)", 0);
}

Test(extents, add_disjoint_sorts)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;

	build(&e, U(20), U(29), U(0), U(4), U(10), U(12), U(40), U(40), END);
	expect(&e, "[0, 4] [10, 12] [20, 29] [40, 40]", 19);
	cr_assert_eq(e.n, 4);
	assert_canonical(&e);
	testfs_extents_free(&e);
}

Test(extents, add_merges_adjacent)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;

	build(&e, U(0), U(4), U(5), U(9), END);
	expect(&e, "[0, 9]", 10);
	/* adjacent on the left */
	build(&e, U(20), U(29), U(15), U(19), END);
	expect(&e, "[0, 9] [15, 29]", 25);
	/* a single page closing a one-page gap */
	build(&e, U(11), U(13), U(10), U(10), U(14), U(14), END);
	expect(&e, "[0, 29]", 30);
	cr_assert_eq(e.n, 1);
	testfs_extents_free(&e);
}

Test(extents, add_merges_overlapping_runs)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;

	build(&e, U(0), U(1), U(4), U(5), U(8), U(9), U(12), U(13), U(30),
	      U(31), END);
	build(&e, U(1), U(8), END);
	expect(&e, "[0, 9] [12, 13] [30, 31]", 14);
	/* spanning everything */
	build(&e, U(2), U(100), END);
	expect(&e, "[0, 100]", 101);
	/* contained: no change */
	build(&e, U(50), U(60), U(0), U(0), U(100), U(100), END);
	expect(&e, "[0, 100]", 101);
	assert_canonical(&e);
	testfs_extents_free(&e);
}

Test(extents, add_bridges_both_sides)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;

	build(&e, U(0), U(2), U(6), U(8), U(20), U(21), END);
	build(&e, U(3), U(5), END);
	expect(&e, "[0, 8] [20, 21]", 11);
	cr_assert_eq(e.n, 2);
	testfs_extents_free(&e);
}

Test(extents, limits_of_uint64)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	const uint64_t M = UINT64_MAX;

	cr_assert_eq(testfs_extents_add(&e, M, M), 0);
	cr_assert_eq(testfs_extents_add(&e, 0, 0), 0);
	cr_assert_eq(testfs_extents_add(&e, M - 5, M - 2), 0);
	cr_assert_eq(e.n, 3);
	cr_assert_eq(testfs_extents_add(&e, M - 1, M - 1), 0);
	cr_assert_eq(e.n, 2);
	cr_assert_eq(e.v[1].first, M - 5);
	cr_assert_eq(e.v[1].last, M);
	cr_assert_eq(e.pages, 7);
	cr_assert(testfs_extents_contains(&e, M));
	cr_assert(testfs_extents_contains(&e, 0));
	cr_assert_not(testfs_extents_contains(&e, 1));
	cr_assert_not(testfs_extents_contains(&e, M - 6));
	cr_assert_str_eq(fmt(&e),
			 "[0, 0] [18446744073709551610, 18446744073709551615]");
	assert_canonical(&e);
	testfs_extents_free(&e);
}

Test(extents, contains)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	uint64_t p;

	build(&e, U(10), U(19), U(30), U(30), U(1000), U(1999), END);
	for (p = 0; p < 2100; p++) {
		bool in = (p >= 10 && p <= 19) || p == 30 ||
			  (p >= 1000 && p <= 1999);

		cr_assert_eq(testfs_extents_contains(&e, p), in,
			     "page %" PRIu64, p);
	}
	cr_assert_not(testfs_extents_contains(NULL, 10));
	testfs_extents_free(&e);
}

Test(extents, equal)
{
	struct testfs_extents a = TESTFS_EXTENTS_INIT;
	struct testfs_extents b = TESTFS_EXTENTS_INIT;
	struct testfs_extents c = TESTFS_EXTENTS_INIT;

	cr_assert(testfs_extents_equal(&a, &b));
	build(&a, U(0), U(9), U(20), U(29), END);
	cr_assert_not(testfs_extents_equal(&a, &b));
	/* the same pages added another way */
	build(&b, U(25), U(29), U(0), U(3), U(20), U(24), U(4), U(9), END);
	cr_assert(testfs_extents_equal(&a, &b));
	cr_assert(testfs_extents_equal(&b, &a));
	/* same count, different pages */
	build(&c, U(0), U(9), U(20), U(28), END);
	cr_assert_not(testfs_extents_equal(&a, &c));
	testfs_extents_add(&c, 30, 30);
	cr_assert_not(testfs_extents_equal(&a, &c));
	testfs_extents_free(&a);
	testfs_extents_free(&b);
	testfs_extents_free(&c);
}

Test(extents, free_then_reuse)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;

	build(&e, U(1), U(2), U(5), U(6), END);
	testfs_extents_free(&e);
	cr_assert_null(e.v);
	cr_assert_eq(e.n, 0);
	cr_assert_eq(e.cap, 0);
	cr_assert_eq(e.pages, 0);
	build(&e, U(7), U(7), END);
	expect(&e, "[7, 7]", 1);
	testfs_extents_free(&e);
}

Test(extents, grows_to_many_and_collapses)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	uint64_t i;

	/* every other page, in a scrambled order */
	for (i = 0; i < 20000; i++)
		cr_assert_eq(testfs_extents_add(&e, (i * 7919 % 20000) * 2,
						(i * 7919 % 20000) * 2),
			     0);
	cr_assert_eq(e.n, 20000);
	cr_assert_eq(e.pages, 20000);
	cr_assert_geq(e.cap, e.n);
	cr_assert_lt(e.cap, 2 * e.n + 16, "capacity %zu", e.cap);
	assert_canonical(&e);
	cr_assert(testfs_extents_contains(&e, 39998));
	cr_assert_not(testfs_extents_contains(&e, 39997));
	cr_assert_eq(testfs_extents_add(&e, 1, 39997), 0);
	expect(&e, "[0, 39998]", 39999);
	testfs_extents_free(&e);
}

/* ------------------------------------------------------------------ */
/* Format                                                              */
/* ------------------------------------------------------------------ */

Test(format, exact)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	char buf[64];

	cr_assert_eq(testfs_extents_format(&e, buf, sizeof(buf)), 6);
	cr_assert_str_eq(buf, "(none)");
	build(&e, U(0), U(0), END);
	cr_assert_eq(testfs_extents_format(&e, buf, sizeof(buf)), 6);
	cr_assert_str_eq(buf, "[0, 0]");
	build(&e, U(4), U(8), U(1), U(2), END);
	cr_assert_eq(testfs_extents_format(&e, buf, sizeof(buf)), 13);
	cr_assert_str_eq(buf, "[0, 2] [4, 8]");
	testfs_extents_free(&e);
}

Test(format, abbreviates_keeping_the_last)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	const char *full = "[0, 0] [2, 2] [4, 4] [6, 6] [100, 200]";
	size_t len = strlen(full);
	char buf[64];

	build(&e, U(0), U(0), U(2), U(2), U(4), U(4), U(6), U(6), U(100),
	      U(200), END);
	/* exactly fits */
	memset(buf, 'x', sizeof(buf));
	cr_assert_eq(testfs_extents_format(&e, buf, len + 1), len);
	cr_assert_str_eq(buf, full);
	/* one short: as many leading extents as leave room for the last */
	cr_assert_eq(testfs_extents_format(&e, buf, len), 35);
	cr_assert_str_eq(buf, "[0, 0] [2, 2] [4, 4] ... [100, 200]");
	cr_assert_eq(testfs_extents_format(&e, buf, 30), 28);
	cr_assert_str_eq(buf, "[0, 0] [2, 2] ... [100, 200]");
	cr_assert_eq(testfs_extents_format(&e, buf, 29), 28);
	cr_assert_str_eq(buf, "[0, 0] [2, 2] ... [100, 200]");
	cr_assert_eq(testfs_extents_format(&e, buf, 28), 21);
	cr_assert_str_eq(buf, "[0, 0] ... [100, 200]");
	cr_assert_eq(testfs_extents_format(&e, buf, 22), 21);
	cr_assert_eq(testfs_extents_format(&e, buf, 21), 14);
	cr_assert_str_eq(buf, "... [100, 200]");
	cr_assert_eq(testfs_extents_format(&e, buf, 15), 14);
	cr_assert_str_eq(buf, "... [100, 200]");
	/* not even the last extent fits */
	cr_assert_eq(testfs_extents_format(&e, buf, 14), 3);
	cr_assert_str_eq(buf, "...");
	testfs_extents_free(&e);
}

Test(format, tiny_buffers)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	struct testfs_extents none = TESTFS_EXTENTS_INIT;
	char buf[8];

	build(&e, U(10), U(20), U(30), U(40), END);
	memset(buf, 'x', sizeof(buf));
	cr_assert_eq(testfs_extents_format(&e, buf, 0), 0);
	cr_assert_eq(buf[0], 'x', "size 0 must not write");
	cr_assert_eq(testfs_extents_format(&e, NULL, 0), 0);
	cr_assert_eq(testfs_extents_format(&e, buf, 1), 0);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(testfs_extents_format(&e, buf, 2), 1);
	cr_assert_str_eq(buf, ".");
	cr_assert_eq(testfs_extents_format(&e, buf, 4), 3);
	cr_assert_str_eq(buf, "...");
	cr_assert_eq(testfs_extents_format(&e, buf, 8), 3);
	cr_assert_str_eq(buf, "...");
	cr_assert_eq(testfs_extents_format(&none, buf, 4), 3);
	cr_assert_str_eq(buf, "(no");
	cr_assert_eq(testfs_extents_format(&none, buf, 7), 6);
	cr_assert_str_eq(buf, "(none)");
	testfs_extents_free(&e);
}

Test(format, every_size_terminates)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	char buf[200];
	size_t size, len;
	uint64_t p;

	for (p = 0; p < 40; p += 3)
		testfs_extents_add(&e, p * 1000, p * 1000 + p);
	for (size = 1; size <= sizeof(buf); size++) {
		memset(buf, 'x', sizeof(buf));
		len = testfs_extents_format(&e, buf, size);
		cr_assert_lt(len, size);
		cr_assert_eq(strlen(buf), len, "size %zu", size);
		if (size < sizeof(buf))
			cr_assert_eq(buf[size], 'x', "wrote past size %zu",
				     size);
		if (len >= 14)
			cr_assert(strstr(buf, "[39000, 39039]"),
				  "size %zu: \"%s\" lost the last extent", size,
				  buf);
	}
	testfs_extents_free(&e);
}

/* ------------------------------------------------------------------ */
/* Subtract                                                            */
/* ------------------------------------------------------------------ */

static void sub_case(const char *want, uint64_t pages, ...)
{
	struct testfs_extents a = TESTFS_EXTENTS_INIT;
	struct testfs_extents b = TESTFS_EXTENTS_INIT;
	struct testfs_extents out = TESTFS_EXTENTS_INIT;
	struct testfs_extents *cur = &a;
	va_list ap;
	uint64_t first, last;

	va_start(ap, pages);
	for (;;) {
		first = va_arg(ap, uint64_t);
		if (first == UINT64_MAX) {
			if (cur == &b)
				break;
			cur = &b;
			continue;
		}
		last = va_arg(ap, uint64_t);
		cr_assert_eq(testfs_extents_add(cur, first, last), 0);
	}
	va_end(ap);
	/* leftovers in out are discarded */
	testfs_extents_add(&out, 5000, 5001);
	cr_assert_eq(testfs_extents_subtract(&a, &b, &out), 0);
	expect(&out, want, pages);
	assert_canonical(&out);
	testfs_extents_free(&a);
	testfs_extents_free(&b);
	testfs_extents_free(&out);
}

Test(subtract, cases)
{
	/* a ... END, b ... END */
	sub_case("(none)", 0, END, END);
	sub_case("[0, 9]", 10, U(0), U(9), END, END);
	sub_case("(none)", 0, END, U(0), U(9), END);
	sub_case("[0, 9]", 10, U(0), U(9), END, U(10), U(19), END);
	sub_case("(none)", 0, U(0), U(9), END, U(0), U(9), END);
	sub_case("(none)", 0, U(3), U(5), END, U(0), U(9), END);
	sub_case("[0, 2] [6, 9]", 7, U(0), U(9), END, U(3), U(5), END);
	sub_case("[1, 9]", 9, U(0), U(9), END, U(0), U(0), END);
	sub_case("[0, 8]", 9, U(0), U(9), END, U(9), U(9), END);
	sub_case("[0, 1] [3, 3] [5, 9]", 8, U(0), U(9), END, U(2), U(2), U(4),
		 U(4), END);
	/* one b extent across several a extents */
	sub_case("[0, 1] [28, 29]", 4, U(0), U(4), U(10), U(14), U(20), U(29),
		 END, U(2), U(27), END);
	/* b extents before, between and after */
	sub_case("[10, 14] [22, 24]", 8, U(10), U(14), U(20), U(24), END, U(0),
		 U(5), U(15), U(21), U(30), U(40), END);
	sub_case("[0, 18446744073709551613]", UINT64_MAX - 1, U(0),
		 UINT64_MAX - 1, END, UINT64_MAX - 1, UINT64_MAX - 1, END);
	sub_case("[1, 18446744073709551614]", UINT64_MAX - 1, U(1),
		 UINT64_MAX - 1, END, U(0), U(0), END);
}

Test(subtract, out_may_alias_an_input)
{
	struct testfs_extents a = TESTFS_EXTENTS_INIT;
	struct testfs_extents b = TESTFS_EXTENTS_INIT;

	build(&a, U(0), U(99), END);
	build(&b, U(10), U(19), U(50), U(59), END);
	cr_assert_eq(testfs_extents_subtract(&a, &b, &a), 0);
	expect(&a, "[0, 9] [20, 49] [60, 99]", 80);
	build(&a, U(0), U(99), END);
	cr_assert_eq(testfs_extents_subtract(&a, &b, &b), 0);
	expect(&b, "[0, 9] [20, 49] [60, 99]", 80);
	testfs_extents_free(&a);
	testfs_extents_free(&b);
}

/* ------------------------------------------------------------------ */
/* Against a bitmap model                                              */
/* ------------------------------------------------------------------ */

#define MODEL_PAGES 2000

struct model {
	bool page[MODEL_PAGES];
};

static void add_both(struct testfs_extents *e, struct model *m, uint64_t *s)
{
	uint64_t first = rnd(s) % MODEL_PAGES;
	uint64_t len = 1 + rnd(s) % (rnd(s) % 4 ? 8 : 120);
	uint64_t last = first + len - 1, p;

	if (last >= MODEL_PAGES)
		last = MODEL_PAGES - 1;
	cr_assert_eq(testfs_extents_add(e, first, last), 0);
	for (p = first; p <= last; p++)
		m->page[p] = true;
}

static void assert_matches(const struct testfs_extents *e,
			   const struct model *m, const char *what)
{
	struct testfs_extents want = TESTFS_EXTENTS_INIT;
	uint64_t p, q;

	assert_canonical(e);
	for (p = 0; p < MODEL_PAGES; p++) {
		cr_assert_eq(testfs_extents_contains(e, p), m->page[p],
			     "%s: page %" PRIu64, what, p);
	}
	cr_assert_not(testfs_extents_contains(e, MODEL_PAGES));
	/* the canonical form of the model, built run by run */
	for (p = 0; p < MODEL_PAGES; p = q) {
		for (q = p; q < MODEL_PAGES && m->page[q] == m->page[p]; q++)
			;
		if (m->page[p])
			cr_assert_eq(testfs_extents_add(&want, p, q - 1), 0);
	}
	cr_assert(testfs_extents_equal(e, &want), "%s: %s", what, fmt(e));
	testfs_extents_free(&want);
}

Test(model, add_and_subtract_random)
{
	uint64_t seed, s, p;
	int round, i;

	for (seed = 1; seed <= 40; seed++) {
		struct testfs_extents a = TESTFS_EXTENTS_INIT;
		struct testfs_extents b = TESTFS_EXTENTS_INIT;
		struct testfs_extents d = TESTFS_EXTENTS_INIT;
		struct model ma = { { false } }, mb = { { false } }, md;

		s = seed * 0x9e3779b97f4a7c15ull;
		round = 20 + (int)(rnd(&s) % 200);
		for (i = 0; i < round; i++) {
			add_both(&a, &ma, &s);
			if (i % 8 == 0)
				assert_matches(&a, &ma, "add");
			if (rnd(&s) % 2)
				add_both(&b, &mb, &s);
		}
		assert_matches(&a, &ma, "a");
		assert_matches(&b, &mb, "b");
		for (p = 0; p < MODEL_PAGES; p++)
			md.page[p] = ma.page[p] && !mb.page[p];
		cr_assert_eq(testfs_extents_subtract(&a, &b, &d), 0);
		assert_matches(&d, &md, "a - b");
		for (p = 0; p < MODEL_PAGES; p++)
			md.page[p] = mb.page[p] && !ma.page[p];
		cr_assert_eq(testfs_extents_subtract(&b, &a, &d), 0);
		assert_matches(&d, &md, "b - a");
		testfs_extents_free(&a);
		testfs_extents_free(&b);
		testfs_extents_free(&d);
	}
}

/* ------------------------------------------------------------------ */
/* Queries on hand-made snapshots                                      */
/* ------------------------------------------------------------------ */

Test(queries, fetched_and_requests)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	struct fake_log f;

	fake_readahead(&f);
	testfs_extents_add(&e, 1, 1);
	cr_assert_eq(testfs_log_fetched(&f.log, "big.bin", &e), 0);
	expect(&e, "[896, 2431]", 1536);
	cr_assert_eq(testfs_log_fetched(&f.log, "other.bin", &e), 0);
	expect(&e, "[0, 0] [1000, 1031]", 33);
	cr_assert_eq(testfs_log_fetched(&f.log, "missing.bin", &e), 0);
	expect(&e, "(none)", 0);
	cr_assert_eq(testfs_log_refetched(&f.log, "big.bin", &e), 0);
	expect(&e, "(none)", 0);
	cr_assert_eq(testfs_log_fetched(NULL, "big.bin", &e), -EINVAL);
	testfs_extents_free(&e);
}

Test(queries, refetched)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	struct fake_log f;

	fake_init(&f);
	fake_read(&f, "big.bin", 0, 32);
	fake_read(&f, "big.bin", 16, 32);
	fake_read(&f, "big.bin", 40, 8);
	fake_read(&f, "big.bin", 100, 10);
	fake_read(&f, "big.bin", 0, 4);
	fake_read(&f, "big.bin", 110, 10);
	fake_read(&f, "other.bin", 100, 10);
	cr_assert_eq(testfs_log_fetched(&f.log, "big.bin", &e), 0);
	expect(&e, "[0, 47] [100, 119]", 68);
	cr_assert_eq(testfs_log_refetched(&f.log, "big.bin", &e), 0);
	expect(&e, "[0, 3] [16, 31] [40, 47]", 28);
	testfs_extents_free(&e);
}

/* Per-page fetch counts of random records against the queries. */
Test(queries, refetched_random_model)
{
	uint64_t seed, s, p, i;

	for (seed = 1; seed <= 30; seed++) {
		struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
		struct testfs_extents again = TESTFS_EXTENTS_INIT;
		unsigned count[MODEL_PAGES] = { 0 };
		uint64_t lo, hi, before = 0, after = 0, nb, na;
		struct fake_log f;
		int64_t total;

		fake_init(&f);
		s = seed * 0xd1b54a32d192ed03ull;
		for (i = 0; i < MAX_RECS; i++) {
			uint64_t first = rnd(&s) % (MODEL_PAGES - 64);
			uint64_t n = 1 + rnd(&s) % 64;

			fake_read(&f, i % 5 ? "big.bin" : "other.bin", first,
				  n);
			if (i % 5)
				for (p = first; p < first + n; p++)
					count[p]++;
		}
		lo = rnd(&s) % MODEL_PAGES;
		hi = lo + rnd(&s) % (MODEL_PAGES - lo);
		for (p = 0; p < MODEL_PAGES; p++) {
			before += p < lo && count[p];
			after += p > hi && count[p];
		}
		cr_assert_eq(testfs_log_fetched(&f.log, "big.bin", &fetched),
			     0);
		cr_assert_eq(testfs_log_refetched(&f.log, "big.bin", &again),
			     0);
		for (p = 0; p < MODEL_PAGES; p++) {
			cr_assert_eq(testfs_extents_contains(&fetched, p),
				     count[p] > 0,
				     "seed %" PRIu64 " page %" PRIu64, seed, p);
			cr_assert_eq(testfs_extents_contains(&again, p),
				     count[p] > 1,
				     "seed %" PRIu64 " page %" PRIu64, seed, p);
		}
		assert_canonical(&fetched);
		assert_canonical(&again);
		total = testfs_log_outside(&f.log, "big.bin", lo, hi, &nb, &na);
		cr_assert_eq(nb, before);
		cr_assert_eq(na, after);
		cr_assert_eq(total, (int64_t)(before + after));
		testfs_extents_free(&fetched);
		testfs_extents_free(&again);
	}
}

Test(queries, outside)
{
	uint64_t before = 7, after = 7;
	struct fake_log f;

	fake_readahead(&f);
	cr_assert_eq(testfs_log_outside(&f.log, "big.bin", 1024, 2047, &before,
					&after),
		     512);
	cr_assert_eq(before, 128);
	cr_assert_eq(after, 384);
	cr_assert_eq(testfs_log_outside(&f.log, "big.bin", 896, 2431, &before,
					&after),
		     0);
	cr_assert_eq(before, 0);
	cr_assert_eq(after, 0);
	cr_assert_eq(testfs_log_outside(&f.log, "big.bin", 0, 0, NULL, &after),
		     1536);
	cr_assert_eq(after, 1536);
	cr_assert_eq(testfs_log_outside(&f.log, "big.bin", 5000, UINT64_MAX,
					&before, NULL),
		     1536);
	cr_assert_eq(before, 1536);
	cr_assert_eq(
		testfs_log_outside(&f.log, "big.bin", 2000, 1999, NULL, NULL),
		-EINVAL);
	cr_assert_eq(
		testfs_log_outside(&f.log, "none.bin", 0, 9, &before, &after),
		0);
	cr_assert_eq(before + after, 0);
}

Test(queries, outside_counts_a_page_once)
{
	uint64_t before, after;
	struct fake_log f;

	fake_init(&f);
	fake_read(&f, "big.bin", 1000, 10);
	fake_read(&f, "big.bin", 1000, 10);
	fake_read(&f, "big.bin", 1003, 20);
	cr_assert_eq(testfs_log_outside(&f.log, "big.bin", 1005, 1020, &before,
					&after),
		     7);
	cr_assert_eq(before, 5);
	cr_assert_eq(after, 2);
}

Test(queries, never_fetched)
{
	struct testfs_extents accessed = TESTFS_EXTENTS_INIT;
	struct testfs_extents out = TESTFS_EXTENTS_INIT;
	struct fake_log f;

	fake_readahead(&f);
	build(&accessed, U(0), U(9), U(1000), U(1009), U(2430), U(2440), END);
	cr_assert_eq(
		testfs_log_never_fetched(&f.log, "big.bin", &accessed, &out),
		0);
	expect(&out, "[0, 9] [2432, 2440]", 19);
	cr_assert_eq(testfs_log_never_fetched(&f.log, "big.bin", &accessed,
					      &accessed),
		     0);
	expect(&accessed, "[0, 9] [2432, 2440]", 19);
	testfs_extents_free(&accessed);
	testfs_extents_free(&out);
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

Test(checks, within)
{
	struct fake_log f;
	char *why = (char *)"untouched";

	fake_readahead(&f);
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 896, 2431, &why),
		     0);
	cr_assert_null(why);
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 1024, 2047, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: readahead fetched 384 pages past and 128 pages before the range [1024, 2047]: expected within [1024, 2047], observed [896, 2431] (1536 pages in 6 requests)");
	free(why);
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 896, 2047, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: readahead fetched 384 pages past the range [896, 2047]: expected within [896, 2047], observed [896, 2431] (1536 pages in 6 requests)");
	free(why);
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 897, 5000, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: readahead fetched 1 page before the range [897, 5000]: expected within [897, 5000], observed [896, 2431] (1536 pages in 6 requests)");
	free(why);
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 5, 4, &why),
		     -EINVAL);
	cr_assert_null(why);
	/* a NULL why still answers */
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 0, 9, NULL), 1);
}

Test(checks, fetched)
{
	struct testfs_extents want = TESTFS_EXTENTS_INIT;
	struct fake_log f;
	char *why = NULL;

	fake_readahead(&f);
	build(&want, U(896), U(2431), END);
	cr_assert_eq(testfs_check_fetched(&f.log, "big.bin", &want, &why), 0);
	cr_assert_null(why);
	testfs_extents_free(&want);
	build(&want, U(1024), U(2047), U(3000), U(3001), END);
	cr_assert_eq(testfs_check_fetched(&f.log, "big.bin", &want, &why), 1);
	cr_assert_str_eq(
		why,
		"big.bin: the fetched pages differ: expected [1024, 2047] [3000, 3001] (1026 pages), observed [896, 2431] (1536 pages in 6 requests); 2 pages not fetched: [3000, 3001]; 512 pages fetched besides: [896, 1023] [2048, 2431]; 128 pages before and 0 pages past [1024, 3001]");
	free(why);
	testfs_extents_free(&want);
	cr_assert_eq(testfs_check_fetched(&f.log, "none.bin", &want, &why), 0);
}

Test(checks, touched_plus)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct fake_log f;
	char *why = NULL;

	fake_readahead(&f);
	build(&touched, U(1024), U(2047), END);
	cr_assert_eq(testfs_check_touched_plus(&f.log, "big.bin", &touched, 512,
					       &why),
		     0);
	cr_assert_null(why);
	cr_assert_eq(testfs_check_touched_plus(&f.log, "big.bin", &touched, 511,
					       &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: 512 pages fetched besides the touched ones, more than the 511 allowed ([896, 1023] [2048, 2431]): expected the touched [1024, 2047] (1024 pages) plus at most 511 pages, observed [896, 2431] (1536 pages in 6 requests); 128 pages before and 384 pages past [1024, 2047]");
	free(why);
	build(&touched, U(10), U(10), END);
	cr_assert_eq(testfs_check_touched_plus(&f.log, "big.bin", &touched,
					       1000, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: 1 touched page never fetched ([10, 10]): expected the touched [10, 10] [1024, 2047] (1025 pages) plus at most 1000 pages, observed [896, 2431] (1536 pages in 6 requests); 0 pages before and 384 pages past [10, 2047]");
	free(why);
	testfs_extents_free(&touched);
}

Test(checks, every_check_fails_on_lost_records)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	const char *want =
		"big.bin: the log lost 3 records; raise --log-capacity";
	struct fake_log f;
	char *why = NULL;

	fake_readahead(&f);
	f.log.lost = 3;
	build(&e, U(896), U(2431), END);
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 0, 5000, &why), 1);
	cr_assert_str_eq(why, want);
	free(why);
	cr_assert_eq(testfs_check_fetched(&f.log, "big.bin", &e, &why), 1);
	cr_assert_str_eq(why, want);
	free(why);
	cr_assert_eq(testfs_check_touched_plus(&f.log, "big.bin", &e, 0, &why),
		     1);
	cr_assert_str_eq(why, want);
	free(why);
	/* before it looks at the instance at all */
	cr_assert_eq(testfs_check_consistent(NULL, &f.log, "big.bin", 0, &why),
		     1);
	cr_assert_str_eq(why, want);
	free(why);
	f.log.lost = 1;
	cr_assert_eq(testfs_check_within(&f.log, "big.bin", 0, 5000, &why), 1);
	cr_assert_str_eq(
		why, "big.bin: the log lost 1 record; raise --log-capacity");
	free(why);
	testfs_extents_free(&e);
}

/*
 * The order check on a traced log from a kernel without the folio event
 * (6.1 has no order field in filemap:mm_filemap_add_to_page_cache): a
 * failure that names the missing event and says the kernel lacks it, and
 * no histogram (-ENODATA), not "0% in order 5".
 */
Test(checks, folio_order_on_a_log_without_the_folio_event)
{
	struct testfs_folio_orders o;
	struct fake_log f;
	char *why = NULL;

	fake_readahead(&f);
	f.log.traced = true;
	cr_assert_eq(lib_folios_why(&f.log), 0);
	cr_assert_eq(testfs_log_folio_orders(&f.log, "big.bin", &o), -ENODATA);
	cr_assert_eq(testfs_check_folio_order(&f.log, "big.bin", 5, 51, &why),
		     1);
	cr_assert_not_null(strstr(why, "big.bin: no folio orders in this log: "
				       "the kernel event "
				       "filemap:mm_filemap_add_to_page_cache "
				       "was not followed: this kernel has no "
				       "such event with an order field"),
			   "%s", why);
	free(why);
	free(f.log.folios_why);
}

/* ------------------------------------------------------------------ */
/* Client helpers on a regular file posing as a mount                  */
/* ------------------------------------------------------------------ */

#define FILE_PAGES 64
/* The file ends 100 bytes into page FILE_PAGES. */
#define FILE_SIZE (FILE_PAGES * 4096 + 100)

static char dir[] = "/tmp/lib_extents.XXXXXX";
static struct testfs_mount fake_fs;

static void make_dir(void)
{
	char path[PATH_MAX];
	char *buf;
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	fake_fs.mountpoint = dir;
	fake_fs.root = dir;
	snprintf(path, sizeof(path), "%s/data.bin", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	buf = calloc(1, FILE_SIZE);
	cr_assert_not_null(buf);
	cr_assert_eq(write(fd, buf, FILE_SIZE), FILE_SIZE);
	free(buf);
	cr_assert_eq(fsync(fd), 0);
	close(fd);
}

static void remove_dir(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/data.bin", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sparse.bin", dir);
	unlink(path);
	rmdir(dir);
}

static int open_data(void)
{
	int fd = testfs_open(&fake_fs, "data.bin", O_RDONLY);

	cr_assert_geq(fd, 0, "open: %s", strerror(-fd));
	return fd;
}

static void drop_data(void)
{
	int fd = open_data();

	cr_assert_eq(testfs_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

TestSuite(client, .init = make_dir, .fini = remove_dir);

Test(client, map_checks_the_range)
{
	struct testfs_map m;

	cr_assert_eq(testfs_map(&fake_fs, "data.bin", 0, 0, PROT_READ,
				MAP_SHARED, &m),
		     -EINVAL);
	cr_assert_null(m.addr);
	cr_assert_eq(m.fd, -1);
	cr_assert_eq(testfs_map(&fake_fs, "data.bin", 60, 6, PROT_READ,
				MAP_SHARED, &m),
		     -EINVAL);
	cr_assert_eq(testfs_map(&fake_fs, "data.bin", 65, 1, PROT_READ,
				MAP_SHARED, &m),
		     -EINVAL);
	cr_assert_eq(testfs_map(&fake_fs, "data.bin", UINT64_MAX, 2, PROT_READ,
				MAP_SHARED, &m),
		     -EINVAL);
	cr_assert_eq(testfs_map(&fake_fs, "nope.bin", 0, 1, PROT_READ,
				MAP_SHARED, &m),
		     -ENOENT);
	/* the partial last page is in the file */
	cr_assert_eq(testfs_map(&fake_fs, "data.bin", 60, 5, PROT_READ,
				MAP_SHARED, &m),
		     0);
	cr_assert_eq(m.first_page, 60);
	cr_assert_eq(m.npages, 5);
	cr_assert_eq(m.len, 5 * 4096);
	cr_assert_geq(m.fd, 0);
	cr_assert_eq(m.prot, PROT_READ);
	cr_assert_eq(testfs_unmap(&m), 0);
	cr_assert_null(m.addr);
	cr_assert_eq(m.fd, -1);
	cr_assert_eq(testfs_unmap(&m), 0);
}

Test(client, touch_orders)
{
	struct testfs_extents t = TESTFS_EXTENTS_INIT;
	struct testfs_map m;

	cr_assert_eq(testfs_map(&fake_fs, "data.bin", 8, 10, PROT_READ,
				MAP_SHARED, &m),
		     0);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_FORWARD, 0, &t), 10);
	expect(&t, "[8, 17]", 10);
	testfs_extents_free(&t);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_REVERSE, 0, &t), 10);
	expect(&t, "[8, 17]", 10);
	testfs_extents_free(&t);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_RANDOM, 42, &t), 10);
	expect(&t, "[8, 17]", 10);
	testfs_extents_free(&t);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, 3, &t), 4);
	expect(&t, "[8, 8] [11, 11] [14, 14] [17, 17]", 4);
	testfs_extents_free(&t);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, 1, NULL), 10);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, 10, &t), 1);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, UINT64_MAX, &t), 1);
	expect(&t, "[8, 8]", 1);
	testfs_extents_free(&t);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, 0, &t), -EINVAL);
	cr_assert_eq(testfs_touch(&m, (enum testfs_order)99, 0, &t), -EINVAL);
	cr_assert_eq(testfs_madvise(&m, MADV_RANDOM), 0);
	testfs_unmap(&m);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_FORWARD, 0, &t), -EINVAL);
	cr_assert_eq(testfs_madvise(&m, MADV_RANDOM), -EINVAL);
}

/* The VMAs of /proc/self/maps that lie in [addr, addr + len). */
static int count_vmas(const char *addr, size_t len)
{
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (lo >= (unsigned long)addr &&
		    hi <= (unsigned long)(addr + len))
			n++;
	}
	fclose(f);
	return n;
}

Test(client, split)
{
	struct testfs_map m;

	cr_assert_eq(testfs_map(&fake_fs, "data.bin", 0, 10, PROT_READ,
				MAP_PRIVATE, &m),
		     0);
	cr_assert_eq(testfs_split(&m, 0, PROT_READ, PROT_READ), -EINVAL);
	cr_assert_eq(testfs_split(&m, 3, PROT_READ, PROT_READ | PROT_WRITE), 4);
	cr_assert_eq(count_vmas(m.addr, m.len), 4);
	/* the odd VMAs are writable (privately), the even ones not */
	m.addr[3 * 4096] = 1;
	m.addr[9 * 4096] = 1;
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_FORWARD, 0, NULL), 10);
	testfs_unmap(&m);
	cr_assert_eq(testfs_map(&fake_fs, "data.bin", 0, 10, PROT_READ,
				MAP_PRIVATE, &m),
		     0);
	cr_assert_eq(testfs_split(&m, 5, PROT_READ, PROT_READ), 1);
	cr_assert_eq(count_vmas(m.addr, m.len), 1);
	cr_assert_eq(testfs_split(&m, 100, PROT_READ, PROT_NONE), 1);
	testfs_unmap(&m);
	cr_assert_eq(testfs_split(&m, 3, PROT_READ, PROT_NONE), -EINVAL);
}

Test(client, read_pages)
{
	struct testfs_extents t = TESTFS_EXTENTS_INIT;
	int fd = open_data();

	cr_assert_eq(
		testfs_read_pages(fd, 0, 16, 0, TESTFS_ORDER_FORWARD, 0, &t),
		16 * 4096);
	expect(&t, "[0, 15]", 16);
	testfs_extents_free(&t);
	cr_assert_eq(
		testfs_read_pages(fd, 0, 16, 8192, TESTFS_ORDER_RANDOM, 7, &t),
		16 * 4096);
	expect(&t, "[0, 15]", 16);
	testfs_extents_free(&t);
	cr_assert_eq(testfs_read_pages(fd, 16, 16, 16384, TESTFS_ORDER_REVERSE,
				       0, &t),
		     16 * 4096);
	expect(&t, "[16, 31]", 16);
	testfs_extents_free(&t);
	cr_assert_eq(
		testfs_read_pages(fd, 0, 16, 8192, TESTFS_ORDER_STRIDE, 3, &t),
		3 * 8192);
	expect(&t, "[0, 1] [6, 7] [12, 13]", 6);
	testfs_extents_free(&t);
	/* a short read at the end of the file */
	cr_assert_eq(
		testfs_read_pages(fd, 62, 4, 0, TESTFS_ORDER_FORWARD, 0, &t),
		2 * 4096 + 100);
	expect(&t, "[62, 64]", 3);
	testfs_extents_free(&t);
	cr_assert_eq(
		testfs_read_pages(fd, 60, 8, 8192, TESTFS_ORDER_RANDOM, 1, &t),
		4 * 4096 + 100);
	expect(&t, "[60, 64]", 5);
	testfs_extents_free(&t);
	cr_assert_eq(
		testfs_read_pages(fd, 100, 4, 0, TESTFS_ORDER_FORWARD, 0, &t),
		0);
	expect(&t, "(none)", 0);
	/* bad blocks and orders */
	cr_assert_eq(
		testfs_read_pages(fd, 0, 16, 4097, TESTFS_ORDER_FORWARD, 0, &t),
		-EINVAL);
	cr_assert_eq(
		testfs_read_pages(fd, 0, 15, 8192, TESTFS_ORDER_FORWARD, 0, &t),
		-EINVAL);
	cr_assert_eq(
		testfs_read_pages(fd, 0, 16, 0, TESTFS_ORDER_STRIDE, 0, &t),
		-EINVAL);
	cr_assert_eq(
		testfs_read_pages(-1, 0, 16, 0, TESTFS_ORDER_FORWARD, 0, &t),
		-EINVAL);
	cr_assert_eq(
		testfs_read_pages(fd, 0, 0, 0, TESTFS_ORDER_FORWARD, 0, &t), 0);
	close(fd);
	cr_assert_eq(
		testfs_read_pages(fd, 0, 1, 0, TESTFS_ORDER_FORWARD, 0, &t),
		-EBADF);
	cr_assert_eq(t.n, 0);
}

Test(client, fadvise)
{
	int fd = open_data();

	cr_assert_eq(testfs_fadvise(fd, 0, 4, POSIX_FADV_WILLNEED), 0);
	cr_assert_eq(testfs_fadvise(fd, 0, 4, 12345), -EINVAL);
	cr_assert_eq(testfs_fadvise(fd, UINT64_MAX, 4, POSIX_FADV_NORMAL),
		     -EOVERFLOW);
	close(fd);
	cr_assert_eq(testfs_fadvise(fd, 0, 4, POSIX_FADV_NORMAL), -EBADF);
}

/*
 * The sets of the residency tests live here, not on the stack, so that
 * free_sets() releases them even when an assertion ends a test early
 * (LeakSanitizer runs when the test's process exits).
 */
static struct testfs_extents sets[4];

static void free_sets(void)
{
	size_t i;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		testfs_extents_free(&sets[i]);
}

/* The pages of @e within [@first, @first + @n); @n 0: to the end. */
static uint64_t pages_within(const struct testfs_extents *e, uint64_t first,
			     uint64_t n)
{
	uint64_t last = n ? first + n - 1 : UINT64_MAX, sum = 0, lo, hi;
	size_t i;

	for (i = 0; i < e->n; i++) {
		lo = e->v[i].first > first ? e->v[i].first : first;
		hi = e->v[i].last < last ? e->v[i].last : last;
		if (lo <= hi)
			sum += hi - lo + 1;
	}
	return sum;
}

/*
 * cachestat() over [@first, @first + @n) of @name must count the pages
 * mincore() sees there. The VM may evict a page at any moment (DAMON
 * reclaim runs on the CI machines), so the residency is read by mincore,
 * then cachestat, then mincore again, until the two walks agree; only
 * then must cachestat equal them. Leaves the agreed set in @r; -ENOSYS
 * from cachestat skips the test.
 */
static void expect_cachestat_agrees(const char *name, uint64_t first,
				    uint64_t n, struct testfs_extents *r,
				    struct testfs_extents *again)
{
	struct testfs_cachestat cs;
	int tries, err;

	for (tries = 0; tries < 8; tries++) {
		cr_assert_eq(testfs_resident(&fake_fs, name, r), 0);
		err = testfs_cachestat(&fake_fs, name, first, n, &cs);
		if (err == -ENOSYS)
			cr_skip_test(
				"cachestat() not available on this kernel");
		cr_assert_eq(err, 0, "cachestat: %s", strerror(-err));
		cr_assert_eq(testfs_resident(&fake_fs, name, again), 0);
		if (testfs_extents_equal(r, again))
			break;
	}
	cr_assert(testfs_extents_equal(r, again),
		  "the resident set kept changing: %s", fmt(r));
	cr_assert_eq(cs.nr_cache, pages_within(r, first, n),
		     "cachestat %" PRIu64 " over %" PRIu64 "+%" PRIu64
		     ", mincore %s",
		     cs.nr_cache, first, n, fmt(r));
}

/*
 * Reads pages by @read (into @t) until all of them are resident in @r:
 * an eviction between the read and the mincore walk reads again.
 */
static void read_until_resident(const char *name,
				void (*read)(int fd, struct testfs_extents *t),
				struct testfs_extents *t,
				struct testfs_extents *r,
				struct testfs_extents *d)
{
	int tries, fd;

	for (tries = 0; tries < 8; tries++) {
		fd = testfs_open(&fake_fs, name, O_RDONLY);
		cr_assert_geq(fd, 0, "open: %s", strerror(-fd));
		cr_assert_eq(testfs_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
		testfs_extents_free(t);
		read(fd, t);
		close(fd);
		cr_assert_eq(testfs_resident(&fake_fs, name, r), 0);
		/* readahead may add pages; the pages read must be there */
		testfs_extents_free(d);
		cr_assert_eq(testfs_extents_subtract(t, r, d), 0);
		if (!d->n)
			return;
	}
	cr_assert_fail("read %s, resident %s", fmt(t), fmt(r));
}

static void read_some_data(int fd, struct testfs_extents *t)
{
	cr_assert_eq(
		testfs_read_pages(fd, 10, 4, 0, TESTFS_ORDER_FORWARD, 0, t),
		4 * 4096);
	cr_assert_eq(
		testfs_read_pages(fd, 64, 1, 0, TESTFS_ORDER_FORWARD, 0, t),
		100);
}

Test(client, resident_and_cachestat, .fini = free_sets)
{
	struct testfs_extents *r = &sets[0], *t = &sets[1], *d = &sets[2];
	struct testfs_cachestat cs;

	drop_data();
	cr_assert_eq(testfs_resident(&fake_fs, "data.bin", r), 0);
	expect(r, "(none)", 0);
	read_until_resident("data.bin", read_some_data, t, r, d);
	expect_cachestat_agrees("data.bin", 0, 0, r, &sets[3]);
	expect_cachestat_agrees("data.bin", 10, 4, r, &sets[3]);
	cr_assert_eq(testfs_cachestat(&fake_fs, "nope.bin", 0, 0, &cs),
		     -ENOENT);
	cr_assert_eq(testfs_resident(&fake_fs, "nope.bin", r), -ENOENT);
	drop_data();
}

#define SPARSE_PAGES (1ull << 28)

static void read_sparse(int fd, struct testfs_extents *t)
{
	cr_assert_eq(testfs_read_pages(fd, 0, 1, 0, TESTFS_ORDER_FORWARD, 0, t),
		     4096);
	cr_assert_eq(testfs_read_pages(fd, SPARSE_PAGES / 2 + 3, 2, 0,
				       TESTFS_ORDER_FORWARD, 0, t),
		     8192);
	cr_assert_eq(testfs_read_pages(fd, SPARSE_PAGES - 1, 1, 0,
				       TESTFS_ORDER_FORWARD, 0, t),
		     4096);
}

/* 1 TiB, sparse: resident() must not walk 2^28 pages one window each. */
Test(client, resident_of_a_huge_sparse_file, .timeout = 30, .fini = free_sets)
{
	struct testfs_extents *r = &sets[0], *t = &sets[1], *d = &sets[2];
	struct testfs_cachestat cs;
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/sparse.bin", dir);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	if (ftruncate(fd, (off_t)(SPARSE_PAGES * 4096)) < 0)
		cr_skip_test("no 1 TiB sparse file here: %s", strerror(errno));
	close(fd);
	if (testfs_cachestat(&fake_fs, "sparse.bin", 0, 0, &cs) == -ENOSYS)
		cr_skip_test("cachestat() not available on this kernel");
	read_until_resident("sparse.bin", read_sparse, t, r, d);
	expect_cachestat_agrees("sparse.bin", 0, 0, r, &sets[3]);
	fd = testfs_open(&fake_fs, "sparse.bin", O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(testfs_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}
