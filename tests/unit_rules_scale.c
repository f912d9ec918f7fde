// SPDX-License-Identifier: MIT
/*
 * Rule precedence with many overlapping rules: rules_decide() (which finds
 * matches through rule_index.c) against a plain walk over the same rules
 * in order, the definition in rules.h: the first latency rule whose target
 * overlaps the read, the first error rule that matches and fires (times=
 * counting down, prob=0 never, prob=1 always), the first pause rule.
 * 5000 random rules of each kind, checked while they are added (the index
 * merges its blocks as it grows) and after a clear, and on 300,000 nested
 * rules where every read has a different first match.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slow/prng.h"
#include "slow/rules.h"
#include "slow/rule_index.h"

/*
 * The test counts the index calls rules.c makes (linked with
 * -Wl,--wrap=rule_index_first,--wrap=rule_index_switch).
 */
static unsigned long n_first, n_switch;

bool __real_rule_index_first(const struct rule_index *ix, const char *file,
			     uint64_t first, uint64_t last,
			     struct rule_hit *hit);
void __real_rule_index_switch(struct rule_index *ix, const struct rule_hit *hit,
			      bool on);
bool __wrap_rule_index_first(const struct rule_index *ix, const char *file,
			     uint64_t first, uint64_t last,
			     struct rule_hit *hit);
void __wrap_rule_index_switch(struct rule_index *ix, const struct rule_hit *hit,
			      bool on);

bool __wrap_rule_index_first(const struct rule_index *ix, const char *file,
			     uint64_t first, uint64_t last,
			     struct rule_hit *hit)
{
	n_first++;
	return __real_rule_index_first(ix, file, first, last, hit);
}

void __wrap_rule_index_switch(struct rule_index *ix, const struct rule_hit *hit,
			      bool on)
{
	n_switch++;
	__real_rule_index_switch(ix, hit, on);
}

#define PAGE 4096ull

static const char *const files[] = { "a.bin", "b.bin", "dir/c.bin" };
#define NFILES 3

enum kind { PLAIN, TIMES, NEVER, ALWAYS };

/* One rule as the reference walk sees it. */
struct ref {
	int file; /* -1: every file */
	bool pages;
	uint64_t first, last;
	enum kind kind; /* error rules */
	uint64_t left;	/* TIMES */
};

static struct rule_set *rs;
static struct ref *lat, *err;
static size_t nlat, nerr;
static unsigned seed = 20260101;

static void setup(void)
{
	cr_assert_eq(rules_new(&rs), 0);
}

static void teardown(void)
{
	rules_free(rs);
	free(lat);
	free(err);
	lat = err = NULL;
	nlat = nerr = 0;
}

TestSuite(rules_scale, .init = setup, .fini = teardown, .timeout = 500);

static unsigned rnd(unsigned n)
{
	return (unsigned)rand_r(&seed) % n;
}

/* A random target: mostly short ranges, some long, some whole files. */
static struct ref random_target(void)
{
	struct ref r = { 0 };
	unsigned len;

	r.file = rnd(5) == 0 ? -1 : (int)rnd(NFILES);
	r.pages = rnd(20) != 0;
	if (r.pages) {
		len = rnd(4) ? 1 + rnd(4) : 1 + rnd(2000);
		r.first = rnd(5000);
		r.last = r.first + len - 1;
	}
	return r;
}

static int target_spec(char *buf, size_t len, const struct ref *r)
{
	int n = 0;

	if (r->file >= 0)
		n += snprintf(buf + n, len - (size_t)n, "file=%s,",
			      files[r->file]);
	if (r->pages)
		n += snprintf(buf + n, len - (size_t)n, "pages=%llu-%llu,",
			      (unsigned long long)r->first,
			      (unsigned long long)r->last);
	return n;
}

