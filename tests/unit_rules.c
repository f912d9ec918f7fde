// SPDX-License-Identifier: MIT
/*
 * The rule set: matching (first match, optional file= and pages=, page
 * range overlap at the edges), the default, error rules with times= and
 * prob=, clearing, hit counters, the JSON form, every bad spec, and
 * decisions racing with changes from another thread.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "slow/rules.h"

#define PAGE 4096ull
#define MS 1000000ull

static struct rule_set *rs;

static void setup(void)
{
	cr_assert_eq(rules_new(&rs), 0);
}

static void teardown(void)
{
	rules_free(rs);
	rs = NULL;
}

TestSuite(rules, .init = setup, .fini = teardown);

static void add_rule(const char *spec)
{
	char err[512] = "";
	int ret = rules_add_latency(rs, spec, err, sizeof(err));

	cr_assert_eq(ret, 0, "rules_add_latency(\"%s\") = %d: %s", spec, ret,
		     err);
}

static void add_error(const char *spec)
{
	char err[512] = "";
	int ret = rules_add_error(rs, spec, err, sizeof(err));

	cr_assert_eq(ret, 0, "rules_add_error(\"%s\") = %d: %s", spec, ret,
		     err);
}

static struct rule_verdict decide(const char *file, uint64_t off, uint64_t len)
{
	struct rule_verdict v;

	memset(&v, 0x5a, sizeof(v));
	rules_decide(rs, file, off, len, 0, &v);
	return v;
}

/* The latency rule a read of pages [first, first + n) gets. */
static int rule_for(const char *file, uint64_t first, uint64_t n)
{
	return decide(file, first * PAGE, n * PAGE).latency_rule;
}

static char *json(void)
{
	struct strbuf sb = STRBUF_INIT;

	rules_format_json(rs, &sb);
	cr_assert_not(sb.oom);
	return strbuf_detach(&sb, NULL);
}

static void json_has(const char *part)
{
	char *s = json();

	cr_assert(strstr(s, part), "JSON %s lacks %s", s, part);
	free(s);
}

Test(rules, default_is_none)
{
	struct rule_verdict v = decide("big.bin", 0, PAGE);

	cr_assert_eq(v.delay_ns, 0);
	cr_assert_eq(v.err, 0);
	cr_assert_eq(v.latency_rule, -1);
	cr_assert_eq(v.error_rule, -1);
	cr_assert_eq(rules_errors_injected(rs), 0);
	json_has("{\"default\":\"none\",\"rules\":[],\"errors\":[],"
		 "\"pauses\":[]}");
}

Test(rules, default_applies_without_a_match)
{
	char err[256];

	cr_assert_eq(rules_set_default(rs, "fixed:1ms", err, sizeof(err)), 0);
	add_rule("file=a,latency=fixed:2ms");
	cr_assert_eq(decide("b", 0, PAGE).delay_ns, MS);
	cr_assert_eq(decide("b", 0, PAGE).latency_rule, -1);
	cr_assert_eq(decide("a", 0, PAGE).delay_ns, 2 * MS);
	cr_assert_eq(rules_set_default(rs, "fixed:3ms", err, sizeof(err)), 0);
	cr_assert_eq(decide("b", 0, PAGE).delay_ns, 3 * MS);
	json_has("\"default\":\"fixed:3ms\"");
}

Test(rules, bad_default_keeps_the_old_one)
{
	char err[256] = "";

	cr_assert_eq(rules_set_default(rs, "fixed:1ms", err, sizeof(err)), 0);
	cr_assert_eq(rules_set_default(rs, "bogus", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "latency 'bogus': unknown model 'bogus'"), "%s",
		  err);
	cr_assert_eq(decide("a", 0, PAGE).delay_ns, MS);
}

