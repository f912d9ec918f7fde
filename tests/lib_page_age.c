// SPDX-License-Identifier: MIT
/*
 * Page age on hand-made snapshots: the rules of src/analysis/page_age.c (the
 * lead before a read's arrival, refetches, one-page and wider mappings,
 * late accesses) with times chosen by hand, ranges of 2^40 pages that
 * only a computation over ranges finishes, and the check's message.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib_i.h"

#include <testfs/criterion.h>

#define MS 1000000ull
#define MAX_RECS 16

struct fake {
	struct testfs_log log;
	struct testfs_record recs[MAX_RECS];
	struct testfs_access acc[MAX_RECS];
	struct lib_folio folios[MAX_RECS];
	const char *files[1];
};

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->log.recs = f->recs;
	f->log.access = f->acc;
	f->log.traced = true;
	f->files[0] = "f.bin";
	f->log.files = f->files;
	f->log.nfiles = 1;
	f->log.folios = f->folios;
	f->log.folios_traced = true;
}

/* Folios of 2^@order pages covering [@first, @last] entered the cache. */
static void folios(struct fake *f, uint64_t first, uint64_t last,
		   unsigned order, uint64_t t_ns)
{
	struct lib_folio *l = &f->folios[f->log.nfolios];

	cr_assert_lt(f->log.nfolios, MAX_RECS);
	*l = (struct lib_folio){ "f.bin",
				 first,
				 last,
				 t_ns,
				 (uint32_t)((last - first + 1) >> order),
				 order };
	f->log.nfolios++;
}

static void fetch(struct fake *f, uint64_t first, uint64_t pages, uint64_t t_ns,
		  uint64_t done_ns)
{
	struct testfs_record *r = &f->recs[f->log.count];

	cr_assert_lt(f->log.count, MAX_RECS);
	r->seq = f->log.count + 1;
	r->kind = TESTFS_RECORD_READ;
	r->file = "f.bin";
	r->page = first;
	r->pages = pages;
	r->off = first * TESTFS_PAGE_SIZE;
	r->len = 4096;
	r->t_ns = t_ns;
	r->done_ns = done_ns;
	f->log.count++;
}

static void touch(struct fake *f, enum testfs_access_type type, uint64_t first,
		  uint64_t last, uint64_t t_ns)
{
	struct testfs_access *a = &f->acc[f->log.naccess];

	cr_assert_lt(f->log.naccess, MAX_RECS);
	a->file = "f.bin";
	a->type = type;
	a->first = first;
	a->last = last;
	a->t_ns = t_ns;
	a->end_ns = t_ns;
	a->events = 1;
	f->log.naccess++;
}

static struct testfs_page_age age_of(const struct fake *f)
{
	struct testfs_page_age a;

	cr_assert_eq(testfs_log_page_age(&f->log, "f.bin", &a), 0);
	return a;
}

/* Bucket of an age in ns, by the documented bounds. */
static unsigned bucket_of(uint64_t ns)
{
	unsigned i;

	for (i = TESTFS_AGE_BUCKETS; i-- > 1;)
		if (ns / 1000 >= testfs_age_bucket_us(i))
			return i;
	return 0;
}

/* 2^40 pages fetched, 2^39 of them accessed: counted by range. */
Test(page_age_fake, huge_ranges)
{
	const uint64_t n = 1ull << 40;
	struct testfs_page_age a;
	struct fake f;
	int64_t ages[4];

	fake_init(&f);
	fetch(&f, 0, n, 1 * MS, 2 * MS);
	touch(&f, TESTFS_ACCESS_FAULT, 5, (n >> 1) + 4, 5 * MS);
	a = age_of(&f);
	cr_assert_eq(a.pages, n);
	cr_assert_eq(a.bucket[bucket_of(3 * MS)], n >> 1);
	cr_assert_eq(a.never, n - (n >> 1));
	cr_assert_eq(testfs_log_page_ages(&f.log, "f.bin", 3, 4, ages), 0);
	cr_assert_eq(ages[0], TESTFS_AGE_NEVER);
	cr_assert_eq(ages[1], TESTFS_AGE_NEVER);
	cr_assert_eq(ages[2], (int64_t)(3 * MS));
	cr_assert_eq(ages[3], (int64_t)(3 * MS));
	cr_assert_eq(testfs_log_page_ages(&f.log, "f.bin", n, 2, ages), 0);
	cr_assert_eq(ages[0], TESTFS_AGE_NOT_FETCHED);
}

