// SPDX-License-Identifier: MIT
/*
 * The tracer: one tracefs instance, eight filtered events, one reader
 * thread.
 *
 * Why the per-CPU binary buffers (per_cpu/cpuN/trace_pipe_raw) and not
 * trace_pipe text, measured on this project's 2-CPU machine (Linux
 * 6.18.44), all seven events enabled with their s_dev filter, one process
 * reading cached pages of a testfs file (one mm_filemap_get_pages each)
 * on one CPU, the reader on the other:
 *
 *   rate offered    trace_pipe + line parser    trace_pipe_raw (this)
 *   200k ev/s       no loss, 2.1 us CPU/event   no loss, 0.21 us/event
 *                   (41% of a CPU)              (4% of a CPU)
 *   600k ev/s       no loss, 1.7 us/event       no loss, 0.10 us/event
 *                   (a whole CPU)               (6% of a CPU)
 *   1.64M ev/s      65% dropped: the text       no loss, 0.085 us/event
 *   (max offered)   reader tops out ~620k/s     (14% of a CPU)
 *
 * Text costs the kernel a vsnprintf of every event (most of it is system
 * time in the reader) and us a parser; raw pages are copied or swapped
 * out whole and decoded with the offsets from the format files. What
 * makes raw fast is batching: reading on every first event (buffer_percent
 * 0) cost 1.9 us/event at 200k/s, no better than text, and a round per
 * millisecond, woken by the first event, still cost 36 us of CPU per
 * round, 3.9 us per 128 KiB FUSE_READ of a sequential reader, and more
 * once each 4 KiB folio added to the page cache was an event too (see
 * docs/benchmarks.md). So the reader sleeps until a CPU's buffer is half
 * full (the instance's buffer_percent, which poll(2) on trace_pipe_raw
 * honours since Linux 6.1), it is flushed (the correlator does before
 * the log's records are written or read), or a period ends (PERIOD_MS,
 * shorter while rounds find much: a kernel whose poll(2) misses the
 * watermark is still read, as often as its buffers need). splice(2) would save
 * the copy of each page but only moves full pages, and the copy is not where
 * the time goes.
 */
#include "tracer_i.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "thread.h"
#include "tracefs.h"

/*
 * How long an event is held back before delivery, so that an event of
 * another CPU with an earlier timestamp, committed a moment later, is
 * still merged in order. A tracepoint commits within microseconds of
 * taking its timestamp (preemption is off in between).
 */
#define HOLD_NS 2000000ull
/*
 * The longest wait for a watermark: then a round reads what there is.
 * The period halves (down to 1 ms) while rounds find a quarter of a
 * buffer filled and doubles back while they find less than 1/16, so the
 * buffers of a kernel that does not wake on the watermark are read
 * before they fill up, short of a buffer filling within a few ms.
 */
#define PERIOD_MS 100
/*
 * Bytes read from one CPU before the others get a turn and the events
 * are delivered: the queues stay small enough for the CPU's caches.
 */
#define PASS_BYTES (32u * 1024)

/* ---- reading ---- */

/* Whether @x goes before @y: timestamp, then the order of reading. */
static bool before(const struct pending *x, const struct pending *y)
{
	if (x->ev.ts_ns != y->ev.ts_ns)
		return x->ev.ts_ns < y->ev.ts_ns;
	return x->seq < y->seq;
}

static int push_record(const struct trace_record *rec, void *arg)
{
	struct tracer *t = arg;
	struct cpu_reader *c = t->cur;
	struct pending *p;
	size_t i;
	int ret;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct pending *nq;

		if (c->head) { /* delivered ones make room first */
			memmove(c->q, c->q + c->head,
				(c->n - c->head) * sizeof(*c->q));
			c->n -= c->head;
			c->head = 0;
		}
		if (c->n == c->cap) {
			nq = realloc(c->q, cap * sizeof(*nq));
			if (!nq)
				return -ENOMEM;
			c->q = nq;
			c->cap = cap;
		}
	}
	p = &c->q[c->n];
	/*
	 * Only events of the kinds enabled are decoded: trace_decode()
	 * looks at the type id first and leaves any other record alone.
	 */
	ret = trace_decode(&t->dec, rec->data, rec->len, &p->ev);
	if (ret == -ENOENT) {
		atomic_fetch_add_explicit(&t->unknown, 1, memory_order_relaxed);
		return 0;
	}
	if (ret) {
		atomic_fetch_add_explicit(&t->bad, 1, memory_order_relaxed);
		return 0;
	}
	p->ev.ts_ns = rec->ts;
	p->ev.cpu = (uint16_t)c->cpu;
	p->ev.reserved = 0;
	p->seq = t->seq++;
	c->last_ts = rec->ts;
	/*
	 * A CPU's buffer is in timestamp order; should a record ever go
	 * before the last one, it is moved back into place.
	 */
	for (i = c->n; i > c->head && before(p, &c->q[i - 1]); i--)
		;
	if (i < c->n) {
		struct pending tmp = *p;

		memmove(c->q + i + 1, c->q + i, (c->n - i) * sizeof(*c->q));
		c->q[i] = tmp;
	}
	c->n++;
	return 0;
}

