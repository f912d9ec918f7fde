// SPDX-License-Identifier: MIT
/*
 * Page age against the real kernel and tracer: pages fetched, then
 * touched one by one after sleeps, each touch timed by the test itself on
 * CLOCK_MONOTONIC (the clock of the log and of the trace events).
 *
 * The bounds, and why they are sound. The pages are fetched by
 * posix_fadvise(WILLNEED) (forced readahead: no access, no marker page)
 * between t0 and the moment testfs_settle() returns, t1: the reads cannot
 * be answered before they were asked for (reply >= t0) and settle returns
 * once the kernel has no request in flight (reply <= t1). A touch between
 * ta and tb is traced between them (a one-page mapping's fault-around or
 * fault, or a read(2) lookup's end), and the record's first event is the
 * page's (touched pages are separate records: one-page mappings are never
 * merged, and the touches are further apart than the 1 ms merge span). So
 * each age lies in [ta - t1, tb - t0], whatever the machine's load.
 */
#include "ra_common.h"

#include <time.h>

#define AGE "age.bin"
#define WINDOW 32u /* pages fetched: read_ahead_kb ra_kb_of(WINDOW) */
#define SLEEP_MS 20
#define LEAD_NS 100000000ull /* the page-age lead: testfs-control(5) */

TestSuite(page_age, .fini = ra_stop, .timeout = 60);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void start(bool trace_reads)
{
	/* 1024 pages: 4 MiB with 4 KiB pages. */
	const char *files[] = { ra_file_spec(AGE, 1024), NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;

	ra_require_fuse();
	/* Ages end at accesses: without their events pages have none. */
	ra_require_access_events();
	cfg.files = files;
	cfg.ra_kb = ra_kb_of(WINDOW);
	cfg.trace = 1;
	cfg.trace_reads = trace_reads;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, AGE));
}

struct fetch_time {
	uint64_t t0, t1;
};

/* Fetches pages [0, WINDOW) of @fd with WILLNEED: replies in [t0, t1]. */
static struct fetch_time fetch(int fd)
{
	struct fetch_time f;

	f.t0 = now_ns();
	testfs_assert_ok(testfs_fadvise(fd, 0, WINDOW, POSIX_FADV_WILLNEED));
	testfs_assert_ok(testfs_settle(fs, 0));
	f.t1 = now_ns();
	return f;
}

struct touch {
	uint64_t page, ta, tb;
};

/* Touches @page through a mapping of that page alone. */
static struct touch touch_mapped(uint64_t page)
{
	struct testfs_map m;
	struct touch t = { page, 0, 0 };
	volatile char c;

	testfs_assert_ok(
		testfs_map(fs, AGE, page, 1, PROT_READ, MAP_SHARED, &m));
	t.ta = now_ns();
	c = m.addr[0];
	t.tb = now_ns();
	(void)c;
	testfs_unmap(&m);
	return t;
}

static struct touch touch_read(int fd, uint64_t page)
{
	char buf[4096]; /* the page's first 4 KiB */
	struct touch t = { page, 0, 0 };

	t.ta = now_ns();
	cr_assert_eq(
		pread(fd, buf, sizeof(buf), (off_t)(page * ra_page_size())),
		(ssize_t)sizeof(buf));
	t.tb = now_ns();
	return t;
}

static struct testfs_log *snapshot(void)
{
	struct testfs_log *log = NULL;

	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	testfs_assert_traced(log);
	cr_assert_eq(testfs_log_lost(log), 0);
	return log;
}

/* The age of @t's page (from its fetch at @f) lies in the test's bounds. */
static void assert_age(const int64_t *ages, const struct touch *t,
		       const struct fetch_time *f)
{
	int64_t v = ages[t->page];
	uint64_t lo = t->ta > f->t1 ? t->ta - f->t1 : 0, hi = t->tb - f->t0;

	cr_assert(v >= 0, "page %llu: no age (%lld), it was touched",
		  (unsigned long long)t->page, (long long)v);
	cr_assert((uint64_t)v >= lo && (uint64_t)v <= hi,
		  "page %llu: age %lld ns outside the test's bounds [%llu, "
		  "%llu]",
		  (unsigned long long)t->page, (long long)v,
		  (unsigned long long)lo, (unsigned long long)hi);
}

/*
 * The histogram agrees with the per-page ages over [0, @n) (every fetch
 * there, none refetched) and with the daemon's stats.
 */
