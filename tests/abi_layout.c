// SPDX-License-Identifier: MIT
/*
 * libtestfs's ABI (the rule at the top of testfs.h), from the public
 * header and the shared library alone, as a program built elsewhere sees
 * them:
 *
 * - layout: sizeof and offsetof of every public struct, against the
 *   numbers written down below from the header as it is (x86-64 and other
 *   LP64 targets). A change that moves a field fails here; a field added
 *   at the end of a sized struct or a record by the rule is added here.
 * - sized structs: a struct_size smaller than the library's is served that
 *   many bytes and not one more; a larger one (a newer header) gets the
 *   library's bytes and its tail left alone; sizes no header declared are
 *   refused.
 * - the symbol versions before struct_size (TESTFS_0.1 to TESTFS_0.4) serve
 *   the layouts of their time: the struct less its leading struct_size, and
 *   for testfs_log_page_age@TESTFS_0.3 the struct without reads_untraced.
 * - records are stepped through by the library's stride.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <testfs.h>
#include <testfs/criterion.h>

/* ------------------------------------------------------------------ */
/* Layout                                                              */
/* ------------------------------------------------------------------ */

struct layout {
	const char *what;
	size_t got;
	size_t want;
};

#define SIZE(T, n)                                                             \
	{                                                                      \
		"sizeof(struct testfs_" #T ")", sizeof(struct testfs_##T), n   \
	}
