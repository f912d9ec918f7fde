// SPDX-License-Identifier: MIT
/*
 * libtestfs kernel correlation without a mount: a log.bin and a config
 * written by hand into a directory posing as a mount (record conversion,
 * access records, the traced flag, testfs_tracing()), and windows, usage,
 * histograms and the checks on hand-made snapshots.
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
#include <sys/stat.h>
#include <unistd.h>

#include "lib_i.h"
#include "log_record.h"

#include <testfs/criterion.h>

#define NO TESTFS_NO_PAGE

static const char *fmt(const struct testfs_extents *e)
{
	static char buf[4096];

	testfs_extents_format(e, buf, sizeof(buf));
	return buf;
}

/* ------------------------------------------------------------------ */
/* Hand-made snapshots                                                 */
/* ------------------------------------------------------------------ */

#define MAX_RECS 64

struct fake_log {
	struct testfs_log log;
	struct testfs_record recs[MAX_RECS];
	struct testfs_access acc[MAX_RECS];
	const char *files[3];
};

static void fake_init(struct fake_log *f)
{
	memset(f, 0, sizeof(*f));
	f->log.recs = f->recs;
	f->log.access = f->acc;
	f->log.traced = true;
	f->files[0] = "big.bin";
	f->files[1] = "other.bin";
	f->files[2] = "idle.bin";
	f->log.files = f->files;
	f->log.nfiles = 3;
}

/* Groups the reads into windows, as a snapshot does once complete. */
static void fake_index(struct fake_log *f)
{
	cr_assert_eq(lib_index_windows(&f->log), 0);
}

static void fake_fini(struct fake_log *f)
{
	lib_free_windows(&f->log);
}

/* A read of @pages pages at @page, of @cause in window @window. */
static struct testfs_record *rd(struct fake_log *f, const char *file,
				uint64_t page, uint64_t pages,
				enum testfs_cause cause, uint32_t window)
{
	struct testfs_record *r;

	cr_assert_lt(f->log.count, MAX_RECS);
	r = &f->recs[f->log.count];
	r->seq = f->log.count + 1;
	r->kind = TESTFS_RECORD_READ;
	r->file = file;
	r->ino = strcmp(file, "big.bin") == 0 ? 2 : 3;
	r->off = page * TESTFS_PAGE_SIZE;
	/* The huge reads of a test have no real FUSE counterpart. */
	r->len = pages > UINT32_MAX / TESTFS_PAGE_SIZE
			 ? UINT32_MAX
			 : (uint32_t)(pages * TESTFS_PAGE_SIZE);
	r->page = page;
	r->pages = pages;
	r->t_ns = 1000 * r->seq;
	r->cause = cause;
	r->window = window;
	r->ra_marker = NO;
	r->trigger_page = NO;
	r->folio_order = -1;
	r->alloc_order = -1;
	f->log.count++;
	return r;
}

/* Sets the window of read @r: start+size (async), marker, trigger. */
static void ra(struct testfs_record *r, uint64_t start, uint32_t size,
	       uint32_t async, uint64_t marker, uint64_t trigger)
{
	r->ra_start = start;
	r->ra_size = size;
	r->ra_async = async;
	r->ra_marker = marker;
	r->trigger_page = trigger;
	r->ra_pages = 32;
}

static void mark(struct fake_log *f, const char *text)
{
	struct testfs_record *r = &f->recs[f->log.count];

	r->seq = f->log.count + 1;
	r->kind = TESTFS_RECORD_MARK;
	r->mark = text;
	f->log.count++;
}

static void acc(struct fake_log *f, const char *file,
		enum testfs_access_type type, uint64_t first, uint64_t last,
		uint32_t late)
{
	struct testfs_access *a;

	cr_assert_lt(f->log.naccess, MAX_RECS);
	a = &f->acc[f->log.naccess];
	a->file = file;
	a->type = type;
	a->first = first;
	a->last = last;
	a->events = (uint32_t)(last - first + 1);
	a->late = late;
	a->t_ns = 100 + f->log.naccess;
	a->end_ns = a->t_ns;
	f->log.naccess++;
}

/*
 * read(2) from page 0 with a refetch and an interleaved file:
 *	seq 1  big   [0, 3]    sync  window 40  0+4 (async 3) marker 1
 *	seq 2  big   [4, 11]   async window 41  4+8 (async 8) marker 4
 *	seq 3  big   [12, 19]  async window 7   12+16 marker 12 (split:)
 *	seq 4  other [100, 131] readaround window 42
 *	seq 5  big   [20, 27]  async window 7
 *	seq 6  mark
 *	seq 7  big   [28, 28]  unknown (no window)
 *	seq 8  big   [0, 7]    forced window 43 (a refetch)
 *	seq 9  big   [40, 47]  sync window 44, answered with EIO
 *	seq 10 big   [40, 40]  single window 45 (the retry)
 *	seq 11 big   [60, 63]  direct
 */
static void fake_stream(struct fake_log *f)
{
	struct testfs_record *r;

	fake_init(f);
	ra(rd(f, "big.bin", 0, 4, TESTFS_CAUSE_SYNC, 40), 0, 4, 3, 1, 0);
	ra(rd(f, "big.bin", 4, 8, TESTFS_CAUSE_ASYNC, 41), 4, 8, 8, 4, 1);
	r = rd(f, "big.bin", 12, 8, TESTFS_CAUSE_ASYNC, 7);
	ra(r, 12, 16, 16, 12, 4);
	r->alloc_order = -1;
	r = rd(f, "other.bin", 100, 32, TESTFS_CAUSE_READAROUND, 42);
	ra(r, 100, 32, 0, NO, 116);
	r = rd(f, "big.bin", 20, 8, TESTFS_CAUSE_ASYNC, 7);
	ra(r, 12, 16, 16, 12, 4);
	r->alloc_order = 0;
	r->late = true;
	mark(f, "refetch");
	rd(f, "big.bin", 28, 1, TESTFS_CAUSE_UNKNOWN, 0);
	ra(rd(f, "big.bin", 0, 8, TESTFS_CAUSE_FORCED, 43), 0, 8, 0, NO, 0);
	r = rd(f, "big.bin", 40, 8, TESTFS_CAUSE_SYNC, 44);
	ra(r, 40, 8, 0, NO, 40);
	r->err = 5;
	ra(rd(f, "big.bin", 40, 1, TESTFS_CAUSE_SINGLE, 45), 40, 1, 0, NO, 40);
	r = rd(f, "big.bin", 60, 4, TESTFS_CAUSE_DIRECT, 0);
	r->direct = true;
	fake_index(f);
}

/* ------------------------------------------------------------------ */
/* Causes and windows                                                  */
/* ------------------------------------------------------------------ */