/*
 * Reads CPU @c's buffer: until it is empty, or @max pages. Returns pages
 * read.
 */
static unsigned drain_cpu(struct tracer *t, struct cpu_reader *c, unsigned max)
{
	unsigned pages = 0;

	t->cur = c;
	c->empty = false;
	while (pages < max) {
		struct trace_page_info info;
		ssize_t n = read(c->fd, t->page, t->page_size);

		atomic_fetch_add_explicit(&t->reads, 1, memory_order_relaxed);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* EAGAIN: empty. Anything else: give up on it. */
			c->empty = true;
			break;
		}
		pages++;
		if (trace_page_parse(&t->pl, t->page, (size_t)n, push_record, t,
				     &info) != 0)
			atomic_fetch_add_explicit(&t->bad, 1,
						  memory_order_relaxed);
		if (info.missed_events)
			atomic_fetch_add_explicit(&t->missed,
						  info.missed ? info.missed : 1,
						  memory_order_relaxed);
	}
	c->round_pages += pages;
	atomic_fetch_add_explicit(&t->pages, pages, memory_order_relaxed);
	return pages;
}

/*
 * Delivers the pending events with a timestamp up to @horizon, merging
 * the CPUs' queues (each in timestamp order) by timestamp.
 */
static void deliver(struct tracer *t, uint64_t horizon)
{
	uint64_t count = 0;
	unsigned i;

	for (;;) {
		struct cpu_reader *best = NULL;
		const struct trace_event *ev;

		for (i = 0; i < t->ncpu; i++) {
			struct cpu_reader *c = &t->cpus[i];

			if (c->head == c->n || c->q[c->head].ev.ts_ns > horizon)
				continue;
			if (!best ||
			    before(&c->q[c->head], &best->q[best->head]))
				best = c;
		}
		if (!best)
			break;
		if (!count && t->batch)
			t->batch(true, t->arg);
		ev = &best->q[best->head++].ev;
		if (ev->ts_ns < t->last_delivered)
			atomic_fetch_add_explicit(&t->late, 1,
						  memory_order_relaxed);
		else
			t->last_delivered = ev->ts_ns;
		t->fn(ev, t->arg);
		atomic_fetch_add_explicit(&t->per_kind[ev->kind], 1,
					  memory_order_relaxed);
		count++;
	}
	if (count && t->batch)
		t->batch(false, t->arg);
	atomic_fetch_add_explicit(&t->events, count, memory_order_relaxed);
	for (i = 0; i < t->ncpu; i++)
		if (t->cpus[i].head == t->cpus[i].n)
			t->cpus[i].head = t->cpus[i].n = 0;
}

/*
 * One round: reads every CPU's buffer until it is empty (a buffer that
 * keeps filling, at most its size) and delivers what is older than
 * @horizon and than what is still unread. Returns the most pages read
 * from one CPU.
 */
static unsigned read_round(struct tracer *t, uint64_t horizon)
{
	unsigned i, most = 0;
	bool more;

	for (i = 0; i < t->ncpu; i++) {
		t->cpus[i].round_pages = 0;
		t->cpus[i].empty = false;
	}
	do {
		uint64_t h = horizon;

		more = false;
		for (i = 0; i < t->ncpu; i++) {
			struct cpu_reader *c = &t->cpus[i];

			if (!c->empty && c->round_pages < t->buffer_pages)
				drain_cpu(t, c, t->pass_pages);
			/* Not emptied: later events of it may be older. */
			if (!c->empty && c->last_ts < h)
				h = c->last_ts;
			more |= !c->empty && c->round_pages < t->buffer_pages;
		}
		deliver(t, h);
	} while (more);
	for (i = 0; i < t->ncpu; i++)
		if (t->cpus[i].round_pages > most)
			most = t->cpus[i].round_pages;
	return most;
}

/*
 * The next wait without a wake-up: shorter while rounds find much in a
 * buffer (the watermark does not wake us, or events come fast), longer
 * while they find little.
 */
static void adapt_period(struct tracer *t, unsigned most)
{
	if (most * 4 > t->buffer_pages && t->period_ms > 1)
		t->period_ms /= 2;
	else if (most * 16 < t->buffer_pages && t->period_ms < PERIOD_MS)
		t->period_ms = t->period_ms * 2 > PERIOD_MS ? PERIOD_MS
							    : t->period_ms * 2;
}

