// SPDX-License-Identifier: MIT
/*
 * A mapping split by mprotect() into 1024-page VMAs (alternating PROT_READ and
 * PROT_READ | PROT_WRITE on a private mapping), read one byte per page in
 * order: the baseline of the 2026 regression story. On current kernels
 * fault readahead does not look at VMA boundaries: after the first
 * read-around, async readahead runs straight across them in full windows
 * of ra_pages (measured on 6.18: every request but the first is 32 pages
 * with ra 32 pages (128 KiB of 4 KiB pages), 256 with ra 256, and no VMA starts
 * with a fault that had to wait for a fresh window).
 */
#include "ra_common.h"

#define SEG_PAGES 1024u /* 4 MiB with 4 KiB pages */
#define NSEG 8u

TestSuite(mprotect_split, .fini = ra_stop, .timeout = 60);

static void split_and_read(unsigned ra_pages)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	uint64_t i, short_windows = 0, nreq = 0;
	struct testfs_log *log;
	struct testfs_map map;
	int nvma;

	ra_start(ra_pages);
	testfs_assert_ok(testfs_map(fs, BIG, 0, SEG_PAGES * NSEG, PROT_READ,
				    MAP_PRIVATE, &map));
	nvma = testfs_split(&map, SEG_PAGES, PROT_READ, PROT_READ | PROT_WRITE);
	testfs_assert_ok(nvma);
	cr_assert_eq(nvma, (int)NSEG);
	testfs_assert_ok(testfs_touch(&map, TESTFS_ORDER_FORWARD, 0, &touched));
	testfs_unmap(&map);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	ra_invariants(log, &touched, 256);

	for (i = 0; i < testfs_log_count(log); i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind != TESTFS_RECORD_READ)
			continue;
		/* The first request is the read-around of the first fault;
		 * the file ends at page 16383, far from this range. */
		if (nreq++ > 0 && r->pages != ra_pages)
			short_windows++;
	}
	testfs_expect_policy(
		"readahead crosses VMA boundaries in full windows",
		short_windows == 0,
		"every request after the first a full window",
		"%llu of %llu requests shorter than %llu pages (%s)",
		(unsigned long long)short_windows, (unsigned long long)nreq,
		(unsigned long long)ra_pages, ra_requests(log, BIG, 12));
	testfs_extents_free(&touched);
	testfs_log_free(log);
}

Test(mprotect_split, crosses_boundaries_ra_128k)
{
	split_and_read(32);
}

Test(mprotect_split, crosses_boundaries_ra_1m)
{
	split_and_read(256);
}