Test(rules, first_match_wins)
{
	add_rule("file=a,pages=10-20,latency=fixed:1ms");
	add_rule("file=a,latency=fixed:2ms");
	add_rule("latency=fixed:3ms");
	add_rule("file=a,pages=15,latency=fixed:4ms");

	cr_assert_eq(decide("a", 15 * PAGE, PAGE).delay_ns, MS);
	cr_assert_eq(rule_for("a", 15, 1), 0);
	cr_assert_eq(decide("a", 0, PAGE).delay_ns, 2 * MS);
	cr_assert_eq(rule_for("a", 0, 1), 1);
	cr_assert_eq(decide("b", 15 * PAGE, PAGE).delay_ns, 3 * MS);
	cr_assert_eq(rule_for("b", 15, 1), 2);
}

Test(rules, file_and_pages_are_optional)
{
	add_rule("pages=100-199,latency=fixed:1ms");
	add_rule("file=dir/nested.bin,latency=fixed:2ms");

	cr_assert_eq(rule_for("a", 150, 1), 0);
	cr_assert_eq(rule_for("dir/nested.bin", 150, 1), 0);
	cr_assert_eq(rule_for("dir/nested.bin", 0, 1), 1);
	cr_assert_eq(rule_for("dir/nested.bin", 1 << 30, 1), 1);
	/* Exact names only: no prefix, no basename. */
	cr_assert_eq(rule_for("nested.bin", 0, 1), -1);
	cr_assert_eq(rule_for("dir/nested.bin2", 0, 1), -1);
	cr_assert_eq(rule_for("dir", 0, 1), -1);
	/* A read without a file name matches only rules without file=. */
	cr_assert_eq(rule_for(NULL, 150, 1), 0);
	cr_assert_eq(rule_for(NULL, 0, 1), -1);
}

Test(rules, overlap_at_the_edges)
{
	add_rule("pages=10-20,latency=fixed:1ms");

	cr_assert_eq(rule_for("a", 9, 1), -1);
	cr_assert_eq(rule_for("a", 9, 2), 0);
	cr_assert_eq(rule_for("a", 10, 1), 0);
	cr_assert_eq(rule_for("a", 20, 1), 0);
	cr_assert_eq(rule_for("a", 20, 100), 0);
	cr_assert_eq(rule_for("a", 21, 1), -1);
	cr_assert_eq(rule_for("a", 0, 1000), 0);
	cr_assert_eq(rule_for("a", 0, 10), -1);
	/* Byte granularity: the last byte of page 9 and the first of 10. */
	cr_assert_eq(decide("a", 10 * PAGE - 1, 1).latency_rule, -1);
	cr_assert_eq(decide("a", 10 * PAGE - 1, 2).latency_rule, 0);
	cr_assert_eq(decide("a", 21 * PAGE - 1, 1).latency_rule, 0);
	cr_assert_eq(decide("a", 21 * PAGE, 1).latency_rule, -1);
	/* A read of 0 bytes covers the page at its offset. */
	cr_assert_eq(decide("a", 10 * PAGE, 0).latency_rule, 0);
	cr_assert_eq(decide("a", 9 * PAGE, 0).latency_rule, -1);
	/* Reads that would wrap around 2^64 stop at its end. */
	cr_assert_eq(decide("a", UINT64_MAX - 10, 100).latency_rule, -1);
}

Test(rules, single_page_and_huge_pages)
{
	add_rule("pages=7,latency=fixed:1ms");
	add_rule("pages=4503599627370495,latency=fixed:2ms");

	cr_assert_eq(rule_for("a", 6, 1), -1);
	cr_assert_eq(rule_for("a", 7, 1), 0);
	cr_assert_eq(rule_for("a", 8, 1), -1);
	cr_assert_eq(decide("a", UINT64_MAX - 10, 100).latency_rule, 1);
	json_has("\"pages\":[7,7]");
}

Test(rules, latency_model_with_commas)
{
	add_rule("file=a,latency=normal:1ms,0ns,seed=3");
	add_rule("latency=ufs4:lat=80us,bw=1600MB/s,qd=32");

	cr_assert_eq(decide("a", 0, PAGE).delay_ns, MS);
	cr_assert_eq(decide("b", 0, PAGE).delay_ns, 80000 + 2560);
	json_has("\"latency\":\"normal:1ms,0ns,seed=3\"");
	json_has("\"latency\":\"ufs4:lat=80us,bw=1600MB/s,qd=32\"");
}

