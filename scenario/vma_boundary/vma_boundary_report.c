// SPDX-License-Identifier: MIT
/*
 * vma-boundary's report: the typed result (vma_boundary.h) as sections.
 * Nothing is computed here but the text around the numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vma_boundary.h"

static const char *pl(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The explanation of the start of the VMA. */
static void explain_start(struct rnode *sec, const struct vma_result *t)
{
	const struct session *s = t->s;
	const struct vma_start *st = &t->start;
	const struct testfs_record *r0 = st->r0;
	char how[160] = "", clamp[320] = "";
	size_t used = 0;

	if (r0->cause != TESTFS_CAUSE_UNKNOWN)
		snprintf(how, sizeof(how),
			 " (kernel tracing: cause %s, triggered by page %llu)",
			 testfs_cause_name(r0->cause),
			 (unsigned long long)r0->trigger_page);
	if (t->exec) {
		rep_text(sec, "start",
			 "Start of the VMA: the first touch, on page %llu, "
			 "faulted and the kernel read pages %llu-%llu%s. The "
			 "mapping is PROT_EXEC: since 6.16 the kernel reads "
			 "from the faulting page itself (not half a window "
			 "before it), at most ra_pages (%u page%s), never "
			 "before the VMA start nor past its end. Nothing "
			 "before the VMA was fetched.",
			 (unsigned long long)t->first,
			 (unsigned long long)r0->page,
			 (unsigned long long)st->last, how, s->ra_pages,
			 pl(s->ra_pages));
		return;
	}
	if (r0->page >= t->first) {
		rep_text(sec, "start",
			 "Start of the VMA: the first touch, on page %llu, "
			 "faulted and the kernel read pages %llu-%llu%s: "
			 "nothing before the VMA.",
			 (unsigned long long)t->first,
			 (unsigned long long)r0->page,
			 (unsigned long long)st->last, how);
		return;
	}
	/* Read-around: start max(0, fault - ra/2), ra_pages, cut at EOF. */
	if (st->clamped_at_zero)
		used += (size_t)snprintf(
			clamp + used, sizeof(clamp) - used,
			" It could not start %llu page%s before the fault: "
			"the window was clamped at page 0, the file's first "
			"page, so it started %llu page%s before the fault.",
			(unsigned long long)st->half, pl(st->half),
			(unsigned long long)t->first, pl(t->first));
	if (st->cut_at_eof)
		snprintf(clamp + used, sizeof(clamp) - used,
			 " It was cut at the end of the file (page %llu): %llu "
			 "page%s read instead of %u.",
			 (unsigned long long)st->last,
			 (unsigned long long)r0->pages, pl(r0->pages),
			 s->ra_pages);
	rep_text(sec, "start",
		 "Start of the VMA: the first touch, on page %llu (the VMA's "
		 "first page), faulted, and the kernel read pages "
		 "%llu-%llu%s. It read AROUND the fault, without looking at "
		 "the VMA: a window of ra_pages (%u page%s) meant to start "
		 "half a window (%llu page%s) before the fault.%s So %llu "
		 "page%s before the VMA %s fetched that nothing can reach "
		 "through this mapping.",
		 (unsigned long long)t->first, (unsigned long long)r0->page,
		 (unsigned long long)st->last, how, s->ra_pages,
		 pl(s->ra_pages), (unsigned long long)st->half, pl(st->half),
		 clamp, (unsigned long long)t->before, pl(t->before),
		 t->before == 1 ? "was" : "were");
}

/* The end of the VMA when nothing after it was fetched. */
static void explain_stop(struct rnode *sec, const struct vma_result *t)
{
	const struct vma_end *e = &t->end;

	if (t->exec)
		rep_text(sec, "end",
			 "End of the VMA: nothing after page %llu was "
			 "fetched. On a PROT_EXEC mapping each "
			 "read-around is cut at the VMA end and sets "
			 "no readahead marker (async_size 0), so no "
			 "async window ever starts: each new "
			 "ra_pages chunk of the VMA began with a "
			 "major fault (%zu read%s%s).",
			 (unsigned long long)t->last, t->reads.n,
			 pl(t->reads.n),
			 e->traced && e->arounds == t->reads.n
				 ? ", all read-around"
				 : "");
	else
		rep_text(sec, "end",
			 "End of the VMA: readahead stopped there; no "
			 "page after page %llu was fetched.",
			 (unsigned long long)t->last);
}