static void add_latency(const struct ref *r)
{
	char spec[256], why[512];
	int n = target_spec(spec, sizeof(spec), r);

	snprintf(spec + n, sizeof(spec) - (size_t)n, "latency=fixed:%zuns",
		 nlat + 1);
	cr_assert_eq(rules_add_latency(rs, spec, why, sizeof(why)), 0, "%s: %s",
		     spec, why);
	lat = realloc(lat, (nlat + 1) * sizeof(*lat));
	cr_assert_not_null(lat);
	lat[nlat++] = *r;
}

static void add_error(struct ref *r)
{
	static const char *const tail[] = { "", ",times=%u", ",prob=0",
					    ",prob=1" };
	char spec[256], why[512];
	int n = target_spec(spec, sizeof(spec), r);

	r->kind = (enum kind)rnd(4);
	r->left = 1 + rnd(3);
	n += snprintf(spec + n, sizeof(spec) - (size_t)n, "errno=%d",
		      1 + rnd(5));
	snprintf(spec + n, sizeof(spec) - (size_t)n, tail[r->kind],
		 (unsigned)r->left);
	cr_assert_eq(rules_add_error(rs, spec, why, sizeof(why)), 0, "%s: %s",
		     spec, why);
	err = realloc(err, (nerr + 1) * sizeof(*err));
	cr_assert_not_null(err);
	err[nerr++] = *r;
}

static bool matches(const struct ref *r, int file, uint64_t first,
		    uint64_t last)
{
	if (r->file >= 0 && r->file != file)
		return false;
	return !r->pages || (first <= r->last && last >= r->first);
}

static int ref_latency(int file, uint64_t first, uint64_t last)
{
	size_t i;

	for (i = 0; i < nlat; i++)
		if (matches(&lat[i], file, first, last))
			return (int)i;
	return -1;
}

/* The reference decision for errors, counting down times= like rules.c. */
static int ref_error(int file, uint64_t first, uint64_t last)
{
	size_t i;

	for (i = 0; i < nerr; i++) {
		struct ref *r = &err[i];

		if (!matches(r, file, first, last))
			continue;
		if (r->kind == PLAIN || r->kind == ALWAYS)
			return (int)i;
		if (r->kind == TIMES && r->left) {
			r->left--;
			return (int)i;
		}
	}
	return -1;
}

/* @n random reads, each decided by both. */
static void check_reads(unsigned n)
{
	struct rule_verdict v;
	uint64_t first, pages;
	int file, want_lat, want_err;

	while (n--) {
		file = (int)rnd(NFILES + 1) - 1; /* -1: a read without a name */
		first = rnd(7200);
		pages = rnd(3) ? 1 : 1 + rnd(300);
		want_lat = ref_latency(file, first, first + pages - 1);
		want_err = ref_error(file, first, first + pages - 1);
		rules_decide(rs, file < 0 ? NULL : files[file], first * PAGE,
			     pages * PAGE, 0, &v);
		cr_assert_eq(v.latency_rule, want_lat,
			     "file %d pages %llu+%llu with %zu rules: rule %d, "
			     "expected %d",
			     file, (unsigned long long)first,
			     (unsigned long long)pages, nlat, v.latency_rule,
			     want_lat);
		cr_assert_eq(v.error_rule, want_err,
			     "file %d pages %llu+%llu with %zu error rules: "
			     "rule %d, expected %d",
			     file, (unsigned long long)first,
			     (unsigned long long)pages, nerr, v.error_rule,
			     want_err);
		if (want_lat >= 0)
			cr_assert_eq(v.delay_ns, (uint64_t)want_lat + 1);
	}
}

Test(rules_scale, overlapping_rules_first_match_as_they_grow)
{
	struct ref r;
	size_t next = 1;

	while (nlat < 5000) {
		r = random_target();
		add_latency(&r);
		r = random_target();
		add_error(&r);
		/* Check at every size up to 64, then at powers of two and
		 * in between, where the index's blocks merge. */
		if (nlat < 64 || nlat == next || nlat % 1999 == 0) {
			check_reads(nlat < 64 ? 20 : 200);
			if (nlat >= next)
				next *= 2;
		}
	}
	check_reads(1000);
	rules_clear(rs);
	nlat = nerr = 0;
	check_reads(100);
	r = random_target();
	add_latency(&r);
	check_reads(100);
}

