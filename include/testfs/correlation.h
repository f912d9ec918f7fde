/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/correlation.h
 *
 * libtestfs, part of <testfs.h> (include that): kernel correlation: accesses,
 * windows, usage, histograms and page age.
 */
#ifndef TESTFS_CORRELATION_H
#define TESTFS_CORRELATION_H

#include <testfs/common.h>
#include <testfs/extents.h>
#include <testfs/log.h>

TESTFS_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Kernel correlation: accesses, windows, usage, histograms            */
/* ------------------------------------------------------------------ */

/*
 * The daemon follows the kernel's readahead and filemap tracepoints of its
 * mount (root and tracefs; testfs_tracing() says whether it does and why
 * not), gives every read its cause and window (struct testfs_record) and
 * records the pages the kernel accessed. Without tracing a snapshot has no
 * accesses and no windows, and every cause is unknown. Like the set
 * queries, everything here works on page ranges, never page by page.
 */

/** How an access was seen. */
enum testfs_access_type {
	/** A page fault on a mapping (filemap:mm_filemap_fault). */
	TESTFS_ACCESS_FAULT = 1,
	/** A read(2)-style page-cache lookup (mm_filemap_get_pages). */
	TESTFS_ACCESS_READ = 2,
	/** Pages mapped by fault-around (mm_filemap_map_pages). */
	TESTFS_ACCESS_MAP = 3,
};

/**
 * Pages the kernel accessed: consecutive events of one task on one file,
 * of one type and on adjacent pages, merged.
 */
struct testfs_access {
	/** File name relative to the mount ("" if the daemon lists none). */
	const char *file;
	/** Pages [first, last]. */
	uint64_t first;
	uint64_t last;
	enum testfs_access_type type;
	uint32_t pid;
	/** CLOCK_MONOTONIC of the first and of the last event merged. */
	uint64_t t_ns;
	uint64_t end_ns;
	/** Events merged, and how many of them waited on a read. */
	uint32_t events;
	uint32_t late;
};

/**
 * The access records of the snapshot, ordered by t_ns (none without
 * tracing): their count, and record @i (0-based; NULL past the end), which
 * belongs to @log. They are kept apart from the reads and marks:
 * testfs_log_count() does not count them.
 */
size_t testfs_log_access_count(const struct testfs_log *log);
const struct testfs_access *testfs_log_access_at(const struct testfs_log *log,
						 size_t i);

/**
 * One kernel readahead decision and the reads it became: the reads of the
 * snapshot that share a window id (unique per mount). The decision's
 * fields are those of its first read.
 */
struct testfs_window {
	/** The window id (never 0). */
	uint32_t id;
	const char *file;
	enum testfs_cause cause;
	/**
	 * As in struct testfs_record: trigger_page; start, size, async_size
	 * and marker are ra_start, ra_size, ra_async and ra_marker.
	 */
	uint64_t trigger_page;
	uint64_t start;
	uint32_t size;
	uint32_t async_size;
	uint64_t marker;
	uint32_t ra_pages;
	uint32_t mmap_miss;
	int folio_order;
	/** The first alloc_order of its reads that is known; -1: none. */
	int alloc_order;
	/**
	 * The reads: how many, the seq of the first, the span of the pages
	 * they asked for, [first_page, last_page], and the sum of their
	 * pages (reads the daemon answered with an error included).
	 */
	size_t requests;
	uint64_t first_seq;
	uint64_t first_page;
	uint64_t last_page;
	uint64_t pages;
	/** When the first read arrived. */
	uint64_t t_ns;
	/** Some access waited on one of its reads. */
	bool late;
};

/**
 * The window that fetched page @page of file @name into the page cache:
 * of the reads that contain the page, are neither O_DIRECT nor answered
 * with an error, and have a window, the last one's window (for a page
 * fetched twice, the second fetch).
 *
 * @return the window (it belongs to @log), or NULL if there is no such
 *	   read (the page was never fetched, tracing was off, or only reads
 *	   of unknown cause fetched it).
 */
const struct testfs_window *testfs_log_window_of(const struct testfs_log *log,
						 const char *name,
						 uint64_t page);

/**
 * The windows of the snapshot in the order their first read arrived,
 * computed once when the snapshot is taken (none without tracing): their
 * count, and window @i (0-based; NULL past the end), which belongs to @log.
 */
size_t testfs_log_window_count(const struct testfs_log *log);
const struct testfs_window *testfs_log_window_at(const struct testfs_log *log,
						 size_t i);

/**
 * Per file: what was fetched, accessed, wasted and late. Page counts
 * count a page once however often it was fetched or accessed.
 */
