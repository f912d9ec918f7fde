// SPDX-License-Identifier: MIT
#include "loop_uring.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "loop_uring_int.h"
#include "thread.h"

/* How long uring_transport_settle() waits for the rings to register. */
#define SETTLE_MS 10000

unsigned uring_possible_cpus(void)
{
	char buf[256], *p, *end;
	unsigned long hi = 0, v;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	size_t n;

	if (!f)
		return (unsigned)get_nprocs_conf();
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "0-3,6": the kernel numbers queues 0..num_possible_cpus()-1. */
	for (p = buf; *p;) {
		v = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (v + 1 > hi)
			hi = v + 1;
		p = end;
		while (*p == '-' || *p == ',' || *p == '\n')
			p++;
	}
	return hi ? (unsigned)hi : (unsigned)get_nprocs_conf();
}

unsigned uring_transport_queues(const struct uring_transport *u)
{
	return u ? u->nq : 0;
}

/*
 * Threads per queue for --threads N: ceil(N / queues), at least one and
 * at most URING_MAX_QUEUE_THREADS.
 */
static unsigned rings_per_queue(unsigned threads, unsigned nq)
{
	unsigned n = (threads + nq - 1) / nq;

	if (n < 1)
		n = 1;
	return n > URING_MAX_QUEUE_THREADS ? URING_MAX_QUEUE_THREADS : n;
}

/*
 * Entries per ring: URING_ENTRIES for a queue's only thread, else
 * URING_THREAD_ENTRIES each. The kernel hands a request to the entry at
 * the head of the queue's available list, and an answered entry goes back
 * to that head (fs/fuse/dev_uring.c, fuse_uring_ent_avail(): list_move),
 * so the thread that answered last takes the next request too, and
 * another thread of the queue gets one only while every entry of the
 * first is busy. With 32 entries each, or 16 (the queue's 32 split in
 * two), a queue's second thread got almost nothing (about 1% of the
 * first one's CPU time with 16 readers of 4 KiB on 2 CPUs: the kernel's
 * max_background, 12, keeps fewer reads in flight); with 4 each, both
 * threads of each queue served (docs/benchmarks.md, "Several threads per
 * queue"). A queue then holds 4 entries per thread: a delayed or held
 * reply keeps its entry, so at most that many of a CPU's requests wait in
 * testfs at once (the rest wait in the kernel).
 */
static unsigned ring_entries(unsigned per_queue)
{
	return per_queue > 1 ? URING_THREAD_ENTRIES : URING_ENTRIES;
}

int uring_transport_prepare(struct testfs *t, size_t payload,
			    struct uring_transport **out, char *why,
			    size_t whylen)
{
	struct uring_transport *u = calloc(1, sizeof(*u));
	struct uring_queue *q;
	unsigned i, j;
	int ret = -ENOMEM;

	*out = NULL;
	if (!u) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	u->t = t;
	u->fd = -1;
	u->payload = payload;
	u->nq = uring_possible_cpus();
	u->per_queue = rings_per_queue(t->threads, u->nq ? u->nq : 1);
	u->ring_ents = ring_entries(u->per_queue);
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	u->q = calloc(u->nq ? u->nq : 1, sizeof(*u->q));
	if (!u->q || !u->nq) {
		snprintf(why, whylen, "cannot count the possible CPUs");
		goto fail;
	}
	for (i = 0; i < u->nq; i++) {
		q = &u->q[i];
		q->u = u;
		q->qid = i;
		q->rings = calloc(u->per_queue, sizeof(*q->rings));
		if (!q->rings) {
			snprintf(why, whylen, "out of memory");
			goto fail;
		}
		for (j = 0; j < u->per_queue; j++) {
			ret = uring_ring_init(q, &q->rings[j], u->ring_ents, j);
			if (ret < 0) {
				snprintf(
					why, whylen,
					"cannot set up io_uring %u of queue %u: %s",
					j, i, strerror(-ret));
				goto fail;
			}
		}
	}
	for (i = 0; i < u->nq; i++)
		for (j = 0; j < u->per_queue; j++) {
			struct uring_ring *r = &u->q[i].rings[j];

			ret = thread_start_quiet(&r->th, uring_ring_main, r,
						 false);
			if (ret) {
				snprintf(why, whylen,
					 "cannot start a thread: %s",
					 strerror(ret));
				ret = -ret;
				goto fail;
			}
			r->started = true;
		}
	*out = u;
	return 0;
fail:
	uring_transport_stop(u);
	return ret < 0 ? ret : -EINVAL;
}