/*
 * 300,000 nested rules around page P, rule i covering [P - i, P + i]:
 * the first match of a one-page read at q is rule |q - P|, whatever the
 * order the index keeps them in. A whole-file rule added last never
 * wins inside the nest, and does outside it.
 */
Test(rules_scale, nested_rules_at_scale)
{
	const uint64_t n = 300000, p = 400000;
	char spec[128], why[256];
	struct rule_verdict v;
	uint64_t i, q;

	for (i = 0; i < n; i++) {
		snprintf(spec, sizeof(spec),
			 "file=a.bin,pages=%llu-%llu,latency=none",
			 (unsigned long long)(p - i),
			 (unsigned long long)(p + i));
		cr_assert_eq(rules_add_latency(rs, spec, why, sizeof(why)), 0,
			     "%s", why);
	}
	cr_assert_eq(rules_add_latency(rs, "latency=none", why, sizeof(why)),
		     0);
	for (q = p - n - 5; q <= p + n + 5; q += 997) {
		uint64_t want = q > p ? q - p : p - q;

		rules_decide(rs, "a.bin", q * PAGE, PAGE, 0, &v);
		cr_assert_eq(v.latency_rule, want < n ? (int)want : (int)n,
			     "page %llu", (unsigned long long)q);
	}
	/* A read across the nest's centre: the innermost rule, 0. */
	rules_decide(rs, "a.bin", (p - 3) * PAGE, 8 * PAGE, 0, &v);
	cr_assert_eq(v.latency_rule, 0);
	/* Another file: only the whole-file rule. */
	rules_decide(rs, "b.bin", p * PAGE, PAGE, 0, &v);
	cr_assert_eq(v.latency_rule, (int)n);
}

/*
 * 100,000 error rules with times=1, one per page, under one prob=0 rule
 * over all pages: each page fails once, by its own rule; once every rule
 * is used up, no read fails, and the prob=0 rule was asked each time.
 */
Test(rules_scale, used_up_rules_leave_the_way_free)
{
	const uint64_t n = 100000;
	char spec[128], why[256];
	struct rule_verdict v;
	uint64_t i;

	cr_assert_eq(rules_add_error(rs, "file=a.bin,errno=EIO,prob=0", why,
				     sizeof(why)),
		     0);
	for (i = 0; i < n; i++) {
		snprintf(spec, sizeof(spec),
			 "file=a.bin,pages=%llu,errno=%d,times=1",
			 (unsigned long long)i, 1 + (int)(i % 5));
		cr_assert_eq(rules_add_error(rs, spec, why, sizeof(why)), 0,
			     "%s", why);
	}
	for (i = 0; i < n; i++) {
		rules_decide(rs, "a.bin", i * PAGE, PAGE, 0, &v);
		cr_assert_eq(v.error_rule, (int)(i + 1), "page %llu",
			     (unsigned long long)i);
		cr_assert_eq(v.err, 1 + (int)(i % 5));
	}
	for (i = 0; i < n; i += 7) {
		rules_decide(rs, "a.bin", i * PAGE, 64 * PAGE, 0, &v);
		cr_assert_eq(v.error_rule, -1, "page %llu",
			     (unsigned long long)i);
	}
	cr_assert_eq(rules_errors_injected(rs), n);
}

/*
 * Random error rules (prob=, seed=) that overlap a lot, with times= ones
 * among them: each decision draws the matching rules in rule order until
 * one fires, whether it walks them by switching each off or gathers the
 * rest (past a few); the reference draws with the same generators, so a
 * rule drawn out of order, twice or not at all shows in every later
 * decision.
 */
struct random_ref {
	uint64_t first, last;
	uint64_t prob; /* billionths; 0 with times= */
	bool limited;  /* times= given */
	unsigned left; /* times= left */
	struct prng rng;
};

