/* SPDX-License-Identifier: MIT */
/*
 * Shared set-up of the characterisation suite (tests/ra_*.c). Only the
 * public API is used: <testfs.h> and <testfs/criterion.h>, as a user's
 * test would.
 */
#ifndef TESTFS_RA_COMMON_H
#define TESTFS_RA_COMMON_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <testfs.h>
#include <testfs/criterion.h>

#include "ra_evict.h"

/*
 * The suite counts the running kernel's pages: BIG is BIG_PAGES pages and
 * every read_ahead_kb is set from a window in pages (ra_kb_of()), so the
 * kernel's readahead algorithm, which works in pages, gives the same
 * windows on 4 KiB, 16 KiB and 64 KiB kernels and the expectations below
 * hold on each: BIG is 64 MiB with 4 KiB pages, 256 MiB with 16 KiB ones.
 */
#define BIG "big.bin"
#define BIG_PAGES 16384u

/* The running kernel's page size. */
static inline uint64_t ra_page_size(void)
{
	return testfs_page_size();
}

/* read_ahead_kb for a window of @pages of this kernel's pages. */
static inline unsigned ra_kb_of(unsigned pages)
{
	return (unsigned)(pages * ra_page_size() / 1024);
}

/* "NAME:BYTES" of a file of @pages pages (one of 4 static buffers). */
static inline const char *ra_file_spec(const char *name, uint64_t pages)
{
	static char bufs[4][96];
	static unsigned next;
	char *b = bufs[next++ % 4];

	snprintf(b, 96, "%s:%llu", name,
		 (unsigned long long)(pages * ra_page_size()));
	return b;
}

/*
 * PMD-sized folio in pages (HPAGE_PMD_NR): a page table page holds
 * page_size / 8 entries, 512 with 4 KiB pages, 2048 with 16 KiB ones.
 */
static inline uint64_t ra_pmd_pages(void)
{
	return ra_page_size() / 8;
}

/*
 * The limit of a daemon's start and stop: 30 s rather than the library's
 * 10 s, for guests that emulate another architecture (on a 2-core host at
 * a load of 28, an arm64 guest under TCG took more than 10 s to mount).
 */
#define RA_TIMEOUT_MS 30000u
#define RA_CONFIG_INIT                                                         \
	{                                                                      \
		.timeout_ms = RA_TIMEOUT_MS                                    \
	}

static struct testfs_mount *fs;
/* Pages of BIG that left the cache since ra_start() (root: tracefs). */
static struct ra_evictions ra_evicted;

/* Skips where FUSE cannot work; under CI=true that is a failure. */
static inline void ra_require_fuse(void)
{
	const char *ci = getenv("CI");
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return;
	}
	if (ci && strcmp(ci, "true") == 0)
		cr_assert_fail("FUSE unavailable under CI=true: /dev/fuse: %s",
			       strerror(errno));
	cr_skip_test("FUSE unavailable: /dev/fuse: %s", strerror(errno));
}

/*
 * Skips a test that needs accesses traced: the daemon sees faults and
 * read(2) lookups through filemap:* events (mm_filemap_fault and its
 * neighbours, 6.5 and later); without them no access is seen, so nothing
 * can be called accessed, aged or wasted.
 */
/* Whether this kernel traces accesses (filemap:mm_filemap_fault). */
static inline bool ra_access_events(void)
{
	return access("/sys/kernel/tracing/events/filemap/mm_filemap_fault",
		      F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/events/filemap/"
		      "mm_filemap_fault",
		      F_OK) == 0;
}

static inline void ra_require_access_events(void)
{
	if (ra_access_events())
		return;
	cr_skip_test("this kernel has no filemap:mm_filemap_fault event: "
		     "accesses are not traced");
}

/*
 * A BIG_PAGES-page stamp file with a readahead window of @ra_pages pages
 * (read_ahead_kb ra_kb_of(@ra_pages)), cold and logged.
 */
static inline void ra_start(unsigned ra_pages)
{
	const char *files[] = { ra_file_spec(BIG, BIG_PAGES), NULL };
	struct testfs_config cfg = RA_CONFIG_INIT;

	ra_require_fuse();
	cfg.files = files;
	cfg.ra_kb = ra_kb_of(ra_pages);
	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_assert_ok(testfs_cold(fs, BIG));
	ra_evictions_start(&ra_evicted, fs, BIG);
}

static inline void ra_stop(void)
{
	int status;

	ra_evictions_free(&ra_evicted);
	if (!fs)
		return;
	status = testfs_stop(fs);
	fs = NULL;
	/*
	 * Catches what ASan or UBSan found in the daemon. A failed assertion
	 * in a .fini does not fail the test; a crash does.
	 */
	if (status != 0) {
		struct rlimit no_core = { 0, 0 };

		fprintf(stderr, "testfs exited with status %d\n", status);
		fflush(stderr);
		setrlimit(RLIMIT_CORE, &no_core);
		abort();
	}
}

/* The first @max requests for @name as "(first,pages) (first,pages)". */
static inline const char *ra_requests(const struct testfs_log *log,
				      const char *name, size_t max)
{
	static char buf[4096];
	size_t i, used = 0, shown = 0;

	buf[0] = '\0';
	for (i = 0; i < testfs_log_count(log); i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind != TESTFS_RECORD_READ || strcmp(r->file, name))
			continue;
		if (shown++ == max)
			break;
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
					 "%s(%llu,%llu)", used ? " " : "",
					 (unsigned long long)r->page,
					 (unsigned long long)r->pages);
		if (used >= sizeof(buf))
			break;
	}
	return buf;
}

/* Extents as text, for messages. */
static inline const char *ra_fmt(const struct testfs_extents *e)
{
	static char bufs[4][1024];
	static unsigned next;
	char *b = bufs[next++ % 4];

	testfs_extents_format(e, b, 1024);
	return b;
}

/*
 * The invariants every test asserts, whatever the kernel: the log and the
 * cache agree, no request exceeds @max_pages, no page was fetched twice
 * unless it left the cache in between (reclaim, DAMON on some VMs, may
 * evict what was read ahead before the reader gets there), and every
 * touched page was fetched.
 */
static inline void ra_invariants(const struct testfs_log *log,
				 const struct testfs_extents *touched,
				 uint64_t max_pages)
{
	ra_evictions_stop(&ra_evicted);
	ra_assert_consistent_evicting(fs, log, BIG, max_pages, &ra_evicted);
	if (touched)
		testfs_assert_touched_plus(log, BIG, touched, UINT64_MAX);
}

#endif
