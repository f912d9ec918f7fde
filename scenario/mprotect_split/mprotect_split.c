// SPDX-License-Identifier: MIT
/*
 * mprotect-split (story 2): a file mapped whole, every other segment
 * mprotect'ed read-write so the mapping becomes many VMAs, one byte
 * touched per page in order under a storage model. Does readahead keep
 * ahead across each boundary, or does each VMA start with a fault that
 * waits for a fresh read? This file runs it and analyses the log into a
 * struct split_result; mprotect_split_report.c renders it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mprotect_split.h"

#define FILE_NAME "split.bin"

static const struct param_def params[] = {
	{ "size", PARAM_SIZE, "256M", "16M", "file size, mapped whole", 8192,
	  1ull << 36, NULL },
	{ "segment", PARAM_SIZE, "4M", "2M",
	  "VMA size: every other segment is mprotect'ed read-write", 4096,
	  1ull << 32, NULL },
	PARAM_DEF_RA,
	PARAM_DEF_MODEL("ufs4", ""),
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static long majflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_majflt;
}

/*
 * A FUSE round trip: testfs's request loop takes requests in the order
 * the kernel queued them, so once an open() of the file is answered,
 * every read the kernel asked for before it has reached testfs and is in
 * the log with its arrival time. Without it, a read asked for before a
 * touch can reach a slow daemon (an emulated guest on a loaded machine)
 * only after the touch and look like one the touch asked for. Opening
 * keeps the page cache (testfs answers with keep_cache).
 */
