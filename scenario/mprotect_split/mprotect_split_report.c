// SPDX-License-Identifier: MIT
/*
 * mprotect-split's report: the typed result (mprotect_split.h) as
 * sections. Nothing is computed here but the text around the numbers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mprotect_split.h"

static const char *const arrival_name[] = { "ready", "in flight", "missing",
					    "not read" };
static const char arrival_ch[] = { 'r', 'f', 'M', '?' };
/* In the page map, glyphs no other row uses ('r', 'f': read-around and
 * forced readahead, part of a column). */
static const char arrival_map_ch[] = { '*', '~', '!', '?' };

static void done(struct scenario_ctx *ctx, const struct split_result *r)
{
	const struct session *s = r->s;
	struct rnode *sec = rep_section(ctx->rep, "done", "What was done");

	rep_text(sec, "what",
		 "Mapped the whole file (%llu pages) MAP_PRIVATE PROT_READ, "
		 "mprotect'ed every other %llu-page segment PROT_READ|"
		 "PROT_WRITE (%zu VMAs, %zu boundaries), and read one byte "
		 "of each page in order from a cold cache. At each VMA's "
		 "first page: mincore() before the touch, an open() of the "
		 "file when the page was not cached (a FUSE round trip: "
		 "every read asked for before it is then in the log), the "
		 "time of the touch, and the major faults (getrusage) it "
		 "cost.",
		 (unsigned long long)s->file_pages,
		 (unsigned long long)(r->v[0].last - r->v[0].first + 1),
		 r->nvma, r->nb);
	rep_uint(sec, "vmas", "VMAs", r->nvma, NULL);
	rep_num(sec, "touch_ms", "touch time", r->ns / 1e6, 2, "ms");
	rep_num(sec, "MB_s", "throughput",
		mb_per_s(s->file_pages * s->page_size, r->ns), 1, "MB/s");
	rep_text(sec, "story",
		 "The 2026 report (256 MiB, 64 VMAs, ufs4 phone): ~158 ms on "
		 "the baseline, ~180 ms with the unconditional VMA limit, "
		 "~158 ms with the conditional one.");
}

static void explain(struct scenario_ctx *ctx, const struct split_result *r)
{
	struct rnode *sec = report_plain_words(ctx->rep);

	if (!r->count[ON_DEMAND])
		rep_text(sec, "crossing",
			 "Readahead crossed every VMA boundary: after the "
			 "first fault, async windows ran on across all %zu "
			 "boundaries, so no VMA started with a page missing "
			 "from the cache (%llu already read, %llu still being "
			 "read when touched; the touches waited %.2f ms in "
			 "all for those). %llu major fault%s in all: the first "
			 "touch of the file.",
			 r->nb, (unsigned long long)r->count[READY],
			 (unsigned long long)r->count[IN_FLIGHT],
			 r->wait_ns / 1e6, (unsigned long long)r->maj,
			 r->maj == 1 ? "" : "s");
	else
		rep_text(sec, "crossing",
			 "Readahead stalled at %llu of %zu VMA boundaries: "
			 "the first page of those VMAs was missing when "
			 "touched, a major fault that waited for a new read "
			 "(%llu major faults in all).",
			 (unsigned long long)r->count[ON_DEMAND], r->nb,
			 (unsigned long long)r->maj);
	rep_text(sec, "limited",
		 "With the unconditional VMA limit of the 2026 patch, the "
		 "async window is cut at each VMA end and the next VMA "
		 "starts with a major fault: %llu of %zu boundaries would "
		 "wait for a synchronous read, about %.0f us each here (the "
		 "median read under this storage model), some %.1f ms in "
		 "all.",
		 (unsigned long long)r->miss[1], r->nb, r->med / 1e3,
		 (double)(r->miss[1] - r->miss[0]) * (double)r->med / 1e6);
}