Test(cause, names)
{
	cr_assert_str_eq(testfs_cause_name(TESTFS_CAUSE_UNKNOWN), "unknown");
	cr_assert_str_eq(testfs_cause_name(TESTFS_CAUSE_SYNC), "sync");
	cr_assert_str_eq(testfs_cause_name(TESTFS_CAUSE_ASYNC), "async");
	cr_assert_str_eq(testfs_cause_name(TESTFS_CAUSE_READAROUND),
			 "readaround");
	cr_assert_str_eq(testfs_cause_name(TESTFS_CAUSE_FORCED), "forced");
	cr_assert_str_eq(testfs_cause_name(TESTFS_CAUSE_SINGLE), "single");
	cr_assert_str_eq(testfs_cause_name(TESTFS_CAUSE_DIRECT), "direct");
	cr_assert_str_eq(testfs_cause_name((enum testfs_cause)99), "unknown");
	cr_assert_str_eq(testfs_cause_name((enum testfs_cause) - 1), "unknown");
	/* the library's and the daemon's numbering agree (as numbers: two
	 * enum types, which newer compilers warn about comparing) */
	cr_assert_eq((int)TESTFS_CAUSE_DIRECT, (int)LOG_CAUSE_DIRECT);
	cr_assert_eq((int)TESTFS_CAUSE_SINGLE, (int)LOG_CAUSE_SINGLE);
	cr_assert_eq((int)TESTFS_CAUSE_READAROUND, (int)LOG_CAUSE_READAROUND);
	cr_assert_eq((int)TESTFS_ACCESS_MAP, (int)LOG_ACCESS_MAP);
	cr_assert_eq((int)TESTFS_ACCESS_FAULT, (int)LOG_ACCESS_FAULT);
}

Test(windows, grouped_by_id_in_arrival_order)
{
	const struct testfs_window *w;
	struct fake_log f;

	fake_stream(&f);
	cr_assert_eq(testfs_log_window_count(&f.log), 7);
	/* by first seq, whatever the ids */
	w = testfs_log_window_at(&f.log, 0);
	cr_assert_eq(w->id, 40);
	cr_assert_eq(w->cause, TESTFS_CAUSE_SYNC);
	cr_assert_eq(testfs_log_window_at(&f.log, 1)->id, 41);
	cr_assert_eq(testfs_log_window_at(&f.log, 3)->id, 42);
	cr_assert_eq(testfs_log_window_at(&f.log, 4)->id, 43);
	cr_assert_eq(testfs_log_window_at(&f.log, 6)->id, 45);
	cr_assert_null(testfs_log_window_at(&f.log, 7));
	cr_assert_null(testfs_log_window_at(NULL, 0));
	cr_assert_eq(testfs_log_window_count(NULL), 0);

	/* one decision split into two reads, another file's in between */
	w = testfs_log_window_at(&f.log, 2);
	cr_assert_eq(w->id, 7);
	cr_assert_str_eq(w->file, "big.bin");
	cr_assert_eq(w->cause, TESTFS_CAUSE_ASYNC);
	cr_assert_eq(w->requests, 2);
	cr_assert_eq(w->first_seq, 3);
	cr_assert_eq(w->t_ns, 3000);
	cr_assert_eq(w->first_page, 12);
	cr_assert_eq(w->last_page, 27);
	cr_assert_eq(w->pages, 16);
	cr_assert_eq(w->start, 12);
	cr_assert_eq(w->size, 16);
	cr_assert_eq(w->async_size, 16);
	cr_assert_eq(w->marker, 12);
	cr_assert_eq(w->trigger_page, 4);
	cr_assert_eq(w->ra_pages, 32);
	cr_assert_eq(w->folio_order, -1);
	/* the first read that knows it */
	cr_assert_eq(w->alloc_order, 0);
	cr_assert(w->late);
	cr_assert_not(testfs_log_window_at(&f.log, 0)->late);

	/* a window answered with an error still lists its read */
	w = testfs_log_window_at(&f.log, 5);
	cr_assert_eq(w->id, 44);
	cr_assert_eq(w->requests, 1);
	cr_assert_eq(w->pages, 8);
	fake_fini(&f);
}

Test(windows, none_without_window_ids)
{
	struct fake_log f;

	fake_init(&f);
	f.log.traced = false;
	rd(&f, "big.bin", 0, 4, TESTFS_CAUSE_UNKNOWN, 0);
	rd(&f, "big.bin", 4, 4, TESTFS_CAUSE_UNKNOWN, 0);
	fake_index(&f);
	cr_assert_eq(testfs_log_window_count(&f.log), 0);
	cr_assert_null(testfs_log_window_of(&f.log, "big.bin", 0));
	fake_fini(&f);
}

Test(windows, window_of)
{
	struct fake_log f;

	fake_stream(&f);
	/* fetched twice: the second fetch's window */
	cr_assert_eq(testfs_log_window_of(&f.log, "big.bin", 0)->id, 43);
	cr_assert_eq(testfs_log_window_of(&f.log, "big.bin", 7)->id, 43);
	cr_assert_eq(testfs_log_window_of(&f.log, "big.bin", 8)->id, 41);
	cr_assert_eq(testfs_log_window_of(&f.log, "big.bin", 12)->id, 7);
	cr_assert_eq(testfs_log_window_of(&f.log, "big.bin", 27)->id, 7);
	/* reads of unknown cause have no window */
	cr_assert_null(testfs_log_window_of(&f.log, "big.bin", 28));
	/* the failed window fetched nothing; its retry did */
	cr_assert_eq(testfs_log_window_of(&f.log, "big.bin", 40)->id, 45);
	cr_assert_null(testfs_log_window_of(&f.log, "big.bin", 41));
	/* O_DIRECT fetches nothing into the cache */
	cr_assert_null(testfs_log_window_of(&f.log, "big.bin", 60));
	cr_assert_null(testfs_log_window_of(&f.log, "big.bin", 100));
	cr_assert_eq(testfs_log_window_of(&f.log, "other.bin", 131)->id, 42);
	cr_assert_null(testfs_log_window_of(&f.log, "other.bin", 132));
	cr_assert_null(testfs_log_window_of(&f.log, "nope.bin", 0));
	cr_assert_null(testfs_log_window_of(&f.log, NULL, 0));
	cr_assert_null(testfs_log_window_of(NULL, "big.bin", 0));
	fake_fini(&f);
}

Test(windows, reindex_replaces)
{
	struct fake_log f;

	fake_stream(&f);
	fake_index(&f);
	cr_assert_eq(testfs_log_window_count(&f.log), 7);
	f.log.count = 2;
	fake_index(&f);
	cr_assert_eq(testfs_log_window_count(&f.log), 2);
	fake_fini(&f);
	cr_assert_eq(testfs_log_window_count(&f.log), 0);
}

/* ------------------------------------------------------------------ */
/* Usage                                                               */
/* ------------------------------------------------------------------ */

/*
 * Fetched [0, 127] (plus a failed [200, 207] and O_DIRECT [300, 301]);
 * accessed [0, 20] and [500, 500]; mapped by fault-around [16, 40] and
 * [120, 130].
 */
