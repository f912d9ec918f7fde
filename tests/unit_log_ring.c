// SPDX-License-Identifier: MIT
/*
 * The lock-free read log ring: sizing, sequence numbers, the three read
 * results, walks over wrapped rings and concurrent producers.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log/log_ring.h"

static struct log_ring ring;

static void teardown(void)
{
	log_ring_destroy(&ring);
}

TestSuite(log_ring, .fini = teardown);

static uint64_t append_read(uint64_t off)
{
	struct log_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.seq = 999999; /* must be ignored */
	rec.kind = LOG_READ;
	rec.read.ino = 7;
	rec.read.off = off;
	rec.read.len = 4096;
	return log_ring_append(&ring, &rec);
}

static void append_n(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		append_read(i * 4096);
}

/* What a walk saw. */
struct walk_log {
	uint64_t seqs[256];
	size_t nseqs;
	uint64_t lost_first[16];
	uint64_t lost_count[16];
	size_t nlost;
};

static void visit_cb(void *arg, const struct log_record *rec)
{
	struct walk_log *w = arg;

	cr_assert_lt(w->nseqs, 256);
	w->seqs[w->nseqs++] = rec->seq;
}

static void lost_cb(void *arg, uint64_t first_seq, uint64_t count)
{
	struct walk_log *w = arg;

	cr_assert_lt(w->nlost, 16);
	w->lost_first[w->nlost] = first_seq;
	w->lost_count[w->nlost] = count;
	w->nlost++;
}

static void expect_seqs(const struct walk_log *w, uint64_t first, uint64_t last)
{
	size_t i;

	cr_assert_eq(w->nseqs, last - first + 1, "visited %zu, want %llu",
		     w->nseqs, (unsigned long long)(last - first + 1));
	for (i = 0; i < w->nseqs; i++)
		cr_assert_eq(w->seqs[i], first + i, "record %zu: seq %llu", i,
			     (unsigned long long)w->seqs[i]);
}

/* --- init --- */

static void check_capacity(uint64_t asked, uint64_t want)
{
	int ret = log_ring_init(&ring, asked);

	cr_assert_eq(ret, 0, "init(%llu) = %d", (unsigned long long)asked, ret);
	cr_assert_eq(ring.capacity, want, "init(%llu): capacity %llu",
		     (unsigned long long)asked,
		     (unsigned long long)ring.capacity);
	cr_assert_eq(ring.mask, want - 1);
	cr_assert_eq(log_ring_head(&ring), 0);
	log_ring_destroy(&ring);
}

Test(log_ring, init_rounds_up)
{
	check_capacity(17, 32);
	check_capacity(32, 32);
	check_capacity(33, 64);
	check_capacity(1000, 1024);
	check_capacity((1u << 20) + 1, 1u << 21);
}

Test(log_ring, init_minimum)
{
	check_capacity(0, LOG_RING_MIN);
	check_capacity(1, LOG_RING_MIN);
	check_capacity(LOG_RING_MIN - 1, LOG_RING_MIN);
	check_capacity(LOG_RING_MIN, LOG_RING_MIN);
}

Test(log_ring, init_above_maximum)
{
	cr_assert_eq(log_ring_init(&ring, LOG_RING_MAX + 1), -EINVAL);
	cr_assert_null(ring.slots);
	cr_assert_eq(log_ring_init(&ring, UINT64_MAX), -EINVAL);
}

/* --- append and read --- */

Test(log_ring, append_assigns_seq)
{
	cr_assert_eq(log_ring_init(&ring, 16), 0);
	cr_assert_eq(append_read(0), 1);
	cr_assert_eq(append_read(4096), 2);
	cr_assert_eq(append_read(8192), 3);
	cr_assert_eq(log_ring_head(&ring), 3);
}

Test(log_ring, read_published)
{
	struct log_record rec;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(3);
	cr_assert_eq(log_ring_read(&ring, 1, &rec), LOG_READ_OK);
	cr_assert_eq(rec.seq, 2);
	cr_assert_eq(rec.kind, LOG_READ);
	cr_assert_eq(rec.read.ino, 7);
	cr_assert_eq(rec.read.off, 4096);
	cr_assert_eq(rec.read.len, 4096);
}

Test(log_ring, read_reserved_is_pending)
{
	struct log_record rec, *r;
	uint64_t pos = 99;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(2);
	r = log_ring_reserve(&ring, &pos);
	cr_assert_not_null(r);
	cr_assert_eq(pos, 2);
	cr_assert_eq(r->seq, 3);
	cr_assert_eq(log_ring_read(&ring, 2, &rec), LOG_READ_PENDING);
	r->kind = LOG_READ;
	r->read.off = 12345;
	log_ring_publish(&ring, pos);
	cr_assert_eq(log_ring_read(&ring, 2, &rec), LOG_READ_OK);
	cr_assert_eq(rec.seq, 3);
	cr_assert_eq(rec.read.off, 12345);
}

