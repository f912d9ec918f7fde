/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/folios.h
 *
 * Folio orders: how large the folios were that the kernel put into the
 * page cache of a file, as its filemap:mm_filemap_add_to_page_cache
 * events tell (one event per folio, with its order). Included by
 * <testfs.h>.
 *
 * The daemon follows that event when it traces the kernel (root, tracefs)
 * and the kernel's event has an `order` field (6.18, 7.x); the log then
 * holds the folios as records of their own, and testfs_log_folio_orders()
 * counts them. On kernels whose FUSE uses order-0 folios only (every
 * released kernel up to 7.3), every folio is order 0; with large folios
 * for FUSE (the lab series fuse-large-folios) readahead's windows come in
 * orders up to the window's size.
 *
 * By default the daemon asks the kernel for the large folios only (order
 * > 0): one event per 4 KiB page would cost a cold sequential reader
 * about 10% of its throughput. The log says so, and the pages its reads
 * fetched (answered without error, not O_DIRECT) that no large folio
 * holds are counted here as order-0 folios of one page each; a folio
 * readahead added and dropped unread is then not counted. The daemon's
 * --trace-folios records every folio, order 0 included.
 */
#ifndef TESTFS_FOLIOS_H
#define TESTFS_FOLIOS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct testfs_log;

/** Orders counted; the last also counts every larger order. */
#define TESTFS_FOLIO_ORDERS 16

/**
 * The folios that entered the page cache of a file while the log ran.
 * A folio added again after an eviction counts again.
 */
struct testfs_folio_orders {
	/** Folios of order i (2^i pages each). */
	uint64_t folios[TESTFS_FOLIO_ORDERS];
	/** Pages in folios of order i. */
	uint64_t pages[TESTFS_FOLIO_ORDERS];
	uint64_t total_folios;
	uint64_t total_pages;
	/** The largest order seen; -1: no folio. */
	int max_order;
	/** The order holding the most pages (the smaller on a tie); -1. */
	int top_order;
};

/**
 * Fills @out (zeroed first) with the folio orders of file @name, or of
 * every file when @name is NULL.
 *
 * @return 0; -EINVAL for a NULL @log or @out; -ENODATA when the log has
 *	   no folio orders at all (see testfs_log_folio_orders_why()).
 */
int testfs_log_folio_orders(const struct testfs_log *log, const char *name,
			    struct testfs_folio_orders *out);

/**
 * Why @log has no folio orders, naming the kernel event that was not
 * followed and why (tracing off and its reason, or a kernel without
 * filemap:mm_filemap_add_to_page_cache and its order field); NULL when
 * it has them. The string belongs to the log.
 */
const char *testfs_log_folio_orders_why(const struct testfs_log *log);

/**
 * Check: at least @percent percent of the pages of @name that entered the
 * page cache did so in folios of order @order ("most of this file was
 * read in order-5 folios": order 5, percent 51). Returns 0 when it holds,
 * 1 with an explanation in *@why (free() it) when it does not, when no
 * page of @name entered the page cache, or when the log has no folio
 * orders (the explanation names the kernel events that were missing),
 * -EINVAL for a NULL @log or @name or a @percent over 100, -ENOMEM.
 *
 *     big.bin: 18% of the 65536 pages that entered the page cache were
 *     in order-5 folios, expected at least 51%: order 0: 2048 folios
 *     (2048 pages), order 2: 4096 (16384 pages), ...
 */
int testfs_check_folio_order(const struct testfs_log *log, const char *name,
			     unsigned order, unsigned percent, char **why);

#ifdef __cplusplus
}
#endif

#endif
