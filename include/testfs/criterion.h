/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/criterion.h
 *
 * Criterion assertions over readahead extents. Include it after
 * <criterion/criterion.h>; link with `pkg-config --libs testfs` (which
 * brings criterion too).
 *
 * Each testfs_assert_* stops the test when it fails, each testfs_expect_*
 * records the failure and goes on. Failure messages show the expected and
 * the observed extents side by side, e.g.
 *
 *     big.bin: readahead fetched 384 pages past and 128 pages before the
 *     range [1024, 2047]: expected within [1024, 2047], observed
 *     [896, 2431] (1536 pages in 6 requests)
 *
 * Kernel policies change between versions. Assert what must hold on any
 * kernel with testfs_assert_consistent(); state what a particular kernel
 * policy predicts with testfs_expect_policy(), whose failure reads
 * "kernel policy differs (NAME): expected ..., observed ...". With
 * TESTFS_POLICY=warn in the environment such a difference is logged as a
 * warning instead of failing the test (for running a suite on a kernel it
 * was not written for).
 */
#ifndef TESTFS_CRITERION_H
#define TESTFS_CRITERION_H

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <testfs.h>

/* Runs a testfs_check_* call and reports its verdict. */
#define TESTFS_CR_CHECK_(Fail, Call)                                           \
	do {                                                                   \
		char *testfs_why_ = NULL;                                      \
		char testfs_msg_[4096];                                        \
		int testfs_rc_ = (Call);                                       \
                                                                               \
		if (testfs_rc_ < 0) {                                          \
			snprintf(testfs_msg_, sizeof(testfs_msg_),             \
				 "testfs: %s could not check: %s", #Call,      \
				 testfs_strerror(testfs_rc_));                 \
		} else if (testfs_rc_ > 0) {                                   \
			snprintf(testfs_msg_, sizeof(testfs_msg_), "%s",       \
				 testfs_why_ ? testfs_why_ : #Call);           \
		}                                                              \
		/* Freed before a failing assertion leaves the test. */        \
		free(testfs_why_);                                             \
		if (testfs_rc_ != 0)                                           \
			Fail("%s", testfs_msg_);                               \
	} while (0)

/* testfs_check_@Check(..., &why) as an assertion or as an expectation. */
#define TESTFS_CR_ASSERT_(Check, ...)                                          \
	TESTFS_CR_CHECK_(cr_assert_fail,                                       \
			 testfs_check_##Check(__VA_ARGS__, &testfs_why_))
#define TESTFS_CR_EXPECT_(Check, ...)                                          \
	TESTFS_CR_CHECK_(cr_expect_fail,                                       \
			 testfs_check_##Check(__VA_ARGS__, &testfs_why_))

/** No page of @Name fetched outside [@First, @Last]. */
#define testfs_assert_within(Log, Name, First, Last)                           \
	TESTFS_CR_ASSERT_(within, Log, Name, First, Last)
#define testfs_expect_within(Log, Name, First, Last)                           \
	TESTFS_CR_EXPECT_(within, Log, Name, First, Last)

/**
 * Every page of [@First, @Last] of @Name was fetched (others may have
 * been too). On failure:
 *
 *     big.bin: 128 of the 1024 pages of [0, 1023] were not fetched:
 *     expected covering [0, 1023], observed [0, 895] (896 pages in 4
 *     requests); not fetched: [896, 1023]
 */
#define testfs_assert_covers(Log, Name, First, Last)                           \
	TESTFS_CR_ASSERT_(covers, Log, Name, First, Last)
#define testfs_expect_covers(Log, Name, First, Last)                           \
	TESTFS_CR_EXPECT_(covers, Log, Name, First, Last)

/**
 * The same in bytes: the pages bytes [@Off, @Off + @Len) fall in
 * (testfs_pages_of_bytes()). The message starts with the bytes and their
 * pages: "big.bin: bytes [0, 4194303] are pages [0, 1023]: ...".
 */
#define testfs_assert_within_bytes(Log, Name, Off, Len)                        \
	TESTFS_CR_ASSERT_(within_bytes, Log, Name, Off, Len)
#define testfs_expect_within_bytes(Log, Name, Off, Len)                        \
	TESTFS_CR_EXPECT_(within_bytes, Log, Name, Off, Len)
#define testfs_assert_covers_bytes(Log, Name, Off, Len)                        \
	TESTFS_CR_ASSERT_(covers_bytes, Log, Name, Off, Len)
#define testfs_expect_covers_bytes(Log, Name, Off, Len)                        \
	TESTFS_CR_EXPECT_(covers_bytes, Log, Name, Off, Len)

/** The pages fetched of @Name equal the extents @Expected. */
#define testfs_assert_fetched(Log, Name, Expected)                             \
	TESTFS_CR_ASSERT_(fetched, Log, Name, Expected)
#define testfs_expect_fetched(Log, Name, Expected)                             \
	TESTFS_CR_EXPECT_(fetched, Log, Name, Expected)

/** Every page of @Touched was fetched, and at most @MaxExtra besides. */
#define testfs_assert_touched_plus(Log, Name, Touched, MaxExtra)               \
	TESTFS_CR_ASSERT_(touched_plus, Log, Name, Touched, MaxExtra)
#define testfs_expect_touched_plus(Log, Name, Touched, MaxExtra)               \
	TESTFS_CR_EXPECT_(touched_plus, Log, Name, Touched, MaxExtra)

/**
 * What holds on any kernel: nothing lost, no page fetched twice, fetched
 * pages equal resident pages, no request above @MaxPages (0: unchecked).
 */
#define testfs_assert_consistent(Fs, Log, Name, MaxPages)                      \
	TESTFS_CR_ASSERT_(consistent, Fs, Log, Name, MaxPages)

/**
 * Kernel correlation (needs a traced log: root and tracefs). The window
 * that fetched page @Page of @Name was @Cause (an enum testfs_cause) and
 * started at page @Start (TESTFS_NO_PAGE: any start). On failure the
 * windows around the page are listed, e.g.
 *
 *     big.bin: the window that fetched page 1024 was readaround started
 *     at page 896: expected async started at page 896; windows of big.bin
 *     around page 1024 (2 of 6): window 1: readaround, trigger 1024, start
 *     896+256 (async 64), marker 1088, fetched [896, 1151] in 1 request;
 *     window 2: async, trigger 1088, start 1152+256 (async 256), marker
 *     1152, fetched [1152, 1407] in 1 request, late
 */
#define testfs_assert_window(Log, Name, Page, Cause, Start)                    \
	TESTFS_CR_ASSERT_(window, Log, Name, Page, Cause, Start)
#define testfs_expect_window(Log, Name, Page, Cause, Start)                    \
	TESTFS_CR_EXPECT_(window, Log, Name, Page, Cause, Start)

/**
 * Every read of @Name overlapping pages [@First, @Last] had cause @Cause,
 * and there was at least one.
 */
#define testfs_assert_cause(Log, Name, First, Last, Cause)                     \
	TESTFS_CR_ASSERT_(cause, Log, Name, First, Last, Cause)
#define testfs_expect_cause(Log, Name, First, Last, Cause)                     \
	TESTFS_CR_EXPECT_(cause, Log, Name, First, Last, Cause)

/**
 * The daemon traced the kernel when @Log was taken; fails with the
 * daemon's reason otherwise (kernel correlation needs root and tracefs).
 * A test that cannot run without it may skip instead: see
 * testfs_tracing().
 */
#define testfs_assert_traced(Log) TESTFS_CR_ASSERT_(traced, Log)
#define testfs_expect_traced(Log) TESTFS_CR_EXPECT_(traced, Log)

/**
 * Page age (needs a traced log): at most @MaxPages page fetches of @Name
 * were first accessed @OlderNs or more after their read's reply, or never.
 * On failure the age histogram and the offending pages are shown, e.g.
 *
 *     big.bin: 63 of 64 page fetches were first accessed 50.0 ms or more
 *     after their reply, or never: expected at most 61; ages: 4-7us 1,
 *     32768-65535us 2, late 0, never 61, mapped 0 (resolution 0 ns); by
 *     latest fetch: page 5 51.2 ms, pages [32, 63] never accessed, ...
 */
#define testfs_assert_page_age(Log, Name, OlderNs, MaxPages)                   \
	TESTFS_CR_ASSERT_(page_age, Log, Name, OlderNs, MaxPages)
#define testfs_expect_page_age(Log, Name, OlderNs, MaxPages)                   \
	TESTFS_CR_EXPECT_(page_age, Log, Name, OlderNs, MaxPages)

/**
 * A libtestfs call that returns a negative errno on failure succeeded.
 * The failure message gives the errno and its reason (testfs_strerror()),
 * e.g. for a daemon that refused its arguments:
 *
 *     testfs_start(&cfg, &fs) failed: Input/output error: the daemon
 *     /usr/local/bin/testfs exited with status 2 before the mount was
 *     ready: --max-pages '999': ...
 */
#define testfs_assert_ok(Call)                                                 \
	do {                                                                   \
		long long testfs_ret_ = (long long)(Call);                     \
                                                                               \
		if (testfs_ret_ < 0)                                           \
			cr_assert_fail("%s failed: %s", #Call,                 \
				       testfs_strerror((int)testfs_ret_));     \
	} while (0)

/** Whether policy differences only warn (TESTFS_POLICY=warn). */
static inline int testfs_policy_warn_only(void)
{
	const char *v = getenv("TESTFS_POLICY");

	return v && strcmp(v, "warn") == 0;
}

/**
 * At least @Percent percent of the pages of @Name that entered the page
 * cache did so in folios of order @Order (testfs/folios.h): "most of this
 * file was read in order-5 folios" is (Log, "big.bin", 5, 51). On failure:
 *
 *     big.bin: 18% of the 65536 pages that entered the page cache were
 *     in order-5 folios, expected at least 51%: order 0: 2048 folios
 *     (2048 pages), order 2: 4096 (16384 pages), ...
 *
 * A log without folio orders fails and names the kernel event missing:
 *
 *     big.bin: no folio orders in this log: the kernel event
 *     filemap:mm_filemap_add_to_page_cache (...) was not followed: ...
 */
#define testfs_assert_folio_order(Log, Name, Order, Percent)                   \
	TESTFS_CR_CHECK_(cr_assert_fail,                                       \
			 testfs_check_folio_order(Log, Name, Order, Percent,   \
						  &testfs_why_))
#define testfs_expect_folio_order(Log, Name, Order, Percent)                   \
	TESTFS_CR_CHECK_(cr_expect_fail,                                       \
			 testfs_check_folio_order(Log, Name, Order, Percent,   \
						  &testfs_why_))

/**
 * A kernel policy's prediction: when @Cond is false, reports
 * "kernel policy differs (@Policy): expected @Expected, observed ..."
 * with the rest formatted like printf.
 */
#define testfs_expect_policy(Policy, Cond, Expected, ...)                      \
	do {                                                                   \
		if (!(Cond)) {                                                 \
			char testfs_obs_[2048];                                \
                                                                               \
			snprintf(testfs_obs_, sizeof(testfs_obs_),             \
				 __VA_ARGS__);                                 \
			if (testfs_policy_warn_only())                         \
				cr_log_warn("kernel policy differs (%s): "     \
					    "expected %s, observed %s",        \
					    Policy, Expected, testfs_obs_);    \
			else                                                   \
				cr_expect_fail("kernel policy differs (%s): "  \
					       "expected %s, observed %s",     \
					       Policy, Expected, testfs_obs_); \
		}                                                              \
	} while (0)

#endif
