// SPDX-License-Identifier: MIT
/*
 * Kernel correlation against the real kernel: every read says why it was
 * sent. Needs root and tracefs (testfs_assert_traced() fails with the
 * daemon's reason otherwise; under CI both are there).
 *
 * What is asserted strictly is the attribution itself: which mechanism
 * sent a read (the tracepoints name it), that the windows cover exactly
 * the pages the log reports, and that tracing changes nothing the kernel
 * does. Window sizes and positions are kernel policy, checked with
 * testfs_expect_policy() and the algorithm of mm/readahead.c and
 * mm/filemap.c written next to each expectation.
 */
#include "ra_common.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

TestSuite(causes, .fini = ra_stop, .timeout = 60);

/* ra_start() with tracing required. */
static void start_traced(unsigned ra_pages, const char *latency)
{
	const char *files[] = { ra_file_spec(BIG, BIG_PAGES), NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;

	ra_require_fuse();
	cfg.files = files;
	cfg.ra_kb = ra_kb_of(ra_pages);
	cfg.trace = 1;
	cfg.latency = latency;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, BIG));
}

static struct testfs_log *snapshot(void)
{
	struct testfs_log *log = NULL;

	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	testfs_assert_traced(log);
	cr_assert_eq(testfs_log_lost(log), 0);
	return log;
}

/* Reads of BIG in the snapshot, in order; returns how many. */
static size_t reads_of(const struct testfs_log *log,
		       const struct testfs_record **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < testfs_log_count(log); i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind != TESTFS_RECORD_READ || strcmp(r->file, BIG))
			continue;
		if (n < max)
			out[n] = r;
		n++;
	}
	return n;
}

static void touch_all(const struct testfs_map *m)
{
	cr_assert_eq(testfs_touch(m, TESTFS_ORDER_FORWARD, 0, NULL),
		     (int64_t)m->npages);
}

/* read(2) of the first 4 KiB of each page: one page per read. */
static void read_pages(int fd, uint64_t first, uint64_t n)
{
	char buf[4096];
	uint64_t p;

	for (p = first; p < first + n; p++)
		cr_assert_eq(pread(fd, buf, sizeof(buf),
				   (off_t)(p * ra_page_size())),
			     (ssize_t)sizeof(buf));
}

/*
 * Every read lies inside its window, and the windows together cover
 * exactly the pages the log fetched (cold file: nothing in a window was
 * cached before, so every page of it was read).
 */
static void assert_windows_cover_fetched(const struct testfs_log *log)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_extents windows = TESTFS_EXTENTS_INIT;
	char a[512], b[512];
	size_t i;

	testfs_assert_ok(testfs_log_fetched(log, BIG, &fetched));
	for (i = 0; i < testfs_log_count(log); i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind != TESTFS_RECORD_READ || strcmp(r->file, BIG))
			continue;
		cr_assert_neq(r->cause, TESTFS_CAUSE_UNKNOWN,
			      "read seq %llu (page %llu) has no cause",
			      (unsigned long long)r->seq,
			      (unsigned long long)r->page);
		cr_assert(r->page >= r->ra_start &&
				  r->page + r->pages <=
					  r->ra_start + r->ra_size,
			  "read [%llu, +%llu) outside its window [%llu, +%u)",
			  (unsigned long long)r->page,
			  (unsigned long long)r->pages,
			  (unsigned long long)r->ra_start, r->ra_size);
	}
	for (i = 0; i < testfs_log_window_count(log); i++) {
		const struct testfs_window *w = testfs_log_window_at(log, i);
		uint64_t last = w->start + w->size - 1;

		if (strcmp(w->file, BIG))
			continue;
		if (last >= BIG_PAGES)
			last = BIG_PAGES - 1;
		testfs_assert_ok(testfs_extents_add(&windows, w->start, last));
	}
	testfs_extents_format(&fetched, a, sizeof(a));
	testfs_extents_format(&windows, b, sizeof(b));
	cr_assert(testfs_extents_equal(&fetched, &windows),
		  "fetched %s, windows %s", a, b);
	testfs_extents_free(&fetched);
	testfs_extents_free(&windows);
}

