// SPDX-License-Identifier: MIT
/*
 * The page-age check: how many fetched pages were first accessed late in
 * their life, or never. On failure it shows the file's age histogram and
 * the first offending pages, so the reader sees how old the readahead's
 * pages were when the program came to them.
 */
#include "lib_i.h"

#include "strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Offending page runs listed, and pages scanned for them. */
#define RUNS_MAX 8
#define SCAN_CHUNK 4096u
#define SCAN_MAX (1u << 18)

/* "800 ns", "120 us", "3.2 ms", "1.50 s" */
static void add_time(struct strbuf *sb, uint64_t ns)
{
	if (ns < 1000)
		strbuf_addf(sb, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		strbuf_addf(sb, "%" PRIu64 " us", ns / 1000);
	else if (ns < 1000000000)
		strbuf_addf(sb, "%.1f ms", (double)ns / 1e6);
	else
		strbuf_addf(sb, "%.2f s", (double)ns / 1e9);
}

/* "ages: <1us 3, 32768-65535us 1, late 2, never 30, mapped 8" */
static void add_hist(struct strbuf *sb, const struct testfs_page_age *a)
{
	unsigned i;

	strbuf_adds(sb, "ages:");
	for (i = 0; i < TESTFS_AGE_BUCKETS; i++) {
		uint64_t lo = testfs_age_bucket_us(i);

		if (!a->bucket[i])
			continue;
		if (!i)
			strbuf_adds(sb, " <1us");
		else if (i + 1 == TESTFS_AGE_BUCKETS)
			strbuf_addf(sb, " >=%" PRIu64 "us", lo);
		else
			strbuf_addf(sb, " %" PRIu64 "-%" PRIu64 "us", lo,
				    2 * lo - 1);
		strbuf_addf(sb, " %" PRIu64 ",", a->bucket[i]);
	}
	strbuf_addf(sb,
		    " late %" PRIu64 ", never %" PRIu64 ", mapped %" PRIu64
		    " (resolution ",
		    a->late, a->never, a->mapped);
	add_time(sb, a->resolution_ns);
	strbuf_adds(sb, ")");
}

static bool offends(int64_t v, uint64_t older_ns)
{
	return v == TESTFS_AGE_NEVER || v == TESTFS_AGE_MAPPED ||
	       (v >= 0 && (uint64_t)v >= older_ns);
}

static void add_verdict(struct strbuf *sb, int64_t v)
{
	if (v == TESTFS_AGE_NEVER)
		strbuf_adds(sb, "never accessed");
	else if (v == TESTFS_AGE_MAPPED)
		strbuf_adds(sb, "only mapped");
	else
		add_time(sb, (uint64_t)v);
}

/*
 * "; latest fetches: page 5 (120.3 ms), [32, 63] never accessed, ..."
 * from the fetched pages, run by run, at most SCAN_MAX pages scanned.
 */
static int add_offenders(struct strbuf *sb, const struct testfs_log *log,
			 const char *name, uint64_t older_ns)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	int64_t *ages = malloc(SCAN_CHUNK * sizeof(*ages));
	uint64_t scanned = 0;
	size_t e, runs = 0;
	int err;

	if (!ages)
		return -ENOMEM;
	err = testfs_log_fetched(log, name, &fetched);
	strbuf_adds(sb, "; by latest fetch:");
	for (e = 0; !err && e < fetched.n && runs < RUNS_MAX; e++) {
		uint64_t p = fetched.v[e].first, last = fetched.v[e].last;

		while (p <= last && runs < RUNS_MAX && scanned < SCAN_MAX) {
			uint64_t n = last - p + 1 < SCAN_CHUNK ? last - p + 1
							       : SCAN_CHUNK;
			uint64_t i = 0, j;

			err = testfs_log_page_ages(log, name, p, n, ages);
			if (err)
				break;
			while (i < n && runs < RUNS_MAX) {
				if (!offends(ages[i], older_ns)) {
					i++;
					continue;
				}
				/* A run of one verdict (ages: one bucket). */
				for (j = i + 1; j < n && ages[j] == ages[i];
				     j++)
					;
				strbuf_addf(sb, "%s page", runs ? "," : "");
				if (j - i > 1)
					strbuf_addf(sb,
						    "s [%" PRIu64 ", %" PRIu64
						    "]",
						    p + i, p + j - 1);
				else
					strbuf_addf(sb, " %" PRIu64, p + i);
				strbuf_adds(sb, " ");
				add_verdict(sb, ages[i]);
				runs++;
				i = j;
			}
			scanned += n;
			p += n;
		}
	}
	if (runs == RUNS_MAX || scanned >= SCAN_MAX)
		strbuf_adds(sb, ", ...");
	else if (!runs)
		strbuf_adds(sb, " none (the older fetches of refetched pages)");
	testfs_extents_free(&fetched);
	free(ages);
	return err;
}

int testfs_check_page_age(const struct testfs_log *log, const char *name,
			  uint64_t older_ns, uint64_t max_pages, char **why)
{
	struct strbuf sb = STRBUF_INIT;
	struct testfs_page_age a;
	uint64_t older = 0, bad;
	int rc = lib_check_start(log, name, why);

	if (rc)
		return rc;
	rc = lib_page_age(log, name, older_ns, &a, &older);
	if (rc == -ENODATA) {
		strbuf_addf(
			&sb, "%s: no page age without kernel tracing: %s", name,
			log->trace_why ? log->trace_why : "no reason given");
		return lib_check_fail(&sb, why);
	}
	if (rc)
		return rc;
	bad = older + a.never + a.mapped;
	if (bad <= max_pages)
		return 0;
	strbuf_addf(&sb,
		    "%s: %" PRIu64 " of %" PRIu64
		    " page fetches were first accessed ",
		    name, bad, a.pages);
	add_time(&sb, older_ns);
	strbuf_addf(&sb,
		    " or more after their reply, or never: expected at most "
		    "%" PRIu64 "; ",
		    max_pages);
	add_hist(&sb, &a);
	rc = add_offenders(&sb, log, name, older_ns);
	if (rc) {
		strbuf_free(&sb);
		return rc;
	}
	if (a.reads_untraced)
		strbuf_adds(&sb, "; " LIB_READS_UNTRACED);
	return lib_check_fail(&sb, why);
}
