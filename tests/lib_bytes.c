// SPDX-License-Identifier: MIT
/*
 * libtestfs without a mount: testfs_check_covers(), the byte-offset
 * helpers and the byte-range checks on the hand-made readahead of
 * lib_fake_log.h (big.bin: pages [896, 2431] in six 256-page reads).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib_fake_log.h"
#include "lib_i.h"

#define PG TESTFS_PAGE_SIZE

Test(bytes, pages_of_bytes)
{
	uint64_t first = 7, last = 7;

	cr_assert_eq(testfs_pages_of_bytes(0, 1, &first, &last), 0);
	cr_assert_eq(first, 0);
	cr_assert_eq(last, 0);
	cr_assert_eq(testfs_pages_of_bytes(0, PG, &first, &last), 0);
	cr_assert_eq(last, 0);
	cr_assert_eq(testfs_pages_of_bytes(0, PG + 1, &first, &last), 0);
	cr_assert_eq(last, 1);
	/* A range inside one page and one across a boundary. */
	cr_assert_eq(testfs_pages_of_bytes(4000, 200, &first, &last), 0);
	cr_assert_eq(first, 0);
	cr_assert_eq(last, 1);
	cr_assert_eq(testfs_pages_of_bytes(5 * PG + 7, 9, &first, &last), 0);
	cr_assert_eq(first, 5);
	cr_assert_eq(last, 5);
	/* The very last byte, and NULL outputs. */
	cr_assert_eq(testfs_pages_of_bytes(UINT64_MAX, 1, &first, &last), 0);
	cr_assert_eq(first, UINT64_MAX / PG);
	cr_assert_eq(last, UINT64_MAX / PG);
	cr_assert_eq(testfs_pages_of_bytes(0, UINT64_MAX, NULL, NULL), 0);
	cr_assert_eq(testfs_pages_of_bytes(2, UINT64_MAX, &first, &last),
		     -EINVAL);
	cr_assert_eq(testfs_pages_of_bytes(10, 0, &first, &last), -EINVAL);
}

Test(bytes, bytes_of_pages)
{
	uint64_t off = 1, len = 1, first, last;

	cr_assert_eq(testfs_bytes_of_pages(0, 0, &off, &len), 0);
	cr_assert_eq(off, 0);
	cr_assert_eq(len, PG);
	cr_assert_eq(testfs_bytes_of_pages(896, 2431, &off, &len), 0);
	cr_assert_eq(off, 896 * PG);
	cr_assert_eq(len, 1536 * PG);
	/* Back again: the same pages. */
	cr_assert_eq(testfs_pages_of_bytes(off, len, &first, &last), 0);
	cr_assert_eq(first, 896);
	cr_assert_eq(last, 2431);
	cr_assert_eq(testfs_bytes_of_pages(3, 2, &off, &len), -EINVAL);
	/* The last page whose bytes fit: its last byte is UINT64_MAX. */
	cr_assert_eq(testfs_bytes_of_pages(UINT64_MAX / PG, UINT64_MAX / PG,
					   &off, &len),
		     0);
	cr_assert_eq(off + (len - 1), UINT64_MAX);
	cr_assert_eq(testfs_bytes_of_pages(0, UINT64_MAX / PG, NULL, NULL),
		     -EINVAL, "2^64 bytes do not fit a length");
	cr_assert_eq(testfs_bytes_of_pages(0, UINT64_MAX / PG + 1, &off, &len),
		     -EINVAL);
}

Test(bytes, extents_add_bytes)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	char buf[64];

	cr_assert_eq(testfs_extents_add_bytes(&e, 4000, 200), 0);
	cr_assert_eq(testfs_extents_add_bytes(&e, 10 * PG, PG), 0);
	cr_assert_eq(testfs_extents_add_bytes(&e, 11 * PG - 1, 1), 0);
	testfs_extents_format(&e, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[0, 1] [10, 10]");
	cr_assert_eq(e.pages, 3);
	cr_assert_eq(testfs_extents_add_bytes(&e, 0, 0), -EINVAL);
	cr_assert_eq(testfs_extents_add_bytes(NULL, 0, 1), -EINVAL);
	testfs_extents_free(&e);
}

