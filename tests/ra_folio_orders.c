// SPDX-License-Identifier: MIT
/*
 * Folio orders from the kernel's filemap:mm_filemap_add_to_page_cache
 * events (testfs/folios.h): every page of a file read once entered the
 * page cache in some folio, and on a kernel whose FUSE has no large
 * folios (the host's, and every released one up to 7.3) each of those
 * folios is order 0. A log without the event says which event is missing.
 */
#include "ra_common.h"

#define FOLIOS "folios.bin"
#define FILE_PAGES (uint64_t)((4u << 20) / ra_page_size()) /* 4 MiB */

TestSuite(folio_orders, .fini = ra_stop, .timeout = 120);

#define MIXED "mixed.bin" /* a pattern and an access order not chosen */
#define MIXED_PAGES (uint64_t)((16u << 20) / ra_page_size()) /* 16 MiB */

/* @extra: more daemon arguments (NULL: none). */
static void start_with(int trace, const char *const *extra)
{
	static const char *const files[] = { FOLIOS ":4M", "other.bin:1M",
					     MIXED ":16M:random:20261202",
					     NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;

	ra_require_fuse();
	cfg.files = files;
	cfg.ra_kb = ra_kb_of(32);
	cfg.trace = trace;
	cfg.extra_args = extra;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, FOLIOS));
}

static void start(int trace)
{
	start_with(trace, NULL);
}

/* Reads @name whole with read(2) and verifies every byte. */
static void read_whole(const char *name, uint64_t pages)
{
	static char buf[64 * 1024];
	uint64_t off;
	int fd = testfs_open(fs, name, O_RDONLY);

	cr_assert_geq(fd, 0, "open %s: %s", name, strerror(-fd));
	for (off = 0; off < pages * ra_page_size(); off += sizeof(buf)) {
		cr_assert_eq(pread(fd, buf, sizeof(buf), (off_t)off),
			     (ssize_t)sizeof(buf));
		cr_assert_eq(testfs_verify("stamp", name, off, buf, sizeof(buf),
					   NULL),
			     0, "%s: wrong bytes in [%llu, +64 KiB)", name,
			     (unsigned long long)off);
	}
	close(fd);
	testfs_assert_ok(testfs_settle(fs, 0));
}

Test(folio_orders, every_page_in_a_folio_of_order_0)
{
	struct testfs_folio_orders o, all;
	struct testfs_log *log = NULL;
	char *why = NULL;
	unsigned k;

	start(1);
	read_whole(FOLIOS, FILE_PAGES);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	testfs_assert_traced(log);
	cr_assert_null(testfs_log_folio_orders_why(log));
	testfs_assert_ok(testfs_log_folio_orders(log, FOLIOS, &o));
	/* Each page once, or again after DAMON reclaim evicted it. */
	cr_assert_geq(o.total_pages, FILE_PAGES);
	for (k = 0; k < TESTFS_FOLIO_ORDERS; k++)
		cr_assert_eq(o.pages[k], o.folios[k] << k, "order %u", k);
	/* The file not read: no folio of it. */
	testfs_assert_ok(testfs_log_folio_orders(log, "other.bin", &all));
	cr_assert_eq(all.total_folios, 0);
	cr_assert_eq(all.max_order, -1);
	testfs_assert_ok(testfs_log_folio_orders(log, NULL, &all));
	cr_assert_geq(all.total_pages, o.total_pages);
	testfs_expect_policy("FUSE reads into order-0 folios",
			     o.pages[0] == o.total_pages && o.max_order == 0,
			     "every folio order 0",
			     "max order %d, %llu of %llu "
			     "pages in order-0 folios",
			     o.max_order, (unsigned long long)o.pages[0],
			     (unsigned long long)o.total_pages);
	if (o.max_order == 0) {
		testfs_assert_folio_order(log, FOLIOS, 0, 100);
		/* The failing direction, and what it says. */
		cr_assert_eq(testfs_check_folio_order(log, FOLIOS, 5, 51, &why),
			     1);
		cr_assert_not_null(strstr(why, "0% of the "), "%s", why);
		cr_assert_not_null(strstr(why, "in order-5 folios, expected "
					       "at least 51%: order 0: "),
				   "%s", why);
		free(why);
	}
	cr_assert_eq(testfs_check_folio_order(log, FOLIOS, 0, 101, &why),
		     -EINVAL);
	cr_assert_eq(testfs_check_folio_order(log, "other.bin", 0, 1, &why), 1);
	cr_assert_not_null(strstr(why, "no page of it entered the page cache"),
			   "%s", why);
	free(why);
	testfs_log_free(log);
}

