/* SPDX-License-Identifier: MIT */
/*
 * The in-memory read log: a fixed ring of records. Producers (request
 * handlers) reserve a position when a request arrives and publish the
 * record when it is answered; they never allocate, never block and share no
 * lock with anything else: a position comes from one atomic counter and
 * each slot carries its own state word, which readers check before and
 * after copying (a sequence lock per slot). With the toucher running
 * (log_ring_touch_start()), one producer every 1 MiB of records also
 * writes its eventfd once: a system call that does not block.
 *
 * Position p holds seq p + 1. When more than the capacity is written, the
 * oldest records are overwritten; readers see them as lost and count them.
 */
#ifndef TESTFS_LOG_RING_H
#define TESTFS_LOG_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "log_record.h"

#define LOG_RING_MIN 16
#define LOG_RING_MAX (1ull << 30)

struct log_slot {
	/* 2p + 1: position p being written; 2p + 2: p published. */
	_Atomic uint64_t state;
	/*
	 * p + 1 when rec.read.attr holds the attribution of position p
	 * (log_ring_attribute()); anything else: readers zero it.
	 */
	_Atomic uint64_t attr;
	struct log_record rec;
};

/* --help and testfs(8) give the ring's memory as 144 bytes a record. */
_Static_assert(sizeof(struct log_slot) == 144, "a slot is 144 bytes");

struct log_ring_toucher;

struct log_ring {
	struct log_slot *slots;
	uint64_t capacity; /* a power of two */
	uint64_t mask;
	size_t map_len;
	_Atomic uint64_t head;	    /* next position to reserve */
	_Atomic uint64_t clear_pos; /* first position shown since clear */
	/* log_ring_touch_start(): a producer reserving kick_at or later
	 * wakes the toucher (UINT64_MAX: none) through kick_efd. */
	_Atomic uint64_t kick_at;
	int kick_efd;
	struct log_ring_toucher *toucher;
};

/*
 * Sets up a ring of at least @capacity records (rounded up to a power of
 * two, LOG_RING_MIN..LOG_RING_MAX). Memory is reserved, not touched: it is
 * paid for as records arrive, up to capacity x sizeof(struct log_slot)
 * (144 bytes), and kept until log_ring_destroy(). A clear does not give it
 * back: producers write any slot at any time without a lock, so no part of
 * the ring can be unmapped while they run without losing a record.
 * Returns 0, -EINVAL or -ENOMEM.
 */
int log_ring_init(struct log_ring *ring, uint64_t capacity);
void log_ring_destroy(struct log_ring *ring);

/*
 * Starts a thread that touches the ring's pages about 2 MiB ahead of the
 * producers during its first lap (log_ring_touch.c says why), so memory is
 * then paid for as records arrive plus those 2 MiB. Returns 0 or -errno
 * (the ring works without it). log_ring_destroy() stops it.
 */
int log_ring_touch_start(struct log_ring *ring);
void log_ring_touch_stop(struct log_ring *ring);
/* The producer of position @pos tells the toucher it is near its end. */
void log_ring_kick(struct log_ring *ring, uint64_t pos);

/*
 * Reserves the next position and returns its slot, with rec->seq set.
 * The caller fills in the record and calls log_ring_publish().
 */
struct log_record *log_ring_reserve(struct log_ring *ring, uint64_t *pos);
void log_ring_publish(struct log_ring *ring, uint64_t pos);

/* Reserve, copy @rec (its seq is assigned) and publish. Returns the seq. */
uint64_t log_ring_append(struct log_ring *ring, const struct log_record *rec);

enum log_read_result {
	LOG_READ_OK = 0,
	LOG_READ_PENDING, /* reserved, not yet published */
	LOG_READ_LOST,	  /* overwritten by a newer record */
};

/*
 * Copies the record at @pos into @out. A read's attribution is copied only
 * if it was written for this position and not changing meanwhile; else
 * out->read.attr is zero (cause unknown).
 */
enum log_read_result log_ring_read(struct log_ring *ring, uint64_t pos,
				   struct log_record *out);

/*
 * Writes (or rewrites) the attribution of the published read at @pos.
 * One writer at a time (the correlator). Returns 0, or -ESTALE if @pos is
 * no longer (or not yet) a published record.
 */
int log_ring_attribute(struct log_ring *ring, uint64_t pos,
		       const struct log_attr *a);

/* Whether @pos has an attribution written. */
static inline int log_ring_attributed(struct log_ring *ring, uint64_t pos)
{
	return atomic_load_explicit(&ring->slots[pos & ring->mask].attr,
				    memory_order_acquire) == pos + 1;
}

static inline uint64_t log_ring_head(struct log_ring *ring)
{
	return atomic_load_explicit(&ring->head, memory_order_acquire);
}

/*
 * Visits the records from position @from in order, up to the newest one or
 * the first that is not yet published, whichever comes first. Runs of
 * overwritten records are reported to @lost (first seq, count). Returns
 * the position it stopped at.
 */
typedef void (*log_visit_fn)(void *arg, const struct log_record *rec);
typedef void (*log_lost_fn)(void *arg, uint64_t first_seq, uint64_t count);
uint64_t log_ring_walk(struct log_ring *ring, uint64_t from, log_visit_fn visit,
		       log_lost_fn lost, void *arg);

/*
 * The same, stopping before position @to or after @max records visited
 * (lost ones do not count: a run of them is reported whole).
 */
uint64_t log_ring_walk_range(struct log_ring *ring, uint64_t from, uint64_t to,
			     uint64_t max, log_visit_fn visit, log_lost_fn lost,
			     void *arg);

/* Records written since the last clear that the ring no longer holds. */
uint64_t log_ring_lost_since_clear(struct log_ring *ring);
#endif