/*
 * The reader thread sleeps in poll(2) until a CPU's buffer reaches the
 * watermark, a flush or stop is asked (eventfd), or the period ends;
 * each wake-up is one round over every CPU. Events younger than HOLD_NS
 * wait for the next round, unless flushed.
 */
static void *reader_main(void *arg)
{
	struct tracer *t = arg;
	unsigned i;

	/* Its own name, so that its CPU time can be told apart (top -H). */
	prctl(PR_SET_NAME, "testfs-tracer");
	for (i = 0; i < t->ncpu; i++) {
		t->pfds[i].fd = t->cpus[i].fd;
		t->pfds[i].events = POLLIN;
	}
	t->pfds[t->ncpu].fd = t->efd;
	t->pfds[t->ncpu].events = POLLIN;
	t->period_ms = PERIOD_MS;
	for (;;) {
		uint64_t req, now;
		bool stopping, flush;
		int n;

		n = poll(t->pfds, t->ncpu + 1, t->period_ms);
		if (n < 0 && errno != EINTR)
			break;
		/*
		 * A CPU whose buffer cannot be polled (EPOLLERR: a possible
		 * CPU without a buffer) is only read in rounds, or poll(2)
		 * would return at once forever.
		 */
		for (i = 0; n > 0 && i < t->ncpu; i++)
			if (t->pfds[i].revents & (POLLERR | POLLNVAL | POLLHUP))
				t->pfds[i].fd = -1;
		if (n > 0 && (t->pfds[t->ncpu].revents & POLLIN)) {
			uint64_t v;

			if (read(t->efd, &v, sizeof(v)) < 0)
				v = 0;
		}
		pthread_mutex_lock(&t->lock);
		req = t->flush_req;
		stopping = t->stopping;
		pthread_mutex_unlock(&t->lock);
		flush = req != t->flush_done;
		atomic_fetch_add_explicit(&t->wakeups, 1, memory_order_relaxed);
		if (n > 0 && !flush && !stopping)
			atomic_fetch_add_explicit(&t->woken, 1,
						  memory_order_relaxed);
		now = clock_now_ns();
		adapt_period(t, read_round(t, stopping ? UINT64_MAX
					      : flush  ? now
						       : now - HOLD_NS));
		if (flush) {
			pthread_mutex_lock(&t->lock);
			t->flush_done = req;
			pthread_cond_broadcast(&t->cond);
			pthread_mutex_unlock(&t->lock);
		}
		if (stopping)
			break;
	}
	pthread_mutex_lock(&t->lock);
	t->exited = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static void wake(struct tracer *t)
{
	uint64_t one = 1;

	if (write(t->efd, &one, sizeof(one)) < 0) {
		/* The counter is saturated: the reader is awake anyway. */
	}
}

/* ---- public ---- */

/* Closes the per-CPU buffers: the instance can be removed then. */
static void close_cpus(struct tracer *t)
{
	unsigned i;

	for (i = 0; i < t->ncpu; i++) {
		if (t->cpus[i].fd >= 0)
			close(t->cpus[i].fd);
		t->cpus[i].fd = -1;
	}
}

static void destroy(struct tracer *t)
{
	unsigned i;

	close_cpus(t);
	for (i = 0; i < t->ncpu; i++)
		free(t->cpus[i].q);
	if (t->efd >= 0)
		close(t->efd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t->cpus);
	free(t->pfds);
	free(t->page);
	free(t);
}

struct tracer *tracer_start(const struct tracer_options *o, char *why,
			    size_t whylen)
{
	struct tracer *t;
	int ret;

	if (!o || !o->fn) {
		snprintf(why, whylen, "tracer: no callback");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	t->efd = -1;
	t->fn = o->fn;
	t->batch = o->batch;
	t->arg = o->arg;
	t->kdev = trace_kdev(o->dev_major, o->dev_minor);
	pthread_mutex_init(&t->lock, NULL);
	cond_init_monotonic(&t->cond);

	if (tracefs_find(o->tracefs, t->tracefs, sizeof(t->tracefs), why,
			 whylen) != 0)
		goto fail;
	tracefs_remove_stale(t->tracefs, t->stale, sizeof(t->stale));
	tracefs_instance_name(getpid(), t->name, sizeof(t->name));
	snprintf(t->inst, sizeof(t->inst), "%s/instances/%s", t->tracefs,
		 t->name);
	if (mkdir(t->inst, 0750) != 0) {
		int err = errno;

		if (err == EEXIST)
			snprintf(why, whylen, "tracefs instance %s exists: %s",
				 t->inst, "this process already runs a tracer");
		else
			snprintf(why, whylen,
				 "cannot create tracefs instance %s: %s%s",
				 t->inst, strerror(err),
				 err == EACCES || err == EPERM ? " (needs root)"
				 : err == ENOENT
					 ? " (no instances: kernel too old?)"
					 : "");
		goto fail;
	}
	if (tracer_setup_instance(t, o, why, whylen) != 0 ||
	    tracer_open_cpus(t, why, whylen) != 0)
		goto fail_instance;
	t->page = malloc(t->page_size);
	t->pass_pages = (unsigned)(PASS_BYTES / t->page_size);
	if (!t->pass_pages)
		t->pass_pages = 1;
	t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!t->page || t->efd < 0) {
		snprintf(why, whylen, "out of memory or file descriptors");
		goto fail_instance;
	}
	ret = tracefs_write(t->inst, "tracing_on", "1");
	if (ret) {
		snprintf(why, whylen, "tracing_on: %s", strerror(-ret));
		goto fail_instance;
	}
	/* The thread takes no signal: they are the application's. */
	ret = thread_start_quiet(&t->thread, reader_main, t, false);
	if (ret) {
		snprintf(why, whylen, "pthread_create: %s", strerror(ret));
		goto fail_instance;
	}
	t->thread_started = true;
	return t;

fail_instance:
	tracefs_write(t->inst, "tracing_on", "0");
	tracefs_write(t->inst, "events/enable", "0");
	close_cpus(t);
	tracefs_instance_remove(t->tracefs, t->name);
fail:
	destroy(t);
	return NULL;
}

int tracer_describe(const struct tracer *t, char *buf, size_t len)
{
	return snprintf(
		buf, len,
		"instance %s; read: trace_pipe_raw of %u CPUs when "
		"%s%u%% full, flushed or every %u ms at most, "
		"clock mono; filter %s == %u (%u:%u)%s; events: %s%s%s%s%s",
		t->inst, t->ncpu, t->watermark ? "" : "(not settable) ",
		t->watermark ? t->watermark : TRACER_WATERMARK, PERIOD_MS,
		t->dev_field, t->kdev, t->kdev >> 20, t->kdev & 0xfffffu,
		t->large_folios && (t->kinds & (1u << TRACE_ADD_FOLIO))
			? ", and order > 0 for mm_filemap_add_to_page_cache"
			: "",
		t->enabled, t->skipped[0] ? "; skipped: " : "", t->skipped,
		t->stale[0] ? "; stale instances: " : "", t->stale);
}

unsigned tracer_kinds(const struct tracer *t)
{
	return t->kinds;
}

const char *tracer_instance(const struct tracer *t)
{
	return t->inst;
}

int tracer_flush(struct tracer *t, int timeout_ms)
{
	struct timespec dl;
	uint64_t mine;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&t->lock);
	mine = ++t->flush_req;
	wake(t);
	while (t->flush_done < mine && !t->exited && ret == 0)
		ret = pthread_cond_timedwait(&t->cond, &t->lock, &dl);
	if (ret == 0 && t->flush_done < mine)
		ret = EIO; /* the reader is gone */
	pthread_mutex_unlock(&t->lock);
	return -ret;
}