/* The whole of control file @name of the mount (free() it). */
static char *read_control(const char *name)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	int fd = testfs_open(fs, name, O_RDONLY);
	ssize_t n;

	cr_assert(buf && fd >= 0, "%s", name);
	while ((n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	cr_assert(n == 0 && len < cap - 1, "%s unread or too long", name);
	buf[len] = '\0';
	return buf;
}

/* The tracer's event count from .testfs/stats ("trace":{..."events":N). */
static uint64_t trace_events(void)
{
	char *stats = read_control(".testfs/stats");
	const char *p = strstr(stats, "\"trace\":{\"on\":true,\"events\":");
	uint64_t n;

	cr_assert_not_null(p, "no trace events in the stats: %.300s", stats);
	n = strtoull(strchr(p, ':') + 1 + strlen("{\"on\":true,\"events\":"),
		     NULL, 10);
	free(stats);
	return n;
}

/*
 * The default records large folios only: the kernel's filter drops the
 * order-0 ones, and the library counts the pages the reads fetched that no
 * large folio holds as order 0. --trace-folios records every folio. Both
 * give the same orders; only the all-folios one pays an event per order-0
 * folio (on a kernel whose FUSE allocates order-0 folios: one per page).
 */
Test(folio_orders, large_folios_by_default_every_folio_when_asked)
{
	static const char *const every[] = { "--trace-folios", NULL };
	struct testfs_folio_orders o[2];
	uint64_t events[2];
	struct testfs_log *log = NULL;
	char *config;
	int k;

	for (k = 0; k < 2; k++) {
		start_with(1, k ? every : NULL);
		config = read_control(".testfs/config");
		cr_assert_not_null(strstr(config, k ? "\"folios\":\"all\""
						    : "\"folios\":\"large\""),
				   "%s: %.400s",
				   k ? "--trace-folios" : "default",
				   strstr(config, "\"trace\"")
					   ? strstr(config, "\"trace\"")
					   : config);
		cr_assert_eq(!!strstr(config, "order > 0"), !k, "%s",
			     strstr(config, "filter"));
		free(config);
		read_whole(FOLIOS, FILE_PAGES);
		testfs_assert_ok(testfs_log_snapshot(fs, &log));
		testfs_assert_traced(log);
		testfs_assert_ok(testfs_log_folio_orders(log, FOLIOS, &o[k]));
		testfs_log_free(log);
		log = NULL;
		events[k] = trace_events();
		ra_stop();
		/* Each page once, or again after DAMON reclaim evicted it. */
		cr_assert_geq(o[k].total_pages, FILE_PAGES);
	}
	cr_log_info("orders: max %d / %d, order-0 pages %llu / %llu; "
		    "events %llu (large folios) / %llu (every folio)",
		    o[0].max_order, o[1].max_order,
		    (unsigned long long)o[0].pages[0],
		    (unsigned long long)o[1].pages[0],
		    (unsigned long long)events[0],
		    (unsigned long long)events[1]);
	cr_assert_eq(o[0].max_order, o[1].max_order);
	if (o[1].max_order != 0)
		return; /* large folios: fewer events than pages either way */
	/* Every page an order-0 folio, counted from the reads or recorded. */
	cr_assert_eq(o[0].pages[0], o[0].total_pages);
	cr_assert_eq(o[1].pages[0], o[1].total_pages);
	/* One event per page with --trace-folios; without, a few per window
	 * of 8 pages (read_ahead_kb 32): async_ra, ra_order, ra_unbounded. */
	cr_assert_geq(events[1], FILE_PAGES, "%llu events",
		      (unsigned long long)events[1]);
	cr_assert_lt(events[0], FILE_PAGES, "%llu events",
		     (unsigned long long)events[0]);
}

Test(folio_orders, untraced_log_names_the_missing_event)
{
	struct testfs_folio_orders o;
	struct testfs_log *log = NULL;
	const char *missing;
	char *why = NULL;

	start(-1);
	read_whole(FOLIOS, 64);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	cr_assert_eq(testfs_log_folio_orders(log, FOLIOS, &o), -ENODATA);
	cr_assert_eq(o.max_order, -1);
	missing = testfs_log_folio_orders_why(log);
	cr_assert_not_null(missing);
	cr_assert_eq(testfs_check_folio_order(log, FOLIOS, 5, 51, &why), 1);
	cr_assert_not_null(strstr(why, FOLIOS ": no folio orders in this log: "
					      "the kernel event "
					      "filemap:mm_filemap_add_to_page_"
					      "cache"),
			   "%s", why);
	cr_assert_not_null(strstr(why, "the daemon did not trace the kernel"),
			   "%s", why);
	free(why);
	cr_assert_eq(testfs_log_folio_orders(NULL, NULL, &o), -EINVAL);
	cr_assert_eq(testfs_check_folio_order(log, NULL, 0, 1, &why), -EINVAL);
	testfs_log_free(log);
}

/* A small xorshift: the same offsets on every run, none of them chosen. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Whatever size the kernel's folios have (order 0 on released kernels,
 * up to a window's order with fuse-large-folios): two readers at
 * scattered offsets and sizes, each read's bytes verified, then the log
 * equals the page cache, no page is fetched twice while cached, every
 * request fits max_pages, and every fetched page entered the cache in a
 * folio the kernel reported.
 */
Test(folio_orders, exact_with_any_folio_size)
{
	static char buf[256 * 1024];
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_folio_orders o;
	struct testfs_log *log = NULL;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int fd[2];
	unsigned i;

	start(1);
	testfs_assert_ok(testfs_cold(fs, MIXED));
	ra_evictions_start(&ra_evicted, fs, MIXED);
	for (i = 0; i < 2; i++) {
		fd[i] = testfs_open(fs, MIXED, O_RDONLY);
		cr_assert_geq(fd[i], 0);
	}
	for (i = 0; i < 200; i++) {
		uint64_t page = next_rand(&x) % MIXED_PAGES;
		size_t len = 1 + next_rand(&x) % sizeof(buf);
		uint64_t off = page * ra_page_size() + next_rand(&x) % 4096;
		uint64_t size = MIXED_PAGES * ra_page_size();
		ssize_t got;

		if (off + len > size)
			len = (size_t)(size - off);
		got = pread(fd[i & 1], buf, len, (off_t)off);
		cr_assert_eq(got, (ssize_t)len, "pread %zu at %llu: %zd", len,
			     (unsigned long long)off, got);
		cr_assert_eq(testfs_verify("random:20261202", MIXED, off, buf,
					   len, NULL),
			     0, "wrong bytes in [%llu, +%zu)",
			     (unsigned long long)off, len);
	}
	close(fd[0]);
	close(fd[1]);
	testfs_assert_ok(testfs_settle(fs, 0));
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_evictions_stop(&ra_evicted);
	ra_assert_consistent_evicting(fs, log, MIXED, 256, &ra_evicted);
	testfs_assert_ok(testfs_log_fetched(log, MIXED, &fetched));
	testfs_assert_ok(testfs_log_folio_orders(log, MIXED, &o));
	cr_assert_geq(o.total_pages, fetched.pages,
		      "%llu pages in folios, %llu fetched",
		      (unsigned long long)o.total_pages,
		      (unsigned long long)fetched.pages);
	cr_log_info("%s: folios of orders up to %d, %llu pages in order %d",
		    MIXED, o.max_order,
		    (unsigned long long)(o.top_order >= 0 ? o.pages[o.top_order]
							  : 0),
		    o.top_order);
	testfs_extents_free(&fetched);
	testfs_log_free(log);
}

/*
 * Bytes [@off, @off + @len) of @name through mapping @m (which maps the
 * whole file): the loads fault the pages in; the bytes are verified.
 */
/* Whether this kernel traces readahead decisions (6.18 does, 6.12 not). */
static bool ra_readahead_events(void)
{
	return access("/sys/kernel/tracing/events/readahead/"
		      "page_cache_sync_ra",
		      F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/events/readahead/"
		      "page_cache_sync_ra",
		      F_OK) == 0;
}

static void touch_mapped(const struct testfs_map *m, const char *name,
			 uint64_t off, size_t len)
{
	cr_assert_eq(testfs_verify("random:20261202", name, off, m->addr + off,
				   len, NULL),
		     0, "%s: wrong bytes through the mapping in [%llu, +%zu)",
		     name, (unsigned long long)off, len);
}

/*
 * mmap and read(2) mixed, at offsets and lengths nobody chose (a fixed
 * xorshift sequence), in a file of random bytes: each access verifies its
 * bytes; then the log equals the page cache (up to evictions), every page
 * touched was fetched, and no page touched is counted wasted. With large
 * folios a fault maps its whole folio (finish_fault()), so most touched
 * pages never fault: they count as mapped, not wasted (src/analysis/).
 * On every kernel: bytes, log against page cache, touched pages fetched.
 * Where the kernel does not trace faults or read(2) lookups (no
 * filemap:mm_filemap_fault or mm_filemap_get_pages), which pages were
 * wasted is not known: the test says so and leaves that check out.
 */
Test(folio_orders, exact_with_mmap_and_reads_mixed)
{
	static char buf[128 * 1024];
	const uint64_t size = (uint64_t)MIXED_PAGES * ra_page_size();
	static const char *const files[] = { MIXED ":16M:random:20261202",
					     NULL };
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_extents by_map = TESTFS_EXTENTS_INIT;
	struct testfs_extents wasted = TESTFS_EXTENTS_INIT;
	struct testfs_extents spared = TESTFS_EXTENTS_INIT;
	struct testfs_extents *checked = &touched;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	struct testfs_config cfg = { 0 };
	struct testfs_log *log = NULL;
	struct testfs_map m;
	uint64_t x = 0x2545f4914f6cdd1dull;
	unsigned i;
	int fd;

	ra_require_fuse();
	cfg.files = files;
	cfg.ra_kb = 512;
	cfg.trace = 1;
	cfg.trace_reads = true; /* read(2) accesses too: wasted is known */
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, MIXED));
	ra_evictions_start(&ra_evicted, fs, MIXED);
	testfs_assert_ok(testfs_map(fs, MIXED, 0, MIXED_PAGES, PROT_READ,
				    MAP_SHARED, &m));
	fd = testfs_open(fs, MIXED, O_RDONLY);
	cr_assert_geq(fd, 0);
	for (i = 0; i < 300; i++) {
		uint64_t off = next_rand(&x) % size;
		size_t len = 1 + next_rand(&x) % sizeof(buf);

		if (off + len > size)
			len = (size_t)(size - off);
		if (next_rand(&x) & 1) {
			touch_mapped(&m, MIXED, off, len);
			testfs_assert_ok(testfs_extents_add(
				&by_map, off / ra_page_size(),
				(off + len - 1) / ra_page_size()));
		} else {
			cr_assert_eq(pread(fd, buf, len, (off_t)off),
				     (ssize_t)len);
			cr_assert_eq(testfs_verify("random:20261202", MIXED,
						   off, buf, len, NULL),
				     0, "wrong bytes read in [%llu, +%zu)",
				     (unsigned long long)off, len);
		}
		testfs_assert_ok(
			testfs_extents_add(&touched, off / ra_page_size(),
					   (off + len - 1) / ra_page_size()));
	}
	close(fd);
	testfs_assert_ok(testfs_settle(fs, 0));
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_evictions_stop(&ra_evicted);
	testfs_assert_traced(log);
	ra_assert_consistent_evicting(fs, log, MIXED, 256, &ra_evicted);
	testfs_assert_touched_plus(log, MIXED, &touched, UINT64_MAX);
	testfs_assert_ok(testfs_log_usage(log, MIXED, &u, &wasted));
	if (!u.wasted_known || !ra_access_events()) {
		/* Said, not asserted: the kernel cannot tell. */
		cr_log_warn("%s: this kernel does not trace %s: exactness "
			    "checked, which touched pages were wasted not",
			    MIXED,
			    u.wasted_known ? "faults (filemap:mm_filemap_fault)"
					   : "read(2) lookups "
					     "(filemap:mm_filemap_get_pages)");
	} else {
		if (!ra_readahead_events()) {
			/* The next test's case: a read(2)'s first pages. */
			cr_log_warn("%s: no readahead:page_cache_sync_ra: a "
				    "read(2) whose first lookup goes untraced "
				    "can leave its first pages counted wasted; "
				    "pages touched through the mapping checked",
				    MIXED);
			checked = &by_map;
		}
		testfs_assert_ok(
			testfs_extents_subtract(checked, &wasted, &spared));
		cr_assert_eq(spared.pages, checked->pages,
			     "touched pages counted wasted: touched %s, "
			     "wasted %s",
			     ra_fmt(checked), ra_fmt(&wasted));
	}
	cr_log_info("%s: %llu pages touched, %llu accessed, %llu mapped, "
		    "%llu wasted",
		    MIXED, (unsigned long long)touched.pages,
		    (unsigned long long)u.accessed,
		    (unsigned long long)u.mapped, (unsigned long long)u.wasted);
	testfs_unmap(&m);
	testfs_extents_free(&touched);
	testfs_extents_free(&by_map);
	testfs_extents_free(&wasted);
	testfs_extents_free(&spared);
	testfs_log_free(log);
}