#define OFF(T, f, n)                                                           \
	{                                                                      \
		"offsetof(struct testfs_" #T ", " #f ")",                      \
			offsetof(struct testfs_##T, f), n                      \
	}

/* Written down from include/testfs/ as of TESTFS_0.5 (LP64). */
static const struct layout layouts[] = {
	SIZE(config, 112),
	OFF(config, struct_size, 0),
	OFF(config, files, 8),
	OFF(config, ra_kb, 16),
	OFF(config, max_pages, 20),
	OFF(config, max_background, 24),
	OFF(config, congestion_threshold, 28),
	OFF(config, log_capacity, 32),
	OFF(config, log_path, 40),
	OFF(config, daemon, 48),
	OFF(config, latency, 56),
	OFF(config, rules, 64),
	OFF(config, errors, 72),
	OFF(config, extra_args, 80),
	OFF(config, timeout_ms, 88),
	OFF(config, trace, 92),
	OFF(config, trace_reads, 96),
	OFF(config, mount_dir, 104),
	SIZE(settings, 896),
	OFF(settings, struct_size, 0),
	OFF(settings, version, 8),
	OFF(settings, kernel, 40),
	OFF(settings, bdi, 168),
	OFF(settings, ra_kb, 200),
	OFF(settings, max_pages, 204),
	OFF(settings, max_background, 208),
	OFF(settings, congestion_threshold, 212),
	OFF(settings, log_capacity, 216),
	OFF(settings, latency, 224),
	OFF(settings, tracing, 352),
	OFF(settings, trace_reads, 356),
	OFF(settings, trace_why, 357),
	OFF(settings, files, 616),
	OFF(settings, pid, 624),
	OFF(settings, transport, 628),
	OFF(settings, transport_note, 636),
	SIZE(record, 184),
	OFF(record, seq, 0),
	OFF(record, kind, 8),
	OFF(record, file, 16),
	OFF(record, ino, 24),
	OFF(record, off, 32),
	OFF(record, len, 40),
	OFF(record, page, 48),
	OFF(record, pages, 56),
	OFF(record, t_ns, 64),
	OFF(record, done_ns, 72),
	OFF(record, delay_ns, 80),
	OFF(record, pid, 88),
	OFF(record, err, 92),
	OFF(record, direct, 96),
	OFF(record, mark, 104),
	OFF(record, cause, 112),
	OFF(record, window, 116),
	OFF(record, ra_start, 120),
	OFF(record, ra_size, 128),
	OFF(record, ra_async, 132),
	OFF(record, ra_marker, 136),
	OFF(record, ra_pages, 144),
	OFF(record, mmap_miss, 148),
	OFF(record, trigger_page, 152),
	OFF(record, folio_order, 160),
	OFF(record, alloc_order, 164),
	OFF(record, late, 168),
	OFF(record, by_read, 169),
	OFF(record, unique, 176),
	SIZE(extent, 16),
	OFF(extent, first, 0),
	OFF(extent, last, 8),
	SIZE(extents, 32),
	OFF(extents, v, 0),
	OFF(extents, n, 8),
	OFF(extents, cap, 16),
	OFF(extents, pages, 24),
	SIZE(access, 56),
	OFF(access, file, 0),
	OFF(access, first, 8),
	OFF(access, last, 16),
	OFF(access, type, 24),
	OFF(access, pid, 28),
	OFF(access, t_ns, 32),
	OFF(access, end_ns, 40),
	OFF(access, events, 48),
	OFF(access, late, 52),
	SIZE(window, 128),
	OFF(window, id, 0),
	OFF(window, file, 8),
	OFF(window, cause, 16),
	OFF(window, trigger_page, 24),
	OFF(window, start, 32),
	OFF(window, size, 40),
	OFF(window, async_size, 44),
	OFF(window, marker, 48),
	OFF(window, ra_pages, 56),
	OFF(window, mmap_miss, 60),
	OFF(window, folio_order, 64),
	OFF(window, alloc_order, 68),
	OFF(window, requests, 72),
	OFF(window, first_seq, 80),
	OFF(window, first_page, 88),
	OFF(window, last_page, 96),
	OFF(window, pages, 104),
	OFF(window, t_ns, 112),
	OFF(window, late, 120),
	SIZE(usage, 64),
	OFF(usage, struct_size, 0),
	OFF(usage, fetched, 8),
	OFF(usage, accessed, 16),
	OFF(usage, mapped, 24),
	OFF(usage, wasted, 32),
	OFF(usage, late_accesses, 40),
	OFF(usage, late_reads, 48),
	OFF(usage, wasted_known, 56),
	SIZE(histograms, 408),
	OFF(histograms, struct_size, 0),
	OFF(histograms, request_pages, 8),
	OFF(histograms, order_asked, 136),
	OFF(histograms, order_asked_unknown, 264),
	OFF(histograms, order_allocated, 272),
	OFF(histograms, order_allocated_unknown, 400),
	SIZE(page_age, 264),
	OFF(page_age, struct_size, 0),
	OFF(page_age, pages, 8),
	OFF(page_age, bucket, 16),
	OFF(page_age, late, 224),
	OFF(page_age, never, 232),
	OFF(page_age, mapped, 240),
	OFF(page_age, resolution_ns, 248),
	OFF(page_age, reads_untraced, 256),
	SIZE(map, 40),
	OFF(map, addr, 0),
	OFF(map, len, 8),
	OFF(map, first_page, 16),
	OFF(map, npages, 24),
	OFF(map, fd, 32),
	OFF(map, prot, 36),
	SIZE(cachestat, 48),
	OFF(cachestat, struct_size, 0),
	OFF(cachestat, nr_cache, 8),
	OFF(cachestat, nr_dirty, 16),
	OFF(cachestat, nr_writeback, 24),
	OFF(cachestat, nr_evicted, 32),
	OFF(cachestat, nr_recently_evicted, 40),
	SIZE(pattern, 16),
	OFF(pattern, kind, 0),
	OFF(pattern, seed, 8),
};

Test(abi, layout)
{
	size_t i;

	if (sizeof(void *) != 8 || sizeof(long) != 8)
		cr_skip_test("the numbers are written down for LP64 targets");
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		cr_expect_eq(layouts[i].got, layouts[i].want,
			     "%s is %zu, written down as %zu: a field moved "
			     "(see the rule at the top of testfs.h)",
			     layouts[i].what, layouts[i].got, layouts[i].want);
}

Test(abi, initialisers_set_the_size)
{
	struct testfs_config c = TESTFS_CONFIG_INIT;
	struct testfs_settings s = TESTFS_SETTINGS_INIT;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	struct testfs_histograms h = TESTFS_HISTOGRAMS_INIT;
	struct testfs_page_age a = TESTFS_PAGE_AGE_INIT;
	struct testfs_cachestat cs = TESTFS_CACHESTAT_INIT;

	cr_assert_eq(c.struct_size, sizeof(c));
	cr_assert_null(c.files);
	cr_assert_eq(s.struct_size, sizeof(s));
	cr_assert_eq(u.struct_size, sizeof(u));
	cr_assert_eq(h.struct_size, sizeof(h));
	cr_assert_eq(a.struct_size, sizeof(a));
	cr_assert_eq(cs.struct_size, sizeof(cs));
	cr_assert_eq(testfs_record_stride(), sizeof(struct testfs_record));
}

/* ------------------------------------------------------------------ */
/* Sized structs, without a mount                                      */
/* ------------------------------------------------------------------ */

#define CANARY 0xa5

/* Whether bytes [@from, @to) of @p are all CANARY. */
static bool untouched(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from] != CANARY)
			return false;
	return true;
}

/* Whether bytes [@from, @to) of @p are all 0. */
static bool zero(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from])
			return false;
	return true;
}

/*
 * An older header's struct: the histograms up to order_asked_unknown. A
 * failing call (no log) fills the fields it has room for with zeros,
 * struct_size says how many bytes, and what lies past them is untouched.
 */
