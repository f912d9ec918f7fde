// SPDX-License-Identifier: MIT
/*
 * The delay queue: a binary min-heap of replies ordered by due time and
 * one thread that sleeps until the earliest is due.
 *
 * Why a condition variable with an absolute CLOCK_MONOTONIC deadline and
 * not io_uring timeouts or a timerfd: all three end in the same kernel
 * hrtimer; what decides precision is the timer slack, which this thread
 * sets to 1 ns (PR_SET_TIMERSLACK; the default is 50 us), and the wake-up
 * latency of the machine: measured on the project's 2-vCPU VMs, a bare
 * clock_nanosleep() wakes 25 us late at the median and 35-200 us at p99
 * (bench/latency.c prints the figures). So the thread runs SCHED_FIFO
 * where it may (root), which makes its wake-ups prompt even with readers
 * on every CPU, sleeps until SPIN_NS before the deadline and spins on the
 * clock for the rest. Measured p99 overshoot at 12 concurrent reads:
 * 35-42 us with both, 58-125 us with the spin alone (150 us), and a
 * longer spin under SCHED_FIFO starved the request loop (arrivals 300 us
 * late).
 * One thread and one lock keep every delay in one place, and a new
 * earlier deadline only needs a signal.
 */
#include "delay_queue.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "clock.h"
#include "json.h"
#include "thread.h"

/* The last stretch before a deadline is spun, not slept. */
#define SPIN_NS 50000u

/* Buffers kept for reuse; more are freed when returned. */
#define POOL_KEEP 256

struct delay_queue {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	struct delayed_reply *heap;
	size_t n;
	size_t cap;
	/* Free buffers. */
	char **pool;
	size_t npool;
	size_t buf_size;
};

static void heap_swap(struct delayed_reply *a, struct delayed_reply *b)
{
	struct delayed_reply t = *a;

	*a = *b;
	*b = t;
}

static void heap_up(struct delay_queue *q, size_t i)
{
	while (i && q->heap[(i - 1) / 2].due_ns > q->heap[i].due_ns) {
		heap_swap(&q->heap[(i - 1) / 2], &q->heap[i]);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct delay_queue *q, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < q->n && q->heap[l].due_ns < q->heap[m].due_ns)
			m = l;
		if (r < q->n && q->heap[r].due_ns < q->heap[m].due_ns)
			m = r;
		if (m == i)
			return;
		heap_swap(&q->heap[m], &q->heap[i]);
		i = m;
	}
}

static struct delayed_reply heap_pop(struct delay_queue *q)
{
	struct delayed_reply top = q->heap[0];

	q->heap[0] = q->heap[--q->n];
	heap_down(q, 0);
	return top;
}

char *delay_queue_buffer(struct delay_queue *q)
{
	char *buf = NULL;

	pthread_mutex_lock(&q->lock);
	if (q->npool)
		buf = q->pool[--q->npool];
	pthread_mutex_unlock(&q->lock);
	return buf ? buf : malloc(q->buf_size);
}

