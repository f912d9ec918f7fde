/* SPDX-License-Identifier: MIT */
/*
 * Evictions of one file's pages during a test, from the kernel's
 * mm_filemap_delete_from_page_cache event in a tracefs instance of the
 * test's own (root only).
 *
 * Why: memory reclaim (kswapd, or DAMON on some VMs) can evict a page read
 * ahead before the reader reaches it, and the kernel then fetches it
 * again. That second fetch is legitimate, and cachestat() cannot tell:
 * the refetch replaces the shadow entry eviction left, so nr_evicted no
 * longer counts the page. The event fires for every page that leaves the
 * cache (reclaim, invalidation, and the folios readahead drops unsent), so
 * a page fetched twice with no event for it in between was fetched twice
 * while cached: a real double fetch.
 *
 * The instance is named testfs-<pid> like the daemon's own, so a test
 * process that dies with it still open has it removed as stale by the
 * next testfs tracer.
 */
#ifndef TESTFS_RA_EVICT_H
#define TESTFS_RA_EVICT_H

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <errno.h>
#include <testfs.h>
#include <testfs/criterion.h>

#define RA_TRACEFS "/sys/kernel/tracing"
#define RA_EVICT_EVENT "events/filemap/mm_filemap_delete_from_page_cache"

struct ra_eviction {
	uint64_t first, last; /* pages */
	uint64_t t_ns;	      /* CLOCK_MONOTONIC, to the microsecond */
};

struct ra_evictions {
	bool tracing;  /* the instance exists */
	bool complete; /* stopped, and no event was lost */
	char why[512]; /* why not, for messages */
	char inst[128];
	struct ra_eviction *ev;
	size_t n;
};

