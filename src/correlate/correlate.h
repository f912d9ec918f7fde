/* SPDX-License-Identifier: MIT */
/*
 * The correlator: joins the kernel's readahead and filemap tracepoints
 * (src/trace/) to the read log, so each FUSE_READ says why the kernel sent
 * it, and records the pages the kernel accessed.
 *
 * How a read is attributed. The kernel traces its decision before it sends
 * the reads, in the reading task (its pid is the FUSE request's pid):
 *
 *	[mm_filemap_fault]                     a fault (mmap)
 *	[page_cache_sync_ra | page_cache_async_ra]  the decision's input
 *	[page_cache_ra_order]                  the window decided
 *	page_cache_ra_unbounded                one batch: pages allocated,
 *	                                       then ->readahead() sends the
 *	                                       FUSE_READs (split at max_pages
 *	                                       and around cached pages)
 *
 * Each ra_unbounded (or ra_order without one: large folios) becomes a
 * batch: a page range of one inode with a window id and the decision's
 * fields. A read belongs to the newest batch of its inode that covers its
 * first page and was traced before the read arrived. The cause comes from
 * what the same task traced since its last batch:
 *
 *	async_ra                      -> async
 *	sync_ra and ra_order          -> sync
 *	sync_ra, one page, no order   -> single (readahead off, FMODE_RANDOM)
 *	sync_ra, no order             -> sync (a small random read or
 *	                                 MADV_SEQUENTIAL: exactly req_count)
 *	ra_order alone                -> readaround (mmap fault)
 *	nothing                       -> forced (readahead(2), WILLNEED)
 *
 * A read in no batch is `single` when its task faulted on its first page
 * just before (MADV_RANDOM: the fault reads one folio, no readahead
 * event), `direct` for O_DIRECT, else `unknown`.
 *
 * A cause is given only when the kernel's events prove it: a kernel
 * without the sync_ra, async_ra and ra_unbounded tracepoints (6.1 and
 * 6.12 have none of the readahead:* events) makes no batches, and a fault
 * before a read does not tell a one-page read from a read-around or async
 * window. There every read but O_DIRECT is `unknown`, and
 * correlator_causes() says why; accesses are still recorded.
 *
 * Timing: events reach the correlator in timestamp order, in runs, up to
 * a tracer round late (100 ms at most) unless flushed. A read is
 * attributed once an event later than its reply has been seen (every
 * event before it is known then), or at correlator_sync(), which
 * flushes the tracer first: the log writer and every reader of the log
 * sync, so no record is written or read before its attribution.
 *
 * Accesses: faults, read(2) page-cache lookups and fault-around mappings
 * become LOG_ACCESS records (consecutive events of one task on one file
 * merged while the record spans at most 1 ms, AGE_MERGE_SPAN_NS; a
 * fault-around of one page stays alone: it is the page faulted on).
 *
 * An access is late when it waited on a read in flight: a fault between a
 * read's arrival and its reply, or a read(2) whose lookup ended after a
 * read that was sent before the task's previous access; the read gets
 * LOG_ATTR_LATE.
 */
#ifndef TESTFS_CORRELATE_H
#define TESTFS_CORRELATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log_ring.h"

struct correlator_options {
	struct log_ring *log;
	/* The mount's device. */
	unsigned dev_major;
	unsigned dev_minor;
	/* tracefs directory; NULL to find (and mount) it. */
	const char *tracefs;
	/*
	 * Also follow read(2) page-cache lookups (mm_filemap_get_pages):
	 * read(2) accesses, their lateness and wasted pages of read(2)
	 * streams. It fires once per read(2) call, in the reader, at about
	 * 250 ns each on the project's VM, so it is not on by default.
	 */
	bool trace_reads;
	/*
	 * Follow every folio entering the page cache, order 0 included
	 * (LOG_FOLIO records of every page when the kernel allocates
	 * order-0 folios). Default: only large folios, filtered in the
	 * kernel: one event per 4 KiB page costs a cold sequential reader
	 * about 10% of its throughput here (tracer_options.large_folios).
	 */
	bool all_folios;
	/*
	 * Mask of (1u << TRACE_*) to follow; 0: all there are. Tests use it
	 * to see this kernel as an older one without some events.
	 */
	unsigned kinds;
};

struct correlator_stats {
	uint64_t events;
	uint64_t events_lost; /* dropped by the kernel */
	uint64_t batches;
	uint64_t windows;
	uint64_t reads_by_cause[LOG_CAUSE_COUNT];
	uint64_t access_records;
	uint64_t access_events;
	uint64_t folio_events; /* folios added to the page cache */
	uint64_t late_accesses;
	uint64_t late_reads;
	uint64_t given_up; /* reads left unattributed: in flight too long */
	uint64_t flush_timeouts; /* syncs that found the tracer behind */
	/* decisions followed past DECISION_HORIZON_NS: their next step */
	uint64_t decision_gaps;
	/*
	 * read(2) lookups whose read's first pages the kernel did not trace
	 * (a batch ending in a folio still being read) and that its
	 * readahead decision put back (read_first() in correlate.c)
	 */
	uint64_t read_prefixes;
};

struct correlator;

/*
 * Starts the tracer for the device and the correlation. NULL on failure,
 * with the reason in @why (nothing is left behind then).
 */
struct correlator *correlator_start(const struct correlator_options *o,
				    char *why, size_t whylen);

/*
 * Attributes every read published so far: waits (at most @timeout_ms) for
 * the tracer to deliver the events already fired, then attributes and
 * writes out the pending access records. Call before reading the log.
 */
void correlator_sync(struct correlator *c, int timeout_ms);

/*
 * correlator_sync(), then closes every batch of inode @ino: after an
 * eviction, reads of the file belong to new windows only.
 */
void correlator_forget(struct correlator *c, uint64_t ino, int timeout_ms);

/*
 * The position up to which every record is attributed (records before it
 * have their final attribution, apart from a later LATE flag).
 */
uint64_t correlator_done_pos(struct correlator *c);

void correlator_get_stats(struct correlator *c, struct correlator_stats *st);

/*
 * Whether the kernel's events can prove the causes of reads. If not, the
 * reason is copied to @why (a sentence; "" when they can).
 */
bool correlator_causes(struct correlator *c, char *why, size_t whylen);

/*
 * Whether read(2) lookups are followed: correlator_options.trace_reads,
 * and the kernel has filemap:mm_filemap_get_pages.
 */
bool correlator_traces_reads(const struct correlator *c);
/*
 * Whether folios entering the page cache are followed with their order
 * (filemap:mm_filemap_add_to_page_cache): LOG_FOLIO records.
 */
bool correlator_traces_folios(const struct correlator *c);
/*
 * Whether those are all folios (correlator_options.all_folios), not only
 * the large ones.
 */
bool correlator_traces_all_folios(const struct correlator *c);

/* The tracer's one-line description (instance, events, filters). */
int correlator_describe(struct correlator *c, char *buf, size_t len);

/* Stops tracing (removing the tracefs instance) and frees @c. */
void correlator_stop(struct correlator *c);

#endif