Test(rules_scale, random_rules_draw_in_rule_order)
{
	static const char *const probs[] = { "0", "0.01", "0.05", "0.3" };
	static const uint64_t billionths[] = { 0, 10000000, 50000000,
					       300000000 };
	const unsigned n = 3000, reads = 3000;
	struct random_ref *ref = calloc(n, sizeof(*ref));
	char spec[160], why[256];
	struct rule_verdict v;
	unsigned i, k, p;
	uint64_t first, last;
	int want;

	cr_assert_not_null(ref);
	for (i = 0; i < n; i++) {
		ref[i].first = rnd(1000);
		ref[i].last = ref[i].first + rnd(400);
		p = rnd(4);
		if (rnd(50) == 0) {
			ref[i].limited = true;
			ref[i].left = 1 + rnd(3);
			snprintf(spec, sizeof(spec),
				 "file=a.bin,pages=%llu-%llu,errno=EIO,"
				 "times=%u",
				 (unsigned long long)ref[i].first,
				 (unsigned long long)ref[i].last, ref[i].left);
		} else {
			ref[i].prob = billionths[p];
			snprintf(spec, sizeof(spec),
				 "file=a.bin,pages=%llu-%llu,errno=EIO,"
				 "prob=%s,seed=%u",
				 (unsigned long long)ref[i].first,
				 (unsigned long long)ref[i].last, probs[p],
				 i + 1);
		}
		prng_seed(&ref[i].rng, i + 1);
		cr_assert_eq(rules_add_error(rs, spec, why, sizeof(why)), 0,
			     "%s: %s", spec, why);
	}
	for (k = 0; k < reads; k++) {
		first = rnd(1400);
		last = first + rnd(64);
		want = -1;
		for (i = 0; i < n && want < 0; i++) {
			struct random_ref *r = &ref[i];

			if (first > r->last || last < r->first)
				continue;
			if (r->limited && r->left) {
				r->left--;
				want = (int)i;
			} else if (!r->limited &&
				   prng_below(&r->rng, 1000000000ull) <
					   r->prob) {
				want = (int)i;
			}
		}
		rules_decide(rs, "a.bin", first * PAGE,
			     (last - first + 1) * PAGE, 0, &v);
		cr_assert_eq(v.error_rule, want,
			     "read %u (pages %llu-%llu): rule %d, expected %d",
			     k, (unsigned long long)first,
			     (unsigned long long)last, v.error_rule, want);
	}
	free(ref);
}

/*
 * 20,000 rules that never fire (prob=0) over every page, then one that
 * always does: a decision reaches the last rule without switching each
 * of the 20,000 off and on again (it did: 40,000 switches and 20,001
 * lookups per read, about 0.8 us each, which made 300,000 such rules
 * cost a 256 MiB read 3x its time).
 */
Test(rules_scale, rules_that_never_fire_are_not_switched_one_by_one)
{
	const unsigned n = 20000;
	char why[256];
	struct rule_verdict v;
	unsigned i;

	for (i = 0; i < n; i++)
		cr_assert_eq(rules_add_error(rs, "file=a.bin,errno=EIO,prob=0",
					     why, sizeof(why)),
			     0, "%s", why);
	cr_assert_eq(
		rules_add_error(rs, "file=a.bin,errno=EIO", why, sizeof(why)),
		0, "%s", why);
	for (i = 0; i < 10; i++) {
		n_first = n_switch = 0;
		rules_decide(rs, "a.bin", i * 64 * PAGE, 64 * PAGE, 0, &v);
		cr_assert_eq(v.error_rule, (int)n);
		cr_expect_leq(n_switch, 16, "%lu switches for one read",
			      n_switch);
		cr_expect_leq(n_first, 16, "%lu lookups for one read", n_first);
	}
	/* Another file: none of them, one lookup per list, no walk. */
	n_first = n_switch = 0;
	rules_decide(rs, "b.bin", 0, PAGE, 0, &v);
	cr_assert_eq(v.error_rule, -1);
	cr_expect_leq(n_first, 3);
	cr_expect_eq(n_switch, 0);
}