static void assert_histogram(const struct testfs_log *log, const int64_t *ages,
			     uint64_t n, uint64_t *late)
{
	uint64_t bucket[TESTFS_AGE_BUCKETS] = { 0 }, never = 0, mapped = 0;
	uint64_t pages = 0, lates = 0, p;
	struct testfs_page_age a = TESTFS_PAGE_AGE_INIT;
	char want[160], stats[65536];
	unsigned i;
	ssize_t len;
	int fd;

	for (p = 0; p < n; p++) {
		int64_t v = ages[p];

		if (v == TESTFS_AGE_NOT_FETCHED)
			continue;
		pages++;
		if (v == TESTFS_AGE_NEVER)
			never++;
		else if (v == TESTFS_AGE_MAPPED)
			mapped++;
		else if (v == TESTFS_AGE_LATE)
			lates++;
		else
			for (i = TESTFS_AGE_BUCKETS; i-- > 0;)
				if ((uint64_t)v / 1000 >=
				    testfs_age_bucket_us(i)) {
					bucket[i]++;
					break;
				}
	}
	testfs_assert_ok(testfs_log_page_age(log, AGE, &a));
	cr_assert_eq(a.pages, pages, "%llu page fetches, %llu by page",
		     (unsigned long long)a.pages, (unsigned long long)pages);
	cr_assert_eq(a.never, never);
	cr_assert_eq(a.mapped, mapped);
	cr_assert_eq(a.late, lates);
	for (i = 0; i < TESTFS_AGE_BUCKETS; i++)
		cr_assert_eq(a.bucket[i], bucket[i], "bucket %u: %llu vs %llu",
			     i, (unsigned long long)a.bucket[i],
			     (unsigned long long)bucket[i]);
	/* Touched pages are separate events: exact ages. */
	cr_assert_eq(a.resolution_ns, 0);
	*late = lates;

	/* The daemon renders the same computation into its stats. */
	snprintf(want, sizeof(want),
		 "\"page_age\":{\"pages\":%llu,\"late\":%llu,\"never\":%llu,"
		 "\"mapped\":%llu,",
		 (unsigned long long)a.pages, (unsigned long long)a.late,
		 (unsigned long long)a.never, (unsigned long long)a.mapped);
	fd = testfs_open(fs, ".testfs/stats", O_RDONLY);
	cr_assert_geq(fd, 0);
	len = read(fd, stats, sizeof(stats) - 1);
	close(fd);
	cr_assert_gt(len, 0);
	stats[len] = '\0';
	cr_assert(strstr(stats, want), "stats lack %s: %s", want, stats);
}

/*
 * Faults: adjacent pages touched 20 ms apart through one-page mappings
 * (their fault-around maps the page touched and no other), and a page
 * never fetched, whose fault waits on the read it causes.
 */
Test(page_age, faults)
{
	static const uint64_t pages[] = { 4, 5, 6, 7, 20 };
	enum { N = sizeof(pages) / sizeof(pages[0]) };
	struct touch t[N], miss;
	const struct testfs_record *r;
	struct testfs_log *log;
	struct fetch_time f;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	int64_t ages[256];
	uint64_t late, k, never;
	char *why = NULL;
	int fd;

	start(false);
	fd = testfs_open(fs, AGE, O_RDONLY);
	cr_assert_geq(fd, 0);
	f = fetch(fd);
	for (k = 0; k < N; k++) {
		sleep_ms(SLEEP_MS);
		t[k] = touch_mapped(pages[k]);
	}
	miss = touch_mapped(200);
	log = snapshot();
	testfs_assert_ok(testfs_log_page_ages(log, AGE, 0, 256, ages));
	for (k = 0; k < N; k++)
		assert_age(ages, &t[k], &f);
	for (k = 0; k < WINDOW; k++)
		if (k < 4 || (k > 7 && k != 20))
			cr_assert_eq(ages[k], TESTFS_AGE_NEVER,
				     "page %llu: %lld", (unsigned long long)k,
				     (long long)ages[k]);
	/*
	 * Page 200 faulted (mm_filemap_fault fires as the fault begins)
	 * before the read it caused arrived: late. Only if the daemon took
	 * that read more than the 100 ms lead after the fault could the
	 * fault go unseen; the fault-around after the reply then gives an
	 * age within the touch.
	 */
	r = NULL;
	for (k = 0; k < testfs_log_count(log); k++) {
		const struct testfs_record *x = testfs_log_at(log, k);

		if (x->kind == TESTFS_RECORD_READ && x->page <= 200 &&
		    x->page + x->pages > 200)
			r = x;
	}
	cr_assert(r, "no read fetched page 200");
	if (r->t_ns - miss.ta <= LEAD_NS)
		cr_assert_eq(ages[200], TESTFS_AGE_LATE, "page 200: %lld",
			     (long long)ages[200]);
	else
		cr_assert(ages[200] >= 0 &&
			  (uint64_t)ages[200] <= miss.tb - miss.ta);
	assert_histogram(log, ages, 256, &late);
	cr_assert_leq(late, 1);

	/*
	 * The assertion, at its boundary: every fetched page but the N
	 * touched and page 200 was never accessed.
	 */
	testfs_assert_ok(testfs_log_fetched(log, AGE, &fetched));
	never = fetched.pages - N - 1;
	testfs_extents_free(&fetched);
	testfs_assert_page_age(log, AGE, UINT64_MAX, never);
	cr_assert_eq(
		testfs_check_page_age(log, AGE, UINT64_MAX, never - 1, &why),
		1);
	free(why);
	why = NULL;
	/* Every page is older than 1 ns or never accessed but page 200. */
	testfs_assert_page_age(log, AGE, 1, never + N);
	cr_assert_eq(testfs_check_page_age(log, AGE, 1, 0, &why), 1);
	cr_log_info("%s", why ? why : "(null)");
	cr_assert(why && strstr(why, "page fetches were first accessed") &&
			  strstr(why, "never accessed"),
		  "%s", why ? why : "(null)");
	free(why);
	testfs_log_free(log);
	close(fd);
}

