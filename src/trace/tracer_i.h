/* SPDX-License-Identifier: MIT */
/*
 * The tracer's state, shared by its two halves: tracer_setup.c makes the
 * tracefs instance (events, filters, buffer, watermark) and opens the
 * per-CPU buffers; tracer.c reads and delivers.
 */
#ifndef TESTFS_TRACE_TRACER_I_H
#define TESTFS_TRACE_TRACER_I_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "tracer.h"

#define TRACER_DEFAULT_BUFFER_KB 4096u
/*
 * The instance's buffer_percent: a CPU's buffer wakes the reader when
 * this share of its pages holds unread events (the kernel's default).
 */
#define TRACER_WATERMARK 50u
/* The instance's buffer_subbuf_size_kb, where the kernel has it. */
#define TRACER_SUBBUF_KB 32u

/* An event read but not yet delivered; seq keeps the order of reading. */
struct pending {
	struct trace_event ev;
	uint64_t seq;
};

struct cpu_reader {
	int fd;
	unsigned cpu;
	uint64_t last_ts;     /* of the last record read */
	bool empty;	      /* the last read found nothing */
	unsigned round_pages; /* read in the current round */
	/* Read, not delivered, in timestamp order: q[head, n). */
	struct pending *q;
	size_t head, n, cap;
};

struct tracer {
	char tracefs[256];
	char name[64];
	char inst[352];
	struct trace_decoder dec;
	struct trace_page_layout pl;
	size_t page_size;
	unsigned pass_pages;   /* read from one CPU before the others */
	unsigned buffer_pages; /* sub-buffers per CPU */
	unsigned watermark;    /* buffer_percent set; 0: not settable */
	unsigned kinds;
	bool large_folios; /* tracer_options.large_folios */
	uint32_t kdev;
	tracer_fn fn;
	tracer_batch_fn batch;
	void *arg;

	unsigned ncpu;
	struct cpu_reader *cpus;
	struct pollfd *pfds; /* ncpu + 1: the last one is efd */
	int efd;
	uint8_t *page;

	/* Reader thread only. */
	uint64_t seq;
	uint64_t last_delivered;
	struct cpu_reader *cur; /* the CPU being parsed */
	int period_ms;		/* the next wait without a wake-up */

	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t flush_req;
	uint64_t flush_done;
	bool stopping;
	bool exited;

	_Atomic uint64_t events;
	_Atomic uint64_t per_kind[TRACE_KIND_COUNT];
	_Atomic uint64_t pages;
	_Atomic uint64_t reads;
	_Atomic uint64_t wakeups;
	_Atomic uint64_t woken; /* rounds a watermark started */
	_Atomic uint64_t bad;
	_Atomic uint64_t unknown;
	_Atomic uint64_t late;
	_Atomic uint64_t missed; /* from page headers (overwrite mode) */

	char enabled[512];
	char skipped[1024];
	char stale[512];
	char dev_field[48];
};

/*
 * Sets up the instance @t->inst (tracing off, clock, buffer size,
 * watermark, page layout, the events with their filters). Returns 0 or
 * -errno with the reason in @why.
 */
int tracer_setup_instance(struct tracer *t, const struct tracer_options *o,
			  char *why, size_t whylen);

/* Opens every per_cpu/cpuN/trace_pipe_raw of the instance. */
int tracer_open_cpus(struct tracer *t, char *why, size_t whylen);

#endif
