/* SPDX-License-Identifier: MIT */
/*
 * Page age: for each page a read fetched, the time from the read's reply
 * to the page's first access after it. Part of the analysis layer
 * (analysis.h), which feeds it each file's fetches and accesses for the
 * daemon's stats and libtestfs (testfs_log_page_age()) alike; it sees
 * plain page ranges and times, not log records.
 *
 * The rules (man/testfs-control.5 says them to users):
 *
 * - A fetch is a read answered without error and not O_DIRECT: pages
 *   [first, last], arrival t_ns, reply done_ns (CLOCK_MONOTONIC, as the
 *   kernel's trace timestamps).
 * - Each fetch of a page owns the accesses from AGE_LEAD_NS before its
 *   arrival to AGE_LEAD_NS before the next fetch of that page arrives: the
 *   access that made the kernel send a read comes before it (microseconds;
 *   100 ms allow for a daemon not scheduled at once on a busy machine or
 *   a request in the kernel's background queue), and a page fetched again
 *   (after an eviction) ages from its latest fetch.
 * - Accesses are as an_is_access() (analysis.h) says: faults, read(2)
 *   lookups and fault-around mappings of one page; the pages of a wider
 *   mapping are "mapped", not accessed.
 * - The first access time of a page in an access record is its t_ns: the
 *   correlator merges an event into a record only while the record spans
 *   at most AGE_MERGE_SPAN_NS, so the true time is within that after it.
 *   An age is thus at most AGE_MERGE_SPAN_NS short of the truth.
 * - A first access before the reply is "late": the access waited on the
 *   read (a fault on a page in flight, or the fault that caused it). Late
 *   means certainly before: the whole record ended before the reply. A
 *   record that spans the reply gives age 0 (its page's access may have
 *   been on either side, within the resolution).
 *   A read(2) lookup is traced when it ends, after the read it waited on
 *   was answered: it shows as a small age, not late.
 *
 * Work is done over page ranges: the pages are cut into intervals at
 * every range boundary, and each interval (all of whose pages have the
 * same fetches and accesses) is decided once.
 */
#ifndef TESTFS_PAGE_AGE_H
#define TESTFS_PAGE_AGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bucket 0: [0, 1 us); bucket i: [2^(i-1), 2^i) us; the last is open. */
#define AGE_BUCKETS 26
/* The widest span of an access record (the age's resolution). */
#define AGE_MERGE_SPAN_NS 1000000ull
/* An access this long before a read's arrival may have caused it. */
#define AGE_LEAD_NS 100000000ull

/* Per-page results of age_compute() that are not ages (ns >= 0). */
#define AGE_NOT_FETCHED (-1)
#define AGE_NEVER (-2)
#define AGE_MAPPED (-3)
#define AGE_LATE (-4)

struct age_fetch {
	uint64_t first, last;
	uint64_t t_ns, done_ns;
};

struct age_access {
	uint64_t first, last;
	uint64_t t_ns, end_ns;
	bool mapped; /* a fault-around mapping of several pages */
};

/* The fetches and accesses of one file; zero it to start. */
struct age_input {
	struct age_fetch *f;
	size_t nf, capf;
	struct age_access *a;
	size_t na, capa;
	bool oom;
};

struct age_hist {
	uint64_t pages; /* page fetches: buckets + late + never + mapped */
	uint64_t bucket[AGE_BUCKETS];
	uint64_t late;
	uint64_t never;	 /* neither accessed nor mapped */
	uint64_t mapped; /* mapped by fault-around, not seen accessed */
	/* The widest access record that gave an age or a late. */
	uint64_t resolution_ns;
	/* Page fetches with an age of at least age_compute()'s @older_ns. */
	uint64_t older;
};

/* Add a fetch / an access; on no memory, @in->oom is set. */
void age_add_fetch(struct age_input *in, uint64_t first, uint64_t last,
		   uint64_t t_ns, uint64_t done_ns);
/*
 * @type as enum log_access_type; an_is_access() (analysis.h) tells an
 * access from a "mapped" range.
 */
void age_add_access(struct age_input *in, unsigned type, uint64_t first,
		    uint64_t last, uint64_t t_ns, uint64_t end_ns);

/*
 * Fills @h (zeroed first) for the pages [@lo, @hi], counting in
 * @h->older the ages of @older_ns or more, and, if @ages is
 * non-NULL, @ages[p - lo] for each page p there: the age in ns of its
 * latest fetch, or AGE_NOT_FETCHED, AGE_NEVER, AGE_MAPPED, AGE_LATE.
 * Returns 0 or -ENOMEM (also when @in->oom).
 */
int age_compute(const struct age_input *in, uint64_t lo, uint64_t hi,
		uint64_t older_ns, struct age_hist *h, int64_t *ages);

/* The bucket of an age, and the lower bound of bucket @b in us. */
unsigned age_bucket(uint64_t ns);
uint64_t age_bucket_low_us(unsigned b);

void age_free(struct age_input *in);

#endif
