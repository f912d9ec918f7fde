// SPDX-License-Identifier: MIT
/*
 * posix_fadvise() hints and readahead(2) (mm/fadvise.c, mm/readahead.c):
 *  - POSIX_FADV_SEQUENTIAL doubles the file's ra_pages: measured on 6.18
 *    with ra 1 MiB, 4 KiB reads from 0: (0,4) (4,16) (20,64) (84,128)
 *    (212,256) (468,256), where the plain ramp is (20,32) (52,64) ...;
 *  - POSIX_FADV_RANDOM (FMODE_RANDOM): no readahead, each read fetches
 *    exactly what it asks;
 *  - POSIX_FADV_WILLNEED and readahead(2): force_page_cache_ra() reads the
 *    range asked (capped at max(io_pages, ra_pages) per call) with no
 *    marker, so no async readahead follows;
 *  - POSIX_FADV_WILLNEED with len 0 ("to the end", testfs_fadvise() with
 *    npages 0) reads ra_pages pages from the offset, not the whole file:
 *    measured on 6.18 from page 100 of 64 MiB, [100, 131] at ra 128 KiB,
 *    [100, 355] at 1 MiB, [100, 1123] at 4 MiB.
 */
#include "ra_common.h"

TestSuite(fadvise, .fini = ra_stop, .timeout = 60);

static struct testfs_log *read_with(int advice, uint64_t first, uint64_t npages,
				    struct testfs_extents *touched)
{
	struct testfs_log *log;
	int fd = testfs_open(fs, BIG, O_RDONLY);

	testfs_assert_ok(fd);
	testfs_assert_ok(testfs_fadvise(fd, 0, 0, advice));
	testfs_assert_ok(testfs_read_pages(fd, first, npages, 0,
					   TESTFS_ORDER_FORWARD, 0, touched));
	close(fd);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_invariants(log, touched, 256);
	return log;
}

Test(fadvise, sequential_doubles_the_window)
{
	static const char measured[] =
		"(0,4) (4,16) (20,64) (84,128) (212,256) (468,256)";
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	const char *seen;

	ra_start(256);
	log = read_with(POSIX_FADV_SEQUENTIAL, 0, 600, &touched);
	seen = ra_requests(log, BIG, 6);
	testfs_expect_policy("FADV_SEQUENTIAL: 2x ra_pages",
			     strcmp(seen, measured) == 0, measured, "%s", seen);
	testfs_extents_free(&touched);
	testfs_log_free(log);
}

Test(fadvise, random_reads_exactly_what_is_asked)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	uint64_t largest;

	ra_start(256);
	log = read_with(POSIX_FADV_RANDOM, 1000, 200, &touched);
	largest = testfs_log_max_request(log, BIG);
	testfs_expect_policy("FADV_RANDOM: no readahead", largest == 1,
			     "requests of 1 page", "largest %llu (%s)",
			     (unsigned long long)largest,
			     ra_requests(log, BIG, 6));
	testfs_expect_touched_plus(log, BIG, &touched, 0);
	testfs_extents_free(&touched);
	testfs_log_free(log);
}

static void forced(bool use_readahead_syscall)
{
	struct testfs_extents want = TESTFS_EXTENTS_INIT;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	int fd;

	ra_start(32);
	fd = testfs_open(fs, BIG, O_RDONLY);
	testfs_assert_ok(fd);
	if (use_readahead_syscall)
		cr_assert_eq(readahead(fd, 100 * ra_page_size(),
				       24 * ra_page_size()),
			     0, "readahead: %s", strerror(errno));
	else
		testfs_assert_ok(
			testfs_fadvise(fd, 100, 24, POSIX_FADV_WILLNEED));
	close(fd);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_invariants(log, NULL, 256);
	testfs_assert_ok(testfs_log_fetched(log, BIG, &fetched));
	testfs_assert_ok(testfs_extents_add(&want, 100, 123));
	testfs_expect_policy(
		use_readahead_syscall
			? "readahead(2): the range asked, no more"
			: "FADV_WILLNEED: the range asked, no more",
		testfs_extents_equal(&fetched, &want), "[100, 123]", "%s (%s)",
		ra_fmt(&fetched), ra_requests(log, BIG, 6));
	testfs_extents_free(&fetched);
	testfs_extents_free(&want);
	testfs_log_free(log);
}

Test(fadvise, willneed_reads_the_range)
{
	forced(false);
}

Test(fadvise, readahead_syscall_reads_the_range)
{
	forced(true);
}

/* testfs_fadvise(npages 0) is "to the end": WILLNEED caps it at ra_pages. */
Test(fadvise, willneed_to_the_end_reads_ra_pages)
{
	struct testfs_extents want = TESTFS_EXTENTS_INIT;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	int fd;

	ra_start(256);
	fd = testfs_open(fs, BIG, O_RDONLY);
	testfs_assert_ok(fd);
	testfs_assert_ok(testfs_fadvise(fd, 100, 0, POSIX_FADV_WILLNEED));
	close(fd);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_invariants(log, NULL, 256);
	testfs_assert_ok(testfs_log_fetched(log, BIG, &fetched));
	/* Never past the end, and never less than the first page. */
	testfs_assert_covers(log, BIG, 100, 100);
	testfs_assert_within(log, BIG, 100, BIG_PAGES - 1);
	testfs_assert_ok(testfs_extents_add(&want, 100, 355));
	testfs_expect_policy(
		"FADV_WILLNEED to the end: ra_pages from the offset",
		testfs_extents_equal(&fetched, &want), "[100, 355]", "%s (%s)",
		ra_fmt(&fetched), ra_requests(log, BIG, 6));
	testfs_extents_free(&fetched);
	testfs_extents_free(&want);
	testfs_log_free(log);
}