/* The explanation of the end of the VMA. */
static void explain_end(struct rnode *sec, const struct vma_result *t)
{
	const struct vma_end *e = &t->end;
	const struct testfs_record *cross = e->cross;
	char win[256] = "", all[160];

	if (!t->after) {
		explain_stop(sec, t);
		return;
	}
	snprintf(all, sizeof(all),
		 "In all %llu page%s after the VMA's last page (%llu) %s "
		 "fetched",
		 (unsigned long long)t->after, pl(t->after),
		 (unsigned long long)t->last, t->after == 1 ? "was" : "were");
	if (cross)
		snprintf(win, sizeof(win),
			 "The read running at the VMA end, pages %llu-%llu, "
			 "went %llu page%s past it. ",
			 (unsigned long long)cross->page,
			 (unsigned long long)(cross->page + cross->pages - 1),
			 (unsigned long long)(cross->page + cross->pages - 1 -
					      t->last),
			 pl(cross->page + cross->pages - 1 - t->last));
	if (!e->async) {
		rep_text(sec, "end",
			 "End of the VMA: the first read-around window itself "
			 "reached past the VMA end. %sNo async window was "
			 "started. %s that nothing can reach through this "
			 "mapping.",
			 win, all);
		return;
	}
	if (e->first_past)
		rep_text(sec, "end",
			 "End of the VMA: after the first fault, readahead "
			 "went on ASYNCHRONOUSLY: touching the marker page of "
			 "each window started the next window (%llu async "
			 "read%s), and nothing stopped this at the VMA end. "
			 "%s%llu more read%s, pages %llu-%llu, %s entirely "
			 "past the VMA. %s that nothing can reach through "
			 "this mapping.",
			 (unsigned long long)e->async, pl(e->async), win,
			 (unsigned long long)e->past, pl(e->past),
			 (unsigned long long)e->first_past->page,
			 (unsigned long long)(e->last_past->page +
					      e->last_past->pages - 1),
			 e->past == 1 ? "lies" : "lie", all);
	else
		rep_text(sec, "end",
			 "End of the VMA: readahead went on asynchronously "
			 "(%llu async read%s) past the VMA end. %s%s.",
			 (unsigned long long)e->async, pl(e->async), win, all);
}

static void explain(struct report *rep, const struct vma_result *t)
{
	struct rnode *sec = report_plain_words(rep);

	if (!t->reads.n) {
		rep_text(sec, "start",
			 "The kernel sent no read: every page was cached "
			 "already.");
		return;
	}
	explain_start(sec, t);
	explain_end(sec, t);
	rep_text(sec, "bottom_line",
		 "Bottom line: %llu pages of the file are cached for a "
		 "%llu-page mapping (cachestat), %llu more than the mapping "
		 "can use. This %s what mm/readahead.c does today; a "
		 "VMA-limited kernel (the 2026 patch) would have fetched "
		 "exactly the VMA%s. The page map below shows both ends.",
		 (unsigned long long)t->cached,
		 (unsigned long long)(t->last - t->first + 1),
		 (unsigned long long)(t->before + t->after),
		 t->policy[RA_POLICY_CURRENT].same_pages ? "is exactly"
							 : "differs from",
		 t->policy[RA_POLICY_VMA_LIMITED].same_pages ? ", as observed"
							     : "");
}

static void done(struct report *rep, const struct vma_result *t)
{
	struct rnode *sec = rep_section(rep, "done", "What was done");

	rep_text(sec, "what",
		 "Mapped pages %llu-%llu (the middle third of the file, %llu "
		 "pages) MAP_SHARED %s, touched one byte of each page in "
		 "order, from a cold cache.",
		 (unsigned long long)t->first, (unsigned long long)t->last,
		 (unsigned long long)(t->last - t->first + 1),
		 t->exec ? "PROT_READ|PROT_EXEC" : "PROT_READ");
	rep_num(sec, "touch_ms", "touch time", t->ns / 1e6, 2, "ms");
}