Test(rules, errors_with_delay)
{
	struct rule_verdict v;

	add_rule("file=a,latency=fixed:1ms");
	add_error("file=a,pages=3,errno=EIO");

	v = decide("a", 3 * PAGE, PAGE);
	cr_assert_eq(v.err, EIO);
	cr_assert_eq(v.error_rule, 0);
	/* A failed read is delayed like any other. */
	cr_assert_eq(v.delay_ns, MS);
	cr_assert_eq(v.latency_rule, 0);
	v = decide("a", 4 * PAGE, PAGE);
	cr_assert_eq(v.err, 0);
	cr_assert_eq(v.error_rule, -1);
	v = decide("b", 3 * PAGE, PAGE);
	cr_assert_eq(v.err, 0);
	cr_assert_eq(rules_errors_injected(rs), 1);
}

Test(rules, times_fires_exactly_n_times)
{
	int i, fails = 0;

	add_error("file=a,errno=ENODATA,times=3");
	for (i = 0; i < 10; i++) {
		struct rule_verdict v = decide("a", (uint64_t)i * PAGE, PAGE);

		if (v.err) {
			cr_assert_eq(v.err, ENODATA);
			cr_assert_lt(i, 3, "read %d failed", i);
			fails++;
		}
	}
	cr_assert_eq(fails, 3);
	/* Reads of other files do not use up the count. */
	json_has("\"times_left\":0,\"prob\":null,\"hits\":3");
	cr_assert_eq(rules_errors_injected(rs), 3);
}

Test(rules, exhausted_rule_lets_the_next_one_fire)
{
	add_error("file=a,errno=EIO,times=2");
	add_error("errno=ENOSPC");

	cr_assert_eq(decide("a", 0, PAGE).err, EIO);
	cr_assert_eq(decide("b", 0, PAGE).err, ENOSPC);
	cr_assert_eq(decide("a", 0, PAGE).err, EIO);
	cr_assert_eq(decide("a", 0, PAGE).err, ENOSPC);
	cr_assert_eq(decide("a", 0, PAGE).error_rule, 1);
	json_has(
		"{\"file\":\"a\",\"pages\":null,\"errno\":\"EIO\",\"times_left\":0,\"prob\":null,\"hits\":2}");
	json_has(
		"{\"file\":null,\"pages\":null,\"errno\":\"ENOSPC\",\"times_left\":null,\"prob\":null,\"hits\":3}");
}

static int count_failures(int reads)
{
	int i, n = 0;

	for (i = 0; i < reads; i++)
		n += decide("a", (uint64_t)i * PAGE, PAGE).err != 0;
	return n;
}

Test(rules, prob_zero_and_one)
{
	add_error("pages=0-9999,errno=EIO,prob=0");
	cr_assert_eq(count_failures(10000), 0);
	rules_clear(rs);
	add_error("errno=EIO,prob=1");
	cr_assert_eq(count_failures(10000), 10000);
	rules_clear(rs);
	add_error("errno=EIO,prob=1.000");
	cr_assert_eq(count_failures(100), 100);
}

Test(rules, prob_half_is_reproducible)
{
	char first[10000], second[10000];
	int i, n, diff = 0;

	add_error("errno=EIO,prob=0.5,seed=42");
	for (i = 0; i < 10000; i++)
		first[i] = decide("a", 0, PAGE).err != 0;
	n = (int)rules_errors_injected(rs);
	cr_assert(n > 4800 && n < 5200, "%d of 10000 failed", n);
	json_has("\"prob\":0.5");

	/* The same spec again gives the same sequence... */
	rules_clear(rs);
	add_error("errno=EIO,prob=0.5,seed=42");
	for (i = 0; i < 10000; i++)
		second[i] = decide("a", 0, PAGE).err != 0;
	cr_assert_eq(memcmp(first, second, sizeof(first)), 0);

	/* ...and another seed a different one. */
	rules_clear(rs);
	add_error("errno=EIO,prob=0.5,seed=43");
	for (i = 0; i < 10000; i++)
		diff += first[i] != (decide("a", 0, PAGE).err != 0);
	cr_assert(diff > 4000, "%d of 10000 differ", diff);
}