static inline int ra_evict_write(const struct ra_evictions *e, const char *file,
				 const char *value)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", e->inst, file);
	f = fopen(path, "we");
	if (!f)
		return -1;
	ok = fputs(value, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static inline void ra_evict_remove(struct ra_evictions *e)
{
	int tries;

	if (!e->tracing)
		return;
	ra_evict_write(e, RA_EVICT_EVENT "/enable", "0");
	/* EBUSY while a reader still has one of its files open. */
	for (tries = 0; rmdir(e->inst) != 0 && errno == EBUSY && tries < 100;
	     tries++)
		usleep(10000);
	e->tracing = false;
}

static inline void ra_evictions_free(struct ra_evictions *e)
{
	ra_evict_remove(e);
	free(e->ev);
	e->ev = NULL;
	e->n = 0;
}

/* Starts recording the evictions of the file at @path. */
static inline void ra_evictions_start_path(struct ra_evictions *e,
					   const char *path)
{
	char filter[128];
	struct stat st;

	/* A second start in one test replaces the first recording. */
	ra_evictions_free(e);
	memset(e, 0, sizeof(*e));
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	snprintf(e->inst, sizeof(e->inst), RA_TRACEFS "/instances/testfs-%ld",
		 (long)getpid());
	if (mkdir(e->inst, 0750) != 0) {
		snprintf(e->why, sizeof(e->why), "no tracefs instance %s: %s",
			 e->inst, strerror(errno));
		return;
	}
	e->tracing = true;
	/* The kernel's dev_t: major in the top 12 bits, minor in the low 20. */
	snprintf(filter, sizeof(filter), "i_ino == %llu && s_dev == %u",
		 (unsigned long long)st.st_ino,
		 (major(st.st_dev) << 20) | minor(st.st_dev));
	/* mono: the clock of the log's t_ns. 4 MiB per CPU: no overrun. */
	if (ra_evict_write(e, "trace_clock", "mono") != 0 ||
	    ra_evict_write(e, "buffer_size_kb", "4096") != 0 ||
	    ra_evict_write(e, RA_EVICT_EVENT "/filter", filter) != 0 ||
	    ra_evict_write(e, RA_EVICT_EVENT "/enable", "1") != 0) {
		snprintf(e->why, sizeof(e->why), "cannot set up %s: %s",
			 e->inst, strerror(errno));
		ra_evict_remove(e);
	}
}

/* Starts recording the evictions of file @name of @fs. */
static inline void ra_evictions_start(struct ra_evictions *e,
				      struct testfs_mount *fs, const char *name)
{
	char path[PATH_MAX];

	testfs_assert_ok(testfs_path(fs, name, path, sizeof(path)));
	ra_evictions_start_path(e, path);
}

/* One line of the trace, if it is the event: its time and pages. */
static inline bool ra_evict_parse(const char *line, struct ra_eviction *out)
{
	const char *ev = strstr(line, ": mm_filemap_delete_from_page_cache:");
	const char *ts = ev, *p;
	unsigned long long sec, usec, ofs;
	unsigned order;

	if (!ev)
		return false;
	while (ts > line && ts[-1] != ' ')
		ts--;
	p = strstr(ev, " ofs=");
	if (sscanf(ts, "%llu.%6llu", &sec, &usec) != 2 || !p ||
	    sscanf(p, " ofs=%llu order=%u", &ofs, &order) != 2 || order > 20)
		return false;
	out->t_ns = sec * 1000000000ull + usec * 1000ull;
	out->first = ofs / (uint64_t)sysconf(_SC_PAGESIZE);
	out->last = out->first + (1ull << order) - 1;
	return true;
}

/*
 * Stops recording, reads what was recorded, removes the instance. Once
 * stopped, or never started, it keeps what it has.
 */
static inline void ra_evictions_stop(struct ra_evictions *e)
{
	unsigned long long in_buffer = 0, written = 0;
	char path[256], line[512];
	size_t cap = 0;
	FILE *f;

	if (!e->tracing) {
		if (!e->complete && !e->why[0])
			snprintf(e->why, sizeof(e->why), "not traced");
		return;
	}
	ra_evict_write(e, RA_EVICT_EVENT "/enable", "0");
	snprintf(path, sizeof(path), "%s/trace", e->inst);
	f = fopen(path, "re");
	if (!f) {
		snprintf(e->why, sizeof(e->why), "%s: %s", path,
			 strerror(errno));
		ra_evict_remove(e);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		struct ra_eviction one;

		if (sscanf(line,
			   "# entries-in-buffer/entries-written: %llu/%llu",
			   &in_buffer, &written) == 2)
			continue;
		if (line[0] == '#' || !ra_evict_parse(line, &one))
			continue;
		if (e->n == cap) {
			cap = cap ? 2 * cap : 256;
			e->ev = realloc(e->ev, cap * sizeof(*e->ev));
			cr_assert_not_null(e->ev);
		}
		e->ev[e->n++] = one;
	}
	fclose(f);
	ra_evict_remove(e);
	if (in_buffer != written || e->n != in_buffer)
		snprintf(e->why, sizeof(e->why),
			 "%llu of %llu eviction events kept, %zu read",
			 in_buffer, written, e->n);
	else
		e->complete = true;
}

/* Whether page @page left the cache between @after_ns and @before_ns. */
static inline bool ra_evicted_between(const struct ra_evictions *e,
				      uint64_t page, uint64_t after_ns,
				      uint64_t before_ns)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		const struct ra_eviction *v = &e->ev[i];

		/* The event's time is cut to the microsecond. */
		if (v->first <= page && page <= v->last &&
		    v->t_ns + 1000 > after_ns && v->t_ns < before_ns)
			return true;
	}
	return false;
}

/*
 * harness_evicted_fn (tests/mount_harness.h) on a struct ra_evictions
 * @arg: the harness calls it after it has looked at the cache, so the
 * recording is stopped at the first call and covers every eviction up to
 * that look. False when the recording is not complete.
 */
static inline bool ra_evicted_fn(uint64_t page, uint64_t after_ns,
				 uint64_t before_ns, void *arg)
{
	struct ra_evictions *e = arg;

	ra_evictions_stop(e);
	return e->complete && ra_evicted_between(e, page, after_ns, before_ns);
}

/*
 * The pages of @name fetched more than once with no eviction between two
 * of their fetches, into @out (emptied first). A fetch puts the page in
 * the cache before the request reaches the daemon, and a locked page under
 * read is not evicted, so an eviction that explains fetch B after fetch A
 * lies between A's arrival and B's.
 */
static inline void ra_unexplained_refetches(const struct testfs_log *log,
					    const char *name,
					    const struct ra_evictions *e,
					    struct testfs_extents *out)
{
	struct testfs_extents again = TESTFS_EXTENTS_INIT;
	uint64_t page;
	size_t i, j;