void uring_transport_go(struct uring_transport *u, int fd, bool go)
{
	pthread_mutex_lock(&u->lock);
	if (!u->gate) {
		u->fd = fd;
		u->gate = go ? 1 : -1;
	}
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

/* Queues with no ring that has entries (under u->lock). */
static unsigned queues_without_entries(struct uring_transport *u)
{
	unsigned i, j, n = 0;
	bool any;

	for (i = 0; i < u->nq; i++) {
		any = false;
		for (j = 0; j < u->per_queue; j++)
			any |= u->q[i].rings[j].registered;
		n += !any;
	}
	return n;
}

bool uring_transport_settle(struct uring_transport *u,
			    struct uring_shape *shape, char *why, size_t whylen)
{
	unsigned rings = u->nq * u->per_queue, missing;
	struct timespec ts;
	bool ok;

	why[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += SETTLE_MS / 1000;
	pthread_mutex_lock(&u->lock);
	while (!u->gate || (u->gate == 1 && u->reported < rings))
		if (pthread_cond_timedwait(&u->cond, &u->lock, &ts) ==
		    ETIMEDOUT)
			break;
	/*
	 * Every queue needs a ring with entries; a queue whose other rings
	 * were refused is served by the ones that registered (the kernel
	 * uses the ring once every queue has an entry, whatever else
	 * failed), and the note says so.
	 */
	missing = u->gate == 1 && u->reported == rings
			  ? queues_without_entries(u)
			  : u->nq;
	ok = u->gate == 1 && u->reported == rings && !missing;
	shape->queues = ok ? u->nq : 0;
	shape->threads = ok ? u->per_queue : 0;
	shape->entries = ok ? u->per_queue * u->ring_ents : 0;
	if (u->gate != 1)
		snprintf(
			why, whylen,
			"the kernel did not offer FUSE_OVER_IO_URING at FUSE_INIT");
	else if (u->err && u->per_queue == 1)
		snprintf(why, whylen,
			 "FUSE_IO_URING_CMD_REGISTER failed on queue %u: %s",
			 u->err_qid, strerror(-u->err));
	else if (u->err)
		snprintf(
			why, whylen,
			"FUSE_IO_URING_CMD_REGISTER failed on queue %u (its thread %u of %u): %s%s",
			u->err_qid, u->err_ring + 1, u->per_queue,
			strerror(-u->err),
			ok ? "; every queue is served by those of its threads whose entries registered"
			   : "");
	else if (!ok)
		snprintf(why, whylen,
			 "%u of %u io_uring threads registered within %d ms",
			 u->ready, rings, SETTLE_MS);
	pthread_mutex_unlock(&u->lock);
	return ok;
}

void uring_transport_quiesce(struct uring_transport *u)
{
	if (u)
		atomic_store(&u->quiesced, true);
}

void uring_transport_stop(struct uring_transport *u)
{
	struct uring_ring *r;
	uint64_t one = 1;
	unsigned i, j;

	if (!u)
		return;
	atomic_store(&u->quiesced, true);
	atomic_store(&u->quit, true);
	uring_transport_go(u, u->fd, false);
	for (i = 0; i < u->nq && u->q; i++)
		for (j = 0; j < u->per_queue && u->q[i].rings; j++) {
			r = &u->q[i].rings[j];
			if (!r->started)
				continue;
			if (write(r->efd, &one, sizeof(one)) < 0)
				(void)0;
			pthread_join(r->th, NULL);
		}
	for (i = 0; i < u->nq && u->q; i++) {
		for (j = 0; j < u->per_queue && u->q[i].rings; j++)
			if (u->q[i].rings[j].q)
				uring_ring_free(&u->q[i].rings[j]);
		free(u->q[i].rings);
	}
	free(u->q);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

unsigned uring_transport_threads(const struct uring_transport *u)
{
	return u ? u->per_queue : 0;
}