/* The boundaries' arrivals and major faults. */
static void boundaries(struct rnode *sec, const struct split_result *r)
{
	struct rnode *table, *list;
	size_t i;

	table = rep_obj(sec, "boundaries",
			"VMA boundaries (first page of VMAs 2..N)");
	rep_uint(table, "ready", "already fetched when touched",
		 r->count[READY], NULL);
	rep_uint(table, "in_flight", "being fetched when touched (waited)",
		 r->count[IN_FLIGHT], NULL);
	rep_uint(table, "missing",
		 "missing when touched (read on demand by its fault)",
		 r->count[ON_DEMAND], NULL);
	rep_uint(table, "resident", "uptodate before the touch (mincore)",
		 r->resident, NULL);
	rep_text(table, "resident_note",
		 "Already fetched: testfs had answered the read of "
		 "the boundary page before the touch. Uptodate "
		 "(mincore, just before the touch): the kernel had "
		 "also taken the answer in and marked the page "
		 "uptodate. A read answered moments before the touch "
		 "counts as fetched but can still be in flight for "
		 "the page cache, so the second count can be lower.");
	rep_uint(table, "late_arrival",
		 "reads that reached testfs after the touch", r->late, NULL);
	rep_num(table, "wait_ms", "time the touches waited for reads in flight",
		r->wait_ns / 1e6, 2, "ms");
	list = rep_list(table, "arrival",
			"per boundary (r ready, f in flight, "
			"M missing)");
	for (i = 1; i < r->nvma; i++)
		rep_str(list, NULL, NULL, "%c", arrival_ch[r->v[i].arrival]);
	list = rep_list(table, "major_faults_first_page",
			"major faults on each first page");
	for (i = 1; i < r->nvma; i++)
		rep_int(list, NULL, NULL, r->v[i].maj_first, NULL);
	list = rep_list(table, "major_faults_per_vma", "major faults per VMA");
	for (i = 0; i < r->nvma; i++)
		rep_int(list, NULL, NULL, r->v[i].maj_vma, NULL);
	rep_text(table, "note",
		 "getrusage counts a fault as major when the page was not in "
		 "the cache, and also when the fault had to wait for a read "
		 "in flight and was retried (always on 6.1): the arrival "
		 "above comes from the log's times instead.");
}

static void fetched(struct scenario_ctx *ctx, const struct split_result *r)
{
	const struct session *s = r->s;
	struct rnode *sec, *list;
	size_t i;

	sec = rep_section(ctx->rep, "fetched", "What the kernel fetched");
	rep_uint(sec, "requests", "FUSE reads", r->reads.n, NULL);
	rep_uint(sec, "pages_fetched", "pages fetched", r->fetched.pages, NULL);
	rep_uint(sec, "major_faults", "major faults (all touches)", r->maj,
		 NULL);
	rep_uint(sec, "outside", "pages fetched outside the mapping",
		 r->outside, NULL);
	list = rep_list(sec, "inside_per_vma", "pages fetched inside each VMA");
	for (i = 0; i < r->nvma; i++)
		rep_uint(list, NULL, NULL, r->inside[i], NULL);
	report_usage(sec, r->log, s->file);
	report_page_age(sec, r->log, s->file);
	report_requests(sec, &r->reads, 10);
	report_causes(sec, s, r->log, r->by_cause);
	boundaries(sec, r);
}

/* The numbers of a verdict row. */
static void verdict_nums(struct rnode *row, const struct split_result *r,
			 enum ra_policy p)
{
	verdict_num(row, "boundaries", r->nb);
	verdict_num(row, "expected_missing", r->miss[p]);
	verdict_num(row, "expected_readaround_faults", r->faults[p]);
	verdict_num(row, "observed_missing", r->count[ON_DEMAND]);
	verdict_num(row, "observed_in_flight", r->count[IN_FLIGHT]);
	verdict_num(row, "observed_ready", r->count[READY]);
	verdict_policy(row, p);
}

/* What @p expects, in words, into @exp. */
static void expected(const struct split_result *r, enum ra_policy p, char *exp,
		     size_t size)
{
	static const char *const how[RA_NPOLICIES] = {
		"async windows cross them",
		"async stalls at each VMA end",
		/* Parenthesised: one string over two lines, not two. */
		("limited only within ra_pages of a VMA end; reported: the "
		 "baseline's time"),
	};
	size_t used;

	used = (size_t)snprintf(exp, size,
				"%llu of %zu boundaries missing when touched "
				"(%s)",
				(unsigned long long)r->miss[p], r->nb, how[p]);
	if (used >= size)
		return;
	if (p == RA_POLICY_CURRENT)
		snprintf(exp + used, size - used,
			 "; %llu read-around fault%s in all",
			 (unsigned long long)r->faults[0],
			 r->faults[0] == 1 ? "" : "s");
	else if (p == RA_POLICY_VMA_LIMITED)
		snprintf(exp + used, size - used,
			 ": about %.1f ms slower (one %.0f us read waited for "
			 "per boundary)",
			 (double)(r->miss[1] - r->miss[0]) * (double)r->med /
				 1e6,
			 r->med / 1e3);
}

