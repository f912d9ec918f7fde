// SPDX-License-Identifier: MIT
/*
 * madvise() hints on a mapping and what fault readahead does with them
 * (mm/filemap.c: do_sync_mmap_readahead()):
 *  - MADV_RANDOM (VM_RAND_READ): no readahead, one page per fault;
 *  - MADV_SEQUENTIAL (VM_SEQ_READ): sync readahead from the faulting page,
 *    measured on 6.18 with ra 32 pages over pages [1024, 2047]: 32-page
 *    windows, nothing outside the mapping;
 *  - MADV_HUGEPAGE (VM_HUGEPAGE): a window of 2 * HPAGE_PMD_NR pages
 *    starting at the PMD-aligned page below the fault (HPAGE_PMD_NR is 512
 *    with 4 KiB pages, page_size / 8 in general: 2048 with 16 KiB pages),
 *    whatever ra_pages is; measured on 6.18: one touch at page 1024
 *    fetches [1024, 2047] (4 MiB) with ra 32 pages.
 */
#include "ra_common.h"

TestSuite(madvise, .fini = ra_stop, .timeout = 60);

static struct testfs_log *touch_with(int advice, uint64_t first,
				     uint64_t npages, enum testfs_order order,
				     uint64_t arg,
				     struct testfs_extents *touched)
{
	struct testfs_log *log;
	struct testfs_map map;

	testfs_assert_ok(testfs_map(fs, BIG, first, npages, PROT_READ,
				    MAP_SHARED, &map));
	testfs_assert_ok(testfs_madvise(&map, advice));
	testfs_assert_ok(testfs_touch(&map, order, arg, touched));
	testfs_unmap(&map);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_invariants(log, touched, 256);
	return log;
}

Test(madvise, random_reads_one_page_per_fault)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	uint64_t largest;

	ra_start(32);
	log = touch_with(MADV_RANDOM, 0, BIG_PAGES, TESTFS_ORDER_STRIDE, 97,
			 &touched);
	largest = testfs_log_max_request(log, BIG);
	testfs_expect_policy(
		"MADV_RANDOM: one page per fault", largest == 1,
		"requests of 1 page", "largest request %llu pages (%s)",
		(unsigned long long)largest, ra_requests(log, BIG, 8));
	testfs_expect_touched_plus(log, BIG, &touched, 0);
	testfs_extents_free(&touched);
	testfs_log_free(log);
}

Test(madvise, sequential_stays_in_the_mapping)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	uint64_t before = 0, after = 0, largest;

	ra_start(32);
	log = touch_with(MADV_SEQUENTIAL, 1024, 1024, TESTFS_ORDER_FORWARD, 0,
			 &touched);
	testfs_assert_ok(
		testfs_log_outside(log, BIG, 1024, 2047, &before, &after));
	largest = testfs_log_max_request(log, BIG);
	testfs_expect_policy(
		"MADV_SEQUENTIAL: sync windows of ra_pages from the fault",
		before == 0 && after == 0 && largest == 32,
		"0 before, 0 after, 32-page requests",
		"%llu before, %llu after, largest %llu (%s)",
		(unsigned long long)before, (unsigned long long)after,
		(unsigned long long)largest, ra_requests(log, BIG, 6));
	testfs_extents_free(&touched);
	testfs_log_free(log);
}

Test(madvise, hugepage_reads_pmd_blocks)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	uint64_t pmd = ra_pmd_pages(), first, last;
	struct testfs_log *log;
	char want[64];

	ra_start(32);
	/* One touch at page 1024 (with 4 KiB pages the start of a 2 MiB
	 * block). */
	log = touch_with(MADV_HUGEPAGE, 1024, 1024, TESTFS_ORDER_STRIDE, 1024,
			 &touched);
	testfs_assert_ok(testfs_log_fetched(log, BIG, &fetched));
	first = 1024 / pmd * pmd;
	last = first + 2 * pmd - 1 < BIG_PAGES - 1 ? first + 2 * pmd - 1
						   : BIG_PAGES - 1;
	snprintf(want, sizeof(want), "[%llu, %llu]", (unsigned long long)first,
		 (unsigned long long)last);
	testfs_expect_policy("MADV_HUGEPAGE: 2 PMDs from the aligned fault",
			     fetched.n == 1 && fetched.v[0].first == first &&
				     fetched.v[0].last == last,
			     want, "%s (%s)", ra_fmt(&fetched),
			     ra_requests(log, BIG, 6));
	testfs_extents_free(&fetched);
	testfs_extents_free(&touched);
	testfs_log_free(log);
}