Test(abi, smaller_struct_is_served_its_bytes_only)
{
	const size_t n = offsetof(struct testfs_histograms, order_allocated);
	struct testfs_histograms h;

	memset(&h, CANARY, sizeof(h));
	h.struct_size = n;
	cr_assert_eq((testfs_log_histograms)(NULL, NULL, &h), -EINVAL);
	cr_assert_eq(h.struct_size, n);
	cr_assert(zero(&h, sizeof(size_t), n));
	cr_assert(untouched(&h, n, sizeof(h)), "the library wrote past %zu", n);
}

/* A newer header's struct: the library fills its own size, no more. */
Test(abi, larger_struct_keeps_its_tail)
{
	struct {
		struct testfs_usage u;
		unsigned char newer[40];
	} big;

	memset(&big, CANARY, sizeof(big));
	big.u.struct_size = sizeof(big);
	cr_assert_eq((testfs_log_usage)(NULL, "x", &big.u, NULL), -EINVAL);
	cr_assert_eq(big.u.struct_size, sizeof(struct testfs_usage));
	cr_assert(zero(&big, sizeof(size_t), sizeof(big.u)));
	cr_assert(untouched(big.newer, 0, sizeof(big.newer)));
}

/* Sizes no header declared: refused, the struct untouched. */
Test(abi, impossible_sizes_are_refused)
{
	const size_t bad[] = { 1, sizeof(size_t) - 1, 65537, (size_t)-1 };
	struct testfs_config cfg;
	struct testfs_page_age a;
	char buf[4096];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&a, CANARY, sizeof(a));
		a.struct_size = bad[i];
		cr_assert_eq((testfs_log_page_age)(NULL, "x", &a), -EINVAL);
		cr_assert_eq(a.struct_size, bad[i]);
		cr_assert(untouched(&a, sizeof(size_t), sizeof(a)));
		memset(&cfg, 0, sizeof(cfg));
		cfg.struct_size = bad[i];
		cr_assert_eq(testfs_find_daemon(&cfg, buf, sizeof(buf)),
			     -EINVAL);
	}
}

/* struct_size 0 (a zeroed struct, designated initialisers): TESTFS_0.5's. */
Test(abi, zero_size_is_the_first_sized_layout)
{
	struct testfs_cachestat cs;

	memset(&cs, CANARY, sizeof(cs));
	cs.struct_size = 0;
	cr_assert_eq((testfs_cachestat)(NULL, "x", 0, 0, &cs), -EINVAL);
	cr_assert_eq(cs.struct_size, sizeof(cs));
	cr_assert(zero(&cs, sizeof(size_t), sizeof(cs)));
}

/*
 * Through the header's macros an output struct needs no initialiser: its
 * struct_size (here garbage) is set to the size this program was built with.
 */
Test(abi, output_structs_need_no_initialiser)
{
	struct testfs_histograms h;

	memset(&h, CANARY, sizeof(h));
	cr_assert_eq(testfs_log_histograms(NULL, NULL, &h), -EINVAL);
	cr_assert_eq(h.struct_size, sizeof(h));
	cr_assert(zero(&h, sizeof(size_t), sizeof(h)));
}

/* ------------------------------------------------------------------ */
/* The versions before struct_size, and the stride, on a mount          */
/* ------------------------------------------------------------------ */

/* The library's entry points as programs built before TESTFS_0.5 bind. */
int old_start(const void *cfg, struct testfs_mount **out);
int old_settings(const struct testfs_mount *fs, void *out);
int old_usage(const struct testfs_log *log, const char *name, void *out,
	      struct testfs_extents *wasted);
int old_histograms(const struct testfs_log *log, const char *name, void *out);
int old_page_age(const struct testfs_log *log, const char *name, void *out);
__asm__(".symver old_start, testfs_start@TESTFS_0.1");
__asm__(".symver old_settings, testfs_settings@TESTFS_0.2");
__asm__(".symver old_usage, testfs_log_usage@TESTFS_0.1");
__asm__(".symver old_histograms, testfs_log_histograms@TESTFS_0.1");
__asm__(".symver old_page_age, testfs_log_page_age@TESTFS_0.3");

#define HEAD sizeof(size_t)
#define FILE_NAME "a.bin"

static struct testfs_mount *fs;

/* Started through the TESTFS_0.1 entry point with the old layout. */
static void start_old(void)
{
	static const char *const files[] = { FILE_NAME ":1M:stamp", NULL };
	struct testfs_config cfg = { .files = files, .trace = 0 };
	unsigned char old[sizeof(cfg) - HEAD];

	memcpy(old, (const char *)&cfg + HEAD, sizeof(old));
	testfs_assert_ok(old_start(old, &fs));
}

static void stop(void)
{
	if (fs)
		testfs_stop(fs);
	fs = NULL;
}

TestSuite(abi_mount, .init = start_old, .fini = stop, .timeout = 60);