/*
 * read(2) of 8 MiB in 4 KiB steps, ra 1 MiB (ra_pages 256). Policy
 * (mm/readahead.c): page 0 misses, page_cache_sync_ra() starts a window of
 * get_init_ra_size(1, 256) = 4 pages with async_size 4 - 1 = 3, so the
 * marker is page 1; each marker hit is page_cache_async_ra(), the next
 * window starts where the last ended with get_next_ra_size(): x4 below
 * 256/16, x2 up to 256, and is all lookahead (marker = its first page).
 */
Test(causes, sequential_read_is_sync_then_async)
{
	static const uint64_t start[] = { 0, 4, 20, 52, 116, 244, 500 };
	static const uint32_t size[] = { 4, 16, 32, 64, 128, 256, 256 };
	const struct testfs_record *r[64];
	struct testfs_log *log;
	size_t n, i;
	int fd;

	start_traced(256, NULL);
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	read_pages(fd, 0, 2048);
	close(fd);
	log = snapshot();
	n = reads_of(log, r, 64);
	cr_assert_geq(n, 7, "%zu reads", n);
	cr_assert_eq(r[0]->cause, TESTFS_CAUSE_SYNC, "first read is %s",
		     testfs_cause_name(r[0]->cause));
	cr_assert_eq(r[0]->trigger_page, 0);
	for (i = 1; i < n && i < 64; i++) {
		cr_assert_eq(r[i]->cause, TESTFS_CAUSE_ASYNC,
			     "read %zu (page %llu) is %s", i,
			     (unsigned long long)r[i]->page,
			     testfs_cause_name(r[i]->cause));
		/* The async window was started by the previous marker. */
		cr_assert_eq(r[i]->trigger_page, r[i - 1]->ra_marker,
			     "read %zu triggered at %llu, marker was %llu", i,
			     (unsigned long long)r[i]->trigger_page,
			     (unsigned long long)r[i - 1]->ra_marker);
		cr_assert_neq(r[i]->window, r[i - 1]->window);
	}
	for (i = 0; i < 7; i++)
		testfs_expect_policy(
			"read(2) ramp: init 4x, then x4 / x2 up to ra_pages",
			r[i]->ra_start == start[i] && r[i]->ra_size == size[i],
			"the windows (0,4) (4,16) (20,32) (52,64) (116,128) (244,256) (500,256)",
			"window %zu = (%llu,%u)", i,
			(unsigned long long)r[i]->ra_start, r[i]->ra_size);
	assert_windows_cover_fetched(log);
	testfs_log_free(log);
}

/*
 * mmap of pages [1024, 2047], touched in order, ra 1 MiB. Policy
 * (mm/filemap.c do_sync_mmap_readahead): the first fault reads around
 * itself, ra->start = fault - ra_pages / 2 = 1024 - 128 = 896, size
 * ra_pages, async_size ra_pages / 4.
 */
