// SPDX-License-Identifier: MIT
/*
 * folio-order (story 4): a long sequential read; the folio orders the
 * kernel asked for and allocated (kernel tracing), and each window's
 * alignment, as lines of numbers in which a drift of one page per window
 * (the 2023 off-by-one) would stand out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

#define FILE_NAME "long.bin"
#define SHOWN 32

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

struct win {
	uint64_t start;
	uint64_t size;
	/* The folio order the kernel asked for; -1 unknown. */
	int order;
};

/* The pages of @w that lie in a file of @file_pages pages. */
static uint64_t clip_size(const struct win *w, uint64_t file_pages)
{
	if (w->start >= file_pages)
		return 0;
	return w->size < file_pages - w->start ? w->size
					       : file_pages - w->start;
}

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

/* Windows: the traced ones if any, else the reads (one per window). */
static size_t collect_windows(const struct testfs_log *log,
			      const struct read_list *reads, struct win **out,
			      bool *traced)
{
	size_t n = testfs_log_window_count(log), i, k = 0;
	struct win *w;

	*traced = n > 0;
	if (!n)
		n = reads->n;
	w = calloc(n ? n : 1, sizeof(*w));
	if (!w)
		return 0;
	for (i = 0; i < n; i++) {
		if (*traced) {
			const struct testfs_window *tw =
				testfs_log_window_at(log, i);

			if (!tw || !tw->size)
				continue;
			w[k].start = tw->start;
			w[k].size = tw->size;
			w[k].order = tw->folio_order;
		} else {
			w[k].start = reads->v[i]->page;
			w[k].size = reads->v[i]->pages;
			w[k].order = -1;
		}
		k++;
	}
	*out = w;
	return k;
}

static void histogram_list(struct rnode *p, const char *key, const char *label,
			   const uint64_t *h)
{
	struct rnode *l = rep_list(p, key, label);
	unsigned i, last = 0;

	for (i = 0; i < TESTFS_HIST_BUCKETS; i++)
		if (h[i])
			last = i;
	for (i = 0; i <= last; i++)
		rep_uint(l, NULL, NULL, h[i], NULL);
}