/*
 * A refetched page ages from its latest fetch; an access within the lead
 * (100 ms) before a read's arrival is its cause, so late; one before the
 * lead is not the read's.
 */
Test(page_age_fake, refetch_and_lead)
{
	struct testfs_page_age a;
	struct fake f;
	int64_t ages[3];

	fake_init(&f);
	/* page 0: fetched at 1 s, touched at 1.5 s, refetched at 3 s */
	fetch(&f, 0, 3, 1000 * MS, 1001 * MS);
	touch(&f, TESTFS_ACCESS_READ, 0, 0, 1500 * MS);
	/* page 1: faulted 50 ms before the refetch arrived: late */
	touch(&f, TESTFS_ACCESS_FAULT, 1, 1, 2950 * MS);
	/* page 2: 150 ms before: the first fetch's, 1.949 s old */
	touch(&f, TESTFS_ACCESS_FAULT, 2, 2, 2850 * MS);
	fetch(&f, 0, 3, 3000 * MS, 3002 * MS);
	touch(&f, TESTFS_ACCESS_READ, 0, 0, 3010 * MS);
	a = age_of(&f);
	cr_assert_eq(a.pages, 6);
	cr_assert_eq(a.late, 1);
	/* first fetch: page 0 499 ms, page 1 never, page 2 1849 ms */
	cr_assert_eq(a.bucket[bucket_of(499 * MS)], 1);
	cr_assert_eq(a.bucket[bucket_of(1849 * MS)], 1);
	cr_assert_eq(a.bucket[bucket_of(8 * MS)], 1);
	/* first fetch page 1, second fetch page 2 */
	cr_assert_eq(a.never, 2);
	cr_assert_eq(testfs_log_page_ages(&f.log, "f.bin", 0, 3, ages), 0);
	cr_assert_eq(ages[0], (int64_t)(8 * MS));
	cr_assert_eq(ages[1], TESTFS_AGE_LATE);
	cr_assert_eq(ages[2], TESTFS_AGE_NEVER);
}

/* A one-page fault-around is the page faulted on; a wider one is not. */
Test(page_age_fake, mappings)
{
	struct testfs_page_age a;
	struct fake f;
	int64_t ages[20];

	fake_init(&f);
	fetch(&f, 0, 20, 1 * MS, 2 * MS);
	touch(&f, TESTFS_ACCESS_MAP, 3, 3, 4 * MS);
	touch(&f, TESTFS_ACCESS_MAP, 4, 15, 6 * MS);
	/* a fault on a mapped page later: its age is the fault's */
	touch(&f, TESTFS_ACCESS_FAULT, 8, 8, 12 * MS);
	a = age_of(&f);
	cr_assert_eq(a.pages, 20);
	cr_assert_eq(a.mapped, 11);
	cr_assert_eq(a.never, 7);
	cr_assert_eq(testfs_log_page_ages(&f.log, "f.bin", 0, 20, ages), 0);
	cr_assert_eq(ages[3], (int64_t)(2 * MS));
	cr_assert_eq(ages[4], TESTFS_AGE_MAPPED);
	cr_assert_eq(ages[8], (int64_t)(10 * MS));
	cr_assert_eq(ages[16], TESTFS_AGE_NEVER);
}