Test(causes, mmap_first_fault_reads_around_it)
{
	struct testfs_log *log;
	struct testfs_map m;
	const struct testfs_window *w;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	int64_t outside;
	uint64_t before, after;

	start_traced(256, NULL);
	testfs_assert_ok(
		testfs_map(fs, BIG, 1024, 1024, PROT_READ, MAP_SHARED, &m));
	touch_all(&m);
	log = snapshot();
	w = testfs_log_window_of(log, BIG, 1024);
	cr_assert_not_null(w, "no window fetched page 1024");
	cr_assert_eq(w->cause, TESTFS_CAUSE_READAROUND, "%s",
		     testfs_cause_name(w->cause));
	cr_assert_eq(w->trigger_page, 1024);
	testfs_assert_window(log, BIG, 1024, TESTFS_CAUSE_READAROUND,
			     TESTFS_NO_PAGE);
	testfs_expect_policy("read-around centred on the fault",
			     w->start == 896 && w->size == 256,
			     "window (896,256)", "(%llu,%u)",
			     (unsigned long long)w->start, w->size);
	/* The window that crossed the VMA end was async readahead. */
	w = testfs_log_window_of(log, BIG, 2048);
	cr_assert_not_null(w, "nothing fetched past the VMA end");
	cr_assert_eq(w->cause, TESTFS_CAUSE_ASYNC, "%s",
		     testfs_cause_name(w->cause));
	assert_windows_cover_fetched(log);
	/*
	 * Access accounting: faults and fault-around stay inside the VMA,
	 * so the wasted pages are exactly those fetched outside it. With
	 * large folios (lab:7.3+fuse-large-folios: async windows of order
	 * 2, 4, 6, 7 here) a fault and a fault-around map every large folio
	 * they touch whole, without an event per page; the analysis layer
	 * counts those pages as mapped from the log's folio records. No
	 * folio crosses the VMA's edges: folios are aligned to their size
	 * and the VMA is [1024, 2047].
	 */
	outside = testfs_log_outside(log, BIG, 1024, 2047, &before, &after);
	cr_assert_geq(outside, 0);
	testfs_assert_ok(testfs_log_usage(log, BIG, &u, NULL));
	cr_assert(u.wasted_known, "faults only: every access is traced");
	cr_assert_eq(u.wasted, (uint64_t)outside,
		     "wasted %llu, fetched outside the VMA %lld",
		     (unsigned long long)u.wasted, (long long)outside);
	cr_assert_eq(u.accessed + u.mapped, 1024, "accessed %llu + mapped %llu",
		     (unsigned long long)u.accessed,
		     (unsigned long long)u.mapped);
	testfs_unmap(&m);
	testfs_log_free(log);
}

/* readahead(2) is forced readahead, reading exactly what was asked. */
Test(causes, readahead_syscall_is_forced)
{
	const struct testfs_record *r[16];
	struct testfs_log *log;
	size_t n, i;
	int fd;

	start_traced(256, NULL);
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(readahead(fd, 100 * ra_page_size(), 64 * ra_page_size()),
		     0);
	close(fd);
	log = snapshot();
	n = reads_of(log, r, 16);
	cr_assert_geq(n, 1);
	for (i = 0; i < n && i < 16; i++) {
		cr_assert_eq(r[i]->cause, TESTFS_CAUSE_FORCED, "%s",
			     testfs_cause_name(r[i]->cause));
		cr_assert_eq(r[i]->trigger_page, 100);
		cr_assert_eq(r[i]->ra_marker, TESTFS_NO_PAGE);
	}
	testfs_assert_cause(log, BIG, 100, 163, TESTFS_CAUSE_FORCED);
	assert_windows_cover_fetched(log);
	testfs_log_free(log);
}

/* fadvise(WILLNEED) is forced readahead too. */
Test(causes, fadvise_willneed_is_forced)
{
	struct testfs_log *log;
	int fd;

	start_traced(256, NULL);
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(posix_fadvise(fd, 512 * ra_page_size(),
				   32 * ra_page_size(), POSIX_FADV_WILLNEED),
		     0);
	close(fd);
	log = snapshot();
	testfs_assert_window(log, BIG, 512, TESTFS_CAUSE_FORCED, 512);
	testfs_assert_cause(log, BIG, 0, BIG_PAGES - 1, TESTFS_CAUSE_FORCED);
	testfs_log_free(log);
}

