// SPDX-License-Identifier: MIT
/*
 * vma-boundary (story 1): map the middle third of a file, touch it in
 * order, and count the pages the kernel fetched outside the VMA; the
 * cachestat total the patch's own test used; and the patch's fio matrix
 * (mmap and pread, sequential and random, 4 KiB) without fio. This file
 * runs it and analyses the log into a struct vma_result;
 * vma_boundary_report.c renders it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vma_boundary.h"

#define FILE_NAME "file.bin"

static const struct param_def params[] = {
	{ "size", PARAM_SIZE, "192M", "12M",
	  "file size; the middle third is mapped (the patch's test: 3G)",
	  3 * 4096, 1ull << 40, NULL },
	PARAM_DEF_RA,
	PARAM_DEF_MODEL("nvme", ""),
	{ "exec", PARAM_CHOICE, "no", NULL,
	  "yes: map PROT_READ|PROT_EXEC (read-around clamped since 6.17)", 0, 0,
	  "no|yes" },
	{ "throughput", PARAM_CHOICE, "yes", NULL,
	  "also time 4 KiB mmap and pread, sequential and random, over the "
	  "VMA's pages (the patch's fio matrix)",
	  0, 0, "yes|no" },
	{ "seed", PARAM_UINT, "1", NULL, "seed of the random orders", 0,
	  UINT32_MAX, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static void release(void *result)
{
	struct vma_result *t = result;
	unsigned p;

	extents_free_n(t->by_cause, NCAUSES);
	for (p = 0; p < RA_NPOLICIES; p++)
		testfs_extents_free(&t->policy[p].pred);
	testfs_extents_free(&t->fetched);
	testfs_extents_free(&t->touched);
	testfs_extents_free(&t->faults);
	read_list_free(&t->reads);
	testfs_log_free(t->log);
}

static int touch_phase(struct scenario_ctx *ctx, struct session *s, int prot,
		       struct vma_result *t)
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
	err = log_file_view(t->log, s->file, &t->fetched, t->by_cause,
			    &t->reads);
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

/* The touch of the middle third, then the fio matrix if asked for. */
static int measure(struct scenario_ctx *ctx, void *result)
{
	struct vma_result *t = result;
	struct session *s;
	int err;

	t->exec = strcmp(param_s(ctx, "exec"), "yes") == 0;
	t->throughput = strcmp(param_s(ctx, "throughput"), "yes") == 0;
	err = session_start_params(ctx, &s, FILE_NAME);
	if (err)
		return err;
	t->s = s;
	t->first = s->file_pages / 3;
	t->last = t->first + s->file_pages / 3 - 1;
	err = touch_phase(ctx, s, PROT_READ | (t->exec ? PROT_EXEC : 0), t);
	if (!err && t->throughput)
		err = fio_matrix_run(ctx, s, t->first, t->last - t->first + 1,
				     &t->fio);
	return err;
}

/* The model's accesses: every page of the VMA in order (exec: PROT_EXEC). */
static int drive(struct ra_model *m, const void *arg)
{
	const struct vma_result *t = arg;
	uint64_t p;

	m->exec = t->exec;
	for (p = t->first; p <= t->last; p++)
		ra_model_fault(m, p, t->first, t->last);
	return 0;
}

/* The prediction against what was fetched: counts and the verdict. */
static void judge(const struct vma_result *t, struct vma_policy *p)
{
	p->before = t->first && p->pred.pages
			    ? extents_pages_in(&p->pred, 0, t->first - 1)
			    : 0;
	p->after = extents_pages_in(&p->pred, t->last + 1, UINT64_MAX - 1);
	p->same_pages = testfs_extents_equal(&p->pred, &t->fetched);
	p->verdict = p->same_pages && p->same_reads ? "matches"
		     : p->same_pages		    ? "same pages, other reads"
		     : (p->before == t->before && p->after == t->after)
			     ? "same counts, other pages"
			     : "differs";
}

static void analyse_start(struct vma_result *t)
{
	struct vma_start *st = &t->start;
	const struct testfs_record *r0 = t->reads.v[0];

	st->r0 = r0;
	st->last = r0->page + r0->pages - 1;
	st->half = t->s->ra_pages / 2;
	st->clamped_at_zero = t->first < st->half && r0->page == 0;
	st->cut_at_eof =
		r0->pages < t->s->ra_pages && st->last == t->s->file_pages - 1;
}

static void analyse_end(struct vma_result *t)
{
	struct vma_end *e = &t->end;
	size_t i;

	for (i = 0; i < t->reads.n; i++) {
		const struct testfs_record *r = t->reads.v[i];

		if (r->cause != TESTFS_CAUSE_UNKNOWN)
			e->traced = true;
		e->async += r->cause == TESTFS_CAUSE_ASYNC;
		e->arounds += r->cause == TESTFS_CAUSE_READAROUND;
		if (r->page <= t->last && r->page + r->pages - 1 > t->last)
			e->cross = r;
		if (r->page > t->last) {
			if (!e->first_past)
				e->first_past = r;
			e->last_past = r;
			e->past++;
		}
	}
	/* Without tracing: every read after the first is taken as async. */
	if (!e->traced && t->reads.n)
		e->async = t->reads.n - 1;
}

/* Everything the report shows, from the touch phase's observations. */
static int analyse(struct scenario_ctx *ctx, void *result)
{
	struct vma_result *t = result;
	unsigned p;
	int err = 0;

	/* exec: 6.17+ reads from the fault within the VMA, no async. */
	for (p = 0; p < RA_NPOLICIES && !err; p++) {
		err = session_predict(t->s, (enum ra_policy)p, drive, t,
				      &t->reads, &t->policy[p].pred,
				      &t->policy[p].same_reads);
		judge(t, &t->policy[p]);
	}
	if (err)
		return scenario_fail(ctx, err, "the model");
	if (t->reads.n)
		analyse_start(t);
	analyse_end(t);
	t->cached = t->cs_err ? t->fetched.pages : t->cs.nr_cache;
	return 0;
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
	SCENARIO_STEPS(struct vma_result, measure, analyse, vma_boundary_report,
		       release),
};
