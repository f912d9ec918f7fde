/* SPDX-License-Identifier: MIT */
/*
 * What the log since the last clear says per file: pages fetched, accessed,
 * mapped by fault-around, wasted (fetched, never accessed nor mapped), late
 * accesses and reads; and the histograms of request sizes and folio orders.
 * Rendered into MOUNT/.testfs/stats. Computed over page ranges, never per
 * page.
 */
#ifndef TESTFS_CORRELATE_USAGE_H
#define TESTFS_CORRELATE_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"
#include "log_ring.h"

#define USAGE_BUCKETS 16

struct usage_hist {
	/* Reads of 2^i .. 2^(i+1) - 1 pages. */
	uint64_t request_pages[USAGE_BUCKETS];
	/* Per window: the folio order asked for, and allocated. */
	uint64_t order_asked[USAGE_BUCKETS];
	uint64_t order_asked_unknown;
	uint64_t order_alloc[USAGE_BUCKETS];
	uint64_t order_alloc_unknown;
	uint64_t windows;
};

typedef const char *(*usage_name_fn)(void *ctx, uint64_t ino);

/*
 * Walks @ring from position @from and appends to @sb:
 *	"files":{"NAME":{"fetched":N,"accessed":N,"mapped":N,"wasted":N,
 *	"late_accesses":N,"late_reads":N,"page_age":{...}},...},
 *	"histograms":{...}
 * (no braces around it). "wasted" is null, with a "wasted_why", when the
 * accesses were not seen: without @traced (no kernel tracing), or for a
 * file whose readahead read(2) started without @reads_traced; so is
 * "page_age" (src/age/page_age.h) without @traced. Returns 0
 * or -ENOMEM.
 */
int usage_render(struct log_ring *ring, uint64_t from, uint32_t page_size,
		 bool traced, bool reads_traced, usage_name_fn name_of,
		 void *ctx, struct strbuf *sb);

#endif