/*
 * A read(2) whose first pages the kernel does not trace. Pages S+1, S+2,
 * S+4 and S+5 are cached (posix_fadvise(WILLNEED): forced readahead of
 * exactly those pages, no access), S and S+3 are not, and S+3 answers
 * 300 ms late (a --rule). pread() of [S, S+5] is a small random read, so
 * page_cache_sync_ra() reads only the missing pages (do_page_cache_ra()
 * of req_count 6: S, then S+3). Its lookup waits for S, finds S..S+2 and
 * S+3 still being read, and returns S..S+2 without tracing them
 * (filemap_get_pages()'s err: path, 7.3 mm/filemap.c); the next lookup
 * traces [S+3, S+5] only. The read's decision says where it began, so S
 * counts as accessed, not wasted: the mixed test above found page S
 * counted wasted in 1 run of 2 on 6.18 before the correlator used it.
 * Without the readahead events (before 6.10) the kernel says nothing of
 * S: the test says so and checks the bytes only.
 */
#define PREFIX "prefix.bin"
#define PREFIX_S 40u

static void fadvise_pages(int fd, uint64_t first, uint64_t n)
{
	cr_assert_eq(posix_fadvise(fd, (off_t)(first * ra_page_size()),
				   (off_t)(n * ra_page_size()),
				   POSIX_FADV_WILLNEED),
		     0);
}