static void report(struct scenario_ctx *ctx, const struct session *s,
		   const struct testfs_log *log, const struct read_list *reads,
		   uint64_t ns, uint64_t block)
{
	struct testfs_extents by_cause[NCAUSES] = { TESTFS_EXTENTS_INIT };
	uint64_t align_hist[TESTFS_HIST_BUCKETS] = { 0 };
	struct rnode *sec, *l1, *l2, *l3, *l4, *l5, *table, *plain, *row;
	struct testfs_histograms h;
	struct win *w = NULL;
	int64_t drift = 0, prev_off = -1;
	uint64_t gaps = 0, steady = 0, drifting = 0;
	char exp[256], obs[256];
	struct ra_model m;
	bool traced, model_ok;
	size_t n, i, used;
	unsigned c;
	int err;

	sec = rep_section(ctx->rep, "done", "What was done");
	rep_text(sec, "what",
		 "Read the whole file (%llu pages) in order with read(2) of "
		 "%llu KiB from a cold cache.",
		 (unsigned long long)s->file_pages,
		 (unsigned long long)(block / 1024));
	rep_num(sec, "read_ms", "read time", ns / 1e6, 2, "ms");
	rep_num(sec, "MB_s", "throughput",
		mb_per_s(s->file_pages * TESTFS_PAGE_SIZE, ns), 1, "MB/s");

	plain = report_plain_words(ctx->rep);

	sec = rep_section(ctx->rep, "fetched", "What the kernel fetched");
	log_fetched_by_cause(log, s->file, by_cause);
	rep_uint(sec, "requests", "FUSE reads", reads->n, NULL);
	report_requests(sec, reads, 12);
	report_causes(sec, s, log, by_cause);

	sec = rep_section(ctx->rep, "orders", "Folio orders");
	err = testfs_log_histograms(log, s->file, &h);
	if (err || !testfs_log_traced(log)) {
		rep_bool(sec, "available", "histograms available", false);
		rep_str(sec, "histograms", "folio order histograms",
			"not available (%s)",
			err		  ? strerror(-err)
			: s->trace_why[0] ? s->trace_why
					  : "the log is not traced");
	} else {
		rep_bool(sec, "available", "histograms available", true);
		histogram_list(sec, "order_asked",
			       "windows per order asked (0, 1, 2, ...)",
			       h.order_asked);
		rep_uint(sec, "order_asked_unknown", "asked: unknown",
			 h.order_asked_unknown, NULL);
		histogram_list(sec, "order_allocated",
			       "windows per order allocated (0, 1, 2, ...)",
			       h.order_allocated);
		rep_uint(sec, "order_allocated_unknown", "allocated: unknown",
			 h.order_allocated_unknown, NULL);
	}

	n = collect_windows(log, reads, &w, &traced);
	sec = rep_section(ctx->rep, "alignment", "Window alignment");
	rep_text(sec, "how",
		 "Each window is %s. \"offset\" is its start modulo its size "
		 "rounded down to a power of two (0: aligned to its own size, "
		 "what order-aligned folios need); \"end\" the same for its "
		 "end; \"order\" the largest folio order its start and size "
		 "allow; the last two lines use the order the kernel asked "
		 "for (tracing; '-' unknown). A constant offset is a healthy "
		 "stream; an offset growing by one per window is the 2023 "
		 "off-by-one drift.",
		 traced ? "a traced readahead decision"
			: "one FUSE read (no tracing: a window of up to "
			  "max_pages pages is one read)");
	l1 = rep_list(sec, "offset", "offset (first windows)");
	l2 = rep_list(sec, "end", "end (first windows)");
	l3 = rep_list(sec, "order", "order (first windows)");
	l4 = rep_list(sec, "offset_asked_order",
		      "start mod 2^(order asked), first windows");
	l5 = rep_list(sec, "end_asked_order",
		      "end mod 2^(order asked), first windows");
	for (i = 0; i < n; i++) {
		uint64_t p2 = 1ull << ilog2_u64(w[i].size);
		int64_t off = (int64_t)(w[i].start % p2);
		unsigned o = aligned_order(w[i].start, w[i].size);

		align_hist[o < TESTFS_HIST_BUCKETS ? o
						   : TESTFS_HIST_BUCKETS - 1]++;
		if (i < SHOWN) {
			rep_int(l1, NULL, NULL, off, NULL);
			rep_uint(l2, NULL, NULL, (w[i].start + w[i].size) % p2,
				 NULL);
			rep_uint(l3, NULL, NULL, o, NULL);
			if (w[i].order >= 0 && w[i].order < 63) {
				uint64_t a = 1ull << w[i].order;

				rep_uint(l4, NULL, NULL, w[i].start % a, NULL);
				rep_uint(l5, NULL, NULL,
					 (w[i].start + w[i].size) % a, NULL);
			} else {
				rep_str(l4, NULL, NULL, "-");
				rep_str(l5, NULL, NULL, "-");
			}
		}
		if (i && w[i].start != w[i - 1].start + w[i - 1].size)
			gaps++;
		if (i && w[i].size == w[i - 1].size) {
			steady++;
			if (prev_off >= 0 && off != prev_off) {
				drifting++;
				drift = off - prev_off;
			}
		}
		prev_off = off;
	}
	histogram_list(sec, "order_histogram",
		       "windows per alignment order (0, 1, 2, ...)",
		       align_hist);
	rep_uint(sec, "windows", NULL, n, NULL);
	rep_uint(sec, "gaps", "windows not starting where the previous ended",
		 gaps, NULL);
	rep_uint(sec, "drifting", "steady windows whose offset changed",
		 drifting, NULL);
	rep_int(sec, "last_drift", "last change of offset", drift, "pages");

	rep_text(plain, "windows",
		 "The read made %zu windows. Each started where the one "
		 "before ended (%llu exceptions), and once the window had "
		 "grown to its full size its offset from its own alignment "
		 "stayed %s: %s.",
		 n, (unsigned long long)gaps,
		 drifting ? "NOT constant" : "constant",
		 drifting ? "the windows drift, as with the 2023 off-by-one"
			  : "no drift");
	if (!err && testfs_log_traced(log)) {
		unsigned asked = 0, alloc = 0, k;

		for (k = 0; k < TESTFS_HIST_BUCKETS; k++) {
			if (h.order_asked[k] > h.order_asked[asked])
				asked = k;
			if (h.order_allocated[k] > h.order_allocated[alloc])
				alloc = k;
		}
		rep_text(plain, "orders",
			 "Most windows asked for folios of order %u "
			 "(page_cache_ra_order) and got order %u%s.",
			 asked, alloc,
			 alloc < asked
				 ? ": the mapping does not support "
				   "large folios (FUSE on this kernel), so "
				   "the kernel fell back to single pages"
				 : "");
	} else {
		rep_text(
			plain, "orders",
			"Folio orders need kernel tracing, which is off "
			"here; the window alignment below comes from the log.");
	}

	sec = report_verdicts(ctx->rep);
	table = rep_table(sec, "policies", NULL);
	model_ok = !ra_model_init(&m, s->file_pages, s->ra_pages, s->max_pages,
				  RA_POLICY_CURRENT);
	if (model_ok) {
		size_t k, nw = 0;
		bool same = true;

		ra_model_read(&m, 0, s->file_pages,
			      (uint32_t)(block / TESTFS_PAGE_SIZE));
		used = 0;
		for (k = 0; k < m.nwindows; k++) {
			if (!m.windows[k].pages)
				continue;
			/* A window may reach past EOF; only its pages count. */
			if (nw < n && (w[nw].start != m.windows[k].first ||
				       clip_size(&w[nw], s->file_pages) !=
					       m.windows[k].pages))
				same = false;
			if (nw < 8)
				used += (size_t)snprintf(
					exp + used, sizeof(exp) - used,
					"%s(%llu,%llu)", nw ? " " : "",
					(unsigned long long)m.windows[k].first,
					(unsigned long long)m.windows[k].pages);
			nw++;
		}
		if (nw != n)
			same = false;
		snprintf(exp + used, sizeof(exp) - used,
			 " ...; %zu windows, no drift, order 0 (FUSE has no "
			 "large folios)",
			 nw);
		used = 0;
		for (k = 0; k < n && k < 8; k++)
			used += (size_t)snprintf(obs + used, sizeof(obs) - used,
						 "%s(%llu,%llu)", k ? " " : "",
						 (unsigned long long)w[k].start,
						 (unsigned long long)w[k].size);
		snprintf(obs + used, sizeof(obs) - used,
			 " ...; %zu windows, %llu drifting", n,
			 (unsigned long long)drifting);
		row = report_verdict(table, "current kernels (6.18)", exp, obs,
				     same ? "matches" : "differs");
		verdict_num(row, "expected_windows", nw);
		verdict_num(row, "observed_windows", n);
		verdict_num(row, "observed_drifting", drifting);
		ra_model_free(&m);
	}
	row = report_verdict(
		table, "2023 off-by-one (page_cache_next_miss)",
		"each steady window starts one page later: offsets "
		"grow by 1 per window, orders fall",
		drifting ? "offsets drift" : "no drift",
		drifting ? "matches" : "differs");
	verdict_num(row, "observed_drifting", drifting);
	report_verdict(table, "VMA-limited", "not modelled (no mapping)", "-",
		       "not modelled");

	sec = rep_section(ctx->rep, "page_map", "Page map");
	{
		struct testfs_extent *req = calloc(n + 1, sizeof(*req));
		struct pagemap pm;
		/* Five full windows: the ramp-up and the steady state. */
		uint64_t last = 5ull * s->ra_pages - 1;

		if (last > s->file_pages - 1)
			last = s->file_pages - 1;
		if (req) {
			uint64_t *aligned = calloc(n + 1, sizeof(*aligned));
			size_t na = 0;

			for (i = 0; i < n; i++) {
				req[i].first = w[i].start;
				req[i].last = w[i].start + w[i].size - 1;
				if (aligned &&
				    !(w[i].start %
				      (1ull << ilog2_u64(w[i].size))))
					aligned[na++] = w[i].start;
			}
			pagemap_init(&pm, 0, last, 80);
			pagemap_fetched_rows(&pm, by_cause);
			pagemap_row_requests(&pm, "windows", req, n,
					     "one readahead window");
			if (aligned)
				pagemap_row_marks(&pm, "aligned", aligned, na,
						  '^');
			pagemap_legend(&pm, '^',
				       "a window starting aligned to its size");
			pagemap_emit(&pm, sec, "start", "The first windows");
			free(aligned);
			free(req);
		}
	}
	for (c = 0; c < NCAUSES; c++)
		testfs_extents_free(&by_cause[c]);
	free(w);
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
	if (!err)
		report(ctx, s, log, &reads, ns, block);
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