static void fuse_barrier(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

static void touch_all(const struct testfs_map *map, struct vma_obs *v,
		      size_t nvma, const char *path, uint64_t *ns)
{
	volatile const char *base = map->addr;
	uint64_t t0 = now_ns(), p, barriers = 0, ps = testfs_page_size();
	unsigned char vec;
	unsigned sum = 0;
	size_t i;

	for (i = 0; i < nvma; i++) {
		uint64_t off = v[i].first * ps;
		long m0 = majflt(), m1;

		v[i].check_ns = now_ns();
		v[i].resident = mincore((void *)(base + off), ps, &vec) == 0 &&
				(vec & 1);
		if (i && !v[i].resident) {
			fuse_barrier(path);
			barriers += now_ns() - v[i].check_ns;
		}
		v[i].touch_ns = now_ns();
		sum += base[off];
		m1 = majflt();
		v[i].maj_first = m1 - m0;
		for (p = v[i].first + 1; p <= v[i].last; p++)
			sum += base[p * ps];
		v[i].maj_vma = majflt() - m0;
	}
	/* The barriers are not the experiment's time. */
	*ns = now_ns() - t0 - barriers;
	(void)sum;
}

/*
 * Whether the boundary page was ready when touched (its read answered
 * before mincore() found it), in flight (asked for before the touch,
 * answered after: the touch waited) or missing (asked for by the touch's
 * own fault: its read reached testfs after the touch, the barrier having
 * let every earlier one in). From the log's times, not from major
 * faults: 6.1 counts a fault that waits on a read in flight as major too.
 */
static void classify(const struct read_list *reads, struct vma_obs *v)
{
	const struct testfs_record *hit = NULL;
	size_t i;

	for (i = 0; i < reads->n; i++) {
		const struct testfs_record *r = reads->v[i];

		if (r->page <= v->first && v->first < r->page + r->pages &&
		    !r->err)
			hit = r;
	}
	if (!hit) {
		v->arrival = NOT_READ;
		return;
	}
	v->late_arrival = hit->t_ns >= v->touch_ns;
	if (hit->done_ns > v->touch_ns)
		v->wait_ns = hit->done_ns - v->touch_ns;
	if (hit->done_ns <= v->check_ns)
		v->arrival = READY;
	else if (!v->late_arrival)
		v->arrival = IN_FLIGHT;
	else
		v->arrival = ON_DEMAND;
}

/* The model: boundaries whose first page is missing when touched. */
static int model_boundaries(const struct session *s, const struct vma_obs *v,
			    size_t nvma, enum ra_policy policy,
			    uint64_t *missing, uint64_t *faults)
{
	struct ra_model m;
	size_t i;
	uint64_t p;
	int err;

	err = session_ra_model(s, policy, &m);
	if (err)
		return err;
	*missing = 0;
	for (i = 0; i < nvma; i++)
		for (p = v[i].first; p <= v[i].last; p++)
			if (ra_model_fault(&m, p, v[i].first, v[i].last) &&
			    p == v[i].first && i)
				(*missing)++;
	*faults = m.major_faults;
	ra_model_free(&m);
	return 0;
}

static uint64_t median_delay(const struct read_list *reads)
{
	uint64_t *d, med;
	size_t i;

	if (!reads->n)
		return 0;
	d = malloc(reads->n * sizeof(*d));
	if (!d)
		return 0;
	for (i = 0; i < reads->n; i++)
		d[i] = reads->v[i]->delay_ns;
	qsort(d, reads->n, sizeof(*d), u64_cmp);
	med = d[reads->n / 2];
	free(d);
	return med;
}

/* Everything the report shows, from the observations and the log. */
static int analyse(struct scenario_ctx *ctx, void *result)
{
	struct split_result *r = result;
	const struct session *s = r->s;
	const struct vma_obs *v = r->v;
	unsigned c;
	size_t i;
	int err = 0;

	r->nb = r->nvma - 1;
	for (i = 1; i < r->nvma; i++) {
		r->count[v[i].arrival]++;
		r->resident += v[i].resident;
		r->late += v[i].late_arrival;
		r->wait_ns += v[i].wait_ns;
	}
	for (i = 0; i < r->nvma; i++)
		r->maj += (uint64_t)v[i].maj_vma;
	for (c = 0; c < RA_NPOLICIES && !err; c++)
		err = model_boundaries(s, v, r->nvma, (enum ra_policy)c,
				       &r->miss[c], &r->faults[c]);
	if (err)
		return scenario_fail(ctx, err, "the model");
	r->med = median_delay(&r->reads);
	err = log_file_view(r->log, s->file, &r->fetched, r->by_cause, NULL);
	r->outside = r->fetched.pages -
		     extents_pages_in(&r->fetched, 0, s->file_pages - 1);
	r->inside = calloc(r->nvma, sizeof(*r->inside));
	if (!err && !r->inside)
		err = -ENOMEM;
	for (i = 0; !err && i < r->nvma; i++)
		r->inside[i] =
			extents_pages_in(&r->fetched, v[i].first, v[i].last);
	return err ? scenario_fail(ctx, err, "the log") : 0;
}

static void release(void *result)
{
	struct split_result *r = result;

	extents_free_n(r->by_cause, NCAUSES);
	testfs_extents_free(&r->fetched);
	free(r->inside);
	read_list_free(&r->reads);
	testfs_log_free(r->log);
	free(r->v);
}

/* The VMAs of @seg pages each over the file, in *@v. */
static int make_vmas(const struct session *s, uint64_t seg, size_t nvma,
		     struct vma_obs **v)
{
	size_t i;

	*v = calloc(nvma, sizeof(**v));
	if (!*v)
		return -ENOMEM;
	for (i = 0; i < nvma; i++) {
		(*v)[i].first = i * seg;
		(*v)[i].last = (i + 1) * seg - 1 < s->file_pages - 1
				       ? (i + 1) * seg - 1
				       : s->file_pages - 1;
	}
	return 0;
}

static int measure(struct scenario_ctx *ctx, void *result)
{
	/* In the running kernel's pages (the segment is a multiple of them:
	 * scenario_parse_params()). */
	uint64_t seg = param_u(ctx, "segment") / testfs_page_size();
	struct split_result *r = result;
	struct testfs_map map;
	char path[PATH_MAX];
	struct session *s;
	int err, nvma;
	size_t i;

	err = session_start_params(ctx, &s, FILE_NAME);
	if (!err)
		err = session_phase(ctx, s, "touch");
	if (err)
		return err;
	r->s = s;
	err = testfs_map(s->fs, s->file, 0, s->file_pages, PROT_READ,
			 MAP_PRIVATE, &map);
	if (err)
		return scenario_fail(ctx, err, "mmap");
	nvma = testfs_split(&map, seg, PROT_READ, PROT_READ | PROT_WRITE);
	err = nvma <= 0 ? (nvma ? nvma : -EINVAL)
			: make_vmas(s, seg, (size_t)nvma, &r->v);
	if (err) {
		testfs_unmap(&map);
		return scenario_fail(ctx, err, "mprotect");
	}
	r->nvma = (size_t)nvma;
	progress("touch: %d VMAs of %llu pages, one byte per page", nvma,
		 (unsigned long long)seg);
	snprintf(path, sizeof(path), "%s/%s", testfs_mountpoint(s->fs),
		 s->file);
	touch_all(&map, r->v, r->nvma, path, &r->ns);
	testfs_unmap(&map);
	err = session_snapshot(ctx, s, "touch", &r->log);
	for (i = 0; i < r->nvma && !err; i++)
		err = html_vma(ctx, s->file, r->v[i].first, r->v[i].last,
			       i % 2 ? PROT_READ | PROT_WRITE : PROT_READ);
	if (err)
		return err;
	err = log_reads(r->log, s->file, &r->reads);
	if (err)
		return scenario_fail(ctx, err, "the log");
	for (i = 0; i < r->nvma; i++)
		classify(&r->reads, &r->v[i]);
	return 0;
}

const struct scenario mprotect_split_scenario = {
	.name = "mprotect-split",
	.summary = "64 VMAs made by mprotect, touched in order: does "
		   "readahead cross them?",
	.description =
		"Story 2 of READAHEAD.md: with an unconditional VMA limit, "
		"async readahead stalls at every VMA boundary and each VMA "
		"starts with a major fault. Maps a 256 MiB file whole, "
		"mprotects every other 4 MiB segment read-write (64 VMAs), "
		"touches one byte per page in order under the ufs4 model, and "
		"reports the time, the major faults per boundary and whether "
		"each boundary's first page was already fetched when touched "
		"(from the log's arrival and completion times against the "
		"touch time, and mincore() before the touch).",
	.params = params,
	SCENARIO_STEPS(struct split_result, measure, analyse,
		       mprotect_split_report, release),
};