Test(log_ring, read_unwritten_is_pending)
{
	struct log_record rec;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	cr_assert_eq(log_ring_read(&ring, 0, &rec), LOG_READ_PENDING);
	append_n(1);
	cr_assert_eq(log_ring_read(&ring, 1, &rec), LOG_READ_PENDING);
}

Test(log_ring, read_overwritten_is_lost)
{
	struct log_record rec;
	uint64_t pos;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(20);
	for (pos = 0; pos < 4; pos++)
		cr_assert_eq(log_ring_read(&ring, pos, &rec), LOG_READ_LOST,
			     "pos %llu", (unsigned long long)pos);
	for (pos = 4; pos < 20; pos++) {
		cr_assert_eq(log_ring_read(&ring, pos, &rec), LOG_READ_OK,
			     "pos %llu", (unsigned long long)pos);
		cr_assert_eq(rec.seq, pos + 1);
		cr_assert_eq(rec.read.off, pos * 4096);
	}
}

Test(log_ring, overwritten_by_pending_is_lost)
{
	struct log_record rec;
	uint64_t pos;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(16);
	log_ring_reserve(&ring, &pos);
	cr_assert_eq(pos, 16);
	/* Slot 0 is being rewritten: position 0 is gone, 16 not there yet. */
	cr_assert_eq(log_ring_read(&ring, 0, &rec), LOG_READ_LOST);
	cr_assert_eq(log_ring_read(&ring, 16, &rec), LOG_READ_PENDING);
	cr_assert_eq(log_ring_read(&ring, 1, &rec), LOG_READ_OK);
}

/* --- walk --- */

Test(log_ring, walk_all)
{
	struct walk_log w = { 0 };
	uint64_t end;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(10);
	end = log_ring_walk(&ring, 0, visit_cb, lost_cb, &w);
	cr_assert_eq(end, 10);
	expect_seqs(&w, 1, 10);
	cr_assert_eq(w.nlost, 0);
}

Test(log_ring, walk_empty)
{
	struct walk_log w = { 0 };

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	cr_assert_eq(log_ring_walk(&ring, 0, visit_cb, lost_cb, &w), 0);
	cr_assert_eq(w.nseqs, 0);
	cr_assert_eq(w.nlost, 0);
}

Test(log_ring, walk_from_middle)
{
	struct walk_log w = { 0 };

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(10);
	cr_assert_eq(log_ring_walk(&ring, 6, visit_cb, lost_cb, &w), 10);
	expect_seqs(&w, 7, 10);
	cr_assert_eq(w.nlost, 0);
}

Test(log_ring, walk_wrapped_reports_lost_run)
{
	struct walk_log w = { 0 };

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(40);
	cr_assert_eq(log_ring_walk(&ring, 0, visit_cb, lost_cb, &w), 40);
	cr_assert_eq(w.nlost, 1);
	cr_assert_eq(w.lost_first[0], 1);
	cr_assert_eq(w.lost_count[0], 24);
	expect_seqs(&w, 25, 40);
}

Test(log_ring, walk_wrapped_from_inside_lost_range)
{
	struct walk_log w = { 0 };

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(40);
	cr_assert_eq(log_ring_walk(&ring, 10, visit_cb, lost_cb, &w), 40);
	cr_assert_eq(w.nlost, 1);
	cr_assert_eq(w.lost_first[0], 11);
	cr_assert_eq(w.lost_count[0], 14);
	expect_seqs(&w, 25, 40);
}

Test(log_ring, walk_wrapped_from_kept_range)
{
	struct walk_log w = { 0 };

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(40);
	cr_assert_eq(log_ring_walk(&ring, 30, visit_cb, lost_cb, &w), 40);
	cr_assert_eq(w.nlost, 0);
	expect_seqs(&w, 31, 40);
}

Test(log_ring, walk_without_callbacks)
{
	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(40);
	cr_assert_eq(log_ring_walk(&ring, 0, NULL, NULL, NULL), 40);
}

