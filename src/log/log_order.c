// SPDX-License-Identifier: MIT
#include "log_order.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "thread.h"

/*
 * Numbers held at once: arrived, behind a missing one. A request further
 * ahead than this gives up the gaps that keep it out (counted).
 */
#define WINDOW (1u << 17)
#define WINDOW_MASK (WINDOW - 1)
#define TICKETS_PER_CHUNK 64

struct ticket_chunk {
	struct ticket_chunk *next;
	struct log_ticket t[TICKETS_PER_CHUNK];
};

struct log_order {
	struct log_ring *ring;
	pthread_mutex_t lock;
	pthread_cond_t moved; /* the watermark moved */
	unsigned receivers;
	uint64_t next; /* the number the watermark waits for; 0: none yet */
	uint64_t top;  /* the highest number arrived */
	uint64_t wait_since; /* when the watermark last moved, if held */
	struct log_order_stats st;
	/* win[(u / 2) % WINDOW]: NULL (not arrived), ARRIVED, a ticket. */
	void **win;
	struct log_ticket *free;
	struct ticket_chunk *chunks;
};

/* A request that is not a read. */
static char arrived_mark;
#define ARRIVED ((void *)&arrived_mark)

static void **entry(struct log_order *o, uint64_t unique)
{
	return &o->win[(unique >> 1) & WINDOW_MASK];
}

int log_order_init(struct log_order **out, struct log_ring *ring,
		   unsigned receivers)
{
	struct log_order *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->win = calloc(WINDOW, sizeof(*o->win));
	if (!o->win) {
		free(o);
		return -ENOMEM;
	}
	o->ring = ring;
	o->receivers = receivers;
	pthread_mutex_init(&o->lock, NULL);
	cond_init_monotonic(&o->moved);
	*out = o;
	return 0;
}

void log_order_destroy(struct log_order *o)
{
	struct ticket_chunk *c;

	if (!o)
		return;
	while ((c = o->chunks)) {
		o->chunks = c->next;
		free(c);
	}
	pthread_cond_destroy(&o->moved);
	pthread_mutex_destroy(&o->lock);
	free(o->win);
	free(o);
}

void log_order_set_receivers(struct log_order *o, unsigned receivers)
{
	pthread_mutex_lock(&o->lock);
	o->receivers = receivers;
	pthread_mutex_unlock(&o->lock);
}

static struct log_ticket *ticket_get(struct log_order *o)
{
	struct ticket_chunk *c;
	struct log_ticket *tk;
	unsigned i;

	if (!o->free) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = o->chunks;
		o->chunks = c;
		for (i = 0; i < TICKETS_PER_CHUNK; i++) {
			c->t[i].next = o->free;
			o->free = &c->t[i];
		}
	}
	tk = o->free;
	o->free = tk->next;
	tk->placed = false;
	tk->done = false;
	tk->slot = NULL;
	return tk;
}

/* Copies the record into its slot and publishes it; the ticket is free. */
static void ticket_commit(struct log_order *o, struct log_ticket *tk)
{
	memcpy((char *)tk->slot + sizeof(tk->slot->seq),
	       (const char *)&tk->rec + sizeof(tk->rec.seq),
	       sizeof(tk->rec) - sizeof(tk->rec.seq));
	log_ring_publish(o->ring, tk->pos);
	tk->next = o->free;
	o->free = tk;
}

/* Its turn: a ring position, in the kernel's order. */
static void place(struct log_order *o, struct log_ticket *tk)
{
	tk->slot = log_ring_reserve(o->ring, &tk->pos);
	tk->placed = true;
	if (tk->done)
		ticket_commit(o, tk);
}

/* Passes the arrived numbers from the watermark on. */
static void advance(struct log_order *o, uint64_t now)
{
	bool moved = false;
	void **e;

	while (*(e = entry(o, o->next))) {
		if (*e != ARRIVED)
			place(o, *e);
		*e = NULL;
		o->st.waiting--;
		o->next += 2;
		moved = true;
	}
	if (moved) {
		pthread_cond_broadcast(&o->moved);
		o->wait_since = now;
	}
	if (!o->st.waiting)
		o->wait_since = 0;
}