Test(folio_orders, read_whose_first_pages_go_untraced)
{
	static const char *const files[] = { PREFIX ":1M:random:7", NULL };
	char rule[96];
	const char *const rules[] = { rule, NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;
	struct testfs_extents wasted = TESTFS_EXTENTS_INIT;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	struct testfs_log *log = NULL;
	size_t len = 6 * (size_t)ra_page_size();
	char *buf = malloc(len);
	uint64_t p;
	int fd;

	cr_assert(buf);
	ra_require_fuse();
	ra_require_access_events();
	/* --rule pages= are 4096-byte units (testfs(8)): page S+3's. */
	snprintf(rule, sizeof(rule),
		 "file=%s,pages=%llu-%llu,latency=fixed:300ms", PREFIX,
		 (unsigned long long)((PREFIX_S + 3) * ra_page_size() / 4096),
		 (unsigned long long)((PREFIX_S + 4) * ra_page_size() / 4096 -
				      1));
	cfg.files = files;
	cfg.rules = rules;
	cfg.trace = 1;
	cfg.trace_reads = true;
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, PREFIX));
	fd = testfs_open(fs, PREFIX, O_RDONLY);
	cr_assert_geq(fd, 0);
	fadvise_pages(fd, PREFIX_S + 1, 2);
	fadvise_pages(fd, PREFIX_S + 4, 2);
	testfs_assert_ok(testfs_settle(fs, 0));
	cr_assert_eq(pread(fd, buf, len, (off_t)(PREFIX_S * ra_page_size())),
		     (ssize_t)len);
	cr_assert_eq(testfs_verify("random:7", PREFIX,
				   PREFIX_S * ra_page_size(), buf, len, NULL),
		     0);
	close(fd);
	free(buf);
	testfs_assert_ok(testfs_settle(fs, 0));
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	testfs_assert_traced(log);
	testfs_assert_ok(testfs_log_usage(log, PREFIX, &u, &wasted));
	if (!ra_readahead_events()) {
		cr_log_warn("no readahead:page_cache_sync_ra: where a read(2) "
			    "began is not known when its first lookup is not "
			    "traced; bytes checked only");
	} else {
		for (p = PREFIX_S; p <= PREFIX_S + 5; p++)
			cr_assert(!testfs_extents_contains(&wasted, p),
				  "page %llu read by pread() counted wasted: "
				  "wasted %s",
				  (unsigned long long)p, ra_fmt(&wasted));
		cr_assert_geq(u.accessed, 6);
	}
	testfs_extents_free(&wasted);
	testfs_log_free(log);
}