Test(log_ring, walk_stops_at_pending)
{
	struct walk_log w = { 0 };
	uint64_t pos;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(5);
	log_ring_reserve(&ring, &pos);
	append_n(3);
	cr_assert_eq(log_ring_walk(&ring, 0, visit_cb, lost_cb, &w), 5);
	expect_seqs(&w, 1, 5);
	cr_assert_eq(w.nlost, 0);

	/* Once published, a walk from where the last one stopped resumes. */
	log_ring_publish(&ring, pos);
	memset(&w, 0, sizeof(w));
	cr_assert_eq(log_ring_walk(&ring, 5, visit_cb, lost_cb, &w), 9);
	expect_seqs(&w, 6, 9);
}

Test(log_ring, walk_lost_run_then_pending)
{
	struct walk_log w = { 0 };
	uint64_t pos;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(20);
	log_ring_reserve(&ring, &pos);
	/* Positions 0..4 are gone, 5..19 kept, 20 pending. */
	cr_assert_eq(log_ring_walk(&ring, 0, visit_cb, lost_cb, &w), 20);
	cr_assert_eq(w.nlost, 1);
	cr_assert_eq(w.lost_first[0], 1);
	cr_assert_eq(w.lost_count[0], 5);
	expect_seqs(&w, 6, 20);
}

Test(log_ring, walk_lost_run_at_the_end_is_reported)
{
	struct walk_log w = { 0 };
	uint64_t pos, i;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(16);
	/* A whole ring of reservations: every published record is gone. */
	for (i = 0; i < 16; i++)
		log_ring_reserve(&ring, &pos);
	cr_assert_eq(log_ring_walk(&ring, 0, visit_cb, lost_cb, &w), 16);
	cr_assert_eq(w.nseqs, 0);
	cr_assert_eq(w.nlost, 1);
	cr_assert_eq(w.lost_first[0], 1);
	cr_assert_eq(w.lost_count[0], 16);
}

/* A visitor that writes more records while the walk is under way. */
struct racing_walk {
	struct walk_log log;
	int appended;
};

static void racing_visit(void *arg, const struct log_record *rec)
{
	struct racing_walk *r = arg;

	visit_cb(&r->log, rec);
	if (!r->appended) {
		r->appended = 1;
		append_n(3);
	}
}

static void racing_lost(void *arg, uint64_t first_seq, uint64_t count)
{
	struct racing_walk *r = arg;

	lost_cb(&r->log, first_seq, count);
}

Test(log_ring, walk_reports_records_overwritten_during_walk)
{
	struct racing_walk r = { 0 };

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(16);
	/*
	 * The walk samples head = 16 and visits seq 1; the visitor then writes
	 * positions 16..18 over slots 0..2, so seqs 2 and 3 are lost under the
	 * walk's feet and must be reported as one run.
	 */
	cr_assert_eq(log_ring_walk(&ring, 0, racing_visit, racing_lost, &r),
		     16);
	cr_assert_eq(r.log.nlost, 1);
	cr_assert_eq(r.log.lost_first[0], 2);
	cr_assert_eq(r.log.lost_count[0], 2);
	cr_assert_eq(r.log.nseqs, 1 + 13);
	cr_assert_eq(r.log.seqs[0], 1);
	cr_assert_eq(r.log.seqs[1], 4);
	cr_assert_eq(r.log.seqs[13], 16);
}

/* --- lost since clear --- */

Test(log_ring, lost_since_clear)
{
	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_n(40);
	cr_assert_eq(log_ring_lost_since_clear(&ring), 24);

	atomic_store(&ring.clear_pos, log_ring_head(&ring));
	cr_assert_eq(log_ring_lost_since_clear(&ring), 0);
	append_n(16);
	cr_assert_eq(log_ring_lost_since_clear(&ring), 0);
	append_n(1);
	cr_assert_eq(log_ring_lost_since_clear(&ring), 1);
	append_n(9);
	cr_assert_eq(log_ring_lost_since_clear(&ring), 10);
}

Test(log_ring, nothing_lost_before_wrap)
{
	cr_assert_eq(log_ring_init(&ring, 16), 0);
	cr_assert_eq(log_ring_lost_since_clear(&ring), 0);
	append_n(16);
	cr_assert_eq(log_ring_lost_since_clear(&ring), 0);
}

/* --- concurrency --- */

#define THREADS 4
#define PER_THREAD 100000

struct producer {
	pthread_t tid;
	uint64_t id;
};

/* Released together so that the producers really overlap. */
static pthread_barrier_t start;

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct log_record rec;
	uint64_t i;

	memset(&rec, 0, sizeof(rec));
	rec.kind = LOG_READ;
	rec.read.ino = p->id;
	pthread_barrier_wait(&start);
	for (i = 0; i < PER_THREAD; i++) {
		rec.read.off = i;
		rec.read.len = (uint32_t)(p->id * 1000 + 1);
		log_ring_append(&ring, &rec);
	}
	return NULL;
}

