/* SPDX-License-Identifier: MIT */
/*
 * FUSE over io_uring (--transport uring): the kernel's ring queues, one
 * per possible CPU, each served by ceil(--threads / queues) threads, each
 * with its own io_uring (128-byte SQEs) and its share of the queue's
 * URING_ENTRIES ring entries, registered for the queue's qid
 * (loop_uring_int.h, loop_uring_ring.c). A thread runs on its queue's
 * CPU while other queues take requests too, and on the other CPUs while
 * its queue is the only one (uring_ring_main()).
 *
 * A request taken from an entry is put back together as /dev/fuse would
 * have delivered it (fuse_in_header, the opcode's argument, the payload)
 * and handed to fuse_session_process_buf(), so every handler, the log,
 * the rules and the delay queue serve it unchanged. Its reply reaches
 * uring_transport_reply() through the session's custom writev
 * (daemon/transport.c), which copies it into the entry's buffers and
 * commits it with FUSE_IO_URING_CMD_COMMIT_AND_FETCH: the same SQE asks
 * for the entry's next request. Every SQE of an entry is submitted by
 * the thread that registered it (the kernel runs an entry's work in the
 * task that submitted it, and hands its next request to the ring the
 * commit came from): a reply sent from another thread (the delay queue)
 * is put on that thread's list and the thread woken through an eventfd.
 *
 * An entry whose reply is delayed or held takes no new request until it
 * is answered; URING_ENTRIES is that many concurrent requests per CPU.
 */
#ifndef TESTFS_LOOP_URING_H
#define TESTFS_LOOP_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "testfs_core.h"

/*
 * Entries per queue with one thread per queue. Each has a 1 MiB payload buffer,
 * address space paid for as used (the kernel hands the most recently used entry
 * the next request, so a sequential reader touches few). 32 covers the kernel's
 * default max_background (12) plus synchronous readers with room for
 * delayed replies; more concurrent requests on one CPU wait in the
 * kernel's queue for an entry.
 */
#define URING_ENTRIES 32

/*
 * Entries per thread when a queue has several (--threads N above the
 * number of queues): few, so that the queue's next thread takes requests
 * as soon as the first one's wait (loop_uring.c, ring_entries()).
 */
#define URING_THREAD_ENTRIES 4

/* Threads per queue at most. */
#define URING_MAX_QUEUE_THREADS 32

struct uring_transport;

/*
 * Before mounting: for every queue ceil(t->threads / queues) rings (at
 * most URING_ENTRIES), each with its entries' buffers and a thread, the
 * threads waiting for uring_transport_go(). @payload is the
 * payload buffer size (at least the kernel's max_pages * page size).
 * Returns 0 or a negative errno, with the reason in @why.
 */
int uring_transport_prepare(struct testfs *t, size_t payload,
			    struct uring_transport **out, char *why,
			    size_t whylen);

/* Possible CPUs (queues the kernel makes); 0 if unknown. */
unsigned uring_possible_cpus(void);

/*
 * After the INIT reply was written on @fd: the threads register their
 * entries (@go) or end (!@go, the kernel does not take the ring).
 */
void uring_transport_go(struct uring_transport *u, int fd, bool go);

/* What serves, as uring_transport_settle() found it. */
struct uring_shape {
	unsigned queues;
	unsigned threads; /* per queue */
	unsigned entries; /* per queue, all its threads' */
};

/*
 * Waits until every thread has registered its entries or failed. True if
 * every queue has entries (the ring serves; @shape says how); @why says
 * why not, or (empty when all went well) which thread's entries the
 * kernel refused while the queue's other threads serve. Read under the
 * transport's lock, so a thread other than the one that stops the
 * transport may call it.
 */
bool uring_transport_settle(struct uring_transport *u,
			    struct uring_shape *shape, char *why,
			    size_t whylen);

/*
 * If @iov (a fuse_out_header and the body) answers a request taken from
 * an entry: commits it there and returns true. Any thread may call it.
 */
bool uring_transport_reply(struct uring_transport *u, const struct iovec *iov,
			   int count);

/*
 * On a queue's thread, while it serves a request: that entry's payload
 * buffer if it holds @len bytes, else NULL. A reply whose body is
 * already there is committed without a copy (the read path generates
 * straight into it: t->transport.reply_space).
 */
char *uring_transport_payload(size_t len);

/*
 * Serving ends: requests that reach an entry from now on are left to
 * the kernel (it ends them when the connection goes), as requests not
 * yet read from /dev/fuse are; replies still commit.
 */
void uring_transport_quiesce(struct uring_transport *u);

/* Commits what is left, ends the threads, frees the rings (NULL: no-op). */
void uring_transport_stop(struct uring_transport *u);

unsigned uring_transport_queues(const struct uring_transport *u);

/* Threads (rings) per queue; 0 for NULL. */
unsigned uring_transport_threads(const struct uring_transport *u);

#endif