/* MADV_RANDOM: every fault reads its own page, no readahead event. */
Test(causes, madv_random_faults_are_single)
{
	const struct testfs_record *r[64];
	struct testfs_log *log;
	struct testfs_map m;
	size_t n, i;

	start_traced(256, NULL);
	testfs_assert_ok(
		testfs_map(fs, BIG, 4096, 32, PROT_READ, MAP_SHARED, &m));
	testfs_assert_ok(testfs_madvise(&m, MADV_RANDOM));
	touch_all(&m);
	log = snapshot();
	n = reads_of(log, r, 64);
	cr_assert_eq(n, 32, "%zu reads", n);
	for (i = 0; i < n; i++) {
		cr_assert_eq(r[i]->cause, TESTFS_CAUSE_SINGLE, "page %llu: %s",
			     (unsigned long long)r[i]->page,
			     testfs_cause_name(r[i]->cause));
		cr_assert_eq(r[i]->pages, 1);
		cr_assert_eq(r[i]->trigger_page, r[i]->page);
	}
	testfs_unmap(&m);
	testfs_log_free(log);
}

/*
 * MADV_SEQUENTIAL: each fault outside the cache is a sync readahead of
 * ra_pages (do_sync_mmap_readahead -> page_cache_sync_ra(ra_pages)).
 */
Test(causes, madv_sequential_is_sync)
{
	struct testfs_log *log;
	struct testfs_map m;

	start_traced(32, NULL);
	testfs_assert_ok(
		testfs_map(fs, BIG, 1024, 256, PROT_READ, MAP_SHARED, &m));
	testfs_assert_ok(testfs_madvise(&m, MADV_SEQUENTIAL));
	touch_all(&m);
	log = snapshot();
	testfs_assert_window(log, BIG, 1024, TESTFS_CAUSE_SYNC, 1024);
	testfs_assert_cause(log, BIG, 1024, 1279, TESTFS_CAUSE_SYNC);
	assert_windows_cover_fetched(log);
	testfs_unmap(&m);
	testfs_log_free(log);
}

/* O_DIRECT reads bypass the page cache: cause direct, no window. */
Test(causes, o_direct_is_direct)
{
	const struct testfs_record *r[4];
	struct testfs_log *log;
	void *buf;
	int fd;

	start_traced(256, NULL);
	fd = testfs_open(fs, BIG, O_RDONLY | O_DIRECT);
	cr_assert_geq(fd, 0);
	cr_assert_eq(posix_memalign(&buf, ra_page_size(), ra_page_size()), 0);
	cr_assert_eq(pread(fd, buf, ra_page_size(), 8 * ra_page_size()),
		     ra_page_size());
	free(buf);
	close(fd);
	log = snapshot();
	cr_assert_eq(reads_of(log, r, 4), 1);
	cr_assert_eq(r[0]->cause, TESTFS_CAUSE_DIRECT);
	cr_assert(r[0]->direct);
	cr_assert_eq(r[0]->window, 0);
	testfs_log_free(log);
}

/*
 * A fault on a page whose read is still in flight waits for it: the
 * access and the read are late. readahead(2) returns once the reads are
 * sent; with 200 ms of latency the fault comes long before the reply.
 */
Test(causes, fault_on_an_inflight_read_is_late)
{
	struct testfs_log *log;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	struct testfs_map m;
	const struct testfs_record *r[8];
	size_t n;
	int fd;

	start_traced(256, "fixed:200ms");
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	testfs_assert_ok(testfs_map(fs, BIG, 0, 64, PROT_READ, MAP_SHARED, &m));
	cr_assert_eq(readahead(fd, 0, 64 * ra_page_size()), 0);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, 64, NULL), 1);
	close(fd);
	log = snapshot();
	n = reads_of(log, r, 8);
	cr_assert_eq(n, 1, "%zu reads", n);
	cr_assert_eq(r[0]->cause, TESTFS_CAUSE_FORCED);
	cr_assert(r[0]->late, "the fault did not wait on the read");
	testfs_assert_ok(testfs_log_usage(log, BIG, &u, NULL));
	cr_assert_geq(u.late_accesses, 1);
	cr_assert_eq(u.late_reads, 1);
	testfs_unmap(&m);
	testfs_log_free(log);
}