Test(rules, prob_fraction)
{
	int n;

	add_error("errno=EIO,prob=0.1,seed=7");
	n = count_failures(10000);
	cr_assert(n > 900 && n < 1100, "%d of 10000 failed", n);
}

Test(rules, clear_keeps_the_default)
{
	char err[256];

	cr_assert_eq(rules_set_default(rs, "fixed:1ms", err, sizeof(err)), 0);
	add_rule("latency=fixed:2ms");
	add_error("errno=EIO");
	cr_assert_eq(decide("a", 0, PAGE).err, EIO);
	rules_clear(rs);
	cr_assert_eq(decide("a", 0, PAGE).delay_ns, MS);
	cr_assert_eq(decide("a", 0, PAGE).err, 0);
	cr_assert_eq(decide("a", 0, PAGE).latency_rule, -1);
	json_has("{\"default\":\"fixed:1ms\",\"rules\":[],\"errors\":[],"
		 "\"pauses\":[]}");
	/* The total of injected errors survives. */
	cr_assert_eq(rules_errors_injected(rs), 1);
	/* Rules added after a clear are numbered from 0. */
	add_rule("latency=fixed:3ms");
	cr_assert_eq(decide("a", 0, PAGE).latency_rule, 0);
	rules_clear(rs);
	rules_clear(rs);
}

Test(rules, hit_counters)
{
	int i;

	add_rule("file=a,latency=none");
	add_rule("latency=none");
	add_error("file=b,errno=EIO,prob=0,seed=1");
	for (i = 0; i < 5; i++)
		decide("a", 0, PAGE);
	for (i = 0; i < 3; i++)
		decide("b", 0, PAGE);
	json_has(
		"{\"file\":\"a\",\"pages\":null,\"latency\":\"none\",\"hits\":5}");
	json_has(
		"{\"file\":null,\"pages\":null,\"latency\":\"none\",\"hits\":3}");
	/* An error rule counts the reads it failed, not those it matched. */
	json_has("\"errno\":\"EIO\",\"times_left\":null,\"prob\":0,\"hits\":0");
}

Test(rules, json_format)
{
	char err[256];
	char *s;

	cr_assert_eq(rules_set_default(rs, "nvme:qd=4", err, sizeof(err)), 0);
	add_rule("file=big.bin,pages=1-2,latency=fixed:1.5ms");
	add_rule("file=a\"b,latency=bw:1.6GB/s");
	add_error("errno=5,times=2");
	add_error("pages=7,file=x,errno=enodata,prob=0.25,seed=3");
	add_error("errno=100");
	add_error("errno=133");
	s = json();
	cr_assert_str_eq(
		s,
		"{\"default\":\"nvme:lat=60us,bw=3500MB/s,qd=4\","
		"\"rules\":["
		"{\"file\":\"big.bin\",\"pages\":[1,2],\"latency\":\"fixed:1500us\",\"hits\":0},"
		"{\"file\":\"a\\\"b\",\"pages\":null,\"latency\":\"bw:1600MB/s\",\"hits\":0}],"
		"\"errors\":["
		"{\"file\":null,\"pages\":null,\"errno\":\"EIO\",\"times_left\":2,\"prob\":null,\"hits\":0},"
		"{\"file\":\"x\",\"pages\":[7,7],\"errno\":\"ENODATA\",\"times_left\":null,\"prob\":0.25,\"hits\":0},"
		"{\"file\":null,\"pages\":null,\"errno\":\"100\",\"times_left\":null,\"prob\":null,\"hits\":0},"
		"{\"file\":null,\"pages\":null,\"errno\":\"EHWPOISON\",\"times_left\":null,\"prob\":null,\"hits\":0}],"
		"\"pauses\":[]}");
	free(s);
}

