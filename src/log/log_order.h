/* SPDX-License-Identifier: MIT */
/*
 * The reorder stage in front of the read log: requests are taken by
 * several threads (--threads) or ring queues (--transport uring) at once,
 * and their reads enter the log (the ring) in the kernel's order, the
 * order of their FUSE `unique`, not in the order the threads happened to
 * get to them.
 *
 * The kernel numbers every request from one counter per connection as it
 * queues it (fs/fuse/dev.c: fuse_get_unique(), in steps of
 * FUSE_REQ_ID_STEP, 2; the low bit marks an interrupt, which reuses the
 * number of the request it interrupts). Over io_uring the same counter
 * numbers the requests of every queue (fs/fuse/dev_uring.c assigns it
 * before it picks the queue). Forgets take a number when they are read.
 *
 * So every receiver (a thread reading /dev/fuse, a ring queue's thread)
 * registers each request it takes, read or not, right after taking it
 * (log_order_arrive()); a read gets a ticket. A read's ring position is
 * reserved when every smaller number has arrived (the watermark passed
 * it): positions, hence the log's seq, follow the kernel's order. The
 * owner fills its ticket's record and publishes it (log_order_publish());
 * the record goes into the ring then, or when its position is reserved,
 * whichever is later. Nothing waits on the read path.
 *
 * A number can be handed out and never delivered (a request ended before
 * it was read: its process was killed, or the kernel refused to queue it
 * on a ring). With one receiver nothing else can hold a smaller number,
 * so a gap is passed at once (the log is then exactly in arrival order,
 * as before). With several, a gap is given up when no request passed the
 * watermark for ORDER_GAP_MS; a request of a given-up number that still
 * arrives is placed at once ("late", counted).
 */
#ifndef TESTFS_LOG_ORDER_H
#define TESTFS_LOG_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "log_ring.h"

/* How long a missing number may hold the reads after it. */
#define ORDER_GAP_MS 1000

/* The kernel's FUSE_UNIQUE_RESEND: a request queued again. */
#define ORDER_UNIQUE_RESEND (1ull << 63)

struct log_order;

/* A read on its way into the log: its owner fills rec (not rec.seq). */
struct log_ticket {
	struct log_record rec;
	/* Under the stage's lock. */
	struct log_record *slot; /* its ring slot once placed */
	uint64_t pos;
	bool placed;
	bool done;
	struct log_ticket *next; /* free list */
};

struct log_order_stats {
	uint64_t gaps; /* numbers given up (never arrived in time) */
	uint64_t late; /* requests that arrived after their gap was given up */
	uint64_t waiting; /* arrived, held behind a missing number */
};

/*
 * A stage for @ring with @receivers threads taking requests (1: gaps are
 * passed at once). Returns 0 or -ENOMEM.
 */
int log_order_init(struct log_order **out, struct log_ring *ring,
		   unsigned receivers);
void log_order_destroy(struct log_order *o);

/* Changes the receiver count (before serving). */
void log_order_set_receivers(struct log_order *o, unsigned receivers);

/*
 * A request numbered @unique arrived at @now_ns. For a read (@read), its
 * ticket; NULL for other requests, and when there is no memory for one
 * (the caller then reserves a ring position itself). A number 0 or with
 * the interrupt bit orders nothing: a read of that kind is placed at once.
 */
struct log_ticket *log_order_arrive(struct log_order *o, uint64_t unique,
				    bool read, uint64_t now_ns);

/* The ticket's record is final: into the ring now or at its turn. */
void log_order_publish(struct log_order *o, struct log_ticket *tk);

/*
 * Waits until every request numbered below @below that arrived is placed
 * (UINT64_MAX or 0: every one that arrived), giving up gaps that held
 * them for ORDER_GAP_MS. For readers of the log (snapshots, marks).
 */
void log_order_settle(struct log_order *o, uint64_t below);

/* Gives up the gaps that are due, without waiting (the log writer). */
void log_order_expire(struct log_order *o);

/*
 * No request is being taken (the loops ended): everything that arrived
 * is placed, gaps given up.
 */
void log_order_flush(struct log_order *o);

void log_order_stats(struct log_order *o, struct log_order_stats *out);

/*
 * Where one read's record goes: its ticket, or without one (no number to
 * order it by, no memory) a ring slot reserved at once. The owner fills
 * *rec and calls log_entry_publish().
 */
struct log_entry {
	struct log_order *order;
	struct log_ticket *ticket;
	struct log_ring *ring;
	uint64_t pos;
	struct log_record *rec;
};

void log_entry_open(struct log_entry *e, struct log_order *o,
		    struct log_ticket *tk, struct log_ring *ring);
void log_entry_publish(struct log_entry *e);

#endif
