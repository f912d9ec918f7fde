/* SPDX-License-Identifier: MIT */
/*
 * The analysis layer: what a read log says about the use of the pages it
 * fetched, computed once. The daemon renders it into MOUNT/.testfs/stats
 * (src/correlate/usage.c) and libtestfs returns it from
 * testfs_log_usage(), testfs_log_histograms() and testfs_log_page_age()
 * (lib/usage.c), which the scenarios call. It knows neither: each caller
 * hands it its reads, accesses and folio records, in log order, as plain
 * struct an_read, struct an_access and struct an_folio, calls an_end(),
 * and reads the figures back.
 *
 * The rules, stated here only:
 *
 * - A read fetches its pages into the cache when it has pages, was
 *   answered without error and is not O_DIRECT (an_read_fetches()).
 * - A read's attribution (window, folio orders, late, by read(2)) counts
 *   only with a known cause: without one (no event explained the read,
 *   or a cause from a newer daemon) it is left unread.
 * - An access is a fault, a read(2) lookup, or a fault-around mapping of
 *   one page: do_fault_around() maps a range around the page faulted on,
 *   so a one-page range is that page. A mapping of more pages touched one
 *   of them without saying which: its pages are "mapped", not accessed
 *   (an_is_access(); page_age.h applies the same rule).
 * - A fault on a page of a large folio maps the whole folio: finish_fault()
 *   (mm/memory.c, since 6.11) sets the PTEs of every page of the folio
 *   when it lies inside the VMA and one page table, so the folio's other
 *   pages fault no more; so does fault-around (filemap_map_folio_range(),
 *   7.x) for every large folio its range touches, past the range. Their
 *   pages are "mapped" (an_end()). The folio is the one the folio records
 *   (LOG_FOLIO) put there last, for a fault up to AGE_LEAD_NS after it
 *   (the folio the fault read when it found the page missing, else the
 *   one it found), for a fault-around before it ended. The trace does not say
 * where the VMA is: a folio that crosses the VMA's edge or a page-table
 * boundary is mapped one page at a time by the kernel, and its pages that are
 * never touched count as mapped here, not wasted.
 * - Per file: fetched, accessed and mapped are the pages their ranges
 *   cover; mapped leaves out the accessed pages; wasted are the fetched
 *   pages neither accessed nor mapped. Wasted is known only with tracing,
 *   and not for a file where read(2) started readahead while read(2)
 *   lookups were not traced (an_wasted_known()).
 * - late_accesses sums the accesses' late counts, late_reads counts the
 *   fetching reads the correlator marked late.
 * - Histograms: request sizes in log2 buckets of pages (every read with
 *   pages), and per readahead window (the reads sharing a window id) the
 *   folio order asked for (that of its first read) and allocated (the
 *   first one known among its reads); orders past the last bucket count in
 *   it, unknown (negative) ones apart. an_log2_bucket() is the one log2.
 *
 * Everything works on page ranges, never page by page.
 */
#ifndef TESTFS_ANALYSIS_H
#define TESTFS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log_record.h"
#include "page_age.h"

/* Buckets of the request and order histograms. */
#define AN_BUCKETS 16

/* One read of the log. */
struct an_read {
	uint64_t file;	  /* the caller's key for the file (an inode) */
	uint64_t first;	  /* the pages [first, first + pages) */
	uint64_t pages;	  /* 0: an empty read */
	uint64_t t_ns;	  /* arrival */
	uint64_t done_ns; /* reply */
	uint32_t window;  /* the readahead window's id, 0 for none */
	int order;	  /* folio order asked for, negative: unknown */
	int alloc_order;  /* folio order allocated, negative: unknown */
	bool failed;	  /* answered with an error */
	bool direct;	  /* O_DIRECT */
	bool late;	  /* the correlator marked it late */
	bool by_read;	  /* readahead started by read(2) */
	bool attributed;  /* with a known cause: the fields above count */
	/* The kernel cannot name its trigger (no readahead:* events): read(2)
	 * may have started it. */
	bool trigger_unknown;
};

/* One access record of the log. */
struct an_access {
	uint64_t file;
	uint64_t first, last; /* pages */
	uint64_t t_ns, end_ns;
	unsigned type; /* enum log_access_type */
	uint32_t late; /* events that waited on a read */
};

struct an_range {
	uint64_t first, last;
};

/* Folios of 2^order pages the kernel added to the page cache, adjacent. */
struct an_folio {
	uint64_t file;
	uint64_t first, last; /* pages */
	uint64_t t_ns;	      /* when the first was added */
	unsigned order;
};

/*
 * A fault or fault-around record: pages [first, last] mapped in
 * [t_ns, end_ns]; a folio added up to lead_ns after end_ns may be the one
 * it mapped (a fault waits for the folio it reads, fault-around maps only
 * folios already there).
 */