Test(rules, errno_names_and_numbers)
{
	static const struct {
		const char *spec;
		int err;
	} cases[] = {
		{ "errno=EIO", EIO },
		{ "errno=eio", EIO },
		{ "errno=ENODATA", ENODATA },
		{ "errno=ENOSPC", ENOSPC },
		{ "errno=EAGAIN", EAGAIN },
		{ "errno=ETIMEDOUT", ETIMEDOUT },
		{ "errno=EBADMSG", EBADMSG },
		{ "errno=ENOMEM", ENOMEM },
		{ "errno=EINTR", EINTR },
		{ "errno=EPERM", EPERM },
		{ "errno=EACCES", EACCES },
		{ "errno=ENXIO", ENXIO },
		{ "errno=EREMOTEIO", EREMOTEIO },
		{ "errno=EROFS", EROFS },
		{ "errno=ENOLINK", ENOLINK },
		{ "errno=ESTALE", ESTALE },
		{ "errno=1", 1 },
		{ "errno=61", 61 },
		{ "errno=133", 133 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rules_clear(rs);
		add_error(cases[i].spec);
		cr_assert_eq(decide("a", 0, PAGE).err, cases[i].err, "%s",
			     cases[i].spec);
	}
}

/* @spec is rejected, with a message quoting it and containing @part. */
static void bad(bool error_rule, const char *spec, const char *part)
{
	char err[512] = "", head[256];
	int ret;

	if (error_rule)
		ret = rules_add_error(rs, spec, err, sizeof(err));
	else
		ret = rules_add_latency(rs, spec, err, sizeof(err));
	cr_assert_eq(ret, -EINVAL, "\"%s\" = %d, want -EINVAL", spec, ret);
	snprintf(head, sizeof(head), "%s '%s': ", error_rule ? "error" : "rule",
		 spec);
	cr_assert_eq(strncmp(err, head, strlen(head)), 0,
		     "\"%s\": message \"%s\" does not start with \"%s\"", spec,
		     err, head);
	cr_assert(strstr(err, part), "\"%s\": message \"%s\" lacks \"%s\"",
		  spec, err, part);
}

Test(rules, bad_latency_rules)
{
	bad(false, "", "empty rule");
	bad(false, "file=a", "missing latency=MODEL");
	bad(false, "file=a,pages=1-2", "missing latency=MODEL");
	bad(false, "foo=1,latency=none",
	    "unknown key 'foo' (expected file=, pages= or latency=)");
	bad(false, "errno=EIO,latency=none", "unknown key 'errno'");
	bad(false, "file=,latency=none", "empty file=");
	bad(false, "pages=5-1,latency=none",
	    "bad pages '5-1' (the last page is before the first");
	bad(false, "pages=x,latency=none", "bad pages 'x'");
	bad(false, "pages=,latency=none", "bad pages ''");
	bad(false, "pages=-1-5,latency=none", "bad pages '-1-5' (negative");
	bad(false, "pages=-1,latency=none", "bad pages '-1' (negative");
	bad(false, "pages=1-,latency=none", "bad pages '1-'");
	bad(false, "pages=1-2-3,latency=none", "bad pages '1-2-3'");
	bad(false, "pages=1.5,latency=none", "bad pages '1.5'");
	bad(false, "pages=4503599627370496,latency=none",
	    "bad pages '4503599627370496'");
	bad(false, "file=a,file=b,latency=none", "file= given twice");
	bad(false, "pages=1,pages=2,latency=none", "pages= given twice");
	bad(false, "file,latency=none", "'file' is not key=value");
	bad(false, "latency=fixed:2xs",
	    "latency 'fixed:2xs': bad duration '2xs' (expected a number with ns, us, ms or s)");
	bad(false, "latency=", "latency '': empty model");
	bad(false, "latency=fixed:1ms,file=a",
	    "latency= must be the last key (its MODEL runs to the end of the "
	    "spec): write 'file=a,latency=fixed:1ms'");
	bad(false, "latency=ufs4:foo=1", "unknown key 'foo' for ufs4");
	json_has("\"rules\":[]");
}

Test(rules, bad_error_rules)
{
	bad(true, "", "empty error rule");
	bad(true, "file=a", "missing errno=");
	bad(true, "times=2", "missing errno=");
	bad(true, "errno=EFOO", "unknown errno 'EFOO'");
	bad(true, "errno=", "unknown errno ''");
	bad(true, "errno=0", "errno '0' out of range");
	bad(true, "errno=134", "errno '134' out of range");
	bad(true, "errno=-5", "unknown errno '-5'");
	bad(true, "errno=5x", "errno '5x'");
	bad(true, "errno=EIO,prob=1.5", "bad prob '1.5' (value out of range");
	bad(true, "errno=EIO,prob=2", "bad prob '2'");
	bad(true, "errno=EIO,prob=-0.1", "bad prob '-0.1' (negative");
	bad(true, "errno=EIO,prob=abc", "bad prob 'abc'");
	bad(true, "errno=EIO,prob=", "bad prob ''");
	bad(true, "errno=EIO,prob=0.0000000001",
	    "bad prob '0.0000000001' (too many decimal places");
	bad(true, "errno=EIO,times=0", "bad times '0'");
	bad(true, "errno=EIO,times=-1", "bad times '-1'");
	bad(true, "errno=EIO,times=x", "bad times 'x'");
	bad(true, "errno=EIO,times=2,prob=0.5",
	    "times= and prob= exclude each other");
	bad(true, "errno=EIO,prob=0.5,times=2",
	    "times= and prob= exclude each other");
	bad(true, "errno=EIO,foo=1",
	    "unknown key 'foo' (expected file=, pages=, errno=, times=, prob= or seed=)");
	bad(true, "errno=EIO,latency=none", "unknown key 'latency'");
	bad(true, "file=,errno=EIO", "empty file=");
	bad(true, "pages=3-2,errno=EIO", "bad pages '3-2'");
	bad(true, "errno=EIO,errno=EIO", "errno= given twice");
	bad(true, "errno=EIO,times=1,times=2", "times= given twice");
	bad(true, "errno=EIO,seed=x", "bad seed 'x'");
	bad(true, "errno=EIO,", "'' is not key=value");
	bad(true, "EIO", "'EIO' is not key=value");
	json_has("\"errors\":[]");
}

Test(rules, messages_without_a_buffer)
{
	cr_assert_eq(rules_add_latency(rs, "bogus", NULL, 0), -EINVAL);
	cr_assert_eq(rules_add_error(rs, "bogus", NULL, 0), -EINVAL);
	cr_assert_eq(rules_set_default(rs, "bogus", NULL, 0), -EINVAL);
}

Test(rules, message_is_truncated_safely)
{
	char err[16];

	memset(err, 'x', sizeof(err));
	cr_assert_eq(rules_add_error(rs, "errno=EFOO", err, sizeof(err)),
		     -EINVAL);
	cr_assert_eq(strlen(err), sizeof(err) - 1);
}

#define DECISIONS 1000000

static atomic_bool done;
static atomic_uint rounds, mutate_failures;

/*
 * Adds rules (with stateful models and random error rules), clears them,
 * swaps the default and formats the set until told to stop. Failures are
 * counted here and asserted by the test's own thread.
 */
static void *mutate(void *arg)
{
	static const char *const models[] = { "fixed:1ms", "hdd", "ufs4",
					      "normal:1ms,100us,seed=1" };
	struct strbuf sb = STRBUF_INIT;
	char err[256], spec[128];
	unsigned i = 0;

	(void)arg;
	while (!atomic_load(&done)) {
		snprintf(spec, sizeof(spec), "pages=%u-%u,latency=%s", i % 50,
			 i % 50 + 10, models[i % 4]);
		if (rules_add_latency(rs, spec, err, sizeof(err)))
			atomic_fetch_add(&mutate_failures, 1);
		snprintf(spec, sizeof(spec), "file=f%u,errno=EIO,prob=0.5",
			 i % 3);
		if (rules_add_error(rs, spec, err, sizeof(err)))
			atomic_fetch_add(&mutate_failures, 1);
		if (i % 16 == 15)
			rules_clear(rs);
		if (i % 64 == 63) {
			if (rules_set_default(rs, models[i / 64 % 4], err,
					      sizeof(err)))
				atomic_fetch_add(&mutate_failures, 1);
			strbuf_reset(&sb);
			rules_format_json(rs, &sb);
			if (sb.oom || !strstr(sb.data, "\"default\":"))
				atomic_fetch_add(&mutate_failures, 1);
		}
		i++;
		atomic_store(&rounds, i);
	}
	strbuf_free(&sb);
	return NULL;
}

Test(rules, concurrent_changes_and_decisions, .timeout = 60)
{
	static const char *const files[] = { "f0", "f1", "f2", "f3" };
	struct rule_verdict v;
	uint64_t fails = 0, matched = 0;
	pthread_t t;
	int i;

	atomic_store(&done, false);
	cr_assert_eq(pthread_create(&t, NULL, mutate, NULL), 0);
	/* Start deciding only once the other thread is at work. */
	while (atomic_load(&rounds) < 1)
		sched_yield();
	for (i = 0; i < DECISIONS; i++) {
		rules_decide(rs, files[i % 4], (uint64_t)(i % 64) * PAGE, PAGE,
			     (uint64_t)i * 1000, &v);
		if (v.err != 0 && v.err != EIO)
			cr_assert_fail("decision %d: errno %d", i, v.err);
		if (v.latency_rule < -1 || v.latency_rule >= 16 ||
		    v.error_rule < -1 || v.error_rule >= 16)
			cr_assert_fail("decision %d: rules %d, %d", i,
				       v.latency_rule, v.error_rule);
		fails += v.err != 0;
		matched += v.latency_rule >= 0;
	}
	atomic_store(&done, true);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_eq(atomic_load(&mutate_failures), 0);
	cr_assert_eq(rules_errors_injected(rs), fails);
	cr_assert_gt(matched, 0);
	cr_assert_gt(fails, 0);
}

/* Pause rules: the first match holds, for= bounds it, resume drops all. */
Test(rules, pause_rules)
{
	struct rule_verdict v;
	char err[512] = "";

	cr_assert_eq(rules_add_pause(rs, "file=a,pages=2-3", err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(rules_add_pause(rs, "pages=9,for=1.5s", err, sizeof(err)),
		     0, "%s", err);
	v = decide("a", 2 * 4096, 4096);
	cr_assert(v.hold);
	cr_assert_eq(v.hold_ns, 0);
	v = decide("b", 9 * 4096, 4096);
	cr_assert(v.hold);
	cr_assert_eq(v.hold_ns, 1500000000ull);
	v = decide("a", 4 * 4096, 4096);
	cr_assert_not(v.hold);
	json_has("\"pauses\":[{\"file\":\"a\",\"pages\":[2,3],\"for\":null,"
		 "\"hits\":1},{\"file\":null,\"pages\":[9,9],"
		 "\"for\":\"1500ms\",\"hits\":1}]");
	/* rules clear leaves them; resume drops them. */
	rules_clear(rs);
	cr_assert(decide("a", 2 * 4096, 1).hold);
	cr_assert_eq(rules_resume(rs), 2);
	cr_assert_not(decide("a", 2 * 4096, 1).hold);
	cr_assert_eq(rules_resume(rs), 0);
	cr_assert_eq(rules_add_pause(rs, "for=0ms", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "bad for '0ms'"), "%s", err);
	cr_assert_eq(rules_add_pause(rs, "", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "empty pause"), "%s", err);
}
