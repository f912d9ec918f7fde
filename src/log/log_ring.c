// SPDX-License-Identifier: MIT
#include "log_ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

int log_ring_init(struct log_ring *ring, uint64_t capacity)
{
	uint64_t cap = LOG_RING_MIN;
	void *p;

	memset(ring, 0, sizeof(*ring));
	if (capacity > LOG_RING_MAX)
		return -EINVAL;
	while (cap < capacity)
		cap <<= 1;
	ring->map_len = cap * sizeof(struct log_slot);
	p = mmap(NULL, ring->map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	ring->slots = p;
	ring->capacity = cap;
	ring->mask = cap - 1;
	atomic_init(&ring->head, 0);
	atomic_init(&ring->clear_pos, 0);
	atomic_init(&ring->kick_at, UINT64_MAX);
	ring->kick_efd = -1;
	return 0;
}

void log_ring_destroy(struct log_ring *ring)
{
	log_ring_touch_stop(ring);
	if (ring->slots)
		munmap(ring->slots, ring->map_len);
	ring->slots = NULL;
}

struct log_record *log_ring_reserve(struct log_ring *ring, uint64_t *pos)
{
	uint64_t p =
		atomic_fetch_add_explicit(&ring->head, 1, memory_order_acq_rel);
	struct log_slot *slot = &ring->slots[p & ring->mask];

	if (p >= atomic_load_explicit(&ring->kick_at, memory_order_relaxed))
		log_ring_kick(ring, p);
	atomic_store_explicit(&slot->state, 2 * p + 1, memory_order_relaxed);
	/* Readers must see the slot as busy before any byte changes. */
	atomic_thread_fence(memory_order_release);
	slot->rec.seq = p + 1;
	*pos = p;
	return &slot->rec;
}

void log_ring_publish(struct log_ring *ring, uint64_t pos)
{
	struct log_slot *slot = &ring->slots[pos & ring->mask];

	atomic_store_explicit(&slot->state, 2 * pos + 2, memory_order_release);
}

uint64_t log_ring_append(struct log_ring *ring, const struct log_record *rec)
{
	struct log_record *dst;
	uint64_t pos;

	dst = log_ring_reserve(ring, &pos);
	memcpy((char *)dst + sizeof(dst->seq),
	       (const char *)rec + sizeof(rec->seq),
	       sizeof(*rec) - sizeof(rec->seq));
	log_ring_publish(ring, pos);
	return pos + 1;
}

enum log_read_result log_ring_read(struct log_ring *ring, uint64_t pos,
				   struct log_record *out)
{
	struct log_slot *slot = &ring->slots[pos & ring->mask];
	uint64_t s1, s2, a1, a2;

	s1 = atomic_load_explicit(&slot->state, memory_order_acquire);
	if (s1 != 2 * pos + 2)
		return s1 > 2 * pos + 2 ? LOG_READ_LOST : LOG_READ_PENDING;
	a1 = atomic_load_explicit(&slot->attr, memory_order_acquire);
	memcpy(out, &slot->rec, sizeof(*out));
	atomic_thread_fence(memory_order_acquire);
	a2 = atomic_load_explicit(&slot->attr, memory_order_relaxed);
	s2 = atomic_load_explicit(&slot->state, memory_order_relaxed);
	if (s1 != s2)
		return LOG_READ_LOST;
	if (out->kind == LOG_READ && (a1 != pos + 1 || a2 != a1))
		memset(&out->read.attr, 0, sizeof(out->read.attr));
	return LOG_READ_OK;
}

int log_ring_attribute(struct log_ring *ring, uint64_t pos,
		       const struct log_attr *a)
{
	struct log_slot *slot = &ring->slots[pos & ring->mask];

	if (atomic_load_explicit(&slot->state, memory_order_acquire) !=
	    2 * pos + 2)
		return -ESTALE;
	/* A sequence lock of its own: invalid while the bytes change. */
	atomic_store_explicit(&slot->attr, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	memcpy(&slot->rec.read.attr, a, sizeof(*a));
	atomic_store_explicit(&slot->attr, pos + 1, memory_order_release);
	return 0;
}

uint64_t log_ring_walk_range(struct log_ring *ring, uint64_t from, uint64_t to,
			     uint64_t max, log_visit_fn visit, log_lost_fn lost,
			     void *arg)
{
	uint64_t head = log_ring_head(ring), pos = from, lost_from = 0;
	uint64_t nlost = 0, end;
	struct log_record rec;

	if (to > head)
		to = head;
	if (from >= to || !max)
		return from;
	if (head > ring->capacity && pos < head - ring->capacity) {
		lost_from = pos;
		nlost = head - ring->capacity - pos;
		if (nlost > to - pos)
			nlost = to - pos;
		pos += nlost;
	}
	/*
	 * @max counts the records visited, not the lost ones: a run of lost
	 * records is reported whole (one line in the JSON log), however many
	 * steps a reader walks the ring in.
	 */
	end = max < to - pos ? pos + max : to;
	for (; pos < to; pos++) {
		enum log_read_result r = log_ring_read(ring, pos, &rec);

		if (r == LOG_READ_PENDING)
			break;
		if (r == LOG_READ_LOST) {
			if (!nlost)
				lost_from = pos;
			nlost++;
			continue;
		}
		if (pos >= end)
			break;
		if (nlost) {
			if (lost)
				lost(arg, lost_from + 1, nlost);
			nlost = 0;
		}
		if (visit)
			visit(arg, &rec);
	}
	if (nlost && lost)
		lost(arg, lost_from + 1, nlost);
	return pos;
}

uint64_t log_ring_walk(struct log_ring *ring, uint64_t from, log_visit_fn visit,
		       log_lost_fn lost, void *arg)
{
	return log_ring_walk_range(ring, from, UINT64_MAX, UINT64_MAX, visit,
				   lost, arg);
}

uint64_t log_ring_lost_since_clear(struct log_ring *ring)
{
	uint64_t head = log_ring_head(ring);
	uint64_t from = atomic_load(&ring->clear_pos);

	return head - from > ring->capacity ? head - from - ring->capacity : 0;
}