struct mt_check {
	uint64_t count;
	uint64_t next_seq;
	uint64_t next_off[THREADS];
	uint64_t errors;
	uint64_t lost;
	unsigned char *seen;
};

static void mt_visit(void *arg, const struct log_record *rec)
{
	struct mt_check *c = arg;
	uint64_t id = rec->read.ino;

	/* No asserts here: 400000 calls; count problems and check after. */
	c->count++;
	if (rec->seq != c->next_seq || rec->seq == 0 ||
	    rec->seq > THREADS * PER_THREAD || c->seen[rec->seq])
		c->errors++;
	else
		c->seen[rec->seq] = 1;
	c->next_seq = rec->seq + 1;
	/* Each producer's records appear in its own order, intact. */
	if (id >= THREADS || rec->kind != LOG_READ ||
	    rec->read.off != c->next_off[id] || rec->read.len != id * 1000 + 1)
		c->errors++;
	else
		c->next_off[id]++;
}

static void mt_lost(void *arg, uint64_t first_seq, uint64_t count)
{
	struct mt_check *c = arg;

	(void)first_seq;
	c->lost += count;
}

Test(log_ring, concurrent_appends)
{
	struct producer prod[THREADS];
	struct mt_check c = { 0 };
	uint64_t end, i;

	cr_assert_eq(log_ring_init(&ring, 1u << 20), 0);
	cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (i = 0; i < THREADS; i++) {
		prod[i].id = i;
		cr_assert_eq(
			pthread_create(&prod[i].tid, NULL, produce, &prod[i]),
			0);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(prod[i].tid, NULL);
	pthread_barrier_destroy(&start);

	c.next_seq = 1;
	c.seen = calloc(THREADS * PER_THREAD + 1, 1);
	cr_assert_not_null(c.seen);
	end = log_ring_walk(&ring, 0, mt_visit, mt_lost, &c);
	cr_assert_eq(end, THREADS * PER_THREAD);
	cr_assert_eq(c.count, THREADS * PER_THREAD);
	cr_assert_eq(c.lost, 0);
	cr_assert_eq(c.errors, 0, "%llu bad records",
		     (unsigned long long)c.errors);
	for (i = 1; i <= THREADS * PER_THREAD; i++)
		cr_assert(c.seen[i], "seq %llu missing", (unsigned long long)i);
	for (i = 0; i < THREADS; i++)
		cr_assert_eq(c.next_off[i], PER_THREAD, "thread %llu",
			     (unsigned long long)i);
	cr_assert_eq(log_ring_lost_since_clear(&ring), 0);
	free(c.seen);
}

/* ---- attribution (kernel correlation) ---- */

static struct log_attr sample_attr(uint8_t cause, uint64_t start)
{
	struct log_attr a;

	memset(&a, 0, sizeof(a));
	a.cause = cause;
	a.window = 3;
	a.ra_start = start;
	a.ra_size = 32;
	a.ra_async = 32;
	a.ra_marker = start;
	a.trigger_page = start - 1;
	a.order = 2;
	a.alloc_order = 0;
	return a;
}

Test(log_ring, attribution_absent_reads_as_unknown)
{
	struct log_record rec;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_read(0);
	cr_assert_not(log_ring_attributed(&ring, 0));
	cr_assert_eq(log_ring_read(&ring, 0, &rec), LOG_READ_OK);
	cr_assert_eq(rec.read.attr.cause, LOG_CAUSE_UNKNOWN);
	cr_assert_eq(rec.read.attr.window, 0);
}

Test(log_ring, attribution_written_and_rewritten)
{
	struct log_attr a = sample_attr(LOG_CAUSE_ASYNC, 20);
	struct log_record rec;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	append_read(0);
	append_read(4096);
	cr_assert_eq(log_ring_attribute(&ring, 1, &a), 0);
	cr_assert(log_ring_attributed(&ring, 1));
	cr_assert_not(log_ring_attributed(&ring, 0));
	cr_assert_eq(log_ring_read(&ring, 1, &rec), LOG_READ_OK);
	cr_assert_eq(memcmp(&rec.read.attr, &a, sizeof(a)), 0);
	/* The record's own fields are untouched. */
	cr_assert_eq(rec.read.off, 4096);
	cr_assert_eq(rec.seq, 2);
	a.flags |= LOG_ATTR_LATE;
	cr_assert_eq(log_ring_attribute(&ring, 1, &a), 0);
	cr_assert_eq(log_ring_read(&ring, 1, &rec), LOG_READ_OK);
	cr_assert_eq(rec.read.attr.flags, LOG_ATTR_LATE);
}

Test(log_ring, attribution_of_unpublished_or_overwritten_is_refused)
{
	struct log_attr a = sample_attr(LOG_CAUSE_SYNC, 1);
	struct log_record *r, rec;
	uint64_t pos, i;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	r = log_ring_reserve(&ring, &pos);
	r->kind = LOG_READ;
	cr_assert_eq(log_ring_attribute(&ring, pos, &a), -ESTALE);
	log_ring_publish(&ring, pos);
	cr_assert_eq(log_ring_attribute(&ring, pos, &a), 0);
	/* Wrap: position 0's slot now holds position 16. */
	for (i = 0; i < 16; i++)
		append_read(i * 4096);
	cr_assert_eq(log_ring_attribute(&ring, 0, &a), -ESTALE);
	/* The new record does not inherit the old attribution. */
	cr_assert_not(log_ring_attributed(&ring, 16));
	cr_assert_eq(log_ring_read(&ring, 16, &rec), LOG_READ_OK);
	cr_assert_eq(rec.read.attr.cause, LOG_CAUSE_UNKNOWN);
}

Test(log_ring, marks_are_never_zeroed)
{
	struct log_record rec, out;

	cr_assert_eq(log_ring_init(&ring, 16), 0);
	memset(&rec, 0, sizeof(rec));
	rec.kind = LOG_MARK;
	memset(rec.mark.text, 'x', LOG_MARK_MAX);
	log_ring_append(&ring, &rec);
	cr_assert_eq(log_ring_read(&ring, 0, &out), LOG_READ_OK);
	cr_assert_eq(strnlen(out.mark.text, LOG_MARK_MAX + 1), LOG_MARK_MAX);
}

/* ---- the toucher (log_ring_touch.c) ---- */

/* Bytes of the ring's map resident from its start (mincore()). */
static size_t resident_prefix(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE),
	       n = (ring.map_len + page - 1) / page, i;
	unsigned char *vec = malloc(n);

	cr_assert_not_null(vec);
	cr_assert_eq(mincore(ring.slots, ring.map_len, vec), 0, "%s",
		     strerror(errno));
	for (i = 0; i < n && (vec[i] & 1); i++)
		;
	free(vec);
	return i * page;
}