void delay_queue_put_buffer(struct delay_queue *q, char *buf)
{
	if (!buf)
		return;
	pthread_mutex_lock(&q->lock);
	if (q->npool < POOL_KEEP) {
		q->pool[q->npool++] = buf;
		buf = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	free(buf);
}

/* Answers @r: the record is published before the reply, as for any read. */
static void answer(struct delay_queue *q, struct delayed_reply *r)
{
	r->log.rec->read.done_ns = clock_now_ns();
	log_entry_publish(&r->log);
	if (r->err)
		fuse_reply_err(r->req, r->err);
	else
		fuse_reply_buf(r->req, r->buf, r->len);
	delay_queue_put_buffer(q, r->buf);
}

static void *delay_main(void *arg)
{
	struct delay_queue *q = arg;
	struct sched_param prio = { .sched_priority = 1 };
	struct delayed_reply r;
	struct timespec ts;
	uint64_t now;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* Where allowed (root), wake-ups are not queued behind readers. */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &prio);
	pthread_mutex_lock(&q->lock);
	while (!q->stop) {
		if (!q->n) {
			pthread_cond_wait(&q->wake, &q->lock);
			continue;
		}
		now = clock_now_ns();
		/* Held until released: nothing to time. */
		if (q->heap[0].due_ns == UINT64_MAX) {
			pthread_cond_wait(&q->wake, &q->lock);
			continue;
		}
		if (q->heap[0].due_ns > now + SPIN_NS) {
			uint64_t wake = q->heap[0].due_ns - SPIN_NS;

			ts.tv_sec = (time_t)(wake / 1000000000u);
			ts.tv_nsec = (long)(wake % 1000000000u);
			pthread_cond_timedwait(&q->wake, &q->lock, &ts);
			continue;
		}
		if (q->heap[0].due_ns > now) {
			/* Spin without the lock: pushes may come meanwhile. */
			uint64_t due = q->heap[0].due_ns;

			pthread_mutex_unlock(&q->lock);
			while (clock_now_ns() < due)
				;
			pthread_mutex_lock(&q->lock);
			continue;
		}
		r = heap_pop(q);
		/* Replying writes to /dev/fuse: not under the lock. */
		pthread_mutex_unlock(&q->lock);
		answer(q, &r);
		pthread_mutex_lock(&q->lock);
	}
	/* Shutting down: whatever is left is answered now. */
	while (q->n) {
		r = heap_pop(q);
		pthread_mutex_unlock(&q->lock);
		answer(q, &r);
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int delay_queue_start(struct delay_queue **out, size_t buf_size)
{
	struct delay_queue *q;
	int err;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->pool = calloc(POOL_KEEP, sizeof(*q->pool));
	if (!q->pool) {
		free(q);
		return -ENOMEM;
	}
	q->buf_size = buf_size;
	pthread_mutex_init(&q->lock, NULL);
	cond_init_monotonic(&q->wake);
	err = thread_start_quiet(&q->thread, delay_main, q, false);
	if (err) {
		pthread_cond_destroy(&q->wake);
		pthread_mutex_destroy(&q->lock);
		free(q->pool);
		free(q);
		return -err;
	}
	*out = q;
	return 0;
}

int delay_queue_push(struct delay_queue *q, const struct delayed_reply *r)
{
	bool earliest;

	pthread_mutex_lock(&q->lock);
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct delayed_reply *h = realloc(q->heap, cap * sizeof(*h));

		if (!h) {
			pthread_mutex_unlock(&q->lock);
			return -ENOMEM;
		}
		q->heap = h;
		q->cap = cap;
	}
	q->heap[q->n] = *r;
	heap_up(q, q->n);
	q->n++;
	earliest = q->heap[0].due_ns == r->due_ns;
	if (earliest)
		pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

size_t delay_queue_pending(struct delay_queue *q)
{
	return locked_read(&q->lock, q->n);
}

size_t delay_queue_release_held(struct delay_queue *q)
{
	uint64_t now = clock_now_ns();
	size_t i, n = 0;

	if (!q)
		return 0;
	pthread_mutex_lock(&q->lock);
	for (i = 0; i < q->n; i++) {
		if (!q->heap[i].held)
			continue;
		q->heap[i].held = false;
		q->heap[i].due_ns = now;
		n++;
	}
	/* Earlier due times only: each moved entry rises to its place. */
	for (i = 0; n && i < q->n; i++)
		heap_up(q, i);
	if (n)
		pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	return n;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct delayed_reply *x = a, *y = b;

	return x->log.rec->t_ns < y->log.rec->t_ns
		       ? -1
		       : x->log.rec->t_ns > y->log.rec->t_ns;
}

void delay_queue_format_held(struct delay_queue *q, struct strbuf *sb,
			     const char *(*name)(void *ctx, uint64_t ino),
			     void *ctx)
{
	struct delayed_reply *held = NULL;
	uint64_t now = clock_now_ns(), last;
	size_t i, n = 0;

	if (q) {
		pthread_mutex_lock(&q->lock);
		held = malloc((q->n ? q->n : 1) * sizeof(*held));
		for (i = 0; held && i < q->n; i++)
			if (q->heap[i].held)
				held[n++] = q->heap[i];
		pthread_mutex_unlock(&q->lock);
		if (!held)
			sb->oom = true;
	}
	/* The records stay unpublished, and so unchanged, while held. */
	if (n)
		qsort(held, n, sizeof(*held), cmp_arrival);
	strbuf_addc(sb, '[');
	for (i = 0; i < n; i++) {
		const struct log_record *rec = held[i].log.rec;

		last = rec->read.len ? rec->read.off + rec->read.len - 1
				     : rec->read.off;
		strbuf_adds(sb, i ? ",{\"file\":" : "{\"file\":");
		json_add_cstring(sb, name(ctx, rec->read.ino));
		strbuf_addf(sb,
			    ",\"ino\":%" PRIu64 ",\"off\":%" PRIu64
			    ",\"len\":%" PRIu32 ",\"pages\":[%" PRIu64
			    ",%" PRIu64 "],\"held_ns\":%" PRIu64 "}",
			    (uint64_t)rec->read.ino, (uint64_t)rec->read.off,
			    (uint32_t)rec->read.len,
			    (uint64_t)rec->read.off >> 12, last >> 12,
			    now - rec->t_ns);
	}
	strbuf_addc(sb, ']');
	free(held);
}

void delay_queue_stop(struct delay_queue *q)
{
	size_t i;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	for (i = 0; i < q->npool; i++)
		free(q->pool[i]);
	free(q->pool);
	free(q->heap);
	pthread_cond_destroy(&q->wake);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
