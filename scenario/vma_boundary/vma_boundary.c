// SPDX-License-Identifier: MIT
/*
 * vma-boundary (story 1): map the middle third of a file, touch it in
 * order, and count the pages the kernel fetched outside the VMA; the
 * cachestat total the patch's own test used; and the patch's fio matrix
 * (mmap and pread, sequential and random, 4 KiB) without fio.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "scenario.h"

#define FILE_NAME "file.bin"

static const struct param_def params[] = {
	{ "size", PARAM_SIZE, "192M", "12M",
	  "file size; the middle third is mapped (the patch's test: 3G)",
	  3 * 4096, 1ull << 40, NULL },
	{ "ra", PARAM_UINT, "128", NULL, "read_ahead_kb of the mount", 4,
	  1048576, NULL },
	{ "model", PARAM_MODEL, "nvme", NULL,
	  "storage model for every read (testfs --latency)", 0, 0, NULL },
	{ "exec", PARAM_CHOICE, "no", NULL,
	  "yes: map PROT_READ|PROT_EXEC (read-around clamped since 6.16)", 0, 0,
	  "no|yes" },
	{ "throughput", PARAM_CHOICE, "yes", NULL,
	  "also time 4 KiB mmap and pread, sequential and random, over the "
	  "VMA's pages (the patch's fio matrix)",
	  0, 0, "yes|no" },
	{ "seed", PARAM_UINT, "1", NULL, "seed of the random orders", 0,
	  UINT32_MAX, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* The VMA and what the touch phase saw. */
struct touch_result {
	uint64_t first;
	uint64_t last;
	uint64_t ns;
	uint64_t before;
	uint64_t after;
	uint64_t inside;
	struct testfs_cachestat cs;
	int cs_err;
	struct testfs_extents fetched;
	struct testfs_extents touched;
	/* Pages that faulted (kernel tracing; empty without). */
	struct testfs_extents faults;
	struct testfs_extents by_cause[NCAUSES];
	struct read_list reads;
	struct testfs_log *log;
};

static void touch_result_free(struct touch_result *t)
{
	unsigned c;

	testfs_extents_free(&t->fetched);
	testfs_extents_free(&t->touched);
	testfs_extents_free(&t->faults);
	for (c = 0; c < NCAUSES; c++)
		testfs_extents_free(&t->by_cause[c]);
	read_list_free(&t->reads);
	testfs_log_free(t->log);
}

static int touch_phase(struct scenario_ctx *ctx, struct session *s, int prot,
		       struct touch_result *t)
{
	struct testfs_map map;
	uint64_t t0;
	int64_t n;
	int err;

