// SPDX-License-Identifier: MIT
/*
 * The daemon's MOUNT/.testfs/stats and libtestfs give the same figures for
 * the same log: per file fetched, accessed, mapped, wasted (or why not),
 * late accesses and reads and the page age; the request and folio-order
 * histograms and the window count. Both come from the analysis layer
 * (src/analysis/); this test holds them to it on a real mount and kernel
 * tracer, after sequential and random read(2), an mmap read through
 * fault-around, O_DIRECT reads and re-reads after drop-cache.
 *
 * The stats are read before and after the log snapshot: the comparison is
 * made only when both reads agree (nothing arrived in between), retried
 * otherwise. Reclaim may evict pages at any time: that changes what the
 * log holds, never that both sides read the same log.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <testfs.h>
#include <testfs/criterion.h>

#include "json_reader.h"

#define NFILES 3
#define FILE_PAGES 1024u /* 4 MiB */

static const char *const names[NFILES] = { "seq.bin", "rnd.bin", "map.bin" };
static struct testfs_mount *fs;

/* One file of the stats, as the daemon rendered it. */
struct stats_file {
	char name[64];
	uint64_t fetched, accessed, mapped, wasted;
	bool wasted_null, has_why;
	uint64_t late_accesses, late_reads;
	bool age_null;
	uint64_t age_pages, age_late, age_never, age_mapped, age_res;
	uint64_t age_us[TESTFS_AGE_BUCKETS];
};

struct stats {
	struct stats_file f[8];
	size_t nf;
	struct testfs_histograms h;
	uint64_t windows;
};

static void skip_without_fuse_or_root(void)
{
	const char *ci = getenv("CI");
	bool in_ci = ci && strcmp(ci, "true") == 0;
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	if (fd >= 0 && geteuid() == 0)
		return;
	if (in_ci)
		cr_assert_fail(
			"FUSE or root (tracefs) unavailable under CI=true");
	cr_skip_test("needs /dev/fuse and root (the kernel tracer)");
}

static void start(bool trace_reads)
{
	static const char *const files[] = { "seq.bin:4M", "rnd.bin:4M",
					     "map.bin:4M", NULL };
	struct testfs_config cfg = { 0 };

	skip_without_fuse_or_root();
	cfg.files = files;
	cfg.ra_kb = 128;
	cfg.trace = 1;
	cfg.trace_reads = trace_reads;
	cfg.timeout_ms = 20000;
	testfs_assert_ok(testfs_start(&cfg, &fs));
}

static void stop(void)
{
	if (fs)
		cr_expect_eq(testfs_stop(fs), 0,
			     "the daemon did not exit cleanly");
	fs = NULL;
}

static void read_range(const char *name, uint64_t first, uint64_t pages,
		       size_t chunk)
{
	char *buf = malloc(chunk);
	int fd = testfs_open(fs, name, O_RDONLY);
	uint64_t off = first * TESTFS_PAGE_SIZE,
		 end = (first + pages) * TESTFS_PAGE_SIZE;

	cr_assert(buf && fd >= 0, "open %s: %s", name, strerror(-fd));
	for (; off < end; off += chunk)
		cr_assert_gt(pread(fd, buf, chunk, (off_t)off), 0);
	close(fd);
	free(buf);
}

/* Pages picked by a fixed LCG, each read alone. */
static void read_random(const char *name, unsigned n)
{
	char buf[TESTFS_PAGE_SIZE];
	int fd = testfs_open(fs, name, O_RDONLY);
	uint64_t x = 12345;
	unsigned i;

	cr_assert_geq(fd, 0);
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		cr_assert_eq(pread(fd, buf, sizeof(buf),
				   (off_t)((x >> 33) % FILE_PAGES *
					   TESTFS_PAGE_SIZE)),
			     (ssize_t)sizeof(buf));
	}
	close(fd);
}

/* Touches every @stride-th page of a mapping: faults and fault-around. */
static void touch_mapped(const char *name, uint64_t pages, unsigned stride)
{
	struct testfs_map m;
	volatile char c = 0;
	uint64_t p;

	testfs_assert_ok(
		testfs_map(fs, name, 0, pages, PROT_READ, MAP_SHARED, &m));
	for (p = 0; p < pages; p += stride)
		c += m.addr[p * TESTFS_PAGE_SIZE];
	(void)c;
	testfs_unmap(&m);
}

