/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/log.h
 *
 * libtestfs, part of <testfs.h> (include that): the log: snapshots of the reads
 * the daemon recorded, and the set queries on them.
 */
#ifndef TESTFS_LOG_H
#define TESTFS_LOG_H

#include <testfs/common.h>
#include <testfs/extents.h>

TESTFS_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* The log                                                             */
/* ------------------------------------------------------------------ */

enum testfs_record_kind {
	TESTFS_RECORD_READ = 1,
	TESTFS_RECORD_MARK = 2,
};

/** "No page": the value of page fields that do not apply. */
#define TESTFS_NO_PAGE UINT64_MAX

/**
 * Why the kernel sent a read (kernel correlation: the daemon follows the
 * readahead and filemap tracepoints of its mount; needs root and tracefs,
 * see testfs_tracing()).
 */
enum testfs_cause {
	/** Tracing off, or no kernel event explains the read. */
	TESTFS_CAUSE_UNKNOWN = 0,
	/** Synchronous readahead on a miss (page_cache_sync_ra). */
	TESTFS_CAUSE_SYNC,
	/** Asynchronous readahead on a PG_readahead marker page. */
	TESTFS_CAUSE_ASYNC,
	/** mmap read-around on a fault (window centred on the fault). */
	TESTFS_CAUSE_READAROUND,
	/** readahead(2), fadvise or madvise WILLNEED. */
	TESTFS_CAUSE_FORCED,
	/** One page read without readahead (MADV_RANDOM, ra off). */
	TESTFS_CAUSE_SINGLE,
	/** An O_DIRECT read: no page cache, no readahead. */
	TESTFS_CAUSE_DIRECT,
};

/**
 * The cause's name as the JSON log writes it: "sync", "async",
 * "readaround", "forced", "single", "direct"; "unknown" for
 * TESTFS_CAUSE_UNKNOWN and any value out of range. Never NULL.
 */
const char *testfs_cause_name(enum testfs_cause cause);

/** One FUSE_READ (or mark) the daemon recorded. */
struct testfs_record {
	uint64_t seq;
	enum testfs_record_kind kind;
	/** File name relative to the mount (reads); NULL for marks. */
	const char *file;
	uint64_t ino;
	/** Byte range the kernel asked for. */
	uint64_t off;
	uint32_t len;
	/** The same in pages. */
	uint64_t page;
	uint64_t pages;
	uint64_t t_ns;
	uint64_t done_ns;
	uint64_t delay_ns;
	uint32_t pid;
	/** 0, or the errno the daemon answered with (no page was cached). */
	int32_t err;
	/**
	 * The read came from an O_DIRECT open: it bypassed the page cache,
	 * so the set queries below leave it out.
	 */
	bool direct;
	/** The mark's text (marks); NULL for reads. */
	const char *mark;

	/*
	 * Kernel correlation (reads), filled when the cause is known. With
	 * TESTFS_CAUSE_UNKNOWN: window and the ra_* counts 0, ra_marker and
	 * trigger_page TESTFS_NO_PAGE, folio_order and alloc_order -1, late
	 * false.
	 */

	/** Why the kernel sent it. */
	enum testfs_cause cause;
	/**
	 * The kernel batch (window) it belongs to: the reads one readahead
	 * decision was split into share this id. 0: none.
	 */
	uint32_t window;
	/** The window: first page, size, async (lookahead) size. */
	uint64_t ra_start;
	uint32_t ra_size;
	uint32_t ra_async;
	/** The PG_readahead marker page, or TESTFS_NO_PAGE. */
	uint64_t ra_marker;
	/** The file's readahead maximum (read_ahead_kb in pages). */
	uint32_t ra_pages;
	/** The file's mmap_miss counter at the decision. */
	uint32_t mmap_miss;
	/**
	 * The access that caused it: the faulting page, the page read(2)
	 * missed, the marker page hit, the readahead(2) offset;
	 * TESTFS_NO_PAGE if none.
	 */
	uint64_t trigger_page;
	/** Folio order the window asked for; -1 if none was traced. */
	int folio_order;
	/**
	 * Order of the folios the kernel allocated for it; -1 unknown.
	 * 0 when the window went through page_cache_ra_unbounded(), which
	 * is every window of a file system without large folios.
	 */
	int alloc_order;
	/** An access waited on this read while it was in flight. */
	bool late;
	/**
	 * The decision was made on a read(2)-style access (read, splice,
	 * sendfile: no fault before it in the same task).
	 */
	bool by_read;
	/**
	 * The kernel's FUSE request id (reads): the log's reads come in its
	 * increasing order, which is the order the kernel queued them in.
	 * 0 for marks, and for reads of a daemon that did not record it.
	 */
	uint64_t unique;
};