/* Events the kernel dropped or overwrote, from per_cpu/cpuN/stats. */
static uint64_t kernel_lost(struct tracer *t)
{
	uint64_t lost = 0;
	unsigned i;

	for (i = 0; i < t->ncpu; i++) {
		char rel[64], *text, *line;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats",
			 t->cpus[i].cpu);
		text = tracefs_read(t->inst, rel);
		if (!text)
			continue;
		for (line = strtok(text, "\n"); line;
		     line = strtok(NULL, "\n")) {
			unsigned long long v;

			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "commit overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				lost += v;
		}
		free(text);
	}
	return lost;
}

void tracer_get_stats(struct tracer *t, struct tracer_stats *st)
{
	unsigned k;

	memset(st, 0, sizeof(*st));
	st->events = atomic_load(&t->events);
	for (k = 0; k < TRACE_KIND_COUNT; k++)
		st->per_kind[k] = atomic_load(&t->per_kind[k]);
	st->pages = atomic_load(&t->pages);
	st->reads = atomic_load(&t->reads);
	st->wakeups = atomic_load(&t->wakeups);
	st->woken = atomic_load(&t->woken);
	st->bad = atomic_load(&t->bad);
	st->unknown = atomic_load(&t->unknown);
	st->late = atomic_load(&t->late);
	st->lost = atomic_load(&t->missed) + kernel_lost(t);
}

int tracer_stop(struct tracer *t, struct tracer_stats *st)
{
	int ret;

	if (!t)
		return 0;
	tracefs_write(t->inst, "tracing_on", "0");
	tracefs_write(t->inst, "events/enable", "0");
	if (t->thread_started) {
		pthread_mutex_lock(&t->lock);
		t->stopping = true;
		wake(t);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->thread, NULL);
	}
	if (st)
		tracer_get_stats(t, st);
	close_cpus(t);
	ret = tracefs_instance_remove(t->tracefs, t->name);
	destroy(t);
	return ret;
}
