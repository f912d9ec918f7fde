/* SPDX-License-Identifier: MIT */
/*
 * What the log since the last clear says per file: pages fetched, accessed,
 * mapped by fault-around, wasted (fetched, never accessed nor mapped), late
 * accesses and reads; and the histograms of request sizes and folio orders.
 * Rendered into MOUNT/.testfs/stats; computed by the analysis layer
 * (src/analysis/analysis.h), the one computation libtestfs returns too.
 */
#ifndef TESTFS_CORRELATE_USAGE_H
#define TESTFS_CORRELATE_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"
#include "log_ring.h"

typedef const char *(*usage_name_fn)(void *ctx, uint64_t ino);

/*
 * Walks @ring from position @from and appends to @sb:
 *	"files":{"NAME":{"fetched":N,"accessed":N,"mapped":N,"wasted":N,
 *	"late_accesses":N,"late_reads":N,"page_age":{...}},...},
 *	"histograms":{...}
 * (no braces around it). "wasted" is null, with a "wasted_why", when the
 * accesses were not seen: without @traced (no kernel tracing), or for a
 * file whose readahead read(2) started without @reads_traced (or may
 * have started: without @causes, the kernel's readahead:* events, no read
 * names its trigger); so is
 * "page_age" (src/analysis/page_age.h) without @traced. Returns 0
 * or -ENOMEM.
 */
int usage_render(struct log_ring *ring, uint64_t from, uint32_t page_size,
		 bool traced, bool reads_traced, bool causes,
		 usage_name_fn name_of, void *ctx, struct strbuf *sb);

#endif