static void fetched(struct report *rep, const struct vma_result *t)
{
	struct rnode *sec, *obj;
	char ext[512];

	sec = rep_section(rep, "fetched", "What the kernel fetched");
	obj = rep_obj(sec, "vma", "the VMA");
	rep_uint(obj, "first_page", NULL, t->first, NULL);
	rep_uint(obj, "last_page", NULL, t->last, NULL);
	rep_uint(obj, "pages", NULL, t->last - t->first + 1, NULL);
	rep_uint(sec, "requests", "FUSE reads", t->reads.n, NULL);
	rep_uint(sec, "pages_fetched", "pages fetched", t->fetched.pages, NULL);
	rep_uint(sec, "before", "pages fetched before the VMA", t->before,
		 NULL);
	rep_uint(sec, "inside", "pages fetched inside the VMA", t->inside,
		 NULL);
	rep_uint(sec, "after", "pages fetched after the VMA", t->after, NULL);
	testfs_extents_format(&t->fetched, ext, sizeof(ext));
	rep_str(sec, "extents", "fetched extents", "%s", ext);
	report_requests(sec, &t->reads, 12);
	if (t->cs_err)
		rep_str(sec, "cachestat", NULL, "not available (%s)",
			strerror(-t->cs_err));
	else {
		obj = rep_obj(sec, "cachestat", "cachestat (whole file)");
		rep_uint(obj, "nr_cache", "pages cached", t->cs.nr_cache, NULL);
		rep_uint(obj, "mapping_pages", "mapping size",
			 t->last - t->first + 1, "pages");
		rep_str(obj, "patch_test",
			"the patch's test (cached <= mapping)", "%s",
			t->cs.nr_cache <= t->last - t->first + 1 ? "passes"
								 : "fails");
	}
	report_causes(sec, t->s, t->log, t->by_cause);
	report_usage(sec, t->log, t->s->file);
	report_page_age(sec, t->log, t->s->file);
	report_windows(sec, t->log, t->s->file, 3, 3);
}

static void verdicts(struct report *rep, const struct vma_result *t)
{
	static const char *const names[RA_NPOLICIES] = {
		[RA_POLICY_VMA_LIMITED] = "VMA-limited (2026 patch)",
		[RA_POLICY_VMA_CONDITIONAL] =
			"conditional VMA limit (follow-up)",
	};
	struct rnode *sec = report_verdicts(rep), *table, *row;
	char exp[160], obs[160], ext[96];
	unsigned p;

	rep_text(sec, "how",
		 "Expected pages worked out from mm/readahead.c (read-around "
		 "of ra_pages starting ra_pages/2 before a fault, async "
		 "windows on the marker page, order 0), for this VMA and "
		 "read_ahead_kb. The VMA-limited policy stops every fault's "
		 "readahead at the VMA's last page; the conditional one only "
		 "when the fault is fewer than ra_pages pages from the VMA "
		 "end; both start read-around no earlier than the VMA.");
	table = rep_table(sec, "policies", NULL);
	testfs_extents_format(&t->fetched, ext, sizeof(ext));
	snprintf(obs, sizeof(obs), "%llu before, %llu after: %s",
		 (unsigned long long)t->before, (unsigned long long)t->after,
		 ext);
	for (p = 0; p < RA_NPOLICIES; p++) {
		const struct vma_policy *v = &t->policy[p];
		const char *name = p	     ? names[p]
				   : t->exec ? "current kernels (6.17+, exec)"
					     : "current kernels (6.18)";

		testfs_extents_format(&v->pred, ext, sizeof(ext));
		snprintf(exp, sizeof(exp), "%llu before, %llu after: %s",
			 (unsigned long long)v->before,
			 (unsigned long long)v->after, ext);
		row = report_verdict(table, name, exp, obs, v->verdict);
		verdict_num(row, "expected_before", v->before);
		verdict_num(row, "expected_after", v->after);
		verdict_num(row, "expected_pages", v->pred.pages);
		verdict_num(row, "observed_before", t->before);
		verdict_num(row, "observed_after", t->after);
		verdict_num(row, "observed_pages", t->fetched.pages);
		verdict_policy(row, (enum ra_policy)p);
	}
}

