// SPDX-License-Identifier: MIT
/*
 * Sequential read(2) of 4 KiB blocks from offset 0: the readahead window
 * ramp-up (mm/readahead.c: page_cache_sync_ra() starts a window of
 * get_init_ra_size() = 4x a small request; each hit on the marker page
 * starts an async window of get_next_ra_size(), 4x while small, then 2x,
 * capped at ra_pages; with FUSE each window arrives as one FUSE_READ when
 * it fits max_pages).
 */
#include "ra_common.h"

TestSuite(read_ramp, .fini = ra_stop, .timeout = 60);

static void ramp(unsigned ra_pages, uint64_t npages, const char *measured)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	const char *seen;
	int fd;

	ra_start(ra_pages);
	fd = testfs_open(fs, BIG, O_RDONLY);
	testfs_assert_ok(fd);
	/* One page per read(2): a 4 KiB block on a 4 KiB kernel. */
	testfs_assert_ok(testfs_read_pages(fd, 0, npages, 0,
					   TESTFS_ORDER_FORWARD, 0, &touched));
	close(fd);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));

	/* Any kernel: exact log, no window above the configured size. */
	ra_invariants(log, &touched, ra_pages);

	/* This kernel's policy, measured on Linux 6.18. */
	seen = ra_requests(log, BIG, 7);
	testfs_expect_policy("window ramp 4x then 2x up to ra_pages",
			     strcmp(seen, measured) == 0, measured, "%s", seen);
	testfs_log_free(log);
	testfs_extents_free(&touched);
}

/* ra 32 pages (128 KiB of 4 KiB pages), 64 pages read: measured (0,4) (4,8)
 * (12,16) (28,32) (60,32) (92,32). */
Test(read_ramp, ra_128k)
{
	ramp(32, 64, "(0,4) (4,8) (12,16) (28,32) (60,32) (92,32)");
}

/* ra 256 pages (1 MiB of 4 KiB pages), 512 pages read: measured (0,4) (4,16)
 * (20,32) (52,64) (116,128) (244,256) (500,256). */
Test(read_ramp, ra_1m)
{
	ramp(256, 512,
	     "(0,4) (4,16) (20,32) (52,64) (116,128) (244,256) (500,256)");
}
