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

#include "analysis.h"
#include "folio_order.h"

#define FILE_NAME "long.bin"

static const struct param_def params[] = {
	{ "size", PARAM_SIZE, "64M", "8M", "file size, read whole in order",
	  1ull << 20, 1ull << 40, NULL },
	{ "ra", PARAM_UINT, "128", NULL,
	  "read_ahead_kb of the mount (128: order-5 windows, as in the 2023 "
	  "report)",
	  4, 1048576, NULL },
	{ "readers", PARAM_UINT, "2", NULL,
	  "readers of the file, taking turns (2: each hits the other's "
	  "readahead markers, the path of page_cache_next_miss())",
	  1, 2, NULL },
	{ "lead", PARAM_UINT, "0", NULL,
	  "pages a reader reads past the other before it stops (0: twice the "
	  "readahead window)",
	  0, 1u << 30, NULL },
	{ "block", PARAM_SIZE, "page", NULL,
	  "read(2) size (page: one page, 4 KiB on x86)", 4096, 1u << 24, NULL },
	{ "model", PARAM_MODEL, "none", NULL,
	  "storage model for every read (testfs --latency)", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

_Static_assert(TESTFS_HIST_BUCKETS == AN_BUCKETS, "one bucket scheme");

/* The largest folio order a window at @start of @size pages allows. */
static unsigned aligned_order(uint64_t start, uint64_t size)
{
	unsigned o = start ? (unsigned)__builtin_ctzll(start) : 63;
	unsigned s = an_log2(size);

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
		uint64_t p2 = 1ull << an_log2(w->size);
		unsigned o = aligned_order(w->start, w->size);

		w->offset = w->start % p2;
		w->end = (w->start + w->size) % p2;
		w->aligned_order = o;
		r->align_hist[an_order_bucket(o)]++;
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

/* The folio histogram's shares: the window's order, 2 to below, 0-1. */
static void folio_shares(struct folio_result *r)
{
	const struct testfs_folio_orders *o = &r->fo;
	uint64_t top = 0, mid = 0, low = 0;
	unsigned k;

	r->top = an_log2(r->s->ra_pages ? r->s->ra_pages : 1);
	if (!o->total_pages)
		return;
	for (k = 0; k < TESTFS_FOLIO_ORDERS; k++) {
		if (k >= r->top && k >= 2)
			top += o->pages[k];
		else if (k >= 2)
			mid += o->pages[k];
		else
			low += o->pages[k];
	}
	r->pct_top = 100.0 * (double)top / (double)o->total_pages;
	r->pct_mid = 100.0 * (double)mid / (double)o->total_pages;
	r->pct_low = 100.0 * (double)low / (double)o->total_pages;
}

/* Windows whose folios cannot start at the order they ask for. */
static void count_misaligned(struct folio_result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct folio_window *w = &r->w[i];
		unsigned need = an_log2(w->size);

		if (w->order >= 0 && (unsigned)w->order < need)
			need = (unsigned)w->order;
		if (w->start & ((1ull << need) - 1))
			r->misaligned++;
		if (w->start & 1)
			r->odd_starts++;
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

	/* In the kernel's pages, for its release (session_ra_model()). */
	r->model_ok = !session_ra_model(s, RA_POLICY_CURRENT, &m);
	if (!r->model_ok)
		return;
	ra_model_read(&m, 0, s->file_pages,
		      (uint32_t)((r->block + s->page_size - 1) / s->page_size));
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
	count_misaligned(r);
	r->folios_err = testfs_log_folio_orders(r->log, r->s->file, &r->fo);
	r->folios_why = testfs_log_folio_orders_why(r->log);
	folio_shares(r);
	r->defect_kernel = strstr(r->s->kernel, "next-miss-off-by-one") != NULL;
	if (r->readers == 1)
		model_windows(r);
}

static void result_free(struct folio_result *r)
{
	unsigned c;

	for (c = 0; c < NCAUSES; c++)
		testfs_extents_free(&r->by_cause[c]);
	free(r->w);
}

/*
 * Reads the file whole: one reader in order, or two readers (two opens,
 * each with its own readahead state) taking turns, each reading until it
 * is @lead pages past the other. The one that catches up walks into the
 * other's last window and hits its marker, which its own state did not
 * expect: page_cache_async_ra() then finds the window's start with
 * page_cache_next_miss(), the path of the 2023 off-by-one.
 */
static int read_turns(const char *const *names, struct testfs_mount *fs,
		      unsigned readers, uint64_t size, uint64_t block,
		      uint64_t lead, char *buf)
{
	uint64_t pos[2] = { 0, 0 };
	int fd[2] = { -1, -1 }, err = 0;
	unsigned i, cur = 0;

	for (i = 0; i < readers; i++) {
		fd[i] = testfs_open(fs, names[0], O_RDONLY);
		if (fd[i] < 0)
			err = fd[i];
	}
	while (!err && (pos[0] < size || (readers > 1 && pos[1] < size))) {
		uint64_t other = readers > 1 ? pos[1 - cur] : size;
		uint64_t stop = other + lead < size ? other + lead : size;

		if (readers == 1)
			stop = size;
		while (!err && pos[cur] < stop) {
			ssize_t got =
				pread(fd[cur], buf, block, (off_t)pos[cur]);

			if (got <= 0)
				err = got < 0 ? -errno : -EIO;
			else
				pos[cur] += (uint64_t)got;
		}
		if (readers > 1)
			cur = 1 - cur;
	}
	for (i = 0; i < readers; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return err;
}

static int folio_order_run(struct scenario_ctx *ctx)
{
	uint64_t block = param_u(ctx, "block"), size, t0, ns, lead;
	unsigned readers = (unsigned)param_u(ctx, "readers");
	struct read_list reads = { 0 };
	struct testfs_log *log = NULL;
	const char *names[1];
	struct session *s;
	char *buf;
	int err;

	err = session_start(ctx, &s, FILE_NAME, param_u(ctx, "size"),
			    (unsigned)param_u(ctx, "ra"),
			    param_s(ctx, "model"));
	if (err)
		return err;
	session_report_settings(s, ctx->rep);
	size = s->file_pages * s->page_size;
	err = session_phase(ctx, s, "read");
	if (err)
		goto out;
	lead = param_u(ctx, "lead");
	if (!lead)
		lead = 2ull * s->ra_pages;
	lead *= s->page_size;
	buf = malloc(block);
	if (!buf) {
		err = scenario_fail(ctx, -ENOMEM, "read buffer");
		goto out;
	}
	progress("folio-order: %u reader%s of %llu MiB in %llu KiB blocks",
		 readers, readers > 1 ? "s" : "",
		 (unsigned long long)(size >> 20),
		 (unsigned long long)(block >> 10));
	names[0] = s->file;
	t0 = now_ns();
	err = read_turns(names, s->fs, readers, size, block, lead, buf);
	ns = now_ns() - t0;
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
			.readers = readers,
			.lead = lead / s->page_size,
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
	.summary = "two readers of one file: the folio orders the kernel "
		   "allocated and the windows' alignment",
	.description =
		"Story 4 of READAHEAD.md: an off-by-one in "
		"page_cache_next_miss() moved ra->start by a page per window; "
		"windows lost their alignment and large folios gave way to "
		"small ones (20% slower). Two readers of a 64 MiB file take "
		"turns (read_ahead_kb 128, 4 KiB reads), each reading two "
		"windows past the other, so each hits the other's readahead "
		"marker and the kernel places the next window with "
		"page_cache_next_miss(). Reports the folio orders the kernel "
		"allocated (filemap:mm_filemap_add_to_page_cache), the "
		"windows' starts and alignment, the FUSE request sizes and the "
		"throughput, and whether the story's claim (orders shift from "
		"order 5 to orders 2-4) holds. FUSE has large folios only on "
		"the lab kernels with fuse-large-folios.",
	.params = params,
	.run = folio_order_run,
};
