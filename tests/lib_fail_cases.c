// SPDX-License-Identifier: MIT
/*
 * Criterion cases that must fail, each with a message a user reads: not a
 * test by itself. lib_messages runs them one at a time (--filter) and
 * checks what Criterion printed.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

/* The library's internals first: lib_i.h comes before <testfs.h>. */
#include "lib_fake_log.h"

#include <testfs/criterion.h>

#define PG TESTFS_PAGE_SIZE

Test(fail, assert_covers)
{
	struct fake_log f;

	fake_readahead(&f);
	testfs_assert_covers(&f.log, "big.bin", 1024, 2047);
	testfs_assert_covers(&f.log, "big.bin", 0, 1023);
	fprintf(stderr, "not reached after a failed assertion\n");
}

Test(fail, expect_covers)
{
	struct fake_log f;

	fake_readahead(&f);
	testfs_expect_covers(&f.log, "big.bin", 2431, 2432);
	testfs_expect_covers(&f.log, "big.bin", 5, 4);
	fprintf(stderr, "went on after the expectations\n");
}

Test(fail, bytes)
{
	struct fake_log f;

	fake_readahead(&f);
	testfs_expect_within_bytes(&f.log, "big.bin", 1024 * PG, 1024 * PG);
	testfs_assert_covers_bytes(&f.log, "big.bin", 896 * PG - 1, 2);
}

Test(fail, start)
{
	static const char *const files[] = { "a.bin:4K", NULL };
	static const char *const extra[] = { "--max-pages", "999", NULL };
	struct testfs_config cfg = { .files = files, .extra_args = extra };
	struct testfs_mount *fs = NULL;

	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_stop(fs);
}

Test(fail, start_no_daemon)
{
	struct testfs_config cfg = { .daemon = "/nonexistent/testfs" };
	struct testfs_mount *fs = NULL;

	testfs_assert_ok(testfs_start(&cfg, &fs));
	testfs_stop(fs);
}
