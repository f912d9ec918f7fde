// SPDX-License-Identifier: MIT
/*
 * folio-order's report: the typed result (folio_order.h) as sections.
 * Nothing is computed here but the text around the numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "folio_order.h"

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

static void done(struct scenario_ctx *ctx, const struct folio_result *r)
{
	const struct session *s = r->s;
	struct rnode *sec = rep_section(ctx->rep, "done", "What was done");

	rep_text(sec, "what",
		 "Read the whole file (%llu pages) in order with read(2) of "
		 "%llu KiB from a cold cache.",
		 (unsigned long long)s->file_pages,
		 (unsigned long long)(r->block / 1024));
	rep_num(sec, "read_ms", "read time", r->ns / 1e6, 2, "ms");
	rep_num(sec, "MB_s", "throughput",
		mb_per_s(s->file_pages * TESTFS_PAGE_SIZE, r->ns), 1, "MB/s");
}

static void orders(struct scenario_ctx *ctx, const struct folio_result *r)
{
	struct rnode *sec = rep_section(ctx->rep, "orders", "Folio orders");

	if (r->hist_err || !r->traced) {
		rep_bool(sec, "available", "histograms available", false);
		rep_str(sec, "histograms", "folio order histograms",
			"not available (%s)",
			r->hist_err	     ? strerror(-r->hist_err)
			: r->s->trace_why[0] ? r->s->trace_why
					     : "the log is not traced");
		return;
	}
	rep_bool(sec, "available", "histograms available", true);
	histogram_list(sec, "order_asked",
		       "windows per order asked (0, 1, 2, ...)",
		       r->hist.order_asked);
	rep_uint(sec, "order_asked_unknown", "asked: unknown",
		 r->hist.order_asked_unknown, NULL);
	histogram_list(sec, "order_allocated",
		       "windows per order allocated (0, 1, 2, ...)",
		       r->hist.order_allocated);
	rep_uint(sec, "order_allocated_unknown", "allocated: unknown",
		 r->hist.order_allocated_unknown, NULL);
}

/* The first windows' numbers, one list per measure. */
static void window_lists(struct rnode *sec, const struct folio_result *r)
{
	struct rnode *l1, *l2, *l3, *l4, *l5;
	size_t i;

	l1 = rep_list(sec, "offset", "offset (first windows)");
	l2 = rep_list(sec, "end", "end (first windows)");
	l3 = rep_list(sec, "order", "order (first windows)");
	l4 = rep_list(sec, "offset_asked_order",
		      "start mod 2^(order asked), first windows");
	l5 = rep_list(sec, "end_asked_order",
		      "end mod 2^(order asked), first windows");
	for (i = 0; i < r->n && i < FOLIO_SHOWN; i++) {
		const struct folio_window *w = &r->w[i];

		rep_int(l1, NULL, NULL, (int64_t)w->offset, NULL);
		rep_uint(l2, NULL, NULL, w->end, NULL);
		rep_uint(l3, NULL, NULL, w->aligned_order, NULL);
		if (w->order >= 0 && w->order < 63) {
			uint64_t a = 1ull << w->order;

			rep_uint(l4, NULL, NULL, w->start % a, NULL);
			rep_uint(l5, NULL, NULL, (w->start + w->size) % a,
				 NULL);
		} else {
			rep_str(l4, NULL, NULL, "-");
			rep_str(l5, NULL, NULL, "-");
		}
	}
}

static void alignment(struct scenario_ctx *ctx, const struct folio_result *r)
{
	struct rnode *sec =
		rep_section(ctx->rep, "alignment", "Window alignment");

	rep_text(sec, "how",
		 "Each window is %s. \"offset\" is its start modulo its size "
		 "rounded down to a power of two (0: aligned to its own size, "
		 "what order-aligned folios need); \"end\" the same for its "
		 "end; \"order\" the largest folio order its start and size "
		 "allow; the last two lines use the order the kernel asked "
		 "for (tracing; '-' unknown). A constant offset is a healthy "
		 "stream; an offset growing by one per window is the 2023 "
		 "off-by-one drift.",
		 r->traced_windows ? "a traced readahead decision"
				   : "one FUSE read (no tracing: a window of "
				     "up to max_pages pages is one read)");
	window_lists(sec, r);
	histogram_list(sec, "order_histogram",
		       "windows per alignment order (0, 1, 2, ...)",
		       r->align_hist);
	rep_uint(sec, "windows", NULL, r->n, NULL);
	rep_uint(sec, "gaps", "windows not starting where the previous ended",
		 r->gaps, NULL);
	rep_uint(sec, "drifting", "steady windows whose offset changed",
		 r->drifting, NULL);
	rep_int(sec, "last_drift", "last change of offset", r->last_drift,
		"pages");
}

