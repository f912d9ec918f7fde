// SPDX-License-Identifier: MIT
/*
 * folio-order's report: the typed result (folio_order.h) as sections.
 * Nothing is computed here but the text around the numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "folio_order.h"
#include "report.h"

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

	if (r->readers > 1)
		rep_text(sec, "what",
			 "Two readers (two opens) read the whole file (%llu "
			 "pages) from a cold cache with read(2) of %llu KiB, "
			 "taking turns: each read until it was %llu pages "
			 "past the other.",
			 (unsigned long long)s->file_pages,
			 (unsigned long long)(r->block / 1024),
			 (unsigned long long)r->lead);
	else
		rep_text(sec, "what",
			 "Read the whole file (%llu pages) in order with "
			 "read(2) of %llu KiB from a cold cache.",
			 (unsigned long long)s->file_pages,
			 (unsigned long long)(r->block / 1024));
	rep_uint(sec, "readers", NULL, r->readers, NULL);
	rep_uint(sec, "lead_pages", "lead", r->lead, "pages");
	rep_num(sec, "read_ms", "read time", r->ns / 1e6, 2, "ms");
	rep_num(sec, "MB_s", "throughput",
		mb_per_s(s->file_pages * s->page_size, r->ns), 1, "MB/s");
}

/* The thread's picture: one line per order, a bar of up to 40 '*'. */
static void folio_picture(struct rnode *sec, const struct folio_result *r)
{
	struct rnode *lines = rep_lines(sec, "picture");
	uint64_t most = 0;
	unsigned k, last = 0;
	char bar[41];

	for (k = 0; k < TESTFS_FOLIO_ORDERS; k++) {
		if (r->fo.folios[k])
			last = k;
		if (r->fo.folios[k] > most)
			most = r->fo.folios[k];
	}
	rep_line(lines, "  page order : count      pages      distribution");
	for (k = 0; k <= last; k++) {
		size_t n = most ? (size_t)((r->fo.folios[k] * 40 + most - 1) /
					   most)
				: 0;

		memset(bar, '*', n);
		memset(bar + n, ' ', 40 - n);
		bar[40] = '\0';
		rep_line(lines, "  %10u : %-10llu %-10llu |%s|", k,
			 (unsigned long long)r->fo.folios[k],
			 (unsigned long long)r->fo.pages[k], bar);
	}
}

/* The folios the kernel allocated for the file, from its own events. */
static void folios(struct scenario_ctx *ctx, const struct folio_result *r)
{
	struct rnode *sec = rep_section(ctx->rep, "folios",
					"Folios allocated (kernel events)");
	struct rnode *l1, *l2;
	unsigned k, last = 0;

	if (r->folios_err) {
		rep_bool(sec, "available", "folio orders available", false);
		rep_str(sec, "why", "why not", "%s",
			r->folios_why ? r->folios_why
				      : strerror(-r->folios_err));
		return;
	}
	rep_bool(sec, "available", "folio orders available", true);
	for (k = 0; k < TESTFS_FOLIO_ORDERS; k++)
		if (r->fo.folios[k])
			last = k;
	l1 = rep_list(sec, "folios", "folios per order (0, 1, 2, ...)");
	l2 = rep_list(sec, "pages", "pages per order (0, 1, 2, ...)");
	for (k = 0; k <= last; k++) {
		rep_uint(l1, NULL, NULL, r->fo.folios[k], NULL);
		rep_uint(l2, NULL, NULL, r->fo.pages[k], NULL);
	}
	rep_uint(sec, "total_folios", "folios", r->fo.total_folios, NULL);
	rep_uint(sec, "total_pages", "pages", r->fo.total_pages, NULL);
	rep_int(sec, "max_order", "largest order", r->fo.max_order, NULL);
	rep_int(sec, "top_order", "order holding most pages", r->fo.top_order,
		NULL);
	rep_uint(sec, "window_order", "order of a full window (ra_pages)",
		 r->top, NULL);
	rep_num(sec, "pct_window_order", "pages in folios of that order",
		r->pct_top, 1, "%");
	rep_num(sec, "pct_orders_2_below", "pages in orders 2 to below it",
		r->pct_mid, 1, "%");
	rep_num(sec, "pct_orders_0_1", "pages in orders 0 and 1", r->pct_low, 1,
		"%");
	folio_picture(sec, r);
	if (ctx->html)
		htmlrep_add_histogram(ctx->html,
				      "Folios the kernel allocated for the "
				      "file, per order "
				      "(mm_filemap_add_to_page_cache)",
				      "order", r->fo.folios, last + 1);
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
	rep_uint(sec, "misaligned",
		 "windows starting off the alignment of the order they ask",
		 r->misaligned, NULL);
	rep_uint(sec, "odd_starts", "windows starting on an odd page",
		 r->odd_starts, NULL);
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
		 "The read made %zu readahead windows; %llu started off the "
		 "alignment of the folio order they asked for (%llu on an odd "
		 "page), and %llu did not start where the one before ended.",
		 r->n, (unsigned long long)r->misaligned,
		 (unsigned long long)r->odd_starts,
		 (unsigned long long)r->gaps);
	if (r->odd_starts && !r->defect_kernel && r->fo.max_order > 0)
		rep_text(
			plain, "next_miss",
			"Windows started on odd pages on a kernel without the "
			"defect patch: on 7.3, page_cache_next_miss() reports "
			"the first missing page one page late when its scan "
			"starts inside a large folio (xas_load() on a sibling "
			"entry leaves the slot at the folio's head while the "
			"index moves on), so the window after a marker another "
			"reader set starts one page past the gap, and that page "
			"is read alone later: story 4's off-by-one, by itself, "
			"once FUSE has large folios.");
	if (r->folios_err)
		rep_text(plain, "orders",
			 "The folio orders the kernel allocated are not known "
			 "here: %s.",
			 r->folios_why ? r->folios_why : "no reason given");
	else if (r->fo.max_order <= 0)
		rep_text(plain, "orders",
			 "The kernel put every page of the file into an "
			 "order-0 folio (%llu folios): FUSE on this kernel "
			 "has no large folios (its inodes set no folio "
			 "orders; the lab series fuse-large-folios gives "
			 "them some), so there is no order for the 2023 "
			 "off-by-one to lower.",
			 (unsigned long long)r->fo.total_folios);
	else
		rep_text(plain, "orders",
			 "The kernel allocated folios up to order %d for the "
			 "file: %.1f%% of its pages in order-%u folios (a "
			 "full window's), %.1f%% in orders 2 to %u, %.1f%% in "
			 "orders 0 and 1. The 2023 report: 91%% in order 5 "
			 "without the defect, 99%% in orders 2-4 with it.",
			 r->fo.max_order, r->pct_top, r->top, r->pct_mid,
			 r->top ? r->top - 1 : 0, r->pct_low);
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

