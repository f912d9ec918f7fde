// SPDX-License-Identifier: MIT
/*
 * folio-order (story 4): a long sequential read; the folio orders the
 * kernel asked for and allocated (kernel tracing), and each window's
 * alignment, as lines of numbers in which a drift of one page per window
 * (the 2023 off-by-one) would stand out. This file runs it and analyses
 * the log into a struct folio_result; folio_order_report.c renders it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folio_order.h"

#define FILE_NAME "long.bin"

static const struct param_def params[] = {
	{ "size", PARAM_SIZE, "256M", "8M", "file size, read whole in order",
	  1ull << 20, 1ull << 40, NULL },
	{ "ra", PARAM_UINT, "1024", NULL, "read_ahead_kb of the mount", 4,
	  1048576, NULL },
	{ "block", PARAM_SIZE, "4K", NULL, "read(2) size", 4096, 1u << 24,
	  NULL },
	{ "model", PARAM_MODEL, "none", NULL,
	  "storage model for every read (testfs --latency)", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static unsigned ilog2_u64(uint64_t v)
{
	unsigned n = 0;

	while (v >>= 1)
		n++;
	return n;
}

/* The largest folio order a window at @start of @size pages allows. */
static unsigned aligned_order(uint64_t start, uint64_t size)
{
	unsigned o = start ? (unsigned)__builtin_ctzll(start) : 63;
	unsigned s = ilog2_u64(size);

	return o < s ? o : s;
}

/* The pages of @w that lie in a file of @file_pages pages. */
static uint64_t clip_size(const struct folio_window *w, uint64_t file_pages)
{
	if (w->start >= file_pages)
		return 0;
	return w->size < file_pages - w->start ? w->size
					       : file_pages - w->start;
}

/* Windows: the traced ones if any, else the reads (one per window). */
static void collect_windows(struct folio_result *r)
{
	size_t n = testfs_log_window_count(r->log), i, k = 0;
	struct folio_window *w;

	r->traced_windows = n > 0;
	if (!n)
		n = r->reads->n;
	w = calloc(n ? n : 1, sizeof(*w));
	if (!w)
		return;
	for (i = 0; i < n; i++) {
		if (r->traced_windows) {
			const struct testfs_window *tw =
				testfs_log_window_at(r->log, i);

			if (!tw || !tw->size)
				continue;
			w[k].start = tw->start;
			w[k].size = tw->size;
			w[k].order = tw->folio_order;
		} else {
			w[k].start = r->reads->v[i]->page;
			w[k].size = r->reads->v[i]->pages;
			w[k].order = -1;
		}
		k++;
	}
	r->w = w;
	r->n = k;
}

/* Each window's alignment, and how the stream's alignment moved. */
static void align_windows(struct folio_result *r)
{
	int64_t prev_off = -1, off;
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct folio_window *w = &r->w[i];
		uint64_t p2 = 1ull << ilog2_u64(w->size);
		unsigned o = aligned_order(w->start, w->size);

		w->offset = w->start % p2;
		w->end = (w->start + w->size) % p2;
		w->aligned_order = o;
		r->align_hist[o < TESTFS_HIST_BUCKETS
				      ? o
				      : TESTFS_HIST_BUCKETS - 1]++;
		off = (int64_t)w->offset;
		if (i && w->start != w[-1].start + w[-1].size)
			r->gaps++;
		if (i && w->size == w[-1].size) {
			r->steady++;
			if (prev_off >= 0 && off != prev_off) {
				r->drifting++;
				r->last_drift = off - prev_off;
			}
		}
		prev_off = off;
	}
}

/* The most common orders asked for and allocated (tracing). */
static void most_common_orders(struct folio_result *r)
{
	unsigned k;

	for (k = 0; k < TESTFS_HIST_BUCKETS; k++) {
		if (r->hist.order_asked[k] > r->hist.order_asked[r->most_asked])
			r->most_asked = k;
		if (r->hist.order_allocated[k] >
		    r->hist.order_allocated[r->most_allocated])
			r->most_allocated = k;
	}
}

