/* SPDX-License-Identifier: MIT */
/*
 * Inside FUSE over io_uring (loop_uring.h): a queue (one per possible
 * CPU) is served by one or more rings, each with its own thread,
 * io_uring and entries registered for the queue's qid. loop_uring.c sets
 * them up, starts and stops them; loop_uring_ring.c is a ring's thread
 * and its entries (requests in, replies out).
 */
#ifndef TESTFS_LOOP_URING_INT_H
#define TESTFS_LOOP_URING_INT_H

#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fs_ops.h"
#include "fuse_uring_abi.h"
#include "loop_uring.h"

struct uring_ring;
struct uring_queue;

struct uring_ent {
	struct uring_ring *r;
	struct fuse_uring_req_header *hdr;
	char *payload;
	struct iovec iov[2]; /* what REGISTER hands the kernel */
	/* The request this entry holds in user space, 0 when none. */
	_Atomic uint64_t unique;
	uint64_t commit_id;	/* the reply being committed */
	struct uring_ent *next; /* on the ring's commit list */
	struct fs_claim claim;	/* its request, registered as it arrived */
};

/* One thread with its io_uring and its entries, for one queue. */
struct uring_ring {
	struct uring_queue *q;
	unsigned idx; /* within its queue */
	struct io_uring ring;
	bool ring_ok;
	pthread_t th;
	bool started;
	/* Wakes the thread: the ring signals it for each completion
	 * (io_uring_register_eventfd()), other threads for commits, quit. */
	int efd;
	pthread_mutex_t lock; /* commits */
	struct uring_ent *commits;
	unsigned nents;
	struct uring_ent *ents;
	char *mem; /* headers, payloads, the reassembled request */
	size_t mem_size;
	char *req;
	unsigned live;	 /* entries the kernel holds (the thread's) */
	bool registered; /* it had entries when it reported (u->lock) */
	/* Placement, the thread's own: pinned to qid, or (away) to every
	 * CPU but qid while no other queue takes requests. */
	bool placeable;
	bool away;
	uint64_t seen_own, seen_others, next_place;
};

struct uring_queue {
	struct uring_transport *u;
	unsigned qid;
	struct uring_ring *rings; /* u->per_queue of them */
	/* Requests taken by its rings; every ring thread reads it (place()). */
	_Atomic uint64_t taken;
};

struct uring_transport {
	struct testfs *t;
	int fd;
	unsigned nq;
	unsigned per_queue; /* rings (threads) per queue */
	unsigned ring_ents; /* entries per ring */
	size_t payload;
	struct uring_queue *q;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gate;	   /* 0: before INIT, 1: register, -1: end */
	unsigned reported; /* rings done registering */
	unsigned ready;	   /* rings that registered entries */
	int err;	   /* the first REGISTER error */
	unsigned err_qid, err_ring;
	atomic_bool quiesced;
	atomic_bool quit;
};

/*
 * loop_uring_ring.c: ring @idx of @q with @nents entries: its buffers,
 * io_uring and eventfd. 0 or -errno (uring_ring_free() then frees it).
 */
int uring_ring_init(struct uring_queue *q, struct uring_ring *r, unsigned nents,
		    unsigned idx);
void uring_ring_free(struct uring_ring *r);
/* The ring's thread: registers its entries once the gate opens. */
void *uring_ring_main(void *arg);

#endif