	testfs_extents_free(out);
	testfs_assert_ok(testfs_log_refetched(log, name, &again));
	for (i = 0; i < again.n; i++) {
		for (page = again.v[i].first; page <= again.v[i].last; page++) {
			uint64_t prev_ns = 0;
			bool seen = false, bad = false;

			for (j = 0; j < testfs_log_count(log) && !bad; j++) {
				const struct testfs_record *r =
					testfs_log_at(log, j);

				if (r->kind != TESTFS_RECORD_READ ||
				    strcmp(r->file, name) || r->direct ||
				    r->err || page < r->page ||
				    page >= r->page + r->pages)
					continue;
				if (seen &&
				    !(e->complete &&
				      ra_evicted_between(e, page, prev_ns,
							 r->t_ns)))
					bad = true;
				seen = true;
				prev_ns = r->t_ns;
			}
			if (bad)
				testfs_assert_ok(
					testfs_extents_add(out, page, page));
		}
	}
	testfs_extents_free(&again);
}

static inline const char *ra_evict_fmt(const struct testfs_extents *x,
				       char *buf, size_t len)
{
	testfs_extents_format(x, buf, len);
	return buf;
}

/*
 * testfs_assert_consistent() for a run during which reclaim may evict
 * pages: a page of @name fetched again after it left the cache is no
 * double fetch. The rest still holds: the log and the cache agree (up to
 * cachestat's evicted pages), no request exceeds @max_pages.
 */
static inline void ra_assert_consistent_evicting(struct testfs_mount *fs,
						 const struct testfs_log *log,
						 const char *name,
						 uint64_t max_pages,
						 const struct ra_evictions *e)
{
	struct testfs_extents bad = TESTFS_EXTENTS_INIT;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_extents resident = TESTFS_EXTENTS_INIT;
	struct testfs_extents only_log = TESTFS_EXTENTS_INIT;
	struct testfs_extents only_cache = TESTFS_EXTENTS_INIT;
	struct testfs_cachestat cs = { 0 };
	char *why = NULL, buf[1024];
	int ret;

	ret = testfs_check_consistent(fs, log, name, max_pages, &why);
	testfs_assert_ok(ret);
	if (ret == 0)
		return;
	/* Only refetches after an eviction may excuse the failure. */
	testfs_assert_ok(testfs_log_refetched(log, name, &bad));
	cr_assert(bad.n > 0, "%s", why);
	ra_unexplained_refetches(log, name, e, &bad);
	cr_assert(bad.n == 0,
		  "%s; fetched again with no eviction between: %s%s%s%s", why,
		  ra_evict_fmt(&bad, buf, sizeof(buf)),
		  e->complete ? "" : " (evictions unknown: ",
		  e->complete ? "" : e->why, e->complete ? "" : ")");
	cr_log_info("%s: pages fetched again after an eviction (%zu eviction "
		    "events)",
		    name, e->n);
	free(why);
	/* The rest of the check, without the refetch part. */
	testfs_assert_ok(testfs_log_fetched(log, name, &fetched));
	testfs_assert_ok(testfs_resident(fs, name, &resident));
	testfs_assert_ok(
		testfs_extents_subtract(&fetched, &resident, &only_log));
	testfs_assert_ok(
		testfs_extents_subtract(&resident, &fetched, &only_cache));
	/* Without cachestat (before 6.5) no eviction is known. */
	if (only_log.n && testfs_cachestat(fs, name, 0, 0, &cs) != 0)
		cs.nr_evicted = 0;
	cr_assert(only_cache.n == 0, "%s: resident but never fetched: %s", name,
		  ra_evict_fmt(&only_cache, buf, sizeof(buf)));
	cr_assert(cs.nr_evicted >= only_log.pages,
		  "%s: fetched but not resident: %s, %" PRIu64 " evicted", name,
		  ra_evict_fmt(&only_log, buf, sizeof(buf)), cs.nr_evicted);
	cr_assert_leq(testfs_log_max_request(log, name), max_pages);
	testfs_extents_free(&fetched);
	testfs_extents_free(&resident);
	testfs_extents_free(&only_log);
	testfs_extents_free(&only_cache);
}

#endif