/* O_DIRECT reads: requests and windows, never fetched pages. */
static void read_direct(const char *name)
{
	void *buf = NULL;
	int fd = testfs_open(fs, name, O_RDONLY | O_DIRECT);

	if (fd < 0)
		return; /* a kernel without FUSE O_DIRECT: nothing to add */
	cr_assert_eq(posix_memalign(&buf, 4096, 65536), 0);
	(void)!pread(fd, buf, 65536, (off_t)(512 * TESTFS_PAGE_SIZE));
	close(fd);
	free(buf);
}

static void workload(void)
{
	size_t i;

	for (i = 0; i < NFILES; i++)
		testfs_assert_ok(testfs_drop_cache(fs, names[i]));
	testfs_assert_ok(testfs_clear(fs));
	read_range("seq.bin", 0, FILE_PAGES, 65536);
	read_random("rnd.bin", 48);
	touch_mapped("map.bin", FILE_PAGES / 2, 7);
	read_direct("rnd.bin");
	/* Re-reads after drop-cache: the same pages fetched again. */
	testfs_assert_ok(testfs_drop_cache(fs, "seq.bin"));
	read_range("seq.bin", 0, FILE_PAGES / 4, 4096);
	testfs_assert_ok(testfs_drop_cache(fs, "map.bin"));
	touch_mapped("map.bin", FILE_PAGES / 4, 3);
	read_random("rnd.bin", 16);
	testfs_assert_ok(testfs_settle(fs, 0));
}