struct an_fault {
	uint64_t first, last;
	uint64_t t_ns, end_ns;
	uint64_t lead_ns;
};

struct an_ranges {
	struct an_range *v;
	size_t n, cap;
};

/* What a file's reads and accesses gathered; read it with an_usage(). */
struct an_file {
	uint64_t key;
	struct an_ranges fetched, accessed, mapped;
	struct an_folio *folios; /* large ones only, in log order */
	size_t nfolios, capfolios;
	struct an_fault *faults;
	size_t nfaults, capfaults;
	bool ended; /* an_end() mapped the faults' and fault-arounds' folios */
	struct age_input age; /* for page_age.h's age_compute() */
	uint64_t late_accesses;
	uint64_t late_reads;
	bool read_triggered;  /* a window started by read(2) */
	bool trigger_unknown; /* a read no kernel event explains */
};

struct an_usage {
	uint64_t fetched;
	uint64_t accessed;
	uint64_t mapped; /* mapped, not accessed */
	uint64_t wasted; /* fetched, neither accessed nor mapped */
	uint64_t late_accesses;
	uint64_t late_reads;
	/* read(2) started readahead here, or may have: trigger_unknown. */
	bool read_triggered;
	bool trigger_unknown; /* no read(2) trigger proven, one possible */
};

struct an_hist {
	uint64_t request_pages[AN_BUCKETS]; /* 2^i .. 2^(i+1) - 1 pages */
	uint64_t order_asked[AN_BUCKETS];
	uint64_t order_asked_unknown;
	uint64_t order_alloc[AN_BUCKETS];
	uint64_t order_alloc_unknown;
	uint64_t windows;
};

/* A read with a window, in log order (the window's figures come later). */
struct an_window_read {
	uint32_t id;
	int8_t order, alloc;
	size_t at; /* its place in the log */
};

/* The whole computation over one log; zero it (or AN_LOG_INIT) to start. */
struct an_log {
	struct an_file *f;
	size_t nf, capf;
	struct an_window_read *w;
	size_t nw, capw;
	uint64_t request_pages[AN_BUCKETS];
	bool oom;
};

#define AN_LOG_INIT                                                            \
	{                                                                      \
		0                                                              \
	}

/* The rules above, for whoever needs one of them alone. */
bool an_fetches(uint64_t pages, bool failed, bool direct);
bool an_read_fetches(const struct an_read *r);
/* The access rule: a one-page fault-around is an access, wider is mapped. */
static inline bool an_is_access(unsigned type, uint64_t first, uint64_t last)
{
	return type != LOG_ACCESS_MAP || first == last;
}

static inline bool an_wasted_known(bool traced, bool reads_traced,
				   bool read_triggered)
{
	return traced && (reads_traced || !read_triggered);
}

/* floor(log2(@v)) for @v > 0, 0 for 0: the one log2 of the tree's
 * histograms (page_age.c's buckets too). */
static inline unsigned an_log2(uint64_t v)
{
	return v ? 63u - (unsigned)__builtin_clzll(v) : 0;
}

/* floor(log2(@v)) (0 for 0), at most AN_BUCKETS - 1. */
static inline unsigned an_log2_bucket(uint64_t v)
{
	unsigned b = an_log2(v);

	return b < AN_BUCKETS ? b : AN_BUCKETS - 1;
}

/* The bucket of a folio order: @order, at most AN_BUCKETS - 1. */
static inline unsigned an_order_bucket(unsigned order)
{
	return order < AN_BUCKETS ? order : AN_BUCKETS - 1;
}

/*
 * Add a read / an access / a folio record, in log order; on no memory,
 * @l->oom is set. Then an_end() before reading any figure.
 */
void an_add_read(struct an_log *l, const struct an_read *r);
void an_add_access(struct an_log *l, const struct an_access *a);
void an_add_folio(struct an_log *l, const struct an_folio *f);

/*
 * After the last add: the rules that need the whole log (a fault maps its
 * large folio). Once; later calls do nothing.
 */
void an_end(struct an_log *l);

/*
 * The usage of file @i (0 .. @l->nf - 1, in the order the log first named
 * them). If @wasted is not NULL, *@wasted gets the wasted ranges (sorted,
 * disjoint, malloc'd; NULL when none) and *@nwasted their number.
 * Returns 0 or -ENOMEM.
 */
int an_usage(struct an_log *l, size_t i, struct an_usage *out,
	     struct an_range **wasted, size_t *nwasted);

/* The histograms of everything added. Returns 0 or -ENOMEM. */
int an_histograms(struct an_log *l, struct an_hist *out);

void an_free(struct an_log *l);

#endif