static void verdicts(struct scenario_ctx *ctx, const struct split_result *r)
{
	static const char *const names[RA_NPOLICIES] = {
		"current kernels (6.18)",
		"VMA-limited (unconditional)",
		"conditional VMA limit (follow-up)",
	};
	const uint64_t *count = r->count;
	struct rnode *sec = report_verdicts(ctx->rep), *table, *row;
	char exp[160], obs[160];
	unsigned p;

	table = rep_table(sec, "policies", NULL);
	snprintf(obs, sizeof(obs),
		 "%llu of %zu boundaries missing when touched, %llu in "
		 "flight, %llu ready; %.1f ms",
		 (unsigned long long)count[ON_DEMAND], r->nb,
		 (unsigned long long)count[IN_FLIGHT],
		 (unsigned long long)count[READY], r->ns / 1e6);
	for (p = 0; p < RA_NPOLICIES; p++) {
		expected(r, (enum ra_policy)p, exp, sizeof(exp));
		row = report_verdict(
			table, names[p], exp, obs,
			count[ON_DEMAND] == r->miss[p] ? "matches" : "differs");
		verdict_nums(row, r, (enum ra_policy)p);
	}
}

static void vma_legend(struct pagemap *m)
{
	pagemap_legend(m, '=', "read-only VMA");
	pagemap_legend(m, '-', "read-write VMA");
	pagemap_legend(m, '|', "VMA boundary");
}

/* The requests around the first boundary, two windows either side. */
static void zoom(struct rnode *sec, const struct split_result *r,
		 const struct testfs_extent *vmas)
{
	const struct read_list *reads = &r->reads;
	uint64_t b = r->v[1].first, span = 2ull * r->s->ra_pages;
	uint64_t end = r->s->file_pages - 1;
	struct testfs_extent *req = calloc(reads->n + 1, sizeof(*req));
	struct pagemap m;
	size_t i;

	if (!req)
		return;
	for (i = 0; i < reads->n; i++) {
		req[i].first = reads->v[i]->page;
		req[i].last = reads->v[i]->page + reads->v[i]->pages - 1;
	}
	pagemap_init(&m, b > span ? b - span : 0,
		     b + span - 1 < end ? b + span - 1 : end, 80);
	pagemap_row_vmas(&m, "VMAs", vmas, r->nvma, "=-");
	pagemap_fetched_rows(&m, r->by_cause);
	pagemap_row_requests(&m, "requests", req, reads->n, "one FUSE read");
	vma_legend(&m);
	pagemap_emit(&m, sec, "first_boundary", "Zoom on the first boundary");
	free(req);
}

static void page_map(struct scenario_ctx *ctx, const struct split_result *r)
{
	struct testfs_extent *vmas = calloc(r->nvma, sizeof(*vmas));
	uint64_t *bpages = calloc(r->nvma, sizeof(*bpages));
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct rnode *sec;
	struct pagemap m;
	unsigned c;
	size_t i, k;

	if (!vmas || !bpages)
		goto out;
	sec = rep_section(ctx->rep, "page_map", "Page map");
	for (i = 0; i < r->nvma; i++) {
		vmas[i].first = r->v[i].first;
		vmas[i].last = r->v[i].last;
	}
	testfs_extents_add(&touched, 0, r->s->file_pages - 1);
	pagemap_init(&m, 0, r->s->file_pages - 1, PAGEMAP_COLS);
	pagemap_row_vmas(&m, "VMAs", vmas, r->nvma, "=-");
	pagemap_row_set(&m, "touched", &touched, '#', ':');
	pagemap_fetched_rows(&m, r->by_cause);
	for (c = 0; c < 3; c++) {
		for (i = 1, k = 0; i < r->nvma; i++)
			if (r->v[i].arrival == c)
				bpages[k++] = r->v[i].first;
		if (k)
			pagemap_row_marks(&m, arrival_name[c], bpages, k,
					  arrival_map_ch[c]);
	}
	vma_legend(&m);
	pagemap_legend(&m, '#', "touched");
	pagemap_legend(&m, '*', "boundary page fetched before its touch");
	pagemap_legend(&m, '~', "boundary page in flight at its touch");
	pagemap_legend(&m, '!', "boundary page missing at its touch");
	pagemap_emit(&m, sec, "whole_file", "The whole file");
	if (r->nvma > 1)
		zoom(sec, r, vmas);
out:
	testfs_extents_free(&touched);
	free(vmas);
	free(bpages);
}

void mprotect_split_report(struct scenario_ctx *ctx, const void *result)
{
	const struct split_result *r = result;

	done(ctx, r);
	explain(ctx, r);
	fetched(ctx, r);
	verdicts(ctx, r);
	page_map(ctx, r);
}