static char *read_stats(void)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	int fd = testfs_open(fs, ".testfs/stats", O_RDONLY);
	ssize_t n;

	cr_assert(buf && fd >= 0);
	while ((n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	cr_assert(n == 0 && len < cap - 1, "stats unread or too long");
	buf[len] = '\0';
	return buf;
}

/* From "files" on: what two reads of the stats must share. */
static const char *figures(const char *stats)
{
	const char *p = strstr(stats, "\"files\":");

	cr_assert_not_null(p, "no \"files\" in the stats: %s", stats);
	return p;
}

/* "1", "2-3", "4-7" ... as request-size buckets; "N" as order N. */
static unsigned bucket_of_key(const char *key, bool ranges)
{
	unsigned long v = strtoul(key, NULL, 10);
	unsigned b = 0;

	if (!ranges)
		return (unsigned)v;
	while (v > 1) {
		v >>= 1;
		b++;
	}
	return b;
}

static void read_hist(struct json_reader *r, uint64_t *v, uint64_t *unknown,
		      bool ranges)
{
	struct json_iter it;
	uint64_t n;

	json_read_object(r, &it);
	while (json_read_next(&it)) {
		json_read_u64(r, &n);
		if (unknown && json_key_is(&it, "unknown"))
			*unknown = n;
		else
			v[bucket_of_key(it.key, ranges)] = n;
	}
}

/* A u64 member named in @m (ending with a NULL key): read, true. */
struct member {
	const char *key;
	uint64_t *v;
};

static bool read_member(struct json_reader *r, const struct json_iter *it,
			const struct member *m)
{
	for (; m->key; m++) {
		if (json_key_is(it, m->key)) {
			json_read_u64(r, m->v);
			return true;
		}
	}
	return false;
}

static void read_age(struct json_reader *r, struct stats_file *f)
{
	struct json_iter it, us;
	const struct member m[] = {
		{ "pages", &f->age_pages },	  { "late", &f->age_late },
		{ "never", &f->age_never },	  { "mapped", &f->age_mapped },
		{ "resolution_ns", &f->age_res }, { NULL, NULL }
	};
	unsigned b;

	f->age_null = json_read_null(r);
	if (f->age_null)
		return;
	json_read_object(r, &it);
	while (json_read_next(&it)) {
		if (read_member(r, &it, m))
			continue;
		if (json_key_is(&it, "us")) {
			json_read_object(r, &us);
			while (json_read_next(&us)) {
				uint64_t low = strtoull(us.key, NULL, 10);

				for (b = 0; b < TESTFS_AGE_BUCKETS; b++)
					if (testfs_age_bucket_us(b) == low)
						break;
				cr_assert_lt(b, TESTFS_AGE_BUCKETS,
					     "page-age bucket %s", us.key);
				json_read_u64(r, &f->age_us[b]);
			}
		} else
			json_read_skip(r);
	}
}

static void read_file(struct json_reader *r, struct stats_file *f)
{
	struct json_iter it;

	const struct member m[] = { { "fetched", &f->fetched },
				    { "accessed", &f->accessed },
				    { "mapped", &f->mapped },
				    { "late_accesses", &f->late_accesses },
				    { "late_reads", &f->late_reads },
				    { NULL, NULL } };

	json_read_object(r, &it);
	while (json_read_next(&it)) {
		if (read_member(r, &it, m))
			continue;
		if (json_key_is(&it, "wasted")) {
			f->wasted_null = json_read_null(r);
			if (!f->wasted_null)
				json_read_u64(r, &f->wasted);
		} else if (json_key_is(&it, "wasted_why")) {
			f->has_why = true;
			json_read_skip(r);
		} else if (json_key_is(&it, "page_age"))
			read_age(r, f);
		else
			json_read_skip(r);
	}
}

static void parse_stats(const char *text, struct stats *s)
{
	struct json_reader r;
	struct json_iter top, it;

	memset(s, 0, sizeof(*s));
	cr_assert_eq(json_reader_init(&r, text, strlen(text), 0), 0);
	json_read_object(&r, &top);
	while (json_read_next(&top)) {
		if (json_key_is(&top, "files")) {
			json_read_object(&r, &it);
			while (json_read_next(&it)) {
				cr_assert_lt(s->nf, 8);
				snprintf(s->f[s->nf].name,
					 sizeof(s->f[s->nf].name), "%s",
					 it.key);
				read_file(&r, &s->f[s->nf++]);
			}
		} else if (json_key_is(&top, "histograms")) {
			json_read_object(&r, &it);
			while (json_read_next(&it)) {
				struct testfs_histograms *h = &s->h;

				if (json_key_is(&it, "request_pages"))
					read_hist(&r, h->request_pages, NULL,
						  true);
				else if (json_key_is(&it, "order_asked"))
					read_hist(&r, h->order_asked,
						  &h->order_asked_unknown,
						  false);
				else if (json_key_is(&it, "order_allocated"))
					read_hist(&r, h->order_allocated,
						  &h->order_allocated_unknown,
						  false);
				else if (json_key_is(&it, "windows"))
					json_read_u64(&r, &s->windows);
				else
					json_read_skip(&r);
			}
		} else {
			json_read_skip(&r);
		}
	}
	cr_assert_eq(json_read_error(&r), 0, "stats unreadable: %s", r.why);
}

#define SAME(What, Stats, Lib)                                                 \
	cr_assert_eq((uint64_t)(Stats), (uint64_t)(Lib),                       \
		     "%s: stats say %" PRIu64 ", the library %" PRIu64, What,  \
		     (uint64_t)(Stats), (uint64_t)(Lib))

static void compare_file(const struct testfs_log *log,
			 const struct stats_file *f)
{
	struct testfs_usage u;
	struct testfs_page_age a;
	char what[128];
	unsigned b;
	int rc;

	testfs_assert_ok(testfs_log_usage(log, f->name, &u, NULL));
#define FIELD(Name, S, L)                                                      \
	do {                                                                   \
		snprintf(what, sizeof(what), "%s %s", f->name, Name);          \
		SAME(what, S, L);                                              \
	} while (0)
	FIELD("fetched", f->fetched, u.fetched);
	FIELD("accessed", f->accessed, u.accessed);
	FIELD("mapped", f->mapped, u.mapped);
	FIELD("wasted known", !f->wasted_null, u.wasted_known);
	FIELD("wasted_why", f->has_why, !u.wasted_known);
	if (u.wasted_known)
		FIELD("wasted", f->wasted, u.wasted);
	FIELD("late_accesses", f->late_accesses, u.late_accesses);
	FIELD("late_reads", f->late_reads, u.late_reads);
	rc = testfs_log_page_age(log, f->name, &a);
	FIELD("page_age null", f->age_null, rc == -ENODATA);
	if (f->age_null)
		return;
	testfs_assert_ok(rc);
	FIELD("page_age pages", f->age_pages, a.pages);
	FIELD("page_age late", f->age_late, a.late);
	FIELD("page_age never", f->age_never, a.never);
	FIELD("page_age mapped", f->age_mapped, a.mapped);
	FIELD("page_age resolution_ns", f->age_res, a.resolution_ns);
	for (b = 0; b < TESTFS_AGE_BUCKETS; b++)
		FIELD("page_age bucket", f->age_us[b], a.bucket[b]);
#undef FIELD
}

static void compare_hist(const struct testfs_log *log, const struct stats *s)
{
	struct testfs_histograms h;
	char what[64];
	unsigned b;

	testfs_assert_ok(testfs_log_histograms(log, NULL, &h));
	for (b = 0; b < TESTFS_HIST_BUCKETS; b++) {
		snprintf(what, sizeof(what), "request_pages[%u]", b);
		SAME(what, s->h.request_pages[b], h.request_pages[b]);
		snprintf(what, sizeof(what), "order_asked[%u]", b);
		SAME(what, s->h.order_asked[b], h.order_asked[b]);
		snprintf(what, sizeof(what), "order_allocated[%u]", b);
		SAME(what, s->h.order_allocated[b], h.order_allocated[b]);
	}
	SAME("order_asked unknown", s->h.order_asked_unknown,
	     h.order_asked_unknown);
	SAME("order_allocated unknown", s->h.order_allocated_unknown,
	     h.order_allocated_unknown);
	SAME("windows", s->windows, testfs_log_window_count(log));
}

/*
 * Reads the stats and the log until the stats read before and after the
 * snapshot agree; then the same log is behind both.
 */
static struct testfs_log *same_log(struct stats *s)
{
	struct testfs_log *log = NULL;
	int attempt;

	for (attempt = 0; attempt < 20; attempt++) {
		char *before = read_stats(), *after;
		bool same;

		testfs_assert_ok(testfs_log_snapshot(fs, &log));
		after = read_stats();
		same = strcmp(figures(before), figures(after)) == 0;
		if (same)
			parse_stats(before, s);
		free(before);
		free(after);
		if (same)
			return log;
		testfs_log_free(log);
		log = NULL;
		testfs_assert_ok(testfs_settle(fs, 0));
	}
	cr_assert_fail("the stats kept changing around the snapshot");
	return NULL;
}

/* Fault-around records of several pages: "mapped", not accessed. */
static size_t wide_mappings(const struct testfs_log *log)
{
	size_t i, n = 0;

	for (i = 0; i < testfs_log_access_count(log); i++) {
		const struct testfs_access *a = testfs_log_access_at(log, i);

		n += a->type == TESTFS_ACCESS_MAP && a->last > a->first;
	}
	return n;
}

static void agree(bool trace_reads)
{
	struct testfs_log *log;
	struct stats s;
	size_t i, j;

	start(trace_reads);
	workload();
	log = same_log(&s);
	testfs_assert_traced(log);
	cr_assert_eq(testfs_log_lost(log), 0);
	/* Every file the workload read, and no other, in the stats. */
	cr_assert_eq(s.nf, NFILES, "stats list %zu files", s.nf);
	for (i = 0; i < NFILES; i++) {
		for (j = 0; j < s.nf && strcmp(s.f[j].name, names[i]); j++)
			;
		cr_assert_lt(j, s.nf, "stats lack %s", names[i]);
		cr_assert_gt(s.f[j].fetched, 0, "%s fetched nothing", names[i]);
		compare_file(log, &s.f[j]);
	}
	compare_hist(log, &s);
	/* The workload made what the comparison is about: readahead
	 * windows, and fault-around mappings wider than a page. */
	cr_assert_gt(s.windows, 0);
	cr_assert(wide_mappings(log) > 0, "no fault-around of several pages");
	testfs_log_free(log);
	stop();
}

TestSuite(analysis, .fini = stop, .timeout = 100);

/* read(2) traced: every wasted figure known. */
Test(analysis, stats_and_library_agree)
{
	agree(true);
}

/* read(2) not traced: wasted unknown where read(2) started readahead. */
Test(analysis, agree_without_read_tracing)
{
	agree(false);
}