/* A merged record decides by its first event; its span is reported. */
Test(page_age_fake, resolution)
{
	struct testfs_page_age a;
	struct fake f;

	fake_init(&f);
	fetch(&f, 0, 4, 1 * MS, 2 * MS);
	touch(&f, TESTFS_ACCESS_READ, 0, 3, 3 * MS);
	f.acc[0].end_ns = 3 * MS + 700000;
	a = age_of(&f);
	cr_assert_eq(a.bucket[bucket_of(1 * MS)], 4);
	cr_assert_eq(a.resolution_ns, 700000);

	/* Spanning the reply: age 0; ending before it: late. */
	fake_init(&f);
	fetch(&f, 0, 8, 1 * MS, 2 * MS);
	touch(&f, TESTFS_ACCESS_READ, 0, 3, 1 * MS + 500000);
	f.acc[0].end_ns = 2 * MS + 500000;
	touch(&f, TESTFS_ACCESS_FAULT, 4, 5, 1 * MS + 100000);
	f.acc[1].end_ns = 1 * MS + 900000;
	a = age_of(&f);
	cr_assert_eq(a.bucket[0], 4);
	cr_assert_eq(a.late, 2);
	cr_assert_eq(a.never, 2);
	cr_assert_eq(a.resolution_ns, 1 * MS);
}

/* The check, holding and failing, with its histogram and pages. */
Test(page_age_fake, check)
{
	struct fake f;
	char *why = NULL;

	fake_init(&f);
	fetch(&f, 0, 8, 1 * MS, 2 * MS);
	touch(&f, TESTFS_ACCESS_FAULT, 1, 1, 3 * MS);
	touch(&f, TESTFS_ACCESS_FAULT, 2, 2, 80 * MS);
	testfs_assert_page_age(&f.log, "f.bin", 50 * MS, 7);
	cr_assert_eq(testfs_check_page_age(&f.log, "f.bin", 50 * MS, 6, &why),
		     1);
	cr_assert(why);
	cr_assert(strstr(why, "f.bin: 7 of 8 page fetches were first accessed "
			      "50.0 ms or more"),
		  "%s", why);
	cr_assert(strstr(why, "page 0 never accessed, page 2 78.0 ms, pages "
			      "[3, 7] never accessed"),
		  "%s", why);
	cr_assert(strstr(why, "late 0, never 6, mapped 0"), "%s", why);
	free(why);
	f.log.lost = 2;
	cr_assert_eq(testfs_check_page_age(&f.log, "f.bin", 50 * MS, 7, &why),
		     1);
	cr_assert(strstr(why, "lost"), "%s", why);
	free(why);
}

/*
 * read(2) started the readahead and read(2) lookups were not traced: the
 * pages read(2) read show as never accessed, and the result says so.
 */
Test(page_age_fake, read_accesses_not_traced)
{
	struct testfs_page_age a;
	struct fake f;
	char *why = NULL;

	fake_init(&f);
	fetch(&f, 0, 8, 1 * MS, 2 * MS);
	a = age_of(&f);
	cr_assert_eq(a.never, 8);
	cr_assert(!a.reads_untraced, "no read(2) decision: nothing to say");
	f.recs[0].by_read = true;
	a = age_of(&f);
	cr_assert_eq(a.never, 8);
	cr_assert(a.reads_untraced);
	cr_assert_eq(testfs_check_page_age(&f.log, "f.bin", 50 * MS, 0, &why),
		     1);
	cr_assert(strstr(why, "; read(2) accesses were not traced (run the "
			      "daemon with --trace-reads, "
			      "testfs_config.trace_reads): pages only read(2) "
			      "touched count as never accessed"),
		  "%s", why);
	free(why);
	/* With read(2) lookups traced, never means never. */
	f.log.reads_traced = true;
	a = age_of(&f);
	cr_assert(!a.reads_untraced);
	cr_assert_eq(testfs_check_page_age(&f.log, "f.bin", 50 * MS, 0, &why),
		     1);
	cr_assert_null(strstr(why, "not traced"), "%s", why);
	free(why);
}

/*
 * A kernel without the readahead:* events names no read's trigger
 * (log.bin flag 0x8): read(2) may have started any window, so without
 * read(2) tracing the result says the accesses may be missing.
 */
Test(page_age_fake, trigger_unknown_without_readahead_events)
{
	struct testfs_page_age a;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	struct fake f;

	fake_init(&f);
	fetch(&f, 0, 8, 1 * MS, 2 * MS);
	f.log.no_causes = true;
	a = age_of(&f);
	cr_assert(a.reads_untraced, "no trigger named: read(2) may have");
	testfs_assert_ok(testfs_log_usage(&f.log, "f.bin", &u, NULL));
	cr_assert_not(u.wasted_known);
	f.log.reads_traced = true;
	a = age_of(&f);
	cr_assert_not(a.reads_untraced);
	testfs_assert_ok(testfs_log_usage(&f.log, "f.bin", &u, NULL));
	cr_assert(u.wasted_known);
}