Test(checks, covers)
{
	struct fake_log f;
	char *why = (char *)"untouched";

	fake_readahead(&f);
	cr_assert_eq(testfs_check_covers(&f.log, "big.bin", 1024, 2047, &why),
		     0);
	cr_assert_null(why);
	cr_assert_eq(testfs_check_covers(&f.log, "big.bin", 896, 2431, &why),
		     0);
	cr_assert_eq(testfs_check_covers(&f.log, "big.bin", 0, 1023, &why), 1);
	cr_assert_str_eq(
		why,
		"big.bin: 896 of the 1024 pages of [0, 1023] were not fetched: expected covering [0, 1023], observed [896, 2431] (1536 pages in 6 requests); not fetched: [0, 895]");
	free(why);
	cr_assert_eq(testfs_check_covers(&f.log, "big.bin", 2431, 2432, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: 1 of the 2 pages of [2431, 2432] was not fetched: expected covering [2431, 2432], observed [896, 2431] (1536 pages in 6 requests); not fetched: [2432, 2432]");
	free(why);
	cr_assert_eq(testfs_check_covers(&f.log, "none.bin", 0, 0, &why), 1);
	cr_assert_str_eq(
		why,
		"none.bin: 1 of the 1 page of [0, 0] was not fetched: expected covering [0, 0], observed (none) (0 pages in 0 requests); not fetched: [0, 0]");
	free(why);
	cr_assert_eq(testfs_check_covers(&f.log, "big.bin", 5, 4, &why),
		     -EINVAL);
	cr_assert_null(why);
	cr_assert_eq(testfs_check_covers(NULL, "big.bin", 0, 1, &why), -EINVAL);
	f.log.lost = 2;
	cr_assert_eq(testfs_check_covers(&f.log, "big.bin", 1024, 1025, &why),
		     1);
	cr_assert_str_eq(
		why, "big.bin: the log lost 2 records; raise --log-capacity");
	free(why);
}

Test(checks, byte_ranges)
{
	struct fake_log f;
	char *why = NULL;

	fake_readahead(&f);
	/* Bytes of pages [896, 2431] exactly, and one byte each side. */
	cr_assert_eq(testfs_check_within_bytes(&f.log, "big.bin", 896 * PG,
					       1536 * PG, &why),
		     0);
	cr_assert_eq(testfs_check_covers_bytes(&f.log, "big.bin", 896 * PG,
					       1536 * PG, &why),
		     0);
	cr_assert_eq(testfs_check_covers_bytes(&f.log, "big.bin", 896 * PG - 1,
					       2, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: bytes [3670015, 3670016] are pages [895, 896]: 1 of the 2 pages of [895, 896] was not fetched: expected covering [895, 896], observed [896, 2431] (1536 pages in 6 requests); not fetched: [895, 895]");
	free(why);
	cr_assert_eq(testfs_check_within_bytes(&f.log, "big.bin", 1024 * PG,
					       1024 * PG, &why),
		     1);
	cr_assert_str_eq(
		why,
		"big.bin: bytes [4194304, 8388607] are pages [1024, 2047]: readahead fetched 384 pages past and 128 pages before the range [1024, 2047]: expected within [1024, 2047], observed [896, 2431] (1536 pages in 6 requests)");
	free(why);
	/* A byte range inside one page stands for the whole page. */
	cr_assert_eq(testfs_check_covers_bytes(&f.log, "big.bin",
					       2431 * PG + 100, 5, &why),
		     0);
	cr_assert_eq(testfs_check_within_bytes(&f.log, "big.bin", 0, 0, &why),
		     -EINVAL);
	cr_assert_null(why);
	cr_assert_eq(testfs_check_covers_bytes(&f.log, "big.bin", 2, UINT64_MAX,
					       &why),
		     -EINVAL);
}