/* Moves the watermark to @upto, giving up the numbers that are missing. */
static void skip_to(struct log_order *o, uint64_t upto, uint64_t now)
{
	void **e;

	for (; o->next < upto; o->next += 2) {
		e = entry(o, o->next);
		if (!*e) {
			o->st.gaps++;
			continue;
		}
		if (*e != ARRIVED)
			place(o, *e);
		*e = NULL;
		o->st.waiting--;
	}
	pthread_cond_broadcast(&o->moved);
	o->wait_since = now;
	advance(o, now);
}

/* Gives up the first gap if it held the reads after it long enough. */
static bool expire_locked(struct log_order *o, uint64_t now, bool force)
{
	uint64_t u;

	if (!o->st.waiting)
		return false;
	if (!force && now - o->wait_since < ORDER_GAP_MS * 1000000ull)
		return false;
	for (u = o->next; u <= o->top && !*entry(o, u); u += 2)
		;
	skip_to(o, u, now);
	return true;
}

struct log_ticket *log_order_arrive(struct log_order *o, uint64_t unique,
				    bool read, uint64_t now)
{
	struct log_ticket *tk = NULL;

	unique &= ~ORDER_UNIQUE_RESEND;
	pthread_mutex_lock(&o->lock);
	/* Without memory for a ticket the number still orders the rest. */
	if (read)
		tk = ticket_get(o);
	if (!unique || unique & 1 || (o->next && unique < o->next)) {
		/* Nothing to order it by, or its gap was given up. */
		if (unique && !(unique & 1))
			o->st.late++;
		if (tk)
			place(o, tk);
		goto out;
	}
	if (!o->next)
		o->next = unique;
	if (unique - o->next >= 2ull * WINDOW)
		skip_to(o, unique - 2ull * (WINDOW - 1), now);
	if (*entry(o, unique)) {
		/* The same number twice (a resend): never held. */
		if (tk)
			place(o, tk);
		goto out;
	}
	*entry(o, unique) = tk ? (void *)tk : ARRIVED;
	o->st.waiting++;
	if (unique > o->top)
		o->top = unique;
	if (!o->wait_since)
		o->wait_since = now;
	/* One receiver: nothing else can hold a smaller number. */
	if (o->receivers <= 1 && unique > o->next)
		skip_to(o, unique, now);
	else
		advance(o, now);
out:
	pthread_mutex_unlock(&o->lock);
	return tk;
}

void log_order_publish(struct log_order *o, struct log_ticket *tk)
{
	pthread_mutex_lock(&o->lock);
	if (tk->placed)
		ticket_commit(o, tk);
	else
		tk->done = true;
	pthread_mutex_unlock(&o->lock);
}

void log_order_settle(struct log_order *o, uint64_t below)
{
	struct timespec ts;
	uint64_t now, due;

	if (!below)
		below = UINT64_MAX;
	pthread_mutex_lock(&o->lock);
	for (;;) {
		now = clock_now_ns();
		if (!o->st.waiting || o->next >= below)
			break;
		if (expire_locked(o, now, false))
			continue;
		due = o->wait_since + ORDER_GAP_MS * 1000000ull;
		ts.tv_sec = (time_t)(due / 1000000000ull);
		ts.tv_nsec = (long)(due % 1000000000ull);
		pthread_cond_timedwait(&o->moved, &o->lock, &ts);
	}
	pthread_mutex_unlock(&o->lock);
}

void log_order_expire(struct log_order *o)
{
	uint64_t now = clock_now_ns();

	pthread_mutex_lock(&o->lock);
	while (expire_locked(o, now, false))
		;
	pthread_mutex_unlock(&o->lock);
}

void log_order_flush(struct log_order *o)
{
	uint64_t now = clock_now_ns();

	pthread_mutex_lock(&o->lock);
	while (expire_locked(o, now, true))
		;
	pthread_mutex_unlock(&o->lock);
}

void log_order_stats(struct log_order *o, struct log_order_stats *out)
{
	pthread_mutex_lock(&o->lock);
	*out = o->st;
	pthread_mutex_unlock(&o->lock);
}

void log_entry_open(struct log_entry *e, struct log_order *o,
		    struct log_ticket *tk, struct log_ring *ring)
{
	e->order = o;
	e->ticket = tk;
	e->ring = ring;
	e->pos = 0;
	e->rec = tk ? &tk->rec : log_ring_reserve(ring, &e->pos);
}

void log_entry_publish(struct log_entry *e)
{
	if (e->ticket)
		log_order_publish(e->order, e->ticket);
	else
		log_ring_publish(e->ring, e->pos);
}