/*
 * A fault on a page of a large folio maps the whole folio (finish_fault()):
 * the folio's other pages are mapped, not wasted. The folio is the one
 * the folio records hold last, up to 100 ms after the fault: the one the
 * fault found (pages 0-63), the one it read after an eviction (64-79:
 * the old order-4 folio is gone), none when the only record comes later
 * (80-95: that fetch is another one's). Fault-around maps the large
 * folios its range touches whole too (96-127).
 */
Test(page_age_fake, fault_maps_its_large_folio)
{
	struct testfs_extents wasted = TESTFS_EXTENTS_INIT;
	struct testfs_usage u = TESTFS_USAGE_INIT;
	struct testfs_page_age a;
	struct fake f;
	int64_t ages[128];
	char buf[128];

	fake_init(&f);
	fetch(&f, 0, 80, 10 * MS, 11 * MS);
	folios(&f, 0, 31, 4, 10 * MS);
	folios(&f, 32, 63, 5, 10 * MS);
	folios(&f, 64, 79, 4, 10 * MS);
	touch(&f, TESTFS_ACCESS_FAULT, 5, 5, 12 * MS);
	touch(&f, TESTFS_ACCESS_FAULT, 40, 40, 12 * MS);
	/* 64-79 evicted; a fault reads them again in order-2 folios */
	touch(&f, TESTFS_ACCESS_FAULT, 66, 66, 485 * MS);
	fetch(&f, 64, 16, 486 * MS, 489 * MS);
	folios(&f, 64, 79, 2, 487 * MS);
	/* a fault 200 ms before a fetch and its folios: not its folio */
	touch(&f, TESTFS_ACCESS_FAULT, 80, 80, 700 * MS);
	fetch(&f, 80, 16, 900 * MS, 901 * MS);
	folios(&f, 80, 95, 4, 900 * MS);
	/* fault-around maps every large folio it touches whole (7.x) */
	fetch(&f, 96, 32, 10 * MS, 11 * MS);
	folios(&f, 96, 127, 5, 10 * MS);
	touch(&f, TESTFS_ACCESS_MAP, 100, 103, 13 * MS);

	cr_assert_eq(testfs_log_usage(&f.log, "f.bin", &u, &wasted), 0);
	cr_assert(u.wasted_known);
	cr_assert_eq(u.fetched, 128);
	cr_assert_eq(u.accessed, 4);
	cr_assert_eq(u.mapped, 15 + 31 + 3 + 32, "mapped %llu",
		     (unsigned long long)u.mapped);
	cr_assert_eq(u.wasted, 16 + 12 + 15);
	testfs_extents_format(&wasted, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[16, 31] [68, 79] [81, 95]");
	testfs_extents_free(&wasted);

	a = age_of(&f);
	cr_assert_eq(a.pages, 144);
	cr_assert_eq(a.mapped, 81);
	cr_assert_eq(a.late, 1);
	cr_assert_eq(a.never, 16 + 16 + 12 + 16);
	cr_assert_eq(testfs_log_page_ages(&f.log, "f.bin", 0, 128, ages), 0);
	cr_assert_eq(ages[0], TESTFS_AGE_MAPPED);
	cr_assert_eq(ages[5], (int64_t)(1 * MS));
	cr_assert_eq(ages[16], TESTFS_AGE_NEVER);
	cr_assert_eq(ages[63], TESTFS_AGE_MAPPED);
	cr_assert_eq(ages[65], TESTFS_AGE_MAPPED);
	cr_assert_eq(ages[66], TESTFS_AGE_LATE);
	cr_assert_eq(ages[68], TESTFS_AGE_NEVER);
	cr_assert_eq(ages[81], TESTFS_AGE_NEVER);
	cr_assert_eq(ages[96], TESTFS_AGE_MAPPED);
	cr_assert_eq(ages[127], TESTFS_AGE_MAPPED);
}
