// SPDX-License-Identifier: MIT
/*
 * Checks on the kernel correlation: which window fetched a page, what
 * caused the reads of a range, whether the daemon traced at all. On
 * failure they show the windows involved, so that the reader sees the
 * kernel's decisions next to what the test expected.
 */
#include "lib_i.h"

#include "strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Windows listed around a page, and reads listed with the wrong cause. */
#define AROUND_MAX 6
#define READS_MAX 8

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* "the daemon was not tracing the kernel: REASON (...)" */
static void add_untraced(struct strbuf *sb, const struct testfs_log *log)
{
	strbuf_addf(sb,
		    "the daemon was not tracing the kernel: %s (kernel "
		    "correlation needs root and tracefs; see testfs_tracing())",
		    log->trace_why ? log->trace_why : "no reason given");
}

/* " 1024" or " none" */
static void add_page(struct strbuf *sb, uint64_t page)
{
	if (page == TESTFS_NO_PAGE)
		strbuf_adds(sb, " none");
	else
		strbuf_addf(sb, " %" PRIu64, page);
}

/* The reads of window @w that the daemon answered with an error. */
static size_t failed_reads(const struct testfs_log *log,
			   const struct testfs_window *w)
{
	size_t i, n = 0;

	for (i = 0; i < log->count; i++)
		n += log->recs[i].kind == TESTFS_RECORD_READ &&
		     log->recs[i].window == w->id && log->recs[i].err;
	return n;
}

/*
 * "window 7: async, trigger 1016, start 1024+32 (async 32), marker 1024,
 * fetched [1024, 1055] in 2 requests (1 failed), late"
 */
static void add_window(struct strbuf *sb, const struct testfs_log *log,
		       const struct testfs_window *w)
{
	size_t failed = failed_reads(log, w);

	strbuf_addf(sb, "window %" PRIu32 ": %s, trigger", w->id,
		    testfs_cause_name(w->cause));
	add_page(sb, w->trigger_page);
	strbuf_addf(sb,
		    ", start %" PRIu64 "+%" PRIu32 " (async %" PRIu32
		    "), marker",
		    w->start, w->size, w->async_size);
	add_page(sb, w->marker);
	if (w->pages)
		strbuf_addf(sb, ", fetched [%" PRIu64 ", %" PRIu64 "]",
			    w->first_page, w->last_page);
	else
		strbuf_adds(sb, ", fetched nothing");
	strbuf_addf(sb, " in %zu request%s", w->requests, plural(w->requests));
	if (failed)
		strbuf_addf(sb, " (%zu failed)", failed);
	if (w->late)
		strbuf_adds(sb, ", late");
}

static bool is_window_of(const struct testfs_window *w, const char *name)
{
	return w->file && strcmp(w->file, name) == 0 && w->pages;
}

/*
 * Picks the windows of @name around @page: the latest ones that fetched
 * it, the nearest one before and the nearest one after it. Marks them in
 * @pick (one flag per window); returns how many windows @name has.
 */
static size_t pick_around(const struct testfs_log *log, const char *name,
			  uint64_t page, bool *pick)
{
	size_t i, n = 0, covering = 0, before = SIZE_MAX, after = SIZE_MAX;

	for (i = log->nwindows; i-- > 0;) {
		const struct testfs_window *w = &log->windows[i];

		if (!is_window_of(w, name))
			continue;
		n++;
		if (w->first_page <= page && page <= w->last_page) {
			if (covering++ < AROUND_MAX - 2)
				pick[i] = true;
		} else if (w->last_page < page) {
			if (before == SIZE_MAX ||
			    w->last_page > log->windows[before].last_page)
				before = i;
		} else if (after == SIZE_MAX ||
			   w->first_page < log->windows[after].first_page) {
			after = i;
		}
	}
	if (before != SIZE_MAX)
		pick[before] = true;
	if (after != SIZE_MAX)
		pick[after] = true;
	return n;
}

/* "; windows of NAME around page P: window ...; window ..." */
static int add_around(struct strbuf *sb, const struct testfs_log *log,
		      const char *name, uint64_t page)
{
	bool *pick;
	size_t i, n, shown = 0;

	if (!log->nwindows) {
		strbuf_adds(sb, "; the log has no windows");
		return 0;
	}
	pick = calloc(log->nwindows, sizeof(*pick));
	if (!pick)
		return -ENOMEM;
	n = pick_around(log, name, page, pick);
	for (i = 0; i < log->nwindows; i++)
		shown += pick[i];
	if (!n)
		strbuf_addf(sb, "; no window of %s in the log", name);
	else
		strbuf_addf(sb, "; windows of %s around page %" PRIu64, name,
			    page);
	if (n > shown)
		strbuf_addf(sb, " (%zu of %zu)", shown, n);
	for (i = 0, shown = 0; i < log->nwindows; i++) {
		if (!pick[i])
			continue;
		strbuf_adds(sb, shown++ ? "; " : ": ");
		add_window(sb, log, &log->windows[i]);
	}
	free(pick);
	return 0;
}

/* "readaround" or "readaround started at page 896" */
static void add_expectation(struct strbuf *sb, enum testfs_cause cause,
			    uint64_t start)
{
	strbuf_adds(sb, testfs_cause_name(cause));
	if (start != TESTFS_NO_PAGE)
		strbuf_addf(sb, " started at page %" PRIu64, start);
}

