/* SPDX-License-Identifier: MIT */
/*
 * The state of one mounted testfs, shared by the FUSE front end, the
 * control directory and the daemon. Request handlers touch only the parts
 * marked "read path" without a lock.
 */
#ifndef TESTFS_I_H
#define TESTFS_I_H

#define FUSE_USE_VERSION 34

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "../daemon/options.h"
#include "../log/log_ring.h"
#include "../log/log_writer.h"
#include "../store/fileset.h"

/* Largest read the kernel sends: 256 pages (FUSE_MAX_MAX_PAGES). */
#define TESTFS_READ_MAX (256u * 4096u)

struct testfs_stats {
	_Atomic uint64_t reads;
	_Atomic uint64_t read_bytes;
	_Atomic uint64_t reads_past_eof;
	_Atomic uint64_t marks;
	_Atomic uint64_t clears;
	_Atomic uint64_t drop_caches;
	_Atomic uint64_t ctl_commands;
	_Atomic uint64_t ctl_rejected;
};

/* What the kernel actually uses, read back after mounting. */
struct testfs_knobs {
	char bdi[32]; /* "major:minor", empty until mounted */
	unsigned dev_major;
	unsigned dev_minor;
	int64_t ra_kb; /* -1: unknown */
	int64_t max_pages;
	int64_t max_pages_limit;
	int64_t max_background; /* -1: unknown */
	int64_t congestion_threshold;
	char note[256]; /* why something is unknown or differs */
};

/*
 * Control files still open. The kernel sends RELEASE asynchronously, so
 * some may still be open when the daemon exits; they are freed then.
 */
enum handle_kind {
	HANDLE_SNAPSHOT = 1,
	HANDLE_SESSION = 2,
};

struct handle_link {
	struct handle_link *prev;
	struct handle_link *next;
	enum handle_kind kind;
};

struct testfs {
	const struct options *opts;
	struct fileset files;	   /* read path, immutable */
	struct log_ring log;	   /* read path, lock-free */
	struct log_writer *writer; /* NULL without --log */
	struct testfs_stats stats; /* read path, atomics */
	struct fuse_session *se;
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

	/* Kernel correlation: NULL when off, with the reason in trace_why
	 * (set once by the ready thread, before the mount is announced). */
	struct correlator *corr;
	char trace_why[256];
	atomic_bool trace_decided;
};

/*
 * Attributes the reads so far (no-op without tracing) and returns the
 * log position before which every record is final (UINT64_MAX without
 * tracing): a reader shows records up to there, so none is shown before
 * its cause is known.
 */
uint64_t testfs_correlate_sync(struct testfs *t);

/* Syncs, then closes every readahead window of @ino (drop-cache). */
void testfs_correlate_forget(struct testfs *t, uint64_t ino);

/*
 * Ends the request loop (as a signal would). Called by the last worker
 * once serving is ending, with workers_lock held.
 */
void testfs_wake_loop(struct testfs *t);

extern const struct fuse_lowlevel_ops testfs_ops;

#endif