/* Waits up to 10 s for at least @bytes of the map to be resident. */
static size_t wait_resident(size_t bytes)
{
	size_t got = 0;
	int i;

	for (i = 0; i < 1000 && (got = resident_prefix()) < bytes; i++)
		usleep(10000);
	return got;
}

/*
 * The thread touches the first 2 MiB at once (nothing written yet) and,
 * once the records come within 1 MiB of its end, the next stretch: the
 * pages are resident before any record reaches them. What the records
 * hold is untouched by it.
 */
Test(log_ring, toucher_stays_ahead_of_the_records)
{
	const size_t ahead = 2u << 20;
	uint64_t n = (ahead - (1u << 20)) / sizeof(struct log_slot) + 16, i;
	struct log_record out;
	size_t got;

	cr_assert_eq(log_ring_init(&ring, 1u << 16), 0); /* 9 MiB */
	cr_assert_eq(resident_prefix(), 0, "a fresh ring is not touched");
	cr_assert_eq(log_ring_touch_start(&ring), 0);
	got = wait_resident(ahead);
	cr_assert_geq(got, ahead, "%zu bytes resident", got);
	/* Past the mark 1 MiB before the touched end: the thread wakes. */
	append_n(n);
	got = wait_resident(n * sizeof(struct log_slot) + ahead);
	cr_assert_geq(got, n * sizeof(struct log_slot) + ahead,
		      "%zu bytes resident after %llu records", got,
		      (unsigned long long)n);
	for (i = 0; i < n; i++) {
		cr_assert_eq(log_ring_read(&ring, i, &out), LOG_READ_OK);
		cr_assert_eq(out.seq, i + 1);
		cr_assert_eq(out.read.off, i * 4096);
	}
	log_ring_touch_stop(&ring);
	cr_assert_eq(log_ring_touch_start(&ring), 0, "startable again");
}

/* A ring smaller than a page is touched whole; destroy stops the thread. */
Test(log_ring, toucher_of_a_small_ring_ends)
{
	cr_assert_eq(log_ring_init(&ring, LOG_RING_MIN), 0);
	cr_assert_eq(log_ring_touch_start(&ring), 0);
	cr_assert_geq(wait_resident(1), 1);
	append_n(3 * LOG_RING_MIN);
	log_ring_destroy(&ring);
	cr_assert_null(ring.slots);
}