/* The fetched pages of one access pattern, with or without tracing. */
static void fetched_with(int trace, struct testfs_extents *out)
{
	const char *files[] = { ra_file_spec(BIG, BIG_PAGES), NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;
	struct testfs_log *log;
	struct testfs_map m;
	int fd;

	cfg.files = files;
	cfg.ra_kb = ra_kb_of(256);
	cfg.trace = trace;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, BIG));
	testfs_assert_ok(
		testfs_map(fs, BIG, 1024, 1024, PROT_READ, MAP_SHARED, &m));
	touch_all(&m);
	testfs_unmap(&m);
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	read_pages(fd, 8192, 1024);
	close(fd);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	cr_assert_eq(testfs_log_traced(log), trace > 0);
	testfs_assert_ok(testfs_log_fetched(log, BIG, out));
	testfs_log_free(log);
	ra_stop();
}

Test(causes, tracing_changes_nothing_the_kernel_fetches)
{
	struct testfs_extents on = TESTFS_EXTENTS_INIT;
	struct testfs_extents off = TESTFS_EXTENTS_INIT;
	char a[512], b[512];

	ra_require_fuse();
	fetched_with(-1, &off);
	fetched_with(1, &on);
	testfs_extents_format(&off, a, sizeof(a));
	testfs_extents_format(&on, b, sizeof(b));
	cr_assert(testfs_extents_equal(&on, &off), "without %s, with %s", a, b);
	testfs_extents_free(&on);
	testfs_extents_free(&off);
}

/* The tracefs instance goes with the daemon. */
Test(causes, no_instance_is_left_behind)
{
	char path[128], why[256];
	struct stat st;
	pid_t pid;

	start_traced(32, NULL);
	cr_assert_eq(testfs_tracing(fs, why, sizeof(why)), 1, "%s", why);
	pid = testfs_pid(fs);
	snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/testfs-%d",
		 (int)pid);
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	ra_stop();
	cr_assert_neq(stat(path, &st), 0, "%s is still there", path);
}

/* --no-trace: causes unknown, and the daemon says why. */
Test(causes, without_tracing_causes_are_unknown_and_explained)
{
	const char *files[] = { ra_file_spec(BIG, BIG_PAGES), NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;
	const struct testfs_record *r[4];
	struct testfs_log *log;
	char why[256];
	int fd;

	ra_require_fuse();
	cfg.files = files;
	cfg.trace = -1;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	cr_assert_eq(testfs_tracing(fs, why, sizeof(why)), 0);
	cr_assert_str_eq(why, "--no-trace");
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	read_pages(fd, 0, 1);
	close(fd);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	cr_assert_not(testfs_log_traced(log));
	cr_assert_geq(reads_of(log, r, 4), 1);
	cr_assert_eq(r[0]->cause, TESTFS_CAUSE_UNKNOWN);
	cr_assert_eq(testfs_log_access_count(log), 0);
	cr_assert_eq(testfs_log_window_count(log), 0);
	testfs_log_free(log);
}

/*
 * With max_pages 32 a 256-page window goes out as 8 FUSE_READs: they are
 * one window, with one cause and one id, covering it exactly. Eight
 * background requests per window would reach the default congestion
 * threshold (9), where FUSE drops async readahead (docs/congestion.md):
 * max_background 64 keeps it out of reach.
 */
Test(causes, a_window_split_into_several_reads_is_one_window)
{
	const char *files[] = { ra_file_spec(BIG, BIG_PAGES), NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;
	const struct testfs_window *w;
	struct testfs_log *log;
	int fd;

	ra_require_fuse();
	cfg.files = files;
	cfg.ra_kb = ra_kb_of(256);
	cfg.max_pages = 32;
	cfg.max_background = 64;
	cfg.trace = 1;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, BIG));
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	read_pages(fd, 0, 600);
	close(fd);
	log = snapshot();
	cr_assert_leq(testfs_log_max_request(log, BIG), 32);
	w = testfs_log_window_of(log, BIG, 300);
	cr_assert_not_null(w);
	cr_assert_eq(w->cause, TESTFS_CAUSE_ASYNC);
	cr_assert_eq(w->requests, (size_t)((w->size + 31) / 32),
		     "window (%llu,%u) in %zu requests",
		     (unsigned long long)w->start, w->size, w->requests);
	cr_assert_eq(w->first_page, w->start);
	cr_assert_eq(w->last_page, w->start + w->size - 1);
	cr_assert_eq(w->pages, w->size);
	assert_windows_cover_fetched(log);
	testfs_log_free(log);
}