static void plain_words(struct rnode *plain, const struct folio_result *r)
{
	rep_text(plain, "windows",
		 "The read made %zu windows. Each started where the one "
		 "before ended (%llu exceptions), and once the window had "
		 "grown to its full size its offset from its own alignment "
		 "stayed %s: %s.",
		 r->n, (unsigned long long)r->gaps,
		 r->drifting ? "NOT constant" : "constant",
		 r->drifting ? "the windows drift, as with the 2023 off-by-one"
			     : "no drift");
	if (!r->hist_err && r->traced)
		rep_text(plain, "orders",
			 "Most windows asked for folios of order %u "
			 "(page_cache_ra_order) and got order %u%s.",
			 r->most_asked, r->most_allocated,
			 r->most_allocated < r->most_asked
				 ? ": the mapping does not support "
				   "large folios (FUSE on this kernel), so "
				   "the kernel fell back to single pages"
				 : "");
	else
		rep_text(
			plain, "orders",
			"Folio orders need kernel tracing, which is off "
			"here; the window alignment below comes from the log.");
}

/* The current kernel's row: the model's windows against the observed. */
static void current_verdict(struct rnode *table, const struct folio_result *r)
{
	char exp[256], obs[256];
	struct rnode *row;
	size_t k, used = 0;

	for (k = 0; k < r->nnamed; k++)
		used += (size_t)snprintf(exp + used, sizeof(exp) - used,
					 "%s(%llu,%llu)", k ? " " : "",
					 (unsigned long long)r->named[k].first,
					 (unsigned long long)r->named[k].pages);
	snprintf(exp + used, sizeof(exp) - used,
		 " ...; %zu windows, no drift, order 0 (FUSE has no "
		 "large folios)",
		 r->model_windows);
	used = 0;
	for (k = 0; k < r->n && k < FOLIO_NAMED; k++)
		used += (size_t)snprintf(obs + used, sizeof(obs) - used,
					 "%s(%llu,%llu)", k ? " " : "",
					 (unsigned long long)r->w[k].start,
					 (unsigned long long)r->w[k].size);
	snprintf(obs + used, sizeof(obs) - used,
		 " ...; %zu windows, %llu drifting", r->n,
		 (unsigned long long)r->drifting);
	row = report_verdict(table, "current kernels (6.18)", exp, obs,
			     r->model_same ? "matches" : "differs");
	verdict_num(row, "expected_windows", r->model_windows);
	verdict_num(row, "observed_windows", r->n);
	verdict_num(row, "observed_drifting", r->drifting);
}

static void verdicts(struct scenario_ctx *ctx, const struct folio_result *r)
{
	struct rnode *sec = report_verdicts(ctx->rep), *table, *row;

	table = rep_table(sec, "policies", NULL);
	if (r->model_ok)
		current_verdict(table, r);
	row = report_verdict(
		table, "2023 off-by-one (page_cache_next_miss)",
		"each steady window starts one page later: offsets "
		"grow by 1 per window, orders fall",
		r->drifting ? "offsets drift" : "no drift",
		r->drifting ? "matches" : "differs");
	verdict_num(row, "observed_drifting", r->drifting);
	report_verdict(table, "VMA-limited", "not modelled (no mapping)", "-",
		       "not modelled");
}

/* Five full windows: the ramp-up and the steady state. */
static void page_map(struct scenario_ctx *ctx, const struct folio_result *r)
{
	struct rnode *sec = rep_section(ctx->rep, "page_map", "Page map");
	struct testfs_extent *req = calloc(r->n + 1, sizeof(*req));
	uint64_t *aligned = calloc(r->n + 1, sizeof(*aligned));
	uint64_t last = 5ull * r->s->ra_pages - 1;
	struct pagemap pm;
	size_t i, na = 0;

	if (last > r->s->file_pages - 1)
		last = r->s->file_pages - 1;
	if (req) {
		for (i = 0; i < r->n; i++) {
			req[i].first = r->w[i].start;
			req[i].last = r->w[i].start + r->w[i].size - 1;
			if (aligned && r->w[i].offset == 0)
				aligned[na++] = r->w[i].start;
		}
		pagemap_init(&pm, 0, last, 80);
		pagemap_fetched_rows(&pm, r->by_cause);
		pagemap_row_requests(&pm, "windows", req, r->n,
				     "one readahead window");
		if (aligned)
			pagemap_row_marks(&pm, "aligned", aligned, na, '^');
		pagemap_legend(&pm, '^',
			       "a window starting aligned to its size");
		pagemap_emit(&pm, sec, "start", "The first windows");
	}
	free(aligned);
	free(req);
}

void folio_order_report(struct scenario_ctx *ctx, const struct folio_result *r)
{
	struct rnode *plain, *sec;

	done(ctx, r);
	plain = report_plain_words(ctx->rep);
	sec = rep_section(ctx->rep, "fetched", "What the kernel fetched");
	rep_uint(sec, "requests", "FUSE reads", r->reads->n, NULL);
	report_requests(sec, r->reads, 12);
	report_causes(sec, r->s, r->log, r->by_cause);
	orders(ctx, r);
	alignment(ctx, r);
	plain_words(plain, r);
	verdicts(ctx, r);
	page_map(ctx, r);
}
