/* SPDX-License-Identifier: MIT */
/*
 * folio-order's typed result: what the run measured and what follows
 * from it, computed once by folio_order.c; folio_order_report.c renders
 * it into the report (text, JSON and the HTML page's facts).
 */
#ifndef SCENARIO_FOLIO_ORDER_H
#define SCENARIO_FOLIO_ORDER_H

#include "scenario.h"

/* The windows shown one by one (the first ones). */
#define FOLIO_SHOWN 32
/* The windows a verdict names, expected and observed. */
#define FOLIO_NAMED 8

struct folio_window {
	uint64_t start;
	uint64_t size;
	/* The folio order the kernel asked for; -1 unknown. */
	int order;
	/* start and end modulo the size rounded down to a power of two. */
	uint64_t offset;
	uint64_t end;
	/* The largest folio order the start and size allow. */
	unsigned aligned_order;
};

struct folio_result {
	const struct session *s;
	const struct testfs_log *log;
	const struct read_list *reads;
	uint64_t block;
	uint64_t ns;
	struct testfs_extents by_cause[NCAUSES];

	/* The order histograms (tracing); hist_err < 0 or !traced: none. */
	int hist_err;
	bool traced;
	struct testfs_histograms hist;
	/* The most common order asked for and allocated. */
	unsigned most_asked;
	unsigned most_allocated;

	/* The traced windows, else the reads (traced_windows false). */
	struct folio_window *w;
	size_t n;
	bool traced_windows;
	uint64_t align_hist[TESTFS_HIST_BUCKETS];
	uint64_t gaps;
	uint64_t steady;
	uint64_t drifting;
	int64_t last_drift;

	/* The workload: readers taking turns, each going lead pages ahead. */
	unsigned readers;
	uint64_t lead;

	/*
	 * The folios the kernel added to the file's page cache (its
	 * filemap:mm_filemap_add_to_page_cache events): folios_err 0, or
	 * -ENODATA with folios_why saying which events were missing.
	 */
	int folios_err;
	const char *folios_why;
	struct testfs_folio_orders fo;
	/* The window's order: ilog2(ra_pages), what a steady window asks. */
	unsigned top;
	/* Percent of the pages in folios of order top (and larger), of
	 * orders 2 to top - 1, and of orders 0 and 1. */
	double pct_top, pct_mid, pct_low;
	/* Traced windows whose start is not a multiple of 2^(the order
	 * their start and size would allow at best): they begin with small
	 * folios. odd: starting on an odd page. */
	uint64_t misaligned;
	uint64_t odd_starts;
	/* The kernel carries the lab defect (its release says so). */
	bool defect_kernel;

	/* The model's windows for the current kernel (model_ok). */
	bool model_ok;
	bool model_same;
	size_t model_windows;
	struct ra_window named[FOLIO_NAMED];
	size_t nnamed;
};

/* folio_order_report.c: the result as the report's sections. */
void folio_order_report(struct scenario_ctx *ctx, const struct folio_result *r);

#endif