/** A snapshot of the log since the last clear. */
struct testfs_log;

/**
 * Settles (testfs_settle()) and takes a snapshot of the log through the
 * binary view (.testfs/log.bin; no JSON parsing).
 *
 * @return 0 and the snapshot in *@out, or -errno.
 */
int testfs_log_snapshot(struct testfs_mount *fs, struct testfs_log **out);

void testfs_log_free(struct testfs_log *log);

/**
 * Records in the snapshot: reads and marks (access records are apart, see
 * testfs_log_access_count()).
 */
size_t testfs_log_count(const struct testfs_log *log);

/** Record @i (0-based), or NULL past the end. */
const struct testfs_record *testfs_log_at(const struct testfs_log *log,
					  size_t i);

/**
 * Every record of the snapshot as one array, in seq order (reads and
 * marks). Its elements are testfs_record_stride() bytes apart, which may
 * exceed the sizeof(struct testfs_record) of the caller's header (records
 * grow at their end): step with testfs_records_step(), whose record @i is
 * testfs_log_at(log, i):
 *
 *	size_t n, stride = testfs_record_stride();
 *	const struct testfs_record *r = testfs_log_records(log, &n);
 *	for (size_t i = 0; i < n; i++)
 *		if (testfs_records_step(r, stride, i)->kind == ...) ...
 *
 * @return the array, which belongs to @log (valid until
 *	   testfs_log_free()), with its length in *@count if non-NULL; NULL
 *	   and 0 for an empty snapshot or a NULL @log.
 */
const struct testfs_record *testfs_log_records(const struct testfs_log *log,
					       size_t *count);

/**
 * The distance in bytes between consecutive records of the array
 * testfs_log_records() returns: the library's sizeof(struct
 * testfs_record), never less than that of a header it was built with.
 */
size_t testfs_record_stride(void);

/** Record @i of @records, an array of records @stride bytes apart. */
static inline const struct testfs_record *testfs_records_step(
	const struct testfs_record *records, size_t stride, size_t i)
{
	return (const struct testfs_record *)((const char *)records +
					      i * stride);
}

/**
 * Records written since the last clear that the daemon's ring no longer
 * held (its --log-capacity was exceeded). Any loss makes the set queries
 * below unreliable; the Criterion assertions fail on it.
 */
uint64_t testfs_log_lost(const struct testfs_log *log);

/**
 * The page size of the kernel the daemon that wrote @log ran on (the
 * page_size of log.bin's header): the unit of every page number in the
 * snapshot (records, windows, accesses, folios, the set queries and the
 * checks). A log written on a 16 KiB-page kernel says 16384 wherever it
 * is read. TESTFS_PAGE_SIZE for a NULL @log.
 */
uint32_t testfs_log_page_size(const struct testfs_log *log);

/**
 * Whether the daemon was tracing the kernel when the snapshot was taken
 * (the TRACED flag of log.bin's header): causes, windows and accesses are
 * filled only then.
 */
bool testfs_log_traced(const struct testfs_log *log);

/** The reads of file @name in the snapshot. */
size_t testfs_log_requests(const struct testfs_log *log, const char *name);

/** The largest read of file @name, in pages (0 if none). */
uint64_t testfs_log_max_request(const struct testfs_log *log, const char *name);

/* ------------------------------------------------------------------ */
/* Set queries on a snapshot                                            */
/* ------------------------------------------------------------------ */

/** Pages of file @name the kernel fetched, into @out (emptied first). */
int testfs_log_fetched(const struct testfs_log *log, const char *name,
		       struct testfs_extents *out);

/** Pages of file @name fetched more than once. */
int testfs_log_refetched(const struct testfs_log *log, const char *name,
			 struct testfs_extents *out);

/**
 * Pages of file @name fetched outside [@first, @last]: the count before
 * @first in *@before and after @last in *@after (either may be NULL).
 *
 * @return the total outside, or -errno.
 */
int64_t testfs_log_outside(const struct testfs_log *log, const char *name,
			   uint64_t first, uint64_t last, uint64_t *before,
			   uint64_t *after);

/**
 * Pages of @accessed that were never fetched, into @out (emptied first):
 * an access that found its page already cached, or an access of a page
 * that the log lost.
 */
int testfs_log_never_fetched(const struct testfs_log *log, const char *name,
			     const struct testfs_extents *accessed,
			     struct testfs_extents *out);

TESTFS_END_DECLS

#endif