struct testfs_usage {
	/**
	 * sizeof this struct as the caller's header declares it (a sized
	 * struct, see <testfs.h>); TESTFS_USAGE_INIT sets it.
	 * testfs_log_usage() sets it to the bytes it filled.
	 */
	size_t struct_size;
	/** Pages fetched: as testfs_log_fetched() (no O_DIRECT, no errors). */
	uint64_t fetched;
	/**
	 * Pages accessed: the union of the FAULT and READ accesses and of
	 * the MAP accesses of one page (a fault-around of one page is the
	 * touched page).
	 */
	uint64_t accessed;
	/** Pages mapped by a fault-around (MAP) of several pages, or as
	 * the rest of the large folio of a page faulted on (finish_fault()
	 * maps the whole folio; the folio records say which), not
	 * accessed. */
	uint64_t mapped;
	/** Fetched and neither accessed nor mapped: wasted readahead. */
	uint64_t wasted;
	/** The sum of the accesses' late counts: accesses that waited. */
	uint64_t late_accesses;
	/** Reads an access waited on (testfs_record.late), as fetched. */
	uint64_t late_reads;
	/**
	 * Whether @wasted means anything: false without tracing, and for a
	 * file whose readahead read(2) started when read(2) lookups were not
	 * traced (testfs_config.trace_reads): its read(2) accesses are
	 * unknown, @accessed leaves them out and @wasted is 0.
	 */
	bool wasted_known;
};

#define TESTFS_USAGE_INIT TESTFS_SIZED_INIT(struct testfs_usage)

/**
 * Computes @out for file @name. If @wasted is non-NULL, it receives the
 * wasted pages (emptied first). Without tracing only @out->fetched is
 * filled: with no accesses recorded, nothing can be called wasted.
 *
 * @return 0, -EINVAL (a NULL @log, @name or @out), -ENOENT (the daemon
 *	   does not serve @name and no record mentions it) or -ENOMEM.
 */
int testfs_log_usage(const struct testfs_log *log, const char *name,
		     struct testfs_usage *out, struct testfs_extents *wasted);

/* (testfs_log_usage)(...) calls the function as declared. */
TESTFS_SIZED_OUT_(testfs_usage)
#ifndef testfs_log_usage
#define testfs_log_usage(log, name, out, wasted)                               \
	testfs_log_usage(log, name, testfs_usage_out_(out), wasted)
#endif

/** Buckets of the histograms. */
#define TESTFS_HIST_BUCKETS 16

/**
 * Request sizes and folio orders. request_pages[i] counts reads of 2^i to
 * 2^(i+1) - 1 pages (every read with pages, as testfs_log_requests()
 * counts them); order_asked[i] counts windows whose page_cache_ra_order
 * asked for folio order i; order_allocated[i] windows whose folios were
 * allocated at order i (see testfs_record.alloc_order); *_unknown the
 * windows without it. The last bucket also counts everything larger.
 */
struct testfs_histograms {
	/**
	 * sizeof this struct as the caller's header declares it (a sized
	 * struct, see <testfs.h>); TESTFS_HISTOGRAMS_INIT sets it.
	 * testfs_log_histograms() sets it to the bytes it filled.
	 */
	size_t struct_size;
	uint64_t request_pages[TESTFS_HIST_BUCKETS];
	uint64_t order_asked[TESTFS_HIST_BUCKETS];
	uint64_t order_asked_unknown;
	uint64_t order_allocated[TESTFS_HIST_BUCKETS];
	uint64_t order_allocated_unknown;
};

#define TESTFS_HISTOGRAMS_INIT TESTFS_SIZED_INIT(struct testfs_histograms)

/**
 * Fills @out (zeroed first) with the histograms of file @name, or of every
 * file if @name is NULL. The order histograms are empty without tracing.
 * On kernels where FUSE uses only order-0 folios, order_allocated[0] holds
 * every window: the histogram says so rather than guessing.
 *
 * @return 0, or -EINVAL for a NULL @log or @out.
 */
int testfs_log_histograms(const struct testfs_log *log, const char *name,
			  struct testfs_histograms *out);

/* (testfs_log_histograms)(...) calls the function as declared. */
TESTFS_SIZED_OUT_(testfs_histograms)
#ifndef testfs_log_histograms
#define testfs_log_histograms(log, name, out)                                  \
	testfs_log_histograms(log, name, testfs_histograms_out_(out))
#endif

/** Buckets of the page-age histogram (struct testfs_page_age). */
#define TESTFS_AGE_BUCKETS 26