/* Reads pages 0-7 of FILE_NAME and takes a snapshot. */
static struct testfs_log *read_some(void)
{
	struct testfs_log *log;
	int fd;

	testfs_assert_ok(testfs_cold(fs, FILE_NAME));
	fd = testfs_open(fs, FILE_NAME, O_RDONLY);
	testfs_assert_ok(fd);
	testfs_assert_ok(testfs_fadvise(fd, 0, 0, POSIX_FADV_RANDOM));
	cr_assert_eq(
		testfs_read_pages(fd, 0, 8, 0, TESTFS_ORDER_FORWARD, 0, NULL),
		8 * 4096);
	close(fd);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	return log;
}

Test(abi_mount, old_config_and_settings_layouts)
{
	struct testfs_settings now = TESTFS_SETTINGS_INIT;
	unsigned char old[sizeof(now) - HEAD + 16];

	/* The old config's file list reached the daemon. */
	cr_assert_eq(testfs_file_size(fs, FILE_NAME), 1 << 20);
	testfs_assert_ok(testfs_settings(fs, &now));
	memset(old, CANARY, sizeof(old));
	testfs_assert_ok(old_settings(fs, old));
	cr_assert_eq(memcmp(old, (const char *)&now + HEAD, sizeof(now) - HEAD),
		     0, "the TESTFS_0.2 settings differ from the current ones");
	cr_assert(untouched(old, sizeof(now) - HEAD, sizeof(old)));

	/* A smaller current struct: up to the transport, not past it. */
	memset(&now, CANARY, sizeof(now));
	now.struct_size = offsetof(struct testfs_settings, transport);
	testfs_assert_ok((testfs_settings)(fs, &now));
	cr_assert_eq(now.files, 1);
	cr_assert_neq(now.version[0], '\0');
	cr_assert(untouched(&now, offsetof(struct testfs_settings, transport),
			    sizeof(now)));
}

Test(abi_mount, old_usage_and_histograms_layouts)
{
	struct testfs_histograms h = TESTFS_HISTOGRAMS_INIT;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	unsigned char old[sizeof(h) - HEAD + 16];
	struct testfs_log *log = read_some();

	testfs_assert_ok(testfs_log_usage(log, FILE_NAME, &u, NULL));
	cr_assert_eq(u.fetched, 8);
	memset(old, CANARY, sizeof(old));
	testfs_assert_ok(old_usage(log, FILE_NAME, old, NULL));
	cr_assert_eq(memcmp(old, (const char *)&u + HEAD, sizeof(u) - HEAD), 0);
	cr_assert(untouched(old, sizeof(u) - HEAD, sizeof(old)));

	testfs_assert_ok(testfs_log_histograms(log, FILE_NAME, &h));
	cr_assert_eq(h.request_pages[0], 8, "one read a page, 8 reads");
	memset(old, CANARY, sizeof(old));
	testfs_assert_ok(old_histograms(log, FILE_NAME, old));
	cr_assert_eq(memcmp(old, (const char *)&h + HEAD, sizeof(h) - HEAD), 0);
	cr_assert(untouched(old, sizeof(h) - HEAD, sizeof(old)));
	testfs_log_free(log);
}

/*
 * TESTFS_0.3's testfs_page_age ended before reads_untraced: the old entry
 * point fills those bytes and nothing after them.
 */
Test(abi_mount, page_age_0_3_has_no_reads_untraced)
{
	const size_t old_size =
		offsetof(struct testfs_page_age, reads_untraced) - HEAD;
	struct testfs_page_age a = TESTFS_PAGE_AGE_INIT;
	unsigned char old[sizeof(a)];
	struct testfs_log *log = read_some();
	int err, old_err;

	err = testfs_log_page_age(log, FILE_NAME, &a);
	memset(old, CANARY, sizeof(old));
	old_err = old_page_age(log, FILE_NAME, old);
	cr_assert_eq(old_err, err);
	cr_assert(err == 0 || err == -ENODATA, "%s", testfs_strerror(err));
	cr_assert_eq(memcmp(old, (const char *)&a + HEAD, old_size), 0);
	cr_assert(untouched(old, old_size, sizeof(old)),
		  "TESTFS_0.3 wrote past its %zu-byte struct", old_size);
	testfs_log_free(log);
}

Test(abi_mount, records_by_the_library_stride)
{
	struct testfs_log *log = read_some();
	size_t n, i, stride = testfs_record_stride();
	const struct testfs_record *r = testfs_log_records(log, &n);

	cr_assert_geq(stride, sizeof(struct testfs_record));
	cr_assert_eq(n, testfs_log_count(log));
	cr_assert_geq(n, 8);
	for (i = 0; i < n; i++)
		cr_assert_eq(testfs_records_step(r, stride, i),
			     testfs_log_at(log, i));
	testfs_log_free(log);
}