static void fake_usage(struct fake_log *f)
{
	struct testfs_record *r;

	fake_init(f);
	rd(f, "big.bin", 0, 32, TESTFS_CAUSE_SYNC, 1);
	r = rd(f, "big.bin", 32, 32, TESTFS_CAUSE_ASYNC, 2);
	r->late = true;
	rd(f, "big.bin", 64, 64, TESTFS_CAUSE_ASYNC, 3);
	r = rd(f, "big.bin", 200, 8, TESTFS_CAUSE_SYNC, 4);
	r->err = 5;
	r->late = true;
	r = rd(f, "big.bin", 300, 2, TESTFS_CAUSE_DIRECT, 0);
	r->direct = true;
	r = rd(f, "other.bin", 0, 8, TESTFS_CAUSE_SYNC, 5);
	r->late = true;
	acc(f, "big.bin", TESTFS_ACCESS_FAULT, 0, 0, 1);
	acc(f, "big.bin", TESTFS_ACCESS_READ, 5, 20, 2);
	acc(f, "big.bin", TESTFS_ACCESS_MAP, 16, 40, 0);
	acc(f, "other.bin", TESTFS_ACCESS_READ, 0, 100, 7);
	acc(f, "big.bin", TESTFS_ACCESS_READ, 1, 9, 0);
	acc(f, "big.bin", TESTFS_ACCESS_FAULT, 500, 500, 0);
	acc(f, "big.bin", TESTFS_ACCESS_MAP, 120, 130, 0);
	fake_index(f);
}

Test(usage, wasted_mapped_late)
{
	struct testfs_extents wasted = TESTFS_EXTENTS_INIT;
	struct testfs_usage u;
	struct fake_log f;

	fake_usage(&f);
	testfs_extents_add(&wasted, 9000, 9001);
	cr_assert_eq(testfs_log_usage(&f.log, "big.bin", &u, &wasted), 0);
	cr_assert_eq(u.fetched, 128);
	/* [0, 20] and [500, 500]: accessed, even if never fetched */
	cr_assert_eq(u.accessed, 22);
	/* [21, 40] and [120, 130]: the mapped pages not accessed */
	cr_assert_eq(u.mapped, 31);
	cr_assert_eq(u.wasted, 79);
	cr_assert_str_eq(fmt(&wasted), "[41, 119]");
	cr_assert_eq(wasted.pages, 79);
	cr_assert_eq(u.late_accesses, 3);
	/* the failed read does not count: it fetched nothing */
	cr_assert_eq(u.late_reads, 1);

	cr_assert_eq(testfs_log_usage(&f.log, "other.bin", &u, NULL), 0);
	cr_assert_eq(u.fetched, 8);
	cr_assert_eq(u.accessed, 101);
	cr_assert_eq(u.wasted, 0);
	cr_assert_eq(u.late_accesses, 7);
	cr_assert_eq(u.late_reads, 1);
	testfs_extents_free(&wasted);
	fake_fini(&f);
}

Test(usage, files_and_errors)
{
	struct testfs_extents wasted = TESTFS_EXTENTS_INIT;
	struct testfs_usage u;
	struct fake_log f;

	fake_usage(&f);
	/* served, never read: all zero */
	memset(&u, 0xff, sizeof(u));
	cr_assert_eq(testfs_log_usage(&f.log, "idle.bin", &u, &wasted), 0);
	cr_assert_eq(u.fetched + u.accessed + u.mapped + u.wasted +
			     u.late_accesses + u.late_reads,
		     0);
	cr_assert_eq(testfs_log_usage(&f.log, "nope.bin", &u, NULL), -ENOENT);
	/* a file only the records name (a config without it) */
	f.log.nfiles = 0;
	cr_assert_eq(testfs_log_usage(&f.log, "other.bin", &u, NULL), 0);
	cr_assert_eq(testfs_log_usage(&f.log, "idle.bin", &u, NULL), -ENOENT);
	cr_assert_eq(testfs_log_usage(NULL, "big.bin", &u, NULL), -EINVAL);
	cr_assert_eq(testfs_log_usage(&f.log, NULL, &u, NULL), -EINVAL);
	cr_assert_eq(testfs_log_usage(&f.log, "big.bin", NULL, NULL), -EINVAL);
	testfs_extents_free(&wasted);
	fake_fini(&f);
}

Test(usage, untraced_fills_only_fetched)
{
	struct testfs_extents wasted = TESTFS_EXTENTS_INIT;
	struct testfs_usage u;
	struct fake_log f;

	fake_usage(&f);
	f.log.traced = false;
	testfs_extents_add(&wasted, 1, 2);
	cr_assert_eq(testfs_log_usage(&f.log, "big.bin", &u, &wasted), 0);
	cr_assert_eq(u.fetched, 128);
	cr_assert_eq(u.accessed + u.mapped + u.wasted + u.late_accesses +
			     u.late_reads,
		     0);
	cr_assert_eq(wasted.n, 0);
	fake_fini(&f);
}

/* Ranges near 2^62 bytes: nothing may loop per page. */
Test(usage, huge_ranges, .timeout = 10)
{
	const uint64_t base = 1ull << 49, span = 1ull << 40;
	struct testfs_extents wasted = TESTFS_EXTENTS_INIT;
	struct testfs_histograms h;
	struct testfs_usage u;
	struct fake_log f;

	fake_init(&f);
	rd(&f, "big.bin", base, span, TESTFS_CAUSE_FORCED, 1);
	rd(&f, "big.bin", base + span, span, TESTFS_CAUSE_FORCED, 1);
	acc(&f, "big.bin", TESTFS_ACCESS_READ, base + 1, base + span - 1, 0);
	acc(&f, "big.bin", TESTFS_ACCESS_MAP, base, base + 2 * span, 0);
	fake_index(&f);
	cr_assert_eq(testfs_log_window_of(&f.log, "big.bin", base + span)->id,
		     1);
	cr_assert_eq(testfs_log_window_at(&f.log, 0)->pages, 2 * span);
	cr_assert_eq(testfs_log_usage(&f.log, "big.bin", &u, &wasted), 0);
	cr_assert_eq(u.fetched, 2 * span);
	cr_assert_eq(u.accessed, span - 1);
	cr_assert_eq(u.mapped, span + 2);
	cr_assert_eq(u.wasted, 0);
	cr_assert_eq(testfs_log_histograms(&f.log, NULL, &h), 0);
	cr_assert_eq(h.request_pages[TESTFS_HIST_BUCKETS - 1], 2);
	testfs_extents_free(&wasted);
	fake_fini(&f);
}

/* ------------------------------------------------------------------ */
/* Histograms                                                          */
/* ------------------------------------------------------------------ */