/* The map's rows of the VMA, the touched pages and the fetched ones. */
static void map_rows(struct pagemap *m, const struct vma_result *t,
		     const struct testfs_extent *vma)
{
	pagemap_row_vmas(m, "VMA", vma, 1, "==");
	pagemap_row_set(m, "touched", &t->touched, '#', ':');
	pagemap_fetched_rows(m, t->by_cause);
}

/*
 * A zoom of 80 columns of a power-of-two number of pages, with the
 * boundary on a column edge: 2 windows either side of the start (@z 0);
 * 1 window before the end and 2 after it (@z 1).
 */
static void zoom(struct rnode *parent, const struct vma_result *t, int z,
		 const struct testfs_extent *req)
{
	const struct testfs_extent vma = { t->first, t->last };
	uint64_t span = 2ull * t->s->ra_pages, lo, hi;
	uint64_t ppc = 1, need = z ? 3 * span / 2 : 2 * span;
	uint64_t edge = z ? t->last + 1 : t->first;
	uint64_t cols_before = z ? 26 : 40;
	struct pagemap m;

	while (ppc * 80 < need)
		ppc <<= 1;
	lo = edge > cols_before * ppc ? edge - cols_before * ppc : 0;
	hi = lo + 80 * ppc - 1;
	if (hi > t->s->file_pages - 1)
		hi = t->s->file_pages - 1;
	pagemap_init(&m, lo, hi, 80);
	map_rows(&m, t, &vma);
	if (t->faults.pages) {
		pagemap_row_set(&m, "faults", &t->faults, '^', '^');
		pagemap_legend(&m, '^', "a page fault (kernel tracing)");
	}
	pagemap_row_requests(&m, "requests", req, t->reads.n, "one FUSE read");
	pagemap_row_set(&m, "6.18 model", &t->policy[0].pred, '*', '.');
	pagemap_row_set(&m, "VMA-limited", &t->policy[1].pred, '*', '.');
	pagemap_row_set(&m, "conditional", &t->policy[2].pred, '*', '.');
	pagemap_legend_ranges(&m, "VMA start", "VMA end", "inside the VMA",
			      "what the policy would fetch");
	pagemap_emit(&m, parent, z ? "vma_end" : "vma_start",
		     z ? "Zoom on the VMA end" : "Zoom on the VMA start");
}

static void maps(struct report *rep, const struct vma_result *t)
{
	struct rnode *sec = rep_section(rep, "page_map", "Page map");
	const struct testfs_extent vma = { t->first, t->last };
	struct testfs_extent *req;
	struct pagemap m;
	size_t i;

	req = calloc(t->reads.n ? t->reads.n : 1, sizeof(*req));
	if (!req)
		return;
	for (i = 0; i < t->reads.n; i++) {
		req[i].first = t->reads.v[i]->page;
		req[i].last = t->reads.v[i]->page + t->reads.v[i]->pages - 1;
	}
	pagemap_init(&m, 0, t->s->file_pages - 1, PAGEMAP_COLS);
	map_rows(&m, t, &vma);
	pagemap_legend_ranges(&m, "VMA start", "VMA end", "inside the VMA",
			      NULL);
	pagemap_emit(&m, sec, "whole_file", "The whole file");
	zoom(sec, t, 0, req);
	zoom(sec, t, 1, req);
	free(req);
}

void vma_boundary_report(struct scenario_ctx *ctx, const void *result)
{
	const struct vma_result *t = result;

	done(ctx->rep, t);
	explain(ctx->rep, t);
	fetched(ctx->rep, t);
	verdicts(ctx->rep, t);
	if (t->throughput)
		fio_matrix_report(rep_section(ctx->rep, "throughput",
					      "Throughput under the storage "
					      "model"),
				  &t->fio);
	maps(ctx->rep, t);
}