/*
 * read(2) accesses: seen with --trace-reads (the lookups are traced), so
 * the pages read ahead past the last read(2) are the wasted ones; without
 * it they are unknown and the library says so instead of calling every
 * page wasted.
 */
static void read_stream(bool trace_reads, struct testfs_usage *u, bool *by_read)
{
	const char *files[] = { ra_file_spec(BIG, BIG_PAGES), NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;
	const struct testfs_record *r[4];
	struct testfs_log *log;
	int fd;

	cfg.files = files;
	cfg.ra_kb = ra_kb_of(32);
	cfg.trace = 1;
	cfg.trace_reads = trace_reads;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, BIG));
	fd = testfs_open(fs, BIG, O_RDONLY);
	cr_assert_geq(fd, 0);
	read_pages(fd, 0, 100);
	close(fd);
	log = snapshot();
	cr_assert_geq(reads_of(log, r, 4), 1);
	*by_read = r[0]->by_read;
	testfs_assert_ok(testfs_log_usage(log, BIG, u, NULL));
	testfs_log_free(log);
	ra_stop();
}

Test(causes, read_accesses_are_counted_with_trace_reads)
{
	struct testfs_usage u = TESTFS_USAGE_INIT;
	bool by_read;

	ra_require_fuse();
	read_stream(true, &u, &by_read);
	cr_assert(by_read, "the first window was not started by read(2)");
	cr_assert(u.wasted_known);
	cr_assert_eq(u.accessed, 100, "accessed %llu",
		     (unsigned long long)u.accessed);
	cr_assert_eq(u.wasted, u.fetched - 100, "fetched %llu, wasted %llu",
		     (unsigned long long)u.fetched,
		     (unsigned long long)u.wasted);
	read_stream(false, &u, &by_read);
	cr_assert(by_read);
	cr_assert_not(u.wasted_known);
	cr_assert_eq(u.wasted, 0);
	cr_assert_eq(u.accessed, 0);
}

/*
 * Windows do not outlive their pages: after a reverse walk (read-around
 * windows that partly found their pages cached) and a drop-cache,
 * MADV_RANDOM faults are single reads, not reads of an old window.
 */
Test(causes, old_windows_do_not_claim_later_reads)
{
	const struct testfs_record *r[128];
	struct testfs_log *log;
	struct testfs_map m;
	size_t n, i;

	start_traced(256, NULL);
	testfs_assert_ok(
		testfs_map(fs, BIG, 0, 2048, PROT_READ, MAP_SHARED, &m));
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_REVERSE, 0, NULL), 2048);
	testfs_unmap(&m);
	testfs_assert_ok(testfs_cold(fs, BIG));
	testfs_assert_ok(
		testfs_map(fs, BIG, 0, 300, PROT_READ, MAP_SHARED, &m));
	testfs_assert_ok(testfs_madvise(&m, MADV_RANDOM));
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, 3, NULL), 100);
	log = snapshot();
	n = reads_of(log, r, 128);
	cr_assert_eq(n, 100, "%zu reads", n);
	for (i = 0; i < n; i++)
		cr_assert_eq(r[i]->cause, TESTFS_CAUSE_SINGLE,
			     "page %llu: %s (window %u from %llu)",
			     (unsigned long long)r[i]->page,
			     testfs_cause_name(r[i]->cause), r[i]->window,
			     (unsigned long long)r[i]->ra_start);
	assert_windows_cover_fetched(log);
	testfs_unmap(&m);
	testfs_log_free(log);
}

