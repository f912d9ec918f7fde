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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#include "log_order.h"

struct delay_queue;

struct delayed_reply {
	fuse_req_t req;
	/* The data, from delay_queue_buffer(); NULL with err. */
	char *buf;
	size_t len;
	/* 0, or the errno to answer with. */
	int err;
	uint64_t due_ns;
	/* The read's log record (its rec), published when answered. */
	struct log_entry log;
	/* Held by a pause rule: due_ns is its time limit (UINT64_MAX for
	 * none) and delay_queue_release_held() answers it sooner. */
	bool held;
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

/* Answers every held reply now (resume, shutdown); returns how many. */
size_t delay_queue_release_held(struct delay_queue *q);

/*
 * Appends the held replies, oldest first, as a JSON array:
 * [{"file":NAME,"ino":N,"off":N,"len":N,"pages":[A,B],"held_ns":N},...]
 * (@name gives a file's name from its inode number).
 */
void delay_queue_format_held(struct delay_queue *q, struct strbuf *sb,
			     const char *(*name)(void *ctx, uint64_t ino),
			     void *ctx);

/* Answers everything still queued at once and stops the thread. */
void delay_queue_stop(struct delay_queue *q);

#endif
