/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/checks.h
 *
 * libtestfs, part of <testfs.h> (include that): checks with readable
 * explanations (used by testfs/criterion.h).
 */
#ifndef TESTFS_CHECKS_H
#define TESTFS_CHECKS_H

#include <testfs/common.h>
#include <testfs/extents.h>
#include <testfs/instance.h>
#include <testfs/log.h>

TESTFS_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Checks with readable explanations (used by testfs/criterion.h)        */
/* ------------------------------------------------------------------ */

/**
 * Each check returns 0 when it holds and 1 when it does not, with a
 * malloc'd explanation in *@why that shows expected and observed extents
 * side by side (free() it); or a negative errno when it could not check.
 * A snapshot that lost records fails every check.
 */

/** No page of @name fetched outside [@first, @last]. */
int testfs_check_within(const struct testfs_log *log, const char *name,
			uint64_t first, uint64_t last, char **why);

/**
 * Every page of [@first, @last] of @name was fetched (pages besides them
 * may have been too). The explanation gives the range, the fetched pages
 * and the pages of the range not fetched, e.g.
 *
 *     big.bin: 128 of the 1024 pages of [0, 1023] were not fetched:
 *     expected covering [0, 1023], observed [0, 895] (896 pages in 4
 *     requests); not fetched: [896, 1023]
 *
 * @return as the other checks; -EINVAL if @first > @last.
 */
int testfs_check_covers(const struct testfs_log *log, const char *name,
			uint64_t first, uint64_t last, char **why);

/** The fetched pages of @name equal @expected. */
int testfs_check_fetched(const struct testfs_log *log, const char *name,
			 const struct testfs_extents *expected, char **why);

/**
 * Every page of @touched was fetched, and at most @max_extra pages
 * besides.
 */
int testfs_check_touched_plus(const struct testfs_log *log, const char *name,
			      const struct testfs_extents *touched,
			      uint64_t max_extra, char **why);

/**
 * The invariants that hold on any kernel: no record lost, no page of
 * @name fetched twice, the fetched pages equal the resident pages
 * (mincore), and no request larger than @max_pages (0: skip).
 */
int testfs_check_consistent(struct testfs_mount *fs,
			    const struct testfs_log *log, const char *name,
			    uint64_t max_pages, char **why);

/**
 * The window that fetched page @page of @name (testfs_log_window_of()) has
 * cause @cause and, unless @start is TESTFS_NO_PAGE, starts at page
 * @start (its ra_start). Fails too when the log was not traced or no
 * window fetched the page. The explanation lists the windows of @name
 * around the page: id, cause, trigger, start+size, async size, marker and
 * the pages fetched.
 */
int testfs_check_window(const struct testfs_log *log, const char *name,
			uint64_t page, enum testfs_cause cause, uint64_t start,
			char **why);

/**
 * At least one read of @name overlaps [@first, @last], and every read of
 * @name that does (O_DIRECT and failed reads included) has cause @cause.
 * Fails too when the log was not traced. The explanation lists the reads
 * with another cause and their windows.
 *
 * @return as the other checks; -EINVAL if @first > @last.
 */
int testfs_check_cause(const struct testfs_log *log, const char *name,
		       uint64_t first, uint64_t last, enum testfs_cause cause,
		       char **why);

/**
 * The daemon traced the kernel when @log was taken; the explanation gives
 * the daemon's reason when it did not (kernel correlation needs root and
 * tracefs). Lost records do not matter here.
 */
int testfs_check_traced(const struct testfs_log *log, char **why);

/**
 * At most @max_pages page fetches of @name (struct testfs_page_age) were
 * first accessed @older_ns or more after their read's reply, or never
 * (neither accessed nor mapped, or only mapped by fault-around); late
 * accesses count as young. Fails too when the log lost records or was
 * not traced. The explanation shows the age histogram and the first
 * offending pages by their latest fetch, e.g.
 *
 *     big.bin: 63 of 64 page fetches were first accessed 50.0 ms or more
 *     after their reply, or never: expected at most 61; ages: 4-7us 1,
 *     32768-65535us 2, late 0, never 61, ... (resolution 0 ns); by latest
 *     fetch: page 5 51.2 ms, pages [32, 63] never accessed, ...
 *
 * @return as the other checks: 0 (it holds), 1 (it does not, with *@why)
 *	   or -errno (-EINVAL for a NULL @log or @name).
 */
int testfs_check_page_age(const struct testfs_log *log, const char *name,
			  uint64_t older_ns, uint64_t max_pages, char **why);

/**
 * testfs_check_within() of the pages bytes [@off, @off + @len) fall in,
 * in the log's pages (testfs_log_page_size()). The explanation starts
 * with the bytes and their pages, then the page check's, e.g. (4 KiB
 * pages)
 *
 *     big.bin: bytes [0, 4194303] are pages [0, 1023]: readahead fetched
 *     384 pages past the range [0, 1023]: expected within [0, 1023], ...
 *
 * @return as the other checks; -EINVAL for @len 0 or a range past
 *	   UINT64_MAX.
 */
int testfs_check_within_bytes(const struct testfs_log *log, const char *name,
			      uint64_t off, uint64_t len, char **why);

/**
 * testfs_check_covers() of the pages bytes [@off, @off + @len) fall in,
 * explained as testfs_check_within_bytes() is.
 */
int testfs_check_covers_bytes(const struct testfs_log *log, const char *name,
			      uint64_t off, uint64_t len, char **why);

TESTFS_END_DECLS

#endif
