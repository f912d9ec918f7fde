/* SPDX-License-Identifier: MIT */
/*
 * The kernel tracer: the readahead:* and filemap:* tracepoints of one
 * mount, decoded and handed to a callback.
 *
 * It works in its own tracefs instance, instances/testfs-<pid>, never in
 * the global buffer, so other users of tracing are not disturbed. Each
 * event is enabled with a tracefs filter on the mount's device
 * (s_dev == (major << 20) | minor), so the kernel records nothing of
 * other file systems. The instance's trace_clock is "mono": timestamps
 * are CLOCK_MONOTONIC, the time base of the read log.
 *
 * Reading: one thread per tracer reads the per-CPU binary ring buffers
 * (per_cpu/cpuN/trace_pipe_raw), decodes them with the layouts parsed from
 * the format files (events.h) and calls the callback. It reads when a
 * CPU's buffer is half full (the instance's buffer_percent watermark),
 * when flushed, and at least every 100 ms; a consumer that needs the
 * events fired so far calls tracer_flush(). See tracer.c for why raw
 * pages and not trace_pipe text, and for the costs.
 *
 * Usage by the daemon:
 *
 *	struct tracer_options o = { .dev_major = ..., .dev_minor = ...,
 *				    .fn = on_event, .arg = t };
 *	t->tracer = tracer_start(&o, why, sizeof(why));
 *	if (!t->tracer)
 *		... put `why` into .testfs/config, carry on without it
 *	...
 *	tracer_flush(t->tracer, 1000);	// before answering a query
 *	...
 *	tracer_stop(t->tracer, &stats);	// at unmount
 *
 * A crashed or SIGKILLed daemon leaves its instance behind; the next
 * tracer_start() (or tracefs_remove_stale()) removes it.
 */
#ifndef TESTFS_TRACE_TRACER_H
#define TESTFS_TRACE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

/*
 * Called on the tracer's thread for each event, never concurrently with
 * itself. Events come in timestamp order: the reader holds each back
 * until every CPU's buffer has been read past its timestamp, so events
 * of different CPUs are merged correctly. Delivery is in batches, up to
 * 100 ms late (the watermark, the timer) unless flushed. The callback
 * must not call tracer_flush() or tracer_stop().
 */
typedef void (*tracer_fn)(const struct trace_event *ev, void *arg);

/*
 * Called on the tracer's thread with @begin true before a run of calls
 * of the tracer_fn, and false after it (a run is up to a few hundred
 * events), e.g. to take a lock once per run rather than per event.
 */
typedef void (*tracer_batch_fn)(bool begin, void *arg);

struct tracer_options {
	/* The mount's device, as major()/minor() of its st_dev. */
	unsigned dev_major;
	unsigned dev_minor;
	tracer_fn fn;
	tracer_batch_fn batch; /* NULL: none */
	void *arg;
	/*
	 * Events to enable: a mask of (1u << TRACE_*), 0 for all eight.
	 * Events missing on this kernel are skipped, not fatal.
	 */
	unsigned kinds;
	/*
	 * Folios entering the page cache (TRACE_ADD_FOLIO): only those of
	 * order > 0, filtered in the kernel. One event per 4 KiB page costs
	 * a cold sequential reader about 10% of its throughput on this
	 * project's machine (docs/benchmarks.md); an order-0 folio is its
	 * page, which the FUSE_READ that follows names anyway.
	 */
	bool large_folios;
	/* Per-CPU ring buffer in KiB; 0 for 4096. */
	unsigned buffer_kb;
	/*
	 * tracefs directory; NULL to find it, mounting it on
	 * /sys/kernel/tracing when absent and root. Tests point it
	 * elsewhere; a directory given here is never mounted.
	 */
	const char *tracefs;
};

struct tracer_stats {
	uint64_t events; /* delivered to the callback */
	uint64_t per_kind[TRACE_KIND_COUNT];
	uint64_t lost;	  /* dropped by the kernel, buffer full */
	uint64_t pages;	  /* ring-buffer pages read */
	uint64_t reads;	  /* read(2) calls on trace_pipe_raw */
	uint64_t wakeups; /* reader rounds */
	uint64_t woken;	  /* rounds started by a buffer's watermark */
	uint64_t bad;	  /* malformed pages or records */
	uint64_t unknown; /* records of events not asked for */
	uint64_t late;	  /* delivered after a later event (should stay 0) */
};

struct tracer;

/*
 * Removes stale instances, creates this process's instance, enables the
 * events with their device filters and starts the reader thread. Returns
 * NULL on failure with a one-line reason in @why (without root: "cannot
 * create tracefs instance ...: Permission denied (needs root)"; without
 * tracefs: "tracefs is not mounted ..."); nothing is left behind then.
 */
struct tracer *tracer_start(const struct tracer_options *o, char *why,
			    size_t whylen);

/*
 * One line for .testfs/config: the instance, the read method, the events
 * enabled with their filter, the events skipped and why, the stale
 * instances removed. Returns what snprintf returns.
 */
int tracer_describe(const struct tracer *t, char *buf, size_t len);

/* Mask of (1u << TRACE_*) of the events enabled. */
unsigned tracer_kinds(const struct tracer *t);

/* The instance directory, e.g. "/sys/kernel/tracing/instances/testfs-42". */
const char *tracer_instance(const struct tracer *t);

/*
 * Waits until every event whose tracepoint fired before this call has
 * been delivered to the callback, at most @timeout_ms. Returns 0,
 * -ETIMEDOUT, or -EIO if the reader thread has failed. Callable from any
 * thread but the callback's.
 */
int tracer_flush(struct tracer *t, int timeout_ms);

/*
 * Counters so far; lost comes from the kernel's per-CPU stats files.
 * Callable from any thread.
 */
void tracer_get_stats(struct tracer *t, struct tracer_stats *st);

/*
 * Stops tracing, disables every event of the instance, delivers the
 * events still buffered, stops the thread and removes the instance.
 * Stores the final counters in @st if non-NULL. Returns 0, or -errno if
 * the instance could not be removed (the next start removes it). @t is
 * freed either way; NULL is accepted.
 */
int tracer_stop(struct tracer *t, struct tracer_stats *st);

#endif