/**
 * Page age: for each page a read fetched (not O_DIRECT, not failed), the
 * time from the read's reply (testfs_record.done_ns) to the page's first
 * access after it, on CLOCK_MONOTONIC. A page fetched again after an
 * eviction counts once per fetch, each fetch aging from its own reply.
 *
 * - Accesses are faults, read(2) lookups (with trace_reads) and
 *   fault-around mappings of one page (the page faulted on: a one-page
 *   mapping or a VMA's edge). A fault-around of more pages maps them
 *   without saying which one was touched: those pages are @mapped.
 *   A mapped page the program touches later faults no more, so mmap
 *   accesses to pages fault-around mapped are not seen.
 * - A fetch owns the accesses from 100 ms before its read arrived (the
 *   access that made the kernel send it) to 100 ms before the next fetch
 *   of the page arrived.
 * - Resolution: the daemon merges access events into one record only
 *   while it spans at most 1 ms, and a page's access time is its
 *   record's first event: an age is at most 1 ms short of the truth
 *   (@resolution_ns is the widest record that decided an age here).
 * - @late: the first access came before the reply, so it waited on the
 *   read (a fault on a page in flight, or the fault that caused the
 *   read): its access record ended before the reply. A record that spans
 *   the reply gives age 0 (within the resolution). A read(2) lookup is
 *   traced when it ends, after the read it waited on was answered: it
 *   shows a small age, not late.
 *
 * bucket[0] counts ages under 1 us, bucket[i] ages of 2^(i-1) to 2^i us
 * (testfs_age_bucket_us()); the last bucket also counts every larger age.
 */
struct testfs_page_age {
	/**
	 * sizeof this struct as the caller's header declares it (a sized
	 * struct, see <testfs.h>); TESTFS_PAGE_AGE_INIT sets it.
	 * testfs_log_page_age() sets it to the bytes it filled.
	 */
	size_t struct_size;
	/** Page fetches: the buckets + @late + @never + @mapped. */
	uint64_t pages;
	uint64_t bucket[TESTFS_AGE_BUCKETS];
	/** First access before the reply: it waited on the read. */
	uint64_t late;
	/** Neither accessed nor mapped before the next fetch (or the end). */
	uint64_t never;
	/** Mapped by fault-around (of several pages), not seen accessed. */
	uint64_t mapped;
	/** The widest access record that gave an age or a late, in ns. */
	uint64_t resolution_ns;
	/**
	 * read(2) started readahead of this file (testfs_record.by_read)
	 * while read(2) page-cache lookups were not traced
	 * (testfs_config.trace_reads, the daemon's --trace-reads): the
	 * program's read(2) accesses were not seen, so the pages only read(2)
	 * touched count as @never and their ages are unknown. Not that
	 * nothing read them: trace reads to know.
	 */
	bool reads_untraced;
};

#define TESTFS_PAGE_AGE_INIT TESTFS_SIZED_INIT(struct testfs_page_age)

/**
 * The lower bound in microseconds of page-age bucket @bucket: 0 for
 * bucket 0, 2^(bucket-1) after it, UINT64_MAX past the last bucket.
 */
uint64_t testfs_age_bucket_us(unsigned bucket);

/**
 * Fills @out (zeroed first) with the page ages of file @name.
 *
 * @return 0, -EINVAL (a NULL argument), -ENOENT (the daemon does not
 *	   serve @name and no record mentions it), -ENODATA (tracing was
 *	   off: no access was seen, so no age is known) or -ENOMEM.
 */
int testfs_log_page_age(const struct testfs_log *log, const char *name,
			struct testfs_page_age *out);

/* (testfs_log_page_age)(...) calls the function as declared. */
TESTFS_SIZED_OUT_(testfs_page_age)
#ifndef testfs_log_page_age
#define testfs_log_page_age(log, name, out)                                    \
	testfs_log_page_age(log, name, testfs_page_age_out_(out))
#endif

/** Values of testfs_log_page_ages() that are not ages. */
#define TESTFS_AGE_NOT_FETCHED (-1)
#define TESTFS_AGE_NEVER (-2)
#define TESTFS_AGE_MAPPED (-3)
#define TESTFS_AGE_LATE (-4)

/** The most pages testfs_log_page_ages() takes at once (1 GiB of pages). */
#define TESTFS_AGE_MAX_PAGES (1u << 18)

/**
 * The age of each page of [@first_page, @first_page + @npages) of file
 * @name, from its latest fetch, into @ages[0 .. @npages - 1]: in ns (>= 0),
 * or TESTFS_AGE_NOT_FETCHED, TESTFS_AGE_NEVER, TESTFS_AGE_MAPPED or
 * TESTFS_AGE_LATE, by the rules of struct testfs_page_age. When
 * testfs_log_page_age() says reads_untraced, a page only read(2) touched
 * is TESTFS_AGE_NEVER: its access was not traced.
 *
 * @return 0, -EINVAL (a NULL argument, @npages 0 or above
 *	   TESTFS_AGE_MAX_PAGES, or a range past the last page number),
 *	   -ENOENT, -ENODATA or -ENOMEM as testfs_log_page_age().
 */
int testfs_log_page_ages(const struct testfs_log *log, const char *name,
			 uint64_t first_page, uint64_t npages, int64_t *ages);

TESTFS_END_DECLS

#endif
