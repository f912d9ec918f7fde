/* SPDX-License-Identifier: MIT */
/*
 * Deferred replies: a read that the latency rules delay is answered later
 * by one timer thread, so the request loop never sleeps and any number of
 * delayed requests run concurrently (as many as the kernel sends).
 */
#ifndef TESTFS_DELAY_QUEUE_H
#define TESTFS_DELAY_QUEUE_H

#define FUSE_USE_VERSION 34

#include <fuse_lowlevel.h>
#include <stddef.h>
#include <stdint.h>

#include "../log/log_ring.h"

struct delay_queue;

struct delayed_reply {
	fuse_req_t req;
	/* The data, from delay_queue_buffer(); NULL with err. */
	char *buf;
	size_t len;
	/* 0, or the errno to answer with. */
	int err;
	uint64_t due_ns;
	/* The log record reserved at arrival, published when answered. */
	struct log_ring *log;
	uint64_t log_pos;
	struct log_record *rec;
};

/*
 * Starts the timer thread; buffers from the pool hold @buf_size bytes.
 * Returns 0 or a negative errno.
 */
int delay_queue_start(struct delay_queue **out, size_t buf_size);

/* A buffer for a delayed reply's data, or NULL (out of memory). */
char *delay_queue_buffer(struct delay_queue *q);

/* Gives a buffer back without queueing a reply. */
void delay_queue_put_buffer(struct delay_queue *q, char *buf);

/*
 * Queues @r to be answered at r->due_ns (CLOCK_MONOTONIC). Returns 0 or
 * -ENOMEM, in which case the caller still owns the request.
 */
int delay_queue_push(struct delay_queue *q, const struct delayed_reply *r);

/* Replies waiting now. */
size_t delay_queue_pending(struct delay_queue *q);

/* Answers everything still queued at once and stops the thread. */
void delay_queue_stop(struct delay_queue *q);

#endif
