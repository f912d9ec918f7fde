/* SPDX-License-Identifier: MIT */
/*
 * The state of one mounted testfs, which the FUSE front end (fuse/), the
 * control directory (ctl/) and the daemon (daemon/) all sit on. Request
 * handlers touch only the parts marked "read path" without a lock. The
 * core calls none of those folders: what it must reach in them (freeing a
 * control handle, ending the request loop) it reaches through what they
 * registered here.
 */
#ifndef TESTFS_CORE_H
#define TESTFS_CORE_H

#define FUSE_USE_VERSION 34

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "log_order.h"
#include "log_ring.h"
#include "log_writer.h"
#include "fileset.h"
#include "settings.h"

#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))

struct testfs_stats {
	_Atomic uint64_t reads;
	_Atomic uint64_t read_bytes;
	_Atomic uint64_t reads_past_eof;
	_Atomic uint64_t marks;
	_Atomic uint64_t clears;
	_Atomic uint64_t drop_caches;
	_Atomic uint64_t ctl_commands;
	_Atomic uint64_t ctl_rejected;
	/* Requests per transport (daemon/transport.c): all, and FUSE_READs. */
	_Atomic uint64_t dev_requests;
	_Atomic uint64_t dev_reads;
	_Atomic uint64_t uring_requests;
	_Atomic uint64_t uring_reads;
};

struct uring_transport;

/*
 * How requests reach the daemon (--transport). Set before serving and
 * once the mount is ready (then under ctl_lock); read by .testfs/config.
 */
struct testfs_transport {
	bool uring;	  /* serving over FUSE over io_uring */
	unsigned queues;  /* ring queues (possible CPUs), 0 without */
	unsigned threads; /* threads (rings) per queue, 0 without */
	unsigned entries; /* ring entries per queue (all its threads) */
	char note[320];	  /* why uring is not used, or what testfs did */
	struct uring_transport *ring; /* NULL without --transport uring */
	/* Where the reply to the request this thread is serving can be
	 * written in place (a ring entry's payload), or NULL: set with the
	 * ring, asked by the read path for @len bytes. */
	char *(*reply_space)(size_t len);
	/* The FUSE_INIT request: its unique, whether it offered the ring. */
	uint64_t init_unique;
	bool init_offered;
};

/* What the kernel actually uses, read back after mounting. */
struct testfs_knobs {
	char bdi[32]; /* "major:minor", empty until mounted */
	unsigned dev_major;
	unsigned dev_minor;
	int64_t ra_kb; /* -1: unknown */
	/* The last ra-kb command's value, once one succeeded. */
	bool ra_kb_set;
	int64_t ra_kb_requested;
	int64_t max_pages;
	int64_t max_pages_limit;
	int64_t max_background; /* -1: unknown */
	int64_t congestion_threshold;
	char note[256]; /* why something is unknown or differs */
};

struct testfs;

/*
 * An open control file (a snapshot or a ctl session). The kernel sends
 * RELEASE asynchronously, so some may still be open when serving ends;
 * they are freed then, each by the @release its owner registered.
 */
struct handle_link {
	struct handle_link *prev;
	struct handle_link *next;
	void (*release)(struct testfs *t, struct handle_link *link);
};

struct testfs {
	const struct options *opts;
	struct fileset files; /* read path, immutable */
	struct log_ring log;  /* read path, lock-free */
	/* Puts the reads several threads take back in the kernel's order
	 * before they enter the ring (log/log_order.h). */
	struct log_order *order;
	struct log_writer *writer; /* NULL without --log */
	struct testfs_stats stats; /* read path, atomics */
	struct fuse_session *se;
	pthread_t serving_thread; /* runs (or waits for) the request loop */
	/* Request threads (--threads): 1 serves on serving_thread, more
	 * through daemon/loop_mt.c while serving_thread waits. */
	unsigned threads;
	char *mountpoint; /* absolute */
	uint32_t page_size;
	uid_t uid;
	gid_t gid;
	time_t mtime; /* every node's fixed time */
	uint64_t started_ns;

	/* Control commands and the error file. */
	pthread_mutex_t ctl_lock;
	char error[512];
	/*
	 * Workers running ctl commands that need the mount (drop-cache):
	 * serving goes on until the last has ended (see serve()). stopping
	 * is set once serving is ending; no worker starts after it.
	 */
	pthread_mutex_t workers_lock;
	pthread_cond_t workers_done;
	unsigned workers;
	atomic_bool stopping;
	/*
	 * Ends the request loop (see stop_session_loop()); the loop clears
	 * it on return. Not libfuse's exit flag: see stop.h for why.
	 */
	atomic_bool stop_loop;
	/* Open control handles (snapshots and ctl sessions). */
	pthread_mutex_t handles_lock;
	struct handle_link handles;

	/* Slow storage: latency and error rules, deferred replies. */
	struct rule_set *rules;
	struct delay_queue *delays;
	/* Set once any rule or default latency is given: the read path
	 * skips the rules entirely until then. */
	atomic_bool slow_active;
	struct testfs_knobs knobs;
	struct testfs_transport transport;

	/* Kernel correlation: NULL when off, with the reason in trace_why
	 * (set once by the ready thread, before the mount is announced). */
	struct correlator *corr;
	char trace_why[256];
	atomic_bool trace_decided;
};

/* Prepares the locks of @t (zeroed before); testfs_destroy() ends them. */
void testfs_init(struct testfs *t);
void testfs_destroy(struct testfs *t);

/*
 * The FUSE unique of the request this thread is serving (0: none, or not
 * known), set by the request loops.
 */
extern __thread uint64_t testfs_request_unique;

/*
 * Puts every read the kernel sent before the request being served into
 * the ring (log_order_settle()), attributes the reads so far (no-op
 * without tracing) and returns the log position before which every
 * record is final (UINT64_MAX without tracing): a reader shows records up
 * to there, so none is shown before its cause is known.
 */
uint64_t testfs_correlate_sync(struct testfs *t);

/* Syncs, then closes every readahead window of @ino (drop-cache). */
void testfs_correlate_forget(struct testfs *t, uint64_t ino);

/* Registers an open control handle, freed by @release if still open when
 * serving ends; untrack it when it is freed before. */
void testfs_track(struct testfs *t, struct handle_link *link,
		  void (*release)(struct testfs *t, struct handle_link *link));
void testfs_untrack(struct testfs *t, struct handle_link *link);

/* Frees the control handles still open when serving ends. */
void testfs_free_handles(struct testfs *t);

/*
 * Ends the request loop (as a signal would): its read() returns EINTR and
 * it sees the exit (with --threads, serving_thread waits for the request
 * threads and ends them). Any thread may call it.
 */
void testfs_stop_serving(struct testfs *t);

/*
 * A worker that needs the mount is starting: false (and nothing counted)
 * once serving is ending. testfs_worker_end() is called by each worker
 * that was counted; the last one to end after serving began to end stops
 * the request loop again, so serve() may go on.
 */
bool testfs_worker_begin(struct testfs *t);
void testfs_worker_end(struct testfs *t);

#endif
