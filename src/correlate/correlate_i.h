/* SPDX-License-Identifier: MIT */
/*
 * The correlator's state, shared by its two halves: correlate_state.c
 * keeps the per-inode history, the tasks' decisions and the access
 * records, and attributes the log's reads; correlate.c turns the
 * tracer's events into that state and runs the correlator's life cycle.
 */
#ifndef TESTFS_CORRELATE_I_H
#define TESTFS_CORRELATE_I_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "correlate.h"
#include "tracer.h"

/* Recent history kept per inode: enough for the reads still in flight. */
#define BATCHES_PER_INO 256
#define ACCESSES_PER_INO 256
#define READS_PER_INO 256
/* Tasks whose decision state is followed at once. */
#define PID_SLOTS 64
/* Access records waiting to be written to the log. */
#define PEND_MAX 4096
/* The open folio record's slot in pid_ctx.open, after the access types. */
#define OPEN_FOLIO 4
/* Reads still unpublished this far behind the newest are given up. */
#define GIVE_UP_SPAN (1u << 16)
/* A fault explains a one-page read without a batch this long after it. */
#define SINGLE_HORIZON_NS (10ull * 1000 * 1000 * 1000)
/*
 * A decision's events (fault, sync/async_ra, ra_order, ra_unbounded)
 * follow each other within microseconds in one task; state older than
 * this belongs to an access that read nothing, and is forgotten, unless
 * the event is the decision's next step by the kernel's code
 * (continues_decision(): a guest's vCPU can stop longer than this).
 */
#define DECISION_HORIZON_NS (10ull * 1000 * 1000)

struct batch {
	uint64_t ts;
	uint32_t pid;
	uint64_t first;
	uint64_t end; /* exclusive; first == end: dead */
	struct log_attr a;
};

struct access_ev {
	uint64_t ts;
	uint64_t first;
	uint64_t last;
	uint64_t pend; /* id of its access record */
	uint32_t pid;
	uint8_t type;
};

struct recent_read {
	uint64_t pos;
	uint64_t first;
	uint64_t last;
	uint64_t done_ns;
	uint64_t batch_ts; /* 0: no batch */
	struct log_attr a;
};

struct ino_state {
	uint64_t ino;
	uint64_t nbatches; /* written so far; ring index = n % size */
	uint64_t naccesses;
	uint64_t nreads;
	struct batch batches[BATCHES_PER_INO];
	struct access_ev accesses[ACCESSES_PER_INO];
	struct recent_read reads[READS_PER_INO];
};

struct pid_ctx {
	int32_t pid;
	bool used;
	uint64_t used_ts;
	bool has_sync, has_async, has_order, has_fault;
	uint64_t decision_ts; /* the last decision or fault event */
	struct trace_event sync;
	struct trace_event async;
	struct trace_event order;
	uint32_t order_window;
	struct ino_state *order_st; /* the batch made from the ra_order */
	uint64_t order_batch;
	uint64_t fault_ino;
	uint64_t fault_index;
	uint64_t last_access_end;
	/*
	 * The pages a read(2) asked for, from the readahead decision it
	 * made (sync_ra or async_ra with req_count, not a fault's): until
	 * its next page-cache lookup is traced (read_first()).
	 */
	bool has_read_ra;
	uint64_t read_ra_ino, read_ra_first, read_ra_last;
	/* id + 1 of the open record per access type; OPEN_FOLIO: folios */
	uint64_t open[5];
};

struct correlator {
	struct log_ring *log;
	struct tracer *tracer;
	bool trace_reads;
	bool have_order; /* the kernel has readahead:page_cache_ra_order */
	/* ... and filemap:mm_filemap_add_to_page_cache with its order */
	bool have_folios;
	bool all_folios;  /* correlator_options.all_folios */
	bool have_faults; /* ... and filemap:mm_filemap_fault */
	/*
	 * The kernel traces its readahead decisions (sync_ra, async_ra and
	 * ra_unbounded): only then can a cause be proven. Without them
	 * (6.12 has the filemap events only) a read in no batch says
	 * nothing about why it was sent, and stays unknown.
	 */
	bool have_ra;
	char causes_why[160];
	uint32_t page_shift;
	pthread_mutex_t lock;

	uint64_t cursor; /* first log position not known to be done */
	uint64_t limit;	 /* newest event time seen */
	_Atomic uint64_t done_pos;
	uint32_t next_window;

	struct ino_state **inos; /* open addressing on ino */
	size_t ino_cap;
	size_t ino_count;

	struct pid_ctx pids[PID_SLOTS];
	struct pid_ctx *last_pid; /* the slot found last */
	/* The log's head at the last sweep (UINT64_MAX: sweep again) and
	 * the time before which it would find nothing new. */
	uint64_t sweep_head;
	uint64_t sweep_wake;

	struct log_record pend[PEND_MAX];
	/* Still growing: a task's latest record of its type. */
	bool pend_open[PEND_MAX];
	uint64_t pend_head; /* next id */
	uint64_t pend_tail; /* oldest not written */

	struct correlator_stats st;
};

struct ino_state *corr_ino_find(struct correlator *c, uint64_t ino);

struct ino_state *corr_ino_get(struct correlator *c, uint64_t ino);

void corr_pend_close_all(struct correlator *c, struct pid_ctx *p);

struct pid_ctx *corr_pid_get(struct correlator *c, int32_t pid, uint64_t ts);

void corr_forget_decision(struct pid_ctx *p);

struct log_record *corr_pend_get(struct correlator *c, uint64_t id);

/*
 * Writes the access records whose lateness is settled: every read that
 * arrived before their last event is attributed. @all: every one.
 */
void corr_pend_write(struct correlator *c, bool all);

uint64_t corr_pend_new(struct correlator *c);

/* The task's open record of @type takes no more events. */
void corr_pend_close(struct correlator *c, struct pid_ctx *p, unsigned type);

void corr_attr_none(struct log_attr *a);

/*
 * Attributes the published reads answered before @limit (all published
 * reads with @all) and moves the cursor past the done prefix.
 */
void corr_sweep(struct correlator *c, uint64_t limit, bool all);

#endif