	err = session_phase(ctx, s, "touch");
	if (err)
		return err;
	progress("touch: mapping pages %llu-%llu and touching them in order",
		 (unsigned long long)t->first, (unsigned long long)t->last);
	err = testfs_map(s->fs, s->file, t->first, t->last - t->first + 1, prot,
			 MAP_SHARED, &map);
	if (err)
		return scenario_fail(ctx, err, "touch: mmap");
	t0 = now_ns();
	n = testfs_touch(&map, TESTFS_ORDER_FORWARD, 0, &t->touched);
	t->ns = now_ns() - t0;
	testfs_unmap(&map);
	if (n < 0)
		return scenario_fail(ctx, (int)n, "touch");
	err = session_snapshot(ctx, s, "touch", &t->log);
	if (!err)
		err = html_vma(ctx, s->file, t->first, t->last, prot);
	if (err)
		return err;
	t->cs.struct_size = sizeof(t->cs);
	t->cs_err = testfs_cachestat(s->fs, s->file, 0, 0, &t->cs);
	err = testfs_log_fetched(t->log, s->file, &t->fetched);
	if (!err)
		err = log_fetched_by_cause(t->log, s->file, t->by_cause);
	if (!err)
		err = log_reads(t->log, s->file, &t->reads);
	if (!err)
		err = log_accessed(t->log, s->file, TESTFS_ACCESS_FAULT,
				   &t->faults);
	if (err)
		return scenario_fail(ctx, err, "touch: the log");
	testfs_log_outside(t->log, s->file, t->first, t->last, &t->before,
			   &t->after);
	t->inside = extents_pages_in(&t->fetched, t->first, t->last);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

/*
 * Predicted pages under @policy (exec: a PROT_EXEC mapping), and whether
 * the model's windows, split at max_pages, are the FUSE reads observed.
 */
static int predict(const struct session *s, const struct touch_result *t,
		   enum ra_policy policy, bool exec, struct testfs_extents *out,
		   bool *same_reads)
{
	struct ra_model m;
	size_t i, k = 0;
	uint64_t p;
	int err;

	err = ra_model_init(&m, s->file_pages, s->ra_pages, s->max_pages,
			    policy);
	if (err)
		return err;
	m.exec = exec;
	for (p = t->first; p <= t->last; p++)
		ra_model_fault(&m, p, t->first, t->last);
	*same_reads = true;
	for (i = 0; i < m.nwindows && !err; i++) {
		uint64_t first = m.windows[i].first, left = m.windows[i].pages;

		if (!left)
			continue;
		err = testfs_extents_add(out, first, first + left - 1);
		while (left) {
			uint64_t n =
				left < m.max_request ? left : m.max_request;

			if (k >= t->reads.n || t->reads.v[k]->page != first ||
			    t->reads.v[k]->pages != n)
				*same_reads = false;
			k++;
			first += n;
			left -= n;
		}
	}
	if (k != t->reads.n)
		*same_reads = false;
	ra_model_free(&m);
	return err;
}

static const char *pl(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The explanation of the start of the VMA. */
static void explain_start(struct rnode *sec, const struct session *s,
			  const struct touch_result *t, bool exec)
{
	const struct testfs_record *r0 = t->reads.v[0];
	uint64_t last = r0->page + r0->pages - 1, half = s->ra_pages / 2;
	char how[160] = "", clamp[320] = "";
	size_t used = 0;

	if (r0->cause != TESTFS_CAUSE_UNKNOWN)
		snprintf(how, sizeof(how),
			 " (kernel tracing: cause %s, triggered by page %llu)",
			 testfs_cause_name(r0->cause),
			 (unsigned long long)r0->trigger_page);
	if (exec) {
		rep_text(sec, "start",
			 "Start of the VMA: the first touch, on page %llu, "
			 "faulted and the kernel read pages %llu-%llu%s. The "
			 "mapping is PROT_EXEC: since 6.16 the kernel reads "
			 "from the faulting page itself (not half a window "
			 "before it), at most ra_pages (%u page%s), never "
			 "before the VMA start nor past its end. Nothing "
			 "before the VMA was fetched.",
			 (unsigned long long)t->first,
			 (unsigned long long)r0->page, (unsigned long long)last,
			 how, s->ra_pages, pl(s->ra_pages));
		return;
	}
	if (r0->page >= t->first) {
		rep_text(sec, "start",
			 "Start of the VMA: the first touch, on page %llu, "
			 "faulted and the kernel read pages %llu-%llu%s: "
			 "nothing before the VMA.",
			 (unsigned long long)t->first,
			 (unsigned long long)r0->page, (unsigned long long)last,
			 how);
		return;
	}
	/* Read-around: start max(0, fault - ra/2), ra_pages, cut at EOF. */
	if (t->first < half && r0->page == 0)
		used += (size_t)snprintf(
			clamp + used, sizeof(clamp) - used,
			" It could not start %llu page%s before the fault: "
			"the window was clamped at page 0, the file's first "
			"page, so it started %llu page%s before the fault.",
			(unsigned long long)half, pl(half),
			(unsigned long long)t->first, pl(t->first));
	if (r0->pages < s->ra_pages && last == s->file_pages - 1)
		snprintf(clamp + used, sizeof(clamp) - used,
			 " It was cut at the end of the file (page %llu): %llu "
			 "page%s read instead of %u.",
			 (unsigned long long)last,
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
		 (unsigned long long)last, how, s->ra_pages, pl(s->ra_pages),
		 (unsigned long long)half, pl(half), clamp,
		 (unsigned long long)t->before, pl(t->before),
		 t->before == 1 ? "was" : "were");
}

/* The explanation of the end of the VMA. */
static void explain_end(struct rnode *sec, const struct touch_result *t,
			bool exec)
{
	const struct testfs_record *cross = NULL, *first_past = NULL;
	const struct testfs_record *last_past = NULL;
	uint64_t past = 0, async = 0, arounds = 0;
	bool traced = false;
	char win[256] = "";
	size_t i;

	for (i = 0; i < t->reads.n; i++) {
		const struct testfs_record *r = t->reads.v[i];

		if (r->cause != TESTFS_CAUSE_UNKNOWN)
			traced = true;
		async += r->cause == TESTFS_CAUSE_ASYNC;
		arounds += r->cause == TESTFS_CAUSE_READAROUND;
		if (r->page <= t->last && r->page + r->pages - 1 > t->last)
			cross = r;
		if (r->page > t->last) {
			if (!first_past)
				first_past = r;
			last_past = r;
			past++;
		}
	}
	/* Without tracing: every read after the first is taken as async. */
	if (!traced && t->reads.n)
		async = t->reads.n - 1;
	if (!t->after) {
		if (exec)
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
				 traced && arounds == t->reads.n
					 ? ", all read-around"
					 : "");
		else
			rep_text(sec, "end",
				 "End of the VMA: readahead stopped there; no "
				 "page after page %llu was fetched.",
				 (unsigned long long)t->last);
		return;
	}
	if (cross)
		snprintf(win, sizeof(win),
			 "The read running at the VMA end, pages %llu-%llu, "
			 "went %llu page%s past it. ",
			 (unsigned long long)cross->page,
			 (unsigned long long)(cross->page + cross->pages - 1),
			 (unsigned long long)(cross->page + cross->pages - 1 -
					      t->last),
			 pl(cross->page + cross->pages - 1 - t->last));
	if (!async) {
		rep_text(sec, "end",
			 "End of the VMA: the first read-around window itself "
			 "reached past the VMA end. %sNo async window was "
			 "started. In all %llu page%s after the VMA's last "
			 "page (%llu) %s fetched that nothing can reach "
			 "through this mapping.",
			 win, (unsigned long long)t->after, pl(t->after),
			 (unsigned long long)t->last,
			 t->after == 1 ? "was" : "were");
		return;
	}
	if (first_past)
		rep_text(sec, "end",
			 "End of the VMA: after the first fault, readahead "
			 "went on ASYNCHRONOUSLY: touching the marker page of "
			 "each window started the next window (%llu async "
			 "read%s), and nothing stopped this at the VMA end. "
			 "%s%llu more read%s, pages %llu-%llu, %s entirely "
			 "past the VMA. In all %llu page%s after the VMA's "
			 "last page (%llu) %s fetched that nothing can reach "
			 "through this mapping.",
			 (unsigned long long)async, pl(async), win,
			 (unsigned long long)past, pl(past),
			 (unsigned long long)first_past->page,
			 (unsigned long long)(last_past->page +
					      last_past->pages - 1),
			 past == 1 ? "lies" : "lie",
			 (unsigned long long)t->after, pl(t->after),
			 (unsigned long long)t->last,
			 t->after == 1 ? "was" : "were");
	else
		rep_text(sec, "end",
			 "End of the VMA: readahead went on asynchronously "
			 "(%llu async read%s) past the VMA end. %sIn all "
			 "%llu page%s after the VMA's last page (%llu) %s "
			 "fetched.",
			 (unsigned long long)async, pl(async), win,
			 (unsigned long long)t->after, pl(t->after),
			 (unsigned long long)t->last,
			 t->after == 1 ? "was" : "were");
}

static void explain(struct report *rep, const struct session *s,
		    const struct touch_result *t, bool exec, bool match_current,
		    bool match_limited)
{
	struct rnode *sec = report_plain_words(rep);

	if (!t->reads.n) {
		rep_text(sec, "start",
			 "The kernel sent no read: every page was cached "
			 "already.");
		return;
	}
	explain_start(sec, s, t, exec);
	explain_end(sec, t, exec);
	rep_text(sec, "bottom_line",
		 "Bottom line: %llu pages of the file are cached for a "
		 "%llu-page mapping (cachestat), %llu more than the mapping "
		 "can use. This %s what mm/readahead.c does today; a "
		 "VMA-limited kernel (the 2026 patch) would have fetched "
		 "exactly the VMA%s. The page map below shows both ends.",
		 (unsigned long long)(t->cs_err ? t->fetched.pages
						: t->cs.nr_cache),
		 (unsigned long long)(t->last - t->first + 1),
		 (unsigned long long)(t->before + t->after),
		 match_current ? "is exactly" : "differs from",
		 match_limited ? ", as observed" : "");
}

static void extents_text(const struct testfs_extents *e, char *buf, size_t size)
{
	testfs_extents_format(e, buf, size);
}

static void verdicts(struct rnode *sec, const struct touch_result *t, bool exec,
		     const struct testfs_extents pred[RA_NPOLICIES],
		     const bool same_reads[RA_NPOLICIES])
{
	static const char *const names[RA_NPOLICIES] = {
		[RA_POLICY_VMA_LIMITED] = "VMA-limited (2026 patch)",
		[RA_POLICY_VMA_CONDITIONAL] =
			"conditional VMA limit (follow-up)",
	};
	struct rnode *table = rep_table(sec, "policies", NULL), *row;
	char exp[160], obs[160], ext[96];
	unsigned p;

	extents_text(&t->fetched, ext, sizeof(ext));
	snprintf(obs, sizeof(obs), "%llu before, %llu after: %s",
		 (unsigned long long)t->before, (unsigned long long)t->after,
		 ext);
	for (p = 0; p < RA_NPOLICIES; p++) {
		const char *name = p	  ? names[p]
				   : exec ? "current kernels (6.16+, exec)"
					  : "current kernels (6.18)";
		uint64_t b =
			t->first && pred[p].pages
				? extents_pages_in(&pred[p], 0, t->first - 1)
				: 0;
		uint64_t a =
			extents_pages_in(&pred[p], t->last + 1, UINT64_MAX - 1);
		bool same = testfs_extents_equal(&pred[p], &t->fetched);

		extents_text(&pred[p], ext, sizeof(ext));
		snprintf(exp, sizeof(exp), "%llu before, %llu after: %s",
			 (unsigned long long)b, (unsigned long long)a, ext);
		row = report_verdict(table, name, exp, obs,
				     same && same_reads[p] ? "matches"
				     : same ? "same pages, other reads"
				     : (b == t->before && a == t->after)
					     ? "same counts, other pages"
					     : "differs");
		verdict_num(row, "expected_before", b);
		verdict_num(row, "expected_after", a);
		verdict_num(row, "expected_pages", pred[p].pages);
		verdict_num(row, "observed_before", t->before);
		verdict_num(row, "observed_after", t->after);
		verdict_num(row, "observed_pages", t->fetched.pages);
		verdict_policy(row, (enum ra_policy)p);
	}
}

static void maps(struct rnode *parent, const struct session *s,
		 const struct touch_result *t,
		 const struct testfs_extents pred[RA_NPOLICIES])
{
	struct testfs_extent vma = { t->first, t->last };
	struct testfs_extent *req;
	uint64_t lo, hi, span = 2ull * s->ra_pages;
	struct pagemap m;
	size_t i;
	int z;

	req = calloc(t->reads.n ? t->reads.n : 1, sizeof(*req));
	if (!req)
		return;
	for (i = 0; i < t->reads.n; i++) {
		req[i].first = t->reads.v[i]->page;
		req[i].last = t->reads.v[i]->page + t->reads.v[i]->pages - 1;
	}
	pagemap_init(&m, 0, s->file_pages - 1, PAGEMAP_COLS);
	pagemap_row_vmas(&m, "VMA", &vma, 1, "==");
	pagemap_row_set(&m, "touched", &t->touched, '#', ':');
	pagemap_fetched_rows(&m, t->by_cause);
	pagemap_legend(&m, '[', "VMA start");
	pagemap_legend(&m, ']', "VMA end");
	pagemap_legend(&m, '=', "inside the VMA");
	pagemap_legend(&m, '#', "touched");
	pagemap_legend(&m, ':', "touched, part of the column");
	pagemap_emit(&m, parent, "whole_file", "The whole file");

	/*
	 * Zooms of 80 columns of a power-of-two number of pages each, with
	 * the boundary on a column edge: 2 windows either side of the
	 * start; 1 window before the end and 2 after it.
	 */
	for (z = 0; z < 2; z++) {
		uint64_t ppc = 1, need = z ? 3 * span / 2 : 2 * span;
		uint64_t edge = z ? t->last + 1 : t->first;
		uint64_t cols_before = z ? 26 : 40;

		while (ppc * 80 < need)
			ppc <<= 1;
		lo = edge > cols_before * ppc ? edge - cols_before * ppc : 0;
		hi = lo + 80 * ppc - 1;
		if (hi > s->file_pages - 1)
			hi = s->file_pages - 1;
		pagemap_init(&m, lo, hi, 80);
		pagemap_row_vmas(&m, "VMA", &vma, 1, "==");
		pagemap_row_set(&m, "touched", &t->touched, '#', ':');
		pagemap_fetched_rows(&m, t->by_cause);
		if (t->faults.pages) {
			pagemap_row_set(&m, "faults", &t->faults, '^', '^');
			pagemap_legend(&m, '^',
				       "a page fault (kernel tracing)");
		}
		pagemap_row_requests(&m, "requests", req, t->reads.n,
				     "one FUSE read");
		pagemap_row_set(&m, "6.18 model", &pred[0], '*', '.');
		pagemap_row_set(&m, "VMA-limited", &pred[1], '*', '.');
		pagemap_row_set(&m, "conditional", &pred[2], '*', '.');
		pagemap_legend(&m, '[', "VMA start");
		pagemap_legend(&m, ']', "VMA end");
		pagemap_legend(&m, '=', "inside the VMA");
		pagemap_legend(&m, '#', "touched");
		pagemap_legend(&m, ':', "touched, part of the column");
		pagemap_legend(&m, '*', "what the policy would fetch");
		pagemap_legend(&m, '.', "the same, part of the column");
		pagemap_emit(&m, parent, z ? "vma_end" : "vma_start",
			     z ? "Zoom on the VMA end"
			       : "Zoom on the VMA start");
	}
	free(req);
}

static int vma_boundary_run(struct scenario_ctx *ctx)
{
	struct testfs_extents pred[RA_NPOLICIES] = { TESTFS_EXTENTS_INIT,
						     TESTFS_EXTENTS_INIT,
						     TESTFS_EXTENTS_INIT };
	struct touch_result t = { 0 };
	bool same_reads[RA_NPOLICIES] = { false, false, false };
	unsigned p;
	bool exec = strcmp(param_s(ctx, "exec"), "yes") == 0;
	struct rnode *sec, *obj;
	struct session *s;
	uint64_t pages;
	int err;

	err = session_start(ctx, &s, FILE_NAME, param_u(ctx, "size"),
			    (unsigned)param_u(ctx, "ra"),
			    param_s(ctx, "model"));
	if (err)
		return err;
	pages = s->file_pages;
	t.first = pages / 3;
	t.last = t.first + pages / 3 - 1;
	session_report_settings(s, ctx->rep);

	err = touch_phase(ctx, s, PROT_READ | (exec ? PROT_EXEC : 0), &t);
	if (err)
		goto out;
	sec = rep_section(ctx->rep, "done", "What was done");
	rep_text(sec, "what",
		 "Mapped pages %llu-%llu (the middle third of the file, %llu "
		 "pages) MAP_SHARED %s, touched one byte of each page in "
		 "order, from a cold cache.",
		 (unsigned long long)t.first, (unsigned long long)t.last,
		 (unsigned long long)(t.last - t.first + 1),
		 exec ? "PROT_READ|PROT_EXEC" : "PROT_READ");
	rep_num(sec, "touch_ms", "touch time", t.ns / 1e6, 2, "ms");

	/* exec: 6.16+ reads from the fault within the VMA, no async. */
	for (p = 0; p < RA_NPOLICIES && !err; p++)
		err = predict(s, &t, (enum ra_policy)p, exec, &pred[p],
			      &same_reads[p]);
	if (err) {
		err = scenario_fail(ctx, err, "the model");
		goto out;
	}
	explain(ctx->rep, s, &t, exec,
		testfs_extents_equal(&pred[0], &t.fetched),
		testfs_extents_equal(&pred[1], &t.fetched));

	sec = rep_section(ctx->rep, "fetched", "What the kernel fetched");
	obj = rep_obj(sec, "vma", "the VMA");
	rep_uint(obj, "first_page", NULL, t.first, NULL);
	rep_uint(obj, "last_page", NULL, t.last, NULL);
	rep_uint(obj, "pages", NULL, t.last - t.first + 1, NULL);
	rep_uint(sec, "requests", "FUSE reads", t.reads.n, NULL);
	rep_uint(sec, "pages_fetched", "pages fetched", t.fetched.pages, NULL);
	rep_uint(sec, "before", "pages fetched before the VMA", t.before, NULL);
	rep_uint(sec, "inside", "pages fetched inside the VMA", t.inside, NULL);
	rep_uint(sec, "after", "pages fetched after the VMA", t.after, NULL);
	{
		char ext[512];

		testfs_extents_format(&t.fetched, ext, sizeof(ext));
		rep_str(sec, "extents", "fetched extents", "%s", ext);
	}
	report_requests(sec, &t.reads, 12);
	if (t.cs_err)
		rep_str(sec, "cachestat", NULL, "not available (%s)",
			strerror(-t.cs_err));
	else {
		obj = rep_obj(sec, "cachestat", "cachestat (whole file)");
		rep_uint(obj, "nr_cache", "pages cached", t.cs.nr_cache, NULL);
		rep_uint(obj, "mapping_pages", "mapping size",
			 t.last - t.first + 1, "pages");
		rep_str(obj, "patch_test",
			"the patch's test (cached <= mapping)", "%s",
			t.cs.nr_cache <= t.last - t.first + 1 ? "passes"
							      : "fails");
	}
	report_causes(sec, s, t.log, t.by_cause);
	report_usage(sec, t.log, s->file);
	report_page_age(sec, t.log, s->file);
	report_windows(sec, t.log, s->file, 3, 3);

	sec = report_verdicts(ctx->rep);
	rep_text(sec, "how",
		 "Expected pages worked out from mm/readahead.c (read-around "
		 "of ra_pages starting ra_pages/2 before a fault, async "
		 "windows on the marker page, order 0), for this VMA and "
		 "read_ahead_kb. The VMA-limited policy stops every fault's "
		 "readahead at the VMA's last page; the conditional one only "
		 "when the fault is fewer than ra_pages pages from the VMA "
		 "end; both start read-around no earlier than the VMA.");
	verdicts(sec, &t, exec, pred, same_reads);

	if (strcmp(param_s(ctx, "throughput"), "yes") == 0) {
		sec = rep_section(ctx->rep, "throughput",
				  "Throughput under the storage model");
		err = fio_matrix(ctx, s, t.first, t.last - t.first + 1, sec);
		if (err)
			goto out;
	}
	sec = rep_section(ctx->rep, "page_map", "Page map");
	maps(sec, s, &t, pred);
out:
	touch_result_free(&t);
	for (p = 0; p < RA_NPOLICIES; p++)
		testfs_extents_free(&pred[p]);
	return err;
}

const struct scenario vma_boundary_scenario = {
	.name = "vma-boundary",
	.summary = "map the middle third of a file, touch it: pages "
		   "fetched outside the VMA",
	.description =
		"Story 1 of READAHEAD.md: a patch bounded fault readahead by "
		"the VMA. Maps the middle third of a file (192 MiB by default, "
		"the 1G/3G of the patch's test scaled down; size=3G for the "
		"original), touches one byte per page in order from a cold "
		"cache and reports the pages fetched before, inside and after "
		"the VMA, the cachestat total the patch's test checked, and "
		"4 KiB mmap/pread throughput, sequential and random, under a "
		"storage model (the patch's fio matrix, without fio).",
	.params = params,
	.run = vma_boundary_run,
};