/*
 * read(2) lookups (--trace-reads): adjacent pages read 20 ms apart. They
 * would have been one access record before the 1 ms merge span, with the
 * first read's time for all four.
 */
Test(page_age, reads)
{
	static const uint64_t pages[] = { 8, 9, 10, 11 };
	enum { N = sizeof(pages) / sizeof(pages[0]) };
	struct touch t[N], miss;
	struct testfs_log *log;
	struct fetch_time f;
	int64_t ages[256];
	uint64_t late, k;
	int fd;

	start(true);
	fd = testfs_open(fs, AGE, O_RDONLY);
	cr_assert_geq(fd, 0);
	f = fetch(fd);
	for (k = 0; k < N; k++) {
		sleep_ms(SLEEP_MS);
		t[k] = touch_read(fd, pages[k]);
	}
	miss = touch_read(fd, 200);
	log = snapshot();
	testfs_assert_ok(testfs_log_page_ages(log, AGE, 0, 256, ages));
	for (k = 0; k < N; k++)
		assert_age(ages, &t[k], &f);
	/*
	 * A read(2) that waited is traced as its lookup ends, after the
	 * reply: a small age within the touch, not late.
	 */
	cr_assert(ages[200] >= 0 && (uint64_t)ages[200] <= miss.tb - miss.ta,
		  "page 200: %lld, touch took %llu ns", (long long)ages[200],
		  (unsigned long long)(miss.tb - miss.ta));
	assert_histogram(log, ages, 256, &late);
	cr_assert_eq(late, 0);
	testfs_log_free(log);
	close(fd);
}

/*
 * read(2) without --trace-reads: the readahead read(2) started is seen,
 * its accesses are not. Every page fetched counts as never accessed, and
 * the library, the check and the daemon's stats all say why.
 */
