// SPDX-License-Identifier: MIT
/*
 * mmap read-around (mm/filemap.c: do_sync_mmap_readahead() without
 * VM_RAND_READ / VM_SEQ_READ reads ra_pages centred on the faulting page,
 * ra->start = index - ra_pages / 2) and how it crosses the ends of the VMA.
 * Mapping file pages [1024, 2047] and touching them in order:
 *  - ra 128 KiB, measured on 6.18: [1008, 2095], 16 before and 48 after;
 *  - ra 1 MiB, measured on 6.18: [896, 2431], 128 before and 384 after;
 *  - PROT_EXEC (Linux >= 6.17 clamps read-around of exec mappings to the
 *    VMA): exactly [1024, 2047].
 * A VMA-limited policy (the 2026 max_index proposal) predicts 0 and 0.
 */
#include "ra_common.h"

#define SLICE_FIRST 1024u
#define SLICE_PAGES 1024u
#define SLICE_LAST (SLICE_FIRST + SLICE_PAGES - 1)

TestSuite(readaround, .fini = ra_stop, .timeout = 60);

static void touch_slice(unsigned ra_kb, int prot, uint64_t want_before,
			uint64_t want_after)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	uint64_t before = 0, after = 0;
	struct testfs_log *log;
	struct testfs_map map;
	char expected[128];

	ra_start(ra_kb);
	testfs_assert_ok(testfs_map(fs, BIG, SLICE_FIRST, SLICE_PAGES, prot,
				    MAP_SHARED, &map));
	testfs_assert_ok(testfs_touch(&map, TESTFS_ORDER_FORWARD, 0, &touched));
	testfs_unmap(&map);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_invariants(log, &touched, 256);

	testfs_assert_ok(testfs_log_outside(log, BIG, SLICE_FIRST, SLICE_LAST,
					    &before, &after));
	testfs_assert_ok(testfs_log_fetched(log, BIG, &fetched));
	cr_log_info(
		"ra %u KiB%s: fetched %s, %llu pages before the VMA, %llu after",
		ra_kb, prot & PROT_EXEC ? " exec" : "", ra_fmt(&fetched),
		(unsigned long long)before, (unsigned long long)after);
	snprintf(expected, sizeof(expected), "%llu before, %llu after",
		 (unsigned long long)want_before,
		 (unsigned long long)want_after);
	testfs_expect_policy(
		prot & PROT_EXEC ? "exec read-around clamped to the VMA"
				 : "read-around ignores VMA bounds",
		before == want_before && after == want_after, expected,
		"%llu before, %llu after (%s)", (unsigned long long)before,
		(unsigned long long)after, ra_fmt(&fetched));
	testfs_extents_free(&fetched);
	testfs_extents_free(&touched);
	testfs_log_free(log);
}

Test(readaround, crosses_vma_ends_ra_128k)
{
	touch_slice(128, PROT_READ, 16, 48);
}

Test(readaround, crosses_vma_ends_ra_1m)
{
	touch_slice(1024, PROT_READ, 128, 384);
}

Test(readaround, exec_mapping_clamped_to_vma)
{
	touch_slice(128, PROT_READ | PROT_EXEC, 0, 0);
}

Test(readaround, exec_mapping_clamped_to_vma_ra_1m)
{
	touch_slice(1024, PROT_READ | PROT_EXEC, 0, 0);
}