/* Story 4's claim, in the numbers of the folio histogram. */
static void claim_verdict(struct rnode *table, const struct folio_result *r)
{
	char exp[320], obs[320];
	const char *v;
	struct rnode *row;

	snprintf(exp, sizeof(exp), "%s: order %u (a full window) %s (2023: %s)",
		 r->defect_kernel ? "with the defect" : "without the defect",
		 r->top,
		 r->defect_kernel ? "gives way to orders 2 and up below it"
				  : "holds most pages",
		 r->defect_kernel ? "order 5 0%, orders 2-4 99% of pages"
				  : "order 5 91% of pages");
	if (r->folios_err) {
		snprintf(obs, sizeof(obs), "no folio orders: %s",
			 r->folios_why ? r->folios_why : "unknown");
		v = "not observable";
	} else if (r->fo.max_order <= 0) {
		snprintf(obs, sizeof(obs),
			 "order 0 only (%llu folios): FUSE has no large "
			 "folios on this kernel",
			 (unsigned long long)r->fo.total_folios);
		v = "not observable";
	} else {
		snprintf(obs, sizeof(obs),
			 "order %u %.1f%%, orders 2-%u %.1f%%, orders 0-1 "
			 "%.1f%% of %llu pages",
			 r->top, r->pct_top, r->top ? r->top - 1 : 0,
			 r->pct_mid, r->pct_low,
			 (unsigned long long)r->fo.total_pages);
		if (r->defect_kernel)
			v = r->pct_mid > r->pct_top ? "matches" : "differs";
		else
			v = r->pct_top > r->pct_mid ? "matches" : "differs";
	}
	row = report_verdict(table,
			     "2023 off-by-one: folio orders "
			     "(page_cache_next_miss)",
			     exp, obs, v);
	verdict_num(row, "permille_window_order",
		    (uint64_t)(r->pct_top * 10 + 0.5));
	verdict_num(row, "permille_orders_2_below",
		    (uint64_t)(r->pct_mid * 10 + 0.5));
	verdict_num(row, "permille_orders_0_1",
		    (uint64_t)(r->pct_low * 10 + 0.5));
}

static void verdicts(struct scenario_ctx *ctx, const struct folio_result *r)
{
	struct rnode *sec = report_verdicts(ctx->rep), *table, *row;
	char obs[160];

	table = rep_table(sec, "policies", NULL);
	if (r->model_ok)
		current_verdict(table, r);
	claim_verdict(table, r);
	snprintf(obs, sizeof(obs), "%llu of %zu windows misaligned, %llu odd",
		 (unsigned long long)r->misaligned, r->n,
		 (unsigned long long)r->odd_starts);
	row = report_verdict(
		table, "2023 off-by-one: window starts",
		r->defect_kernel
			? "windows placed after page_cache_next_miss() start "
			  "past the gap: misaligned starts"
			: "every window starts aligned to the order it asks",
		obs,
		r->defect_kernel ? (r->misaligned ? "matches" : "differs")
				 : (r->misaligned ? "differs" : "matches"));
	verdict_num(row, "observed_misaligned", r->misaligned);
	verdict_num(row, "observed_odd_starts", r->odd_starts);
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
	folios(ctx, r);
	alignment(ctx, r);
	plain_words(plain, r);
	verdicts(ctx, r);
	page_map(ctx, r);
}