/* The windows the current kernel's readahead makes for this read. */
static void model_windows(struct folio_result *r)
{
	const struct session *s = r->s;
	struct ra_model m;
	size_t k, nw = 0;

	r->model_ok = !ra_model_init(&m, s->file_pages, s->ra_pages,
				     s->max_pages, RA_POLICY_CURRENT);
	if (!r->model_ok)
		return;
	ra_model_read(&m, 0, s->file_pages,
		      (uint32_t)(r->block / TESTFS_PAGE_SIZE));
	r->model_same = true;
	for (k = 0; k < m.nwindows; k++) {
		if (!m.windows[k].pages)
			continue;
		/* A window may reach past EOF; only its pages count. */
		if (nw < r->n &&
		    (r->w[nw].start != m.windows[k].first ||
		     clip_size(&r->w[nw], s->file_pages) != m.windows[k].pages))
			r->model_same = false;
		if (nw < FOLIO_NAMED)
			r->named[r->nnamed++] = m.windows[k];
		nw++;
	}
	if (nw != r->n)
		r->model_same = false;
	r->model_windows = nw;
	ra_model_free(&m);
}

static void analyse(struct folio_result *r)
{
	log_fetched_by_cause(r->log, r->s->file, r->by_cause);
	r->hist.struct_size = sizeof(r->hist);
	r->hist_err = testfs_log_histograms(r->log, r->s->file, &r->hist);
	r->traced = testfs_log_traced(r->log);
	if (!r->hist_err && r->traced)
		most_common_orders(r);
	collect_windows(r);
	align_windows(r);
	model_windows(r);
}

static void result_free(struct folio_result *r)
{
	unsigned c;

	for (c = 0; c < NCAUSES; c++)
		testfs_extents_free(&r->by_cause[c]);
	free(r->w);
}

static int folio_order_run(struct scenario_ctx *ctx)
{
	uint64_t block = param_u(ctx, "block"), size, t0, ns, off;
	struct read_list reads = { 0 };
	struct testfs_log *log = NULL;
	struct session *s;
	int err, fd;
	char *buf;

	err = session_start(ctx, &s, FILE_NAME, param_u(ctx, "size"),
			    (unsigned)param_u(ctx, "ra"),
			    param_s(ctx, "model"));
	if (err)
		return err;
	session_report_settings(s, ctx->rep);
	size = s->file_pages * TESTFS_PAGE_SIZE;
	err = session_phase(ctx, s, "read");
	if (err)
		goto out;
	buf = malloc(block);
	fd = testfs_open(s->fs, s->file, O_RDONLY);
	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		err = scenario_fail(ctx, fd < 0 ? fd : -ENOMEM, "open");
		goto out;
	}
	progress("folio-order: reading %llu MiB in %llu KiB blocks",
		 (unsigned long long)(size >> 20),
		 (unsigned long long)(block >> 10));
	t0 = now_ns();
	for (off = 0; off < size; off += block)
		if (read(fd, buf, block) <= 0) {
			err = -EIO;
			break;
		}
	ns = now_ns() - t0;
	close(fd);
	free(buf);
	if (err) {
		err = scenario_fail(ctx, err, "read");
		goto out;
	}
	err = session_snapshot(ctx, s, "read", &log);
	if (!err && log_reads(log, s->file, &reads))
		err = scenario_fail(ctx, -ENOMEM, "the log");
	if (!err) {
		struct folio_result r = {
			.s = s,
			.log = log,
			.reads = &reads,
			.block = block,
			.ns = ns,
		};

		analyse(&r);
		folio_order_report(ctx, &r);
		result_free(&r);
	}
out:
	read_list_free(&reads);
	testfs_log_free(log);
	return err;
}

const struct scenario folio_order_scenario = {
	.name = "folio-order",
	.summary = "a long sequential read: folio orders and window alignment "
		   "(drift)",
	.description =
		"Story 4 of READAHEAD.md: an off-by-one in "
		"page_cache_next_miss() moved ra->start by a page per window; "
		"windows lost their alignment and large folios gave way to "
		"small ones (20% slower). Reads a 256 MiB file in order "
		"(read_ahead_kb 1024, 4 KiB reads) and reports the folio order "
		"histograms from kernel tracing (when available) and each "
		"window's start and end relative to its own size as lines of "
		"numbers, where a drift would show as a count going up by one.",
	.params = params,
	.run = folio_order_run,
};