Test(histograms, requests_and_orders)
{
	struct testfs_histograms h;
	struct testfs_record *r;
	struct fake_log f;
	uint64_t sum = 0;
	int i;

	fake_init(&f);
	/* window 1: 1 + 2 pages, asked order 2, allocated 0 (2nd read) */
	r = rd(&f, "big.bin", 0, 1, TESTFS_CAUSE_SYNC, 1);
	r->folio_order = 2;
	r = rd(&f, "big.bin", 1, 2, TESTFS_CAUSE_SYNC, 1);
	r->folio_order = 2;
	r->alloc_order = 0;
	/* window 2: 3 pages, nothing traced about folios */
	rd(&f, "big.bin", 3, 3, TESTFS_CAUSE_SYNC, 2);
	/* window 3: 4 pages, order 20 (past the last bucket) */
	r = rd(&f, "big.bin", 6, 4, TESTFS_CAUSE_ASYNC, 3);
	r->folio_order = 20;
	r->alloc_order = 20;
	/* no window: 256 pages; 2^20 pages; an empty read */
	rd(&f, "big.bin", 10, 256, TESTFS_CAUSE_UNKNOWN, 0);
	rd(&f, "big.bin", 300, 1u << 20, TESTFS_CAUSE_UNKNOWN, 0);
	r = rd(&f, "big.bin", 0, 0, TESTFS_CAUSE_UNKNOWN, 0);
	r->len = 0;
	/* another file: 32 pages, order 0 */
	r = rd(&f, "other.bin", 0, 32, TESTFS_CAUSE_READAROUND, 4);
	r->folio_order = 0;
	r->alloc_order = 0;
	mark(&f, "not a read");
	fake_index(&f);

	cr_assert_eq(testfs_log_histograms(&f.log, "big.bin", &h), 0);
	cr_assert_eq(h.request_pages[0], 1);
	cr_assert_eq(h.request_pages[1], 2);
	cr_assert_eq(h.request_pages[2], 1);
	cr_assert_eq(h.request_pages[8], 1);
	cr_assert_eq(h.request_pages[15], 1);
	for (i = 0; i < TESTFS_HIST_BUCKETS; i++)
		sum += h.request_pages[i];
	cr_assert_eq(sum, 6);
	cr_assert_eq(h.order_asked[2], 1);
	cr_assert_eq(h.order_asked[15], 1);
	cr_assert_eq(h.order_asked[0], 0);
	cr_assert_eq(h.order_asked_unknown, 1);
	cr_assert_eq(h.order_allocated[0], 1);
	cr_assert_eq(h.order_allocated[15], 1);
	cr_assert_eq(h.order_allocated_unknown, 1);

	cr_assert_eq(testfs_log_histograms(&f.log, NULL, &h), 0);
	cr_assert_eq(h.request_pages[5], 1);
	cr_assert_eq(h.order_asked[0], 1);
	cr_assert_eq(h.order_allocated[0], 2);

	memset(&h, 0xff, sizeof(h));
	cr_assert_eq(testfs_log_histograms(&f.log, "nope.bin", &h), 0);
	cr_assert_eq(h.request_pages[0] + h.order_asked_unknown, 0);
	cr_assert_eq(testfs_log_histograms(NULL, NULL, &h), -EINVAL);
	cr_assert_eq(testfs_log_histograms(&f.log, NULL, NULL), -EINVAL);
	fake_fini(&f);
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

Test(checks, window)
{
	struct fake_log f;
	char *why = (char *)"untouched";

	fake_stream(&f);
	cr_assert_eq(testfs_check_window(&f.log, "big.bin", 13,
					 TESTFS_CAUSE_ASYNC, 12, &why),
		     0);
	cr_assert_null(why);
	cr_assert_eq(testfs_check_window(&f.log, "big.bin", 2,
					 TESTFS_CAUSE_FORCED, NO, &why),
		     0);
	cr_assert_eq(testfs_check_window(&f.log, "big.bin", 13,
					 TESTFS_CAUSE_SYNC, 12, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: the window that fetched page 13 was async started at page 12: expected sync started at page 12; windows of big.bin around page 13 (3 of 6): window 41: async, trigger 1, start 4+8 (async 8), marker 4, fetched [4, 11] in 1 request; window 7: async, trigger 4, start 12+16 (async 16), marker 12, fetched [12, 27] in 2 requests, late; window 45: single, trigger 40, start 40+1 (async 0), marker none, fetched [40, 40] in 1 request");
	free(why);
	cr_assert_eq(testfs_check_window(&f.log, "big.bin", 13,
					 TESTFS_CAUSE_ASYNC, 4, NULL),
		     1);
	fake_fini(&f);
}

Test(checks, window_not_found)
{
	struct fake_log f;
	char *why = NULL;

	fake_stream(&f);
	cr_assert_eq(testfs_check_window(&f.log, "big.bin", 28,
					 TESTFS_CAUSE_ASYNC, NO, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: no window fetched page 28 (reads without a window fetched it: cause unknown): expected async; windows of big.bin around page 28 (2 of 6): window 7: async, trigger 4, start 12+16 (async 16), marker 12, fetched [12, 27] in 2 requests, late; window 45: single, trigger 40, start 40+1 (async 0), marker none, fetched [40, 40] in 1 request");
	free(why);
	cr_assert_eq(testfs_check_window(&f.log, "other.bin", 7,
					 TESTFS_CAUSE_READAROUND, 0, &why),
		     1);
	cr_assert_str_eq(
		why,
		"other.bin: no window fetched page 7 (it was never fetched): expected readaround started at page 0; windows of other.bin around page 7: window 42: readaround, trigger 116, start 100+32 (async 0), marker none, fetched [100, 131] in 1 request");
	free(why);
	cr_assert_eq(testfs_check_window(&f.log, "nope.bin", 7,
					 TESTFS_CAUSE_SYNC, NO, &why),
		     1);
	cr_assert_str_eq(
		why,
		"nope.bin: no window fetched page 7 (it was never fetched): expected sync; no window of nope.bin in the log");
	free(why);
	fake_fini(&f);
}

Test(checks, window_needs_a_traced_log)
{
	struct fake_log f;
	char *why = NULL;

	fake_stream(&f);
	f.log.traced = false;
	f.log.trace_why = (char *)"not root";
	cr_assert_eq(testfs_check_window(&f.log, "big.bin", 13,
					 TESTFS_CAUSE_ASYNC, 12, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: no window to check page 13: the daemon was not tracing the kernel: not root (kernel correlation needs root and tracefs; see testfs_tracing())");
	free(why);
	/* lost records come first */
	f.log.lost = 2;
	cr_assert_eq(testfs_check_window(&f.log, "big.bin", 13,
					 TESTFS_CAUSE_ASYNC, 12, &why),
		     1);
	cr_assert_str_eq(
		why, "big.bin: the log lost 2 records; raise --log-capacity");
	free(why);
	cr_assert_eq(testfs_check_window(NULL, "big.bin", 13,
					 TESTFS_CAUSE_ASYNC, 12, &why),
		     -EINVAL);
	fake_fini(&f);
}

Test(checks, cause)
{
	struct fake_log f;
	char *why = NULL;

	fake_stream(&f);
	cr_assert_eq(testfs_check_cause(&f.log, "big.bin", 8, 27,
					TESTFS_CAUSE_ASYNC, &why),
		     0);
	cr_assert_null(why);
	cr_assert_eq(testfs_check_cause(&f.log, "other.bin", 0, 1000,
					TESTFS_CAUSE_READAROUND, &why),
		     0);
	cr_assert_eq(testfs_check_cause(&f.log, "big.bin", 0, 30,
					TESTFS_CAUSE_ASYNC, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: 3 of 6 reads overlapping [0, 30] were not async: seq 1 [0, 3]: sync (window 40: sync, trigger 0, start 0+4 (async 3), marker 1, fetched [0, 3] in 1 request); seq 7 [28, 28]: unknown; seq 8 [0, 7]: forced (window 43: forced, trigger 0, start 0+8 (async 0), marker none, fetched [0, 7] in 1 request)");
	free(why);
	/* failed and O_DIRECT reads are reads too */
	cr_assert_eq(testfs_check_cause(&f.log, "big.bin", 40, 63,
					TESTFS_CAUSE_SINGLE, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: 2 of 3 reads overlapping [40, 63] were not single: seq 9 [40, 47]: sync, error 5 (window 44: sync, trigger 40, start 40+8 (async 0), marker none, fetched [40, 47] in 1 request (1 failed)); seq 11 [60, 63]: direct");
	free(why);
	cr_assert_eq(testfs_check_cause(&f.log, "big.bin", 29, 39,
					TESTFS_CAUSE_SYNC, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: no read overlaps [29, 39]: expected sync reads there; windows of big.bin around page 29 (2 of 6): window 7: async, trigger 4, start 12+16 (async 16), marker 12, fetched [12, 27] in 2 requests, late; window 45: single, trigger 40, start 40+1 (async 0), marker none, fetched [40, 40] in 1 request");
	free(why);
	cr_assert_eq(testfs_check_cause(&f.log, "big.bin", 5, 4,
					TESTFS_CAUSE_SYNC, &why),
		     -EINVAL);
	f.log.traced = false;
	cr_assert_eq(testfs_check_cause(&f.log, "big.bin", 4, 27,
					TESTFS_CAUSE_ASYNC, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: no cause to check for [4, 27]: the daemon was not tracing the kernel: no reason given (kernel correlation needs root and tracefs; see testfs_tracing())");
	free(why);
	fake_fini(&f);
}

Test(checks, cause_lists_at_most_eight_reads)
{
	struct fake_log f;
	char *why = NULL;
	int i;

	fake_init(&f);
	for (i = 0; i < 10; i++)
		rd(&f, "big.bin", (uint64_t)i, 1, TESTFS_CAUSE_SINGLE, 0);
	fake_index(&f);
	cr_assert_eq(testfs_check_cause(&f.log, "big.bin", 0, 9,
					TESTFS_CAUSE_SYNC, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: 10 of 10 reads overlapping [0, 9] were not sync: seq 1 [0, 0]: single; seq 2 [1, 1]: single; seq 3 [2, 2]: single; seq 4 [3, 3]: single; seq 5 [4, 4]: single; seq 6 [5, 5]: single; seq 7 [6, 6]: single; seq 8 [7, 7]: single; and 2 more");
	free(why);
	fake_fini(&f);
}

Test(checks, traced)
{
	struct fake_log f;
	char *why = (char *)"untouched";

	fake_init(&f);
	cr_assert_eq(testfs_check_traced(&f.log, &why), 0);
	cr_assert_null(why);
	/* lost records do not matter here */
	f.log.lost = 5;
	cr_assert_eq(testfs_check_traced(&f.log, &why), 0);
	f.log.traced = false;
	f.log.trace_why = (char *)"--no-trace";
	cr_assert_eq(testfs_check_traced(&f.log, &why), 1);
	cr_assert_str_eq(
		why,
		"the log has no kernel attribution: the daemon was not tracing the kernel: --no-trace (kernel correlation needs root and tracefs; see testfs_tracing())");
	free(why);
	cr_assert_eq(testfs_check_traced(&f.log, NULL), 1);
	cr_assert_eq(testfs_check_traced(NULL, &why), -EINVAL);
}

/* The Criterion macros pass on a good log ... */
Test(criterion, assertions_pass)
{
	struct fake_log f;

	fake_stream(&f);
	testfs_assert_traced(&f.log);
	testfs_expect_traced(&f.log);
	testfs_assert_window(&f.log, "big.bin", 20, TESTFS_CAUSE_ASYNC, 12);
	testfs_expect_window(&f.log, "big.bin", 2, TESTFS_CAUSE_FORCED, NO);
	testfs_assert_cause(&f.log, "big.bin", 8, 27, TESTFS_CAUSE_ASYNC);
	testfs_expect_cause(&f.log, "other.bin", 0, 200,
			    TESTFS_CAUSE_READAROUND);
	fake_fini(&f);
}

/*
 * ... and fail on a bad one, with the check's explanation: the Criterion
 * failure macros are swapped for one that keeps the message.
 */
static char failed[4096];
static int failures;

static void capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void capture(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(failed, sizeof(failed), fmt, ap);
	va_end(ap);
	failures++;
}

#pragma push_macro("cr_assert_fail")
#pragma push_macro("cr_expect_fail")
#undef cr_assert_fail
#undef cr_expect_fail
#define cr_assert_fail(...) capture(__VA_ARGS__)
#define cr_expect_fail(...) capture(__VA_ARGS__)

static void fail_window(const struct testfs_log *log)
{
	testfs_assert_window(log, "big.bin", 20, TESTFS_CAUSE_SYNC, 12);
}

static void fail_window_expect(const struct testfs_log *log)
{
	testfs_expect_window(log, "big.bin", 20, TESTFS_CAUSE_ASYNC, 13);
}

static void fail_cause(const struct testfs_log *log)
{
	testfs_assert_cause(log, "big.bin", 28, 28, TESTFS_CAUSE_SYNC);
}

static void fail_cause_expect(const struct testfs_log *log)
{
	testfs_expect_cause(log, "big.bin", 28, 28, TESTFS_CAUSE_SYNC);
}

static void fail_traced(const struct testfs_log *log)
{
	testfs_assert_traced(log);
}

static void fail_traced_expect(const struct testfs_log *log)
{
	testfs_expect_traced(log);
}

static void fail_cannot_check(const struct testfs_log *log)
{
	testfs_assert_cause(log, "big.bin", 28, 27, TESTFS_CAUSE_SYNC);
}

#pragma pop_macro("cr_assert_fail")
#pragma pop_macro("cr_expect_fail")

/* Runs @fn and returns the failure message it produced. */
static const char *failure_of(void (*fn)(const struct testfs_log *),
			      const struct testfs_log *log)
{
	failed[0] = '\0';
	failures = 0;
	fn(log);
	cr_assert_eq(failures, 1, "no failure reported");
	return failed;
}

Test(criterion, assertions_fail_with_the_explanation)
{
	const char *cause_msg = "big.bin: 1 of 1 read overlapping [28, 28] "
				"was not sync: seq 7 [28, 28]: unknown";
	const char *traced_msg =
		"the log has no kernel attribution: the daemon was not "
		"tracing the kernel: not root (kernel correlation needs "
		"root and tracefs; see testfs_tracing())";
	struct fake_log f;

	fake_stream(&f);
	cr_assert_not_null(strstr(failure_of(fail_window, &f.log),
				  "big.bin: the window that fetched page 20 "
				  "was async started at page 12: expected "
				  "sync started at page 12; windows of "
				  "big.bin around page 20 (3 of 6): "));
	cr_assert_not_null(strstr(failure_of(fail_window_expect, &f.log),
				  "expected async started at page 13"));
	cr_assert_str_eq(failure_of(fail_cause, &f.log), cause_msg);
	cr_assert_str_eq(failure_of(fail_cause_expect, &f.log), cause_msg);
	cr_assert_str_eq(
		failure_of(fail_cannot_check, &f.log),
		"testfs: testfs_check_cause(log, \"big.bin\", 28, 27, "
		"TESTFS_CAUSE_SYNC, &testfs_why_) could not check: Invalid "
		"argument");
	f.log.traced = false;
	f.log.trace_why = (char *)"not root";
	cr_assert_str_eq(failure_of(fail_traced, &f.log), traced_msg);
	cr_assert_str_eq(failure_of(fail_traced_expect, &f.log), traced_msg);
	fake_fini(&f);
}

/* ------------------------------------------------------------------ */
/* A directory posing as a mount: log.bin and config by hand           */
/* ------------------------------------------------------------------ */

static char dir[] = "/tmp/lib_windows.XXXXXX";
static struct testfs_mount fake_fs;

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/.testfs/%s", dir, name);
}

static void write_file(const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	path_of(path, sizeof(path), name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void write_config(const char *json)
{
	write_file("config", json, strlen(json));
}

static void make_mount(void)
{
	char path[PATH_MAX];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/.testfs", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	fake_fs.mountpoint = dir;
	/* No such FUSE connection: testfs_settle() has nothing to wait for. */
	fake_fs.conn_id = UINT_MAX;
}

static void remove_mount(void)
{
	char path[PATH_MAX];

	path_of(path, sizeof(path), "config");
	unlink(path);
	path_of(path, sizeof(path), "log.bin");
	unlink(path);
	snprintf(path, sizeof(path), "%s/.testfs", dir);
	rmdir(path);
	rmdir(dir);
}

TestSuite(mount, .init = make_mount, .fini = remove_mount);

#define CONFIG_FILES                                                               \
	"\"ra_kb\":{\"requested\":0,\"effective\":128},\"files\":["                \
	"{\"name\":\"big.bin\",\"ino\":9,\"size\":1048576,\"pattern\":\"stamp\"}," \
	"{\"name\":\"dir/n.bin\",\"ino\":11,\"size\":4096,\"pattern\":\"zero\"}]"

static struct log_record *rec(struct log_record *v, size_t *n, uint16_t kind,
			      uint64_t t_ns)
{
	struct log_record *r = &v[*n];

	memset(r, 0, sizeof(*r));
	r->seq = 100 + ++*n;
	r->t_ns = t_ns;
	r->kind = kind;
	return r;
}

/* The log of a daemon on a kernel with @page_size-byte pages. */
static void write_log_paged(bool traced, uint32_t page_size)
{
	struct {
		struct log_bin_header h;
		struct log_record r[8];
	} bin;
	struct log_record *r;
	size_t n = 0;

	memset(&bin, 0, sizeof(bin));
	r = rec(bin.r, &n, LOG_READ, 1000);
	r->read.ino = 9;
	r->read.off = 0;
	r->read.len = 16384;
	r->read.done_ns = 1500;
	r->read.pid = 77;
	r->read.attr = (struct log_attr){ .ra_start = 0,
					  .ra_marker = 1,
					  .trigger_page = 0,
					  .window = 5,
					  .ra_size = 4,
					  .ra_async = 3,
					  .ra_pages = 32,
					  .mmap_miss = 2,
					  .cause = LOG_CAUSE_SYNC,
					  .order = 2,
					  .alloc_order = 0,
					  .flags = LOG_ATTR_LATE };
	r = rec(bin.r, &n, LOG_ACCESS, 900);
	r->access.ino = 9;
	r->access.type = LOG_ACCESS_FAULT;
	r->access.end_ns = 950;
	r->access.pid = 77;
	r->access.events = 1;
	r->access.late = 1;
	r = rec(bin.r, &n, LOG_MARK, 2000);
	strcpy(r->mark.text, "phase 2");
	/* Unknown cause: whatever else the attribution holds is ignored. */
	r = rec(bin.r, &n, LOG_READ, 3000);
	r->read.ino = 9;
	r->read.off = 16384;
	r->read.len = 65536;
	r->read.attr = (struct log_attr){ .ra_start = 77,
					  .ra_marker = 3,
					  .window = 3,
					  .ra_size = 9,
					  .order = 4,
					  .flags = LOG_ATTR_LATE };
	/* A cause from a newer daemon: unknown. */
	r = rec(bin.r, &n, LOG_READ, 4000);
	r->read.ino = 11;
	r->read.len = 4096;
	r->read.attr.cause = LOG_CAUSE_COUNT + 3;
	r->read.attr.window = 6;
	r = rec(bin.r, &n, LOG_ACCESS, 10);
	r->access.ino = 11;
	r->access.type = LOG_ACCESS_READ;
	r->access.first = 0;
	r->access.last = 3;
	r->access.end_ns = 20;
	r->access.events = 2;
	/* A kind from a newer daemon: skipped. */
	rec(bin.r, &n, 42, 5000);
	r = rec(bin.r, &n, LOG_READ, 6000);
	r->flags = LOG_FLAG_DIRECT;
	r->read.ino = 9;
	r->read.off = 8192;
	r->read.len = 4096;
	r->read.attr.cause = LOG_CAUSE_DIRECT;
	r->read.attr.ra_marker = LOG_NO_PAGE;
	r->read.attr.trigger_page = LOG_NO_PAGE;
	r->read.attr.order = -1;
	r->read.attr.alloc_order = -1;

	memcpy(bin.h.magic, LOG_BIN_MAGIC, sizeof(bin.h.magic));
	bin.h.version = LOG_BIN_VERSION;
	bin.h.record_size = sizeof(struct log_record);
	bin.h.count = n;
	bin.h.first_seq = 101;
	bin.h.next_seq = 101 + n;
	bin.h.page_size = page_size;
	bin.h.flags = traced ? LOG_BIN_TRACED : 0;
	write_file("log.bin", &bin, sizeof(bin.h) + n * sizeof(bin.r[0]));
}

static void write_log(bool traced)
{
	write_log_paged(traced, 4096);
}

Test(mount, snapshot_converts_the_attribution)
{
	const struct testfs_record *r;
	const struct testfs_access *a;
	const struct testfs_window *w;
	struct testfs_log *log;

	write_config("{" CONFIG_FILES ",\"trace\":{\"on\":true,\"why\":\"\","
		     "\"tracer\":\"instances/testfs-1\"}}\n");
	write_log(true);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), 0);
	cr_assert(testfs_log_traced(log));
	/* reads and marks only */
	cr_assert_eq(testfs_log_count(log), 5);

	r = testfs_log_at(log, 0);
	cr_assert_eq(r->kind, TESTFS_RECORD_READ);
	cr_assert_str_eq(r->file, "big.bin");
	cr_assert_eq(r->cause, TESTFS_CAUSE_SYNC);
	cr_assert_eq(r->window, 5);
	cr_assert_eq(r->ra_start, 0);
	cr_assert_eq(r->ra_size, 4);
	cr_assert_eq(r->ra_async, 3);
	cr_assert_eq(r->ra_marker, 1);
	cr_assert_eq(r->ra_pages, 32);
	cr_assert_eq(r->mmap_miss, 2);
	cr_assert_eq(r->trigger_page, 0);
	cr_assert_eq(r->folio_order, 2);
	cr_assert_eq(r->alloc_order, 0);
	cr_assert(r->late);

	r = testfs_log_at(log, 1);
	cr_assert_eq(r->kind, TESTFS_RECORD_MARK);
	cr_assert_str_eq(r->mark, "phase 2");

	/* unknown cause: the window fields stay empty */
	r = testfs_log_at(log, 2);
	cr_assert_eq(r->page, 4);
	cr_assert_eq(r->cause, TESTFS_CAUSE_UNKNOWN);
	cr_assert_eq(r->window, 0);
	cr_assert_eq(r->ra_start, 0);
	cr_assert_eq(r->ra_size, 0);
	cr_assert_eq(r->ra_marker, NO);
	cr_assert_eq(r->trigger_page, NO);
	cr_assert_eq(r->folio_order, -1);
	cr_assert_eq(r->alloc_order, -1);
	cr_assert_not(r->late);
	r = testfs_log_at(log, 3);
	cr_assert_str_eq(r->file, "dir/n.bin");
	cr_assert_eq(r->cause, TESTFS_CAUSE_UNKNOWN);
	cr_assert_eq(r->window, 0);

	r = testfs_log_at(log, 4);
	cr_assert(r->direct);
	cr_assert_eq(r->cause, TESTFS_CAUSE_DIRECT);
	cr_assert_eq(r->window, 0);
	cr_assert_eq(r->ra_marker, NO);
	cr_assert_eq(r->folio_order, -1);
	cr_assert_null(testfs_log_at(log, 5));

	/* accesses apart, by time */
	cr_assert_eq(testfs_log_access_count(log), 2);
	a = testfs_log_access_at(log, 0);
	cr_assert_str_eq(a->file, "dir/n.bin");
	cr_assert_eq(a->type, TESTFS_ACCESS_READ);
	cr_assert_eq(a->first, 0);
	cr_assert_eq(a->last, 3);
	cr_assert_eq(a->t_ns, 10);
	cr_assert_eq(a->end_ns, 20);
	cr_assert_eq(a->events, 2);
	a = testfs_log_access_at(log, 1);
	cr_assert_str_eq(a->file, "big.bin");
	cr_assert_eq(a->type, TESTFS_ACCESS_FAULT);
	cr_assert_eq(a->pid, 77);
	cr_assert_eq(a->late, 1);
	cr_assert_null(testfs_log_access_at(log, 2));

	/* windows from the reads, once per snapshot */
	cr_assert_eq(testfs_log_window_count(log), 1);
	w = testfs_log_window_of(log, "big.bin", 3);
	cr_assert_not_null(w);
	cr_assert_eq(w->id, 5);
	cr_assert_eq(w->first_seq, 101);
	cr_assert_eq(w->mmap_miss, 2);
	testfs_assert_window(log, "big.bin", 0, TESTFS_CAUSE_SYNC, 0);
	testfs_log_free(log);
}

Test(mount, untraced_snapshot_keeps_the_reason)
{
	struct testfs_log *log;
	char *why = NULL;

	write_config("{" CONFIG_FILES ",\"trace\":{\"on\":false,\"why\":"
		     "\"not root\"}}");
	write_log(false);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), 0);
	cr_assert_not(testfs_log_traced(log));
	cr_assert_eq(testfs_check_traced(log, &why), 1);
	cr_assert_str_eq(
		why,
		"the log has no kernel attribution: the daemon was not tracing the kernel: not root (kernel correlation needs root and tracefs; see testfs_tracing())");
	free(why);
	testfs_log_free(log);

	/* a daemon without kernel correlation */
	write_config("{" CONFIG_FILES "}");
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), 0);
	cr_assert_eq(testfs_check_traced(log, &why), 1);
	cr_assert_str_eq(
		why,
		"the log has no kernel attribution: the daemon was not tracing the kernel: daemon does not report tracing (kernel correlation needs root and tracefs; see testfs_tracing())");
	free(why);
	testfs_log_free(log);
}

/*
 * A log written on a 16 KiB-page kernel (an arm64 guest), read here
 * whatever this machine's page size: its pages are the header's, 16 KiB.
 * The same bytes read as 4 KiB pages would put the second read at page 4
 * with 16 pages.
 */
Test(mount, a_16k_log_is_read_in_its_own_pages)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	const struct testfs_record *r;
	struct testfs_log *log;
	char *why = NULL;

	write_config("{" CONFIG_FILES ",\"page_size\":16384,\"trace\":{"
		     "\"on\":true,\"why\":\"\"}}\n");
	write_log_paged(true, 16384);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), 0);
	cr_assert_eq(testfs_log_page_size(log), 16384);
	/* bytes [0, 16384): page 0, one page; its window (0,4) in 16 KiB
	 * pages, as the kernel's tracepoint gave it */
	r = testfs_log_at(log, 0);
	cr_assert_eq(r->page, 0);
	cr_assert_eq(r->pages, 1);
	cr_assert_eq(r->ra_start, 0);
	cr_assert_eq(r->ra_size, 4);
	/* bytes [16384, 81920): pages [1, 4] */
	r = testfs_log_at(log, 2);
	cr_assert_eq(r->off, 16384);
	cr_assert_eq(r->page, 1);
	cr_assert_eq(r->pages, 4);
	/* O_DIRECT bytes [8192, 12288): inside page 0 */
	r = testfs_log_at(log, 4);
	cr_assert_eq(r->page, 0);
	cr_assert_eq(r->pages, 1);
	testfs_assert_ok(testfs_log_fetched(log, "big.bin", &fetched));
	cr_assert_str_eq(fmt(&fetched), "[0, 4]");
	/* byte checks count the log's pages, not this machine's */
	cr_assert_eq(
		testfs_check_within_bytes(log, "big.bin", 0, 5 * 16384, &why),
		0, "%s", why ? why : "");
	cr_assert_eq(
		testfs_check_within_bytes(log, "big.bin", 0, 4 * 16384, &why),
		1);
	cr_assert(strstr(why, "bytes [0, 65535] are pages [0, 3]"), "%s", why);
	free(why);
	testfs_assert_window(log, "big.bin", 0, TESTFS_CAUSE_SYNC, 0);
	testfs_extents_free(&fetched);
	testfs_log_free(log);
}

/* A header without a page size (an older writer) is 4 KiB pages; one
 * that is not a page size is refused rather than misread. */
Test(mount, the_header_page_size_is_checked)
{
	static const uint32_t bad[] = { 3000, 256, 1u << 21, 12288 };
	struct testfs_log *log;
	size_t i;

	write_config("{" CONFIG_FILES "}");
	write_log_paged(false, 0);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), 0);
	cr_assert_eq(testfs_log_page_size(log), 4096);
	cr_assert_eq(testfs_log_at(log, 2)->page, 4);
	cr_assert_eq(testfs_log_at(log, 2)->pages, 16);
	testfs_log_free(log);
	write_log_paged(false, 65536);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), 0);
	cr_assert_eq(testfs_log_page_size(log), 65536);
	cr_assert_eq(testfs_log_at(log, 2)->page, 0);
	cr_assert_eq(testfs_log_at(log, 2)->pages, 2);
	testfs_log_free(log);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_log_paged(false, bad[i]);
		log = NULL;
		cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), -EPROTO,
			     "page size %u", bad[i]);
		cr_assert_null(log);
	}
	cr_assert_eq(testfs_log_page_size(NULL), TESTFS_PAGE_SIZE);
}

static void tracing_is(const char *config, int want, const char *want_why)
{
	char why[64];
	int got;

	write_config(config);
	memset(why, 'x', sizeof(why));
	got = testfs_tracing(&fake_fs, why, sizeof(why));
	cr_assert_eq(got, want, "%s: %d", config, got);
	if (want_why)
		cr_assert_str_eq(why, want_why, "%s", config);
}

Test(mount, tracing)
{
	char why[8];

	tracing_is("{\"trace\":{\"on\":true,\"why\":\"\",\"tracer\":"
		   "{\"a\":[1,2,{\"b\":null}]}}}",
		   1, "");
	tracing_is("{" CONFIG_FILES ",\"trace\":{\"why\":\"not root\","
		   "\"on\":false},\"note\":\"\"}",
		   0, "not root");
	tracing_is("{" CONFIG_FILES "}", 0, "daemon does not report tracing");
	tracing_is("{}", 0, "daemon does not report tracing");
	tracing_is("{\"trace\":{\"on\":false,\"why\":null}}", 0,
		   "the daemon gives no reason");
	tracing_is("{\"trace\":{\"on\":false}}", 0,
		   "the daemon gives no reason");
	/* an object without "on" says nothing */
	tracing_is("{\"trace\":{\"why\":\"tracefs missing\"}}", 0,
		   "tracefs missing");
	tracing_is("{\"trace\":{\"on\":\"yes\"}}", -EPROTO, "");
	tracing_is("{\"trace\":{\"on\":tru}}", -EPROTO, NULL);
	tracing_is("{\"trace\":[true]}", -EPROTO, NULL);
	tracing_is("{\"trace\":{\"on\":false,\"why\":\"not", -EPROTO, NULL);

	/* cut to fit; NULL why */
	write_config("{\"trace\":{\"on\":false,\"why\":\"no tracefs here\"}}");
	cr_assert_eq(testfs_tracing(&fake_fs, why, sizeof(why)), 0);
	cr_assert_str_eq(why, "no trac");
	cr_assert_eq(testfs_tracing(&fake_fs, NULL, 0), 0);
	cr_assert_eq(testfs_tracing(NULL, why, sizeof(why)), -EINVAL);
	remove_mount();
	cr_assert_eq(testfs_tracing(&fake_fs, why, sizeof(why)), -ENOENT);
}

/* ------------------------------------------------------------------ */
/* --trace and --no-trace on the daemon's command line                 */
/* ------------------------------------------------------------------ */

static char script_dir[] = "/tmp/lib_windows_argv.XXXXXX";

/*
 * Starts a "daemon" that writes its arguments, one a line, says ready and
 * sleeps until testfs_stop() ends it; returns them.
 */
static char *daemon_args(int trace)
{
	struct testfs_config cfg = { 0 };
	char script[PATH_MAX], args[PATH_MAX];
	static char got[4096];
	struct testfs_mount *fs;
	ssize_t n;
	FILE *f;
	int fd, err;

	snprintf(script, sizeof(script), "%s/daemon.sh", script_dir);
	snprintf(args, sizeof(args), "%s/args", script_dir);
	f = fopen(script, "we");
	cr_assert_not_null(f);
	fprintf(f,
		"#!/bin/sh\nprintf '%%s\\n' \"$@\" > %s\necho ready >&3\n"
		"exec sleep 30\n",
		args);
	fclose(f);
	cr_assert_eq(chmod(script, 0700), 0);
	cfg.daemon = script;
	cfg.trace = trace;
	err = testfs_start(&cfg, &fs);
	cr_assert_eq(err, 0, "start: %s", strerror(-err));
	/* SIGTERM ends the sleep: the "daemon" died of a signal. */
	cr_assert_eq(testfs_stop(fs), -EINTR);
	fd = open(args, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	cr_assert_gt(n, 0);
	got[n] = '\0';
	unlink(args);
	unlink(script);
	return got;
}

static void make_script_dir(void)
{
	cr_assert_not_null(mkdtemp(script_dir));
}

static void remove_script_dir(void)
{
	rmdir(script_dir);
}

TestSuite(argv, .init = make_script_dir, .fini = remove_script_dir);

Test(argv, trace_options)
{
	struct testfs_config cfg = { 0 };
	struct testfs_mount *fs;

	cr_assert_not_null(strstr(daemon_args(1), "\n--trace\n"));
	cr_assert_null(strstr(daemon_args(1), "--no-trace"));
	cr_assert_not_null(strstr(daemon_args(-1), "\n--no-trace\n"));
	cr_assert_null(strstr(daemon_args(0), "trace"));
	cfg.daemon = "/nonexistent/testfs";
	cfg.trace = 2;
	cr_assert_eq(testfs_start(&cfg, &fs), -EINVAL);
	cfg.trace = -2;
	cr_assert_eq(testfs_start(&cfg, &fs), -EINVAL);
	cfg.trace = 1;
	cr_assert_eq(testfs_start(&cfg, &fs), -ENOENT);
}