/* Why no window fetched @page: not fetched, or by reads without one. */
static int add_no_window(struct strbuf *sb, const struct testfs_log *log,
			 const char *name, uint64_t page)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	int err;

	err = testfs_log_fetched(log, name, &fetched);
	if (err)
		return err;
	strbuf_addf(sb, "%s: no window fetched page %" PRIu64 " (", name, page);
	if (testfs_extents_contains(&fetched, page))
		strbuf_adds(sb, "reads without a window fetched it: cause "
				"unknown");
	else
		strbuf_adds(sb, "it was never fetched");
	strbuf_adds(sb, ")");
	testfs_extents_free(&fetched);
	return 0;
}

int testfs_check_window(const struct testfs_log *log, const char *name,
			uint64_t page, enum testfs_cause cause, uint64_t start,
			char **why)
{
	const struct testfs_window *w;
	struct strbuf sb = STRBUF_INIT;
	int err;

	err = lib_check_start(log, name, why);
	if (err)
		return err;
	if (!log->traced) {
		strbuf_addf(&sb, "%s: no window to check page %" PRIu64 ": ",
			    name, page);
		add_untraced(&sb, log);
		return lib_check_fail(&sb, why);
	}
	w = testfs_log_window_of(log, name, page);
	if (w && w->cause == cause &&
	    (start == TESTFS_NO_PAGE || w->start == start))
		return 0;
	if (w) {
		strbuf_addf(&sb,
			    "%s: the window that fetched page %" PRIu64 " was ",
			    name, page);
		add_expectation(&sb, w->cause, w->start);
	} else {
		err = add_no_window(&sb, log, name, page);
	}
	strbuf_adds(&sb, ": expected ");
	add_expectation(&sb, cause, start);
	if (!err)
		err = add_around(&sb, log, name, page);
	if (err) {
		strbuf_free(&sb);
		return err;
	}
	return lib_check_fail(&sb, why);
}

static bool overlaps(const struct testfs_record *r, uint64_t first,
		     uint64_t last)
{
	return r->pages && r->page <= last && r->page + (r->pages - 1) >= first;
}

/* "seq 3 [20, 51]: async (window 2, start 20+32)" */
static void add_read(struct strbuf *sb, const struct testfs_log *log,
		     const struct testfs_record *r)
{
	size_t i;

	strbuf_addf(sb, "seq %" PRIu64 " [%" PRIu64 ", %" PRIu64 "]: %s",
		    r->seq, r->page, r->page + r->pages - 1,
		    testfs_cause_name(r->cause));
	if (r->err)
		strbuf_addf(sb, ", error %" PRId32, r->err);
	if (!r->window)
		return;
	for (i = 0; i < log->nwindows; i++)
		if (log->windows[i].id == r->window)
			break;
	strbuf_adds(sb, " (");
	if (i < log->nwindows)
		add_window(sb, log, &log->windows[i]);
	else
		strbuf_addf(sb, "window %" PRIu32, r->window);
	strbuf_adds(sb, ")");
}

int testfs_check_cause(const struct testfs_log *log, const char *name,
		       uint64_t first, uint64_t last, enum testfs_cause cause,
		       char **why)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, n = 0, wrong = 0, shown = 0;
	int err;

	err = lib_check_start(log, name, why);
	if (err)
		return err;
	if (first > last)
		return -EINVAL;
	if (!log->traced) {
		strbuf_addf(&sb,
			    "%s: no cause to check for [%" PRIu64 ", %" PRIu64
			    "]: ",
			    name, first, last);
		add_untraced(&sb, log);
		return lib_check_fail(&sb, why);
	}
	for (i = 0; i < log->count; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (!lib_is_read_of(r, name) || !overlaps(r, first, last))
			continue;
		n++;
		wrong += r->cause != cause;
	}
	if (n && !wrong)
		return 0;
	if (!n) {
		strbuf_addf(&sb,
			    "%s: no read overlaps [%" PRIu64 ", %" PRIu64
			    "]: expected %s reads there",
			    name, first, last, testfs_cause_name(cause));
		err = add_around(&sb, log, name, first);
		goto out;
	}
	strbuf_addf(&sb,
		    "%s: %zu of %zu read%s overlapping [%" PRIu64 ", %" PRIu64
		    "] %s not %s: ",
		    name, wrong, n, plural(n), first, last,
		    wrong == 1 ? "was" : "were", testfs_cause_name(cause));
	for (i = 0; i < log->count && shown < READS_MAX; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (!lib_is_read_of(r, name) || !overlaps(r, first, last) ||
		    r->cause == cause)
			continue;
		if (shown++)
			strbuf_adds(&sb, "; ");
		add_read(&sb, log, r);
	}
	if (wrong > shown)
		strbuf_addf(&sb, "; and %zu more", wrong - shown);
out:
	if (err) {
		strbuf_free(&sb);
		return err;
	}
	return lib_check_fail(&sb, why);
}

int testfs_check_traced(const struct testfs_log *log, char **why)
{
	struct strbuf sb = STRBUF_INIT;

	if (why)
		*why = NULL;
	if (!log)
		return -EINVAL;
	if (log->traced)
		return 0;
	strbuf_adds(&sb, "the log has no kernel attribution: ");
	add_untraced(&sb, log);
	return lib_check_fail(&sb, why);
}