/*
 * Two processes reading one file at once each have their own readahead
 * state: every read is explained, by a window that holds it, of the task
 * that sent it.
 */
/*
 * The reads around the one at @at, on stderr (a guest's KTAP report
 * carries it), so a read left without a cause on some kernel can be
 * placed among its neighbours' windows.
 */
static void say_neighbours(const struct testfs_log *log, size_t at)
{
	size_t i = at > 6 ? at - 6 : 0;

	for (; i < testfs_log_count(log) && i <= at + 6; i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind != TESTFS_RECORD_READ)
			continue;
		cr_log_info("%s seq %llu pages %llu+%llu pid %u %s window "
			    "(%llu,%u,%u) trigger %lld",
			    i == at ? ">" : " ", (unsigned long long)r->seq,
			    (unsigned long long)r->page,
			    (unsigned long long)r->pages, r->pid,
			    testfs_cause_name(r->cause),
			    (unsigned long long)r->ra_start, r->ra_size,
			    r->ra_async,
			    r->trigger_page == TESTFS_NO_PAGE
				    ? -1LL
				    : (long long)r->trigger_page);
	}
}

Test(causes, two_readers_of_one_file)
{
	struct testfs_log *log;
	pid_t child;
	size_t i;
	int fd, status;

	start_traced(256, NULL);
	child = fork();
	cr_assert_geq(child, 0);
	fd = testfs_open(fs, BIG, O_RDONLY);
	if (child == 0) {
		char buf[1 << 20];
		int k;

		for (k = 0; k < 16 && fd >= 0; k++)
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				_exit(1);
		_exit(fd >= 0 ? 0 : 1);
	}
	cr_assert_geq(fd, 0);
	read_pages(fd, 0, 4096);
	close(fd);
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	log = snapshot();
	for (i = 0; i < testfs_log_count(log); i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind != TESTFS_RECORD_READ)
			continue;
		if (r->cause == TESTFS_CAUSE_UNKNOWN)
			say_neighbours(log, i);
		cr_assert_neq(r->cause, TESTFS_CAUSE_UNKNOWN,
			      "read seq %llu (pages %llu+%llu, pid %u) has no "
			      "cause",
			      (unsigned long long)r->seq,
			      (unsigned long long)r->page,
			      (unsigned long long)r->pages, r->pid);
		cr_assert(r->page >= r->ra_start &&
				  r->page + r->pages <=
					  r->ra_start + r->ra_size,
			  "read [%llu, +%llu) by %u outside its window "
			  "[%llu, +%u)",
			  (unsigned long long)r->page,
			  (unsigned long long)r->pages, r->pid,
			  (unsigned long long)r->ra_start, r->ra_size);
	}
	testfs_log_free(log);
}

/*
 * A SIGKILLed daemon leaves its tracefs instance behind, and may stay a
 * zombie for a while (here: until this process reaps it). The next start
 * removes the instance all the same.
 */
Test(causes, a_killed_daemons_instance_goes_at_the_next_start)
{
	struct testfs_mount *first;
	char path[128];
	struct stat st;
	pid_t pid;

	start_traced(32, NULL);
	first = fs;
	fs = NULL;
	pid = testfs_pid(first);
	snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/testfs-%d",
		 (int)pid);
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(kill(pid, SIGKILL), 0);
	usleep(100 * 1000); /* not reaped: a zombie */
	start_traced(32, NULL);
	cr_expect_neq(stat(path, &st), 0, "%s is still there", path);
	testfs_stop(first); /* reaps it; its mount went with it */
}