Test(page_age, reads_not_traced)
{
	struct testfs_page_age a = TESTFS_PAGE_AGE_INIT;
	struct testfs_log *log;
	char stats[65536], *why = NULL;
	ssize_t len;
	int fd;

	start(false);
	fd = testfs_open(fs, AGE, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(
		testfs_read_pages(fd, 0, 16, 0, TESTFS_ORDER_FORWARD, 0, NULL),
		(int64_t)(16 * ra_page_size()));
	close(fd);
	log = snapshot();
	testfs_assert_ok(testfs_log_page_age(log, AGE, &a));
	cr_assert_gt(a.pages, 0);
	cr_assert_eq(a.never, a.pages, "never %llu of %llu",
		     (unsigned long long)a.never, (unsigned long long)a.pages);
	cr_assert(a.reads_untraced);
	cr_assert_eq(testfs_check_page_age(log, AGE, 1, 0, &why), 1);
	cr_assert(strstr(why, "read(2) accesses were not traced (run the "
			      "daemon with --trace-reads"),
		  "%s", why);
	free(why);
	testfs_log_free(log);

	fd = testfs_open(fs, ".testfs/stats", O_RDONLY);
	cr_assert_geq(fd, 0);
	len = read(fd, stats, sizeof(stats) - 1);
	close(fd);
	cr_assert_gt(len, 0);
	stats[len] = '\0';
	cr_assert(strstr(stats, ",\"never_why\":\"read(2) accesses are not "
				"traced (--trace-reads): pages only read(2) "
				"touched count as never\"}"),
		  "%s", stats);
}

/* A page fetched again after an eviction ages from its latest fetch. */
Test(page_age, refetch)
{
	struct fetch_time f2;
	struct touch t1, t2;
	struct testfs_page_age a = TESTFS_PAGE_AGE_INIT;
	struct testfs_log *log;
	int64_t ages[WINDOW];
	int fd;

	start(false);
	fd = testfs_open(fs, AGE, O_RDONLY);
	cr_assert_geq(fd, 0);
	fetch(fd);
	t1 = touch_mapped(3);
	testfs_assert_ok(testfs_drop_cache(fs, AGE));
	/* The touch must be past the lead of the refetch (its clock). */
	while (now_ns() < t1.tb + 2 * LEAD_NS)
		sleep_ms(SLEEP_MS);
	f2 = fetch(fd);
	sleep_ms(SLEEP_MS);
	t2 = touch_mapped(3);
	log = snapshot();
	testfs_assert_ok(testfs_log_page_ages(log, AGE, 0, WINDOW, ages));
	assert_age(ages, &t2, &f2);
	testfs_assert_ok(testfs_log_page_age(log, AGE, &a));
	/* Two fetches of the window; page 3 accessed after each. */
	cr_assert_eq(a.pages, 2 * WINDOW);
	cr_assert_eq(a.never, 2 * WINDOW - 2);
	cr_assert_eq(a.late, 0);
	testfs_log_free(log);
	close(fd);
}

/* Bad arguments: -EINVAL, -ENOENT; no tracing: -ENODATA. */
Test(page_age, bad_input)
{
	static const char *const files[] = { AGE ":1M", NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;
	struct testfs_page_age a = TESTFS_PAGE_AGE_INIT;
	struct testfs_log *log;
	int64_t ages[4];
	char *why = NULL;

	ra_require_fuse();
	cfg.files = files;
	cfg.trace = -1;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	cr_assert_eq(testfs_log_page_age(NULL, AGE, &a), -EINVAL);
	cr_assert_eq(testfs_log_page_age(log, NULL, &a), -EINVAL);
	cr_assert_eq(testfs_log_page_age(log, AGE, NULL), -EINVAL);
	cr_assert_eq(testfs_log_page_age(log, "nope.bin", &a), -ENOENT);
	cr_assert_eq(testfs_log_page_age(log, AGE, &a), -ENODATA);
	cr_assert_eq(testfs_log_page_ages(NULL, AGE, 0, 4, ages), -EINVAL);
	cr_assert_eq(testfs_log_page_ages(log, NULL, 0, 4, ages), -EINVAL);
	cr_assert_eq(testfs_log_page_ages(log, AGE, 0, 4, NULL), -EINVAL);
	cr_assert_eq(testfs_log_page_ages(log, AGE, 0, 0, ages), -EINVAL);
	cr_assert_eq(testfs_log_page_ages(log, AGE, 0,
					  (uint64_t)TESTFS_AGE_MAX_PAGES + 1,
					  ages),
		     -EINVAL);
	cr_assert_eq(testfs_log_page_ages(log, AGE, UINT64_MAX - 1, 4, ages),
		     -EINVAL);
	cr_assert_eq(testfs_log_page_ages(log, "nope.bin", 0, 4, ages),
		     -ENOENT);
	cr_assert_eq(testfs_log_page_ages(log, AGE, 0, 4, ages), -ENODATA);
	cr_assert_eq(testfs_check_page_age(NULL, AGE, 0, 0, &why), -EINVAL);
	cr_assert_eq(testfs_check_page_age(log, NULL, 0, 0, &why), -EINVAL);
	/* Untraced: the check fails with the reason, not a crash. */
	cr_assert_eq(testfs_check_page_age(log, AGE, 0, 0, &why), 1);
	cr_assert(why && strstr(why, "no page age without kernel tracing"),
		  "%s", why ? why : "(null)");
	free(why);
	cr_assert_eq(testfs_age_bucket_us(0), 0);
	cr_assert_eq(testfs_age_bucket_us(1), 1);
	cr_assert_eq(testfs_age_bucket_us(11), 1024);
	cr_assert_eq(testfs_age_bucket_us(TESTFS_AGE_BUCKETS), UINT64_MAX);
	testfs_log_free(log);
}
