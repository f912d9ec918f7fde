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
 * made raw fast is batching: woken by the first event (buffer_percent 0),
 * the reader then reads at most once per ROUND_NS, so read(2) returns
 * pages of ~50-90 events instead of one or two (reading on every wakeup
 * cost 1.9 us/event at 200k/s, no better than text).
 */
#include "tracer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "thread.h"
#include "tracefs.h"

#define DEFAULT_BUFFER_KB 4096u
/*
 * How long an event is held back before delivery, so that an event of
 * another CPU with an earlier timestamp, committed a moment later, is
 * still merged in order. A tracepoint commits within microseconds of
 * taking its timestamp (preemption is off in between).
 */
#define HOLD_NS 2000000ull
#define HOLD_MS 2
/* At most one read round per millisecond (see reader_main). */
#define ROUND_NS 1000000ull
/* Pages read from one CPU per round before the others get a turn. */
#define ROUND_PAGES 64

struct cpu_reader {
	int fd;
	unsigned cpu;
	uint64_t last_ts; /* of the last record read */
	bool empty;	  /* the last read found nothing */
};

/* An event read but not yet delivered; seq keeps each CPU's order. */
struct pending {
	struct trace_event ev;
	uint64_t seq;
};

struct tracer {
	char tracefs[256];
	char name[64];
	char inst[352];
	struct trace_decoder dec;
	struct trace_page_layout pl;
	size_t page_size;
	unsigned kinds;
	uint32_t kdev;
	tracer_fn fn;
	void *arg;

	unsigned ncpu;
	struct cpu_reader *cpus;
	struct pollfd *pfds; /* ncpu + 1: the last one is efd */
	int efd;
	uint8_t *page;

	/* Reader thread only. */
	struct pending *pend;
	size_t npend, cap;
	uint64_t seq;
	uint64_t last_delivered;
	struct cpu_reader *cur; /* the CPU being parsed */

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
	_Atomic uint64_t bad;
	_Atomic uint64_t unknown;
	_Atomic uint64_t late;
	_Atomic uint64_t missed; /* from page headers (overwrite mode) */

	char enabled[512];
	char skipped[1024];
	char stale[512];
	char dev_field[48];
};

/* ---- set-up ---- */

static void appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* The first line of a filter file after a failed write: the error. */
static void filter_error(struct tracer *t, const char *rel, char *buf,
			 size_t len)
{
	char *text = tracefs_read(t->inst, rel);
	char *p;

	snprintf(buf, len, "rejected");
	if (!text)
		return;
	/* "### global filter ###\nfilter_string: ...\nparse_error: ..." */
	p = strstr(text, "parse_error:");
	if (p) {
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
	}
	free(text);
}

/*
 * Enables event @k with its device filter. On failure returns -errno and
 * says why in @why; the event is left disabled and unfiltered.
 */
static int enable_kind(struct tracer *t, unsigned k, char *why, size_t len)
{
	char rel[256], ev[200], filter[64];
	struct trace_format fmt;
	char *text;
	int ret;

	snprintf(ev, sizeof(ev), "events/%s/%s", trace_kind_system(k),
		 trace_kind_name(k));
	snprintf(rel, sizeof(rel), "%s/format", ev);
	text = tracefs_read(t->inst, rel);
	if (!text) {
		ret = -errno;
		snprintf(why, len, "%s",
			 ret == -ENOENT ? "not in this kernel"
					: strerror(-ret));
		return ret;
	}
	ret = trace_format_parse(text, &fmt);
	free(text);
	if (ret) {
		snprintf(why, len, "format file not understood");
		return ret;
	}
	ret = trace_decoder_add(&t->dec, k, &fmt, why, len);
	if (ret)
		return ret;
	snprintf(t->dev_field, sizeof(t->dev_field), "%s",
		 t->dec.layout[t->dec.n - 1].dev_name);
	snprintf(filter, sizeof(filter), "%s == %u", t->dev_field, t->kdev);
	snprintf(rel, sizeof(rel), "%s/filter", ev);
	ret = tracefs_write(t->inst, rel, filter);
	if (ret) {
		char err[96];

		filter_error(t, rel, err, sizeof(err));
		snprintf(why, len, "filter \"%s\": %s", filter, err);
		goto undo;
	}
	snprintf(rel, sizeof(rel), "%s/enable", ev);
	ret = tracefs_write(t->inst, rel, "1");
	if (ret) {
		snprintf(why, len, "enable: %s", strerror(-ret));
		snprintf(rel, sizeof(rel), "%s/filter", ev);
		tracefs_write(t->inst, rel, "0");
		goto undo;
	}
	return 0;
undo:
	t->dec.n--; /* not decoded: the event is not enabled */
	return ret;
}

static int open_cpus(struct tracer *t, char *why, size_t whylen)
{
	char path[PATH_MAX + 64];
	struct dirent *de;
	unsigned cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/per_cpu", t->inst);
	d = opendir(path);
	if (!d) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d)) != NULL) {
		unsigned cpu;
		char extra;
		int fd;

		if (sscanf(de->d_name, "cpu%u%c", &cpu, &extra) != 1)
			continue;
		if (t->ncpu == cap) {
			struct cpu_reader *nc;

			cap = cap ? cap * 2 : 8;
			nc = realloc(t->cpus, cap * sizeof(*nc));
			if (!nc) {
				closedir(d);
				snprintf(why, whylen, "out of memory");
				return -ENOMEM;
			}
			t->cpus = nc;
		}
		snprintf(path, sizeof(path), "%s/per_cpu/%s/trace_pipe_raw",
			 t->inst, de->d_name);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			int err = errno;

			closedir(d);
			snprintf(why, whylen, "%s: %s", path, strerror(err));
			return -err;
		}
		t->cpus[t->ncpu].fd = fd;
		t->cpus[t->ncpu].cpu = cpu;
		t->cpus[t->ncpu].last_ts = 0;
		t->cpus[t->ncpu].empty = true;
		t->ncpu++;
	}
	closedir(d);
	if (!t->ncpu) {
		snprintf(why, whylen, "%s/per_cpu: no CPU", t->inst);
		return -ENOENT;
	}
	t->pfds = calloc(t->ncpu + 1, sizeof(*t->pfds));
	if (!t->pfds) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The read size of trace_pipe_raw: one sub-buffer. */
static size_t subbuf_size(struct tracer *t)
{
	size_t size = (size_t)t->pl.data_offset + t->pl.data_size;
	char *text = tracefs_read(t->inst, "buffer_subbuf_size_kb");

	if (text) {
		long kb = strtol(text, NULL, 10);

		if (kb > 0 && (size_t)kb * 1024 > size)
			size = (size_t)kb * 1024;
		free(text);
	}
	return size;
}

static int setup_instance(struct tracer *t, const struct tracer_options *o,
			  char *why, size_t whylen)
{
	char *hp, *he, *clock;
	char num[32];
	unsigned k, want = o->kinds ? o->kinds : (1u << TRACE_KIND_COUNT) - 1;
	int ret;

	ret = tracefs_write(t->inst, "tracing_on", "0");
	if (ret) {
		snprintf(why, whylen, "%s/tracing_on: %s", t->inst,
			 strerror(-ret));
		return ret;
	}
	/* The log's clock: CLOCK_MONOTONIC. */
	ret = tracefs_write(t->inst, "trace_clock", "mono");
	clock = tracefs_read(t->inst, "trace_clock");
	if (ret || !clock || !strstr(clock, "[mono]")) {
		free(clock);
		snprintf(why, whylen, "trace_clock mono not available");
		return ret ? ret : -EINVAL;
	}
	free(clock);
	snprintf(num, sizeof(num), "%u",
		 o->buffer_kb ? o->buffer_kb : DEFAULT_BUFFER_KB);
	ret = tracefs_write(t->inst, "buffer_size_kb", num);
	if (ret) {
		snprintf(why, whylen, "buffer_size_kb %s: %s", num,
			 strerror(-ret));
		return ret;
	}
	/*
	 * A full buffer drops new events (counted in per_cpu/cpuN/stats)
	 * rather than overwriting old ones unnoticed; wake the reader on
	 * any data, not when half full.
	 */
	tracefs_write(t->inst, "options/overwrite", "0");
	tracefs_write(t->inst, "buffer_percent", "0");

	hp = tracefs_read(t->inst, "events/header_page");
	he = tracefs_read(t->inst, "events/header_event");
	if (!hp || !he) {
		snprintf(why, whylen, "cannot read events/header_page: %s",
			 strerror(errno));
		ret = -EIO;
	} else {
		ret = trace_page_layout_parse(hp, he, &t->pl, why, whylen);
	}
	free(hp);
	free(he);
	if (ret)
		return ret;
	t->page_size = subbuf_size(t);

	for (k = 0; k < TRACE_KIND_COUNT; k++) {
		char reason[256];

		if (!(want & (1u << k)))
			continue;
		if (enable_kind(t, k, reason, sizeof(reason)) == 0) {
			t->kinds |= 1u << k;
			appendf(t->enabled, sizeof(t->enabled), "%s%s",
				t->enabled[0] ? " " : "", trace_kind_name(k));
		} else {
			appendf(t->skipped, sizeof(t->skipped), "%s%s:%s (%s)",
				t->skipped[0] ? ", " : "", trace_kind_system(k),
				trace_kind_name(k), reason);
		}
	}
	if (!t->kinds) {
		snprintf(why, whylen, "no tracepoint could be enabled: %s",
			 t->skipped);
		return -ENOENT;
	}
	return 0;
}

/* ---- reading ---- */

static int push_record(const struct trace_record *rec, void *arg)
{
	struct tracer *t = arg;
	struct trace_event *ev;
	int ret;

	if (t->npend == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct pending *np = realloc(t->pend, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		t->pend = np;
		t->cap = cap;
	}
	ev = &t->pend[t->npend].ev;
	ret = trace_decode(&t->dec, rec->data, rec->len, ev);
	if (ret == -ENOENT) {
		atomic_fetch_add_explicit(&t->unknown, 1, memory_order_relaxed);
		return 0;
	}
	if (ret) {
		atomic_fetch_add_explicit(&t->bad, 1, memory_order_relaxed);
		return 0;
	}
	ev->ts_ns = rec->ts;
	ev->cpu = (uint16_t)t->cur->cpu;
	ev->reserved = 0;
	t->pend[t->npend].seq = t->seq++;
	t->cur->last_ts = rec->ts;
	t->npend++;
	return 0;
}

/*
 * Reads CPU @c's buffer: until it is empty, or @max pages (0: no limit).
 * Returns pages read.
 */
static unsigned drain_cpu(struct tracer *t, struct cpu_reader *c, unsigned max)
{
	unsigned pages = 0;

	t->cur = c;
	c->empty = false;
	while (!max || pages < max) {
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
	atomic_fetch_add_explicit(&t->pages, pages, memory_order_relaxed);
	return pages;
}

static int cmp_event(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.ts_ns != y->ev.ts_ns)
		return x->ev.ts_ns < y->ev.ts_ns ? -1 : 1;
	/* Equal times: the order they were read in (each CPU's order). */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Delivers the pending events with a timestamp up to @horizon. */
static void deliver(struct tracer *t, uint64_t horizon)
{
	size_t i;

	if (!t->npend)
		return;
	qsort(t->pend, t->npend, sizeof(*t->pend), cmp_event);
	for (i = 0; i < t->npend && t->pend[i].ev.ts_ns <= horizon; i++) {
		const struct trace_event *ev = &t->pend[i].ev;

		if (ev->ts_ns < t->last_delivered)
			atomic_fetch_add_explicit(&t->late, 1,
						  memory_order_relaxed);
		else
			t->last_delivered = ev->ts_ns;
		t->fn(ev, t->arg);
		atomic_fetch_add_explicit(&t->per_kind[ev->kind], 1,
					  memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&t->events, i, memory_order_relaxed);
	memmove(t->pend, t->pend + i, (t->npend - i) * sizeof(*t->pend));
	t->npend -= i;
}

static void sleep_until(uint64_t when)
{
	struct timespec ts = { (time_t)(when / 1000000000u),
			       (long)(when % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void *reader_main(void *arg)
{
	struct tracer *t = arg;
	uint64_t last_round = 0;
	unsigned i;

	for (i = 0; i < t->ncpu; i++) {
		t->pfds[i].fd = t->cpus[i].fd;
		t->pfds[i].events = POLLIN;
	}
	t->pfds[t->ncpu].fd = t->efd;
	t->pfds[t->ncpu].events = POLLIN;
	for (;;) {
		uint64_t req, now, horizon;
		bool stopping, flush;

		if (poll(t->pfds, t->ncpu + 1, t->npend ? HOLD_MS : -1) < 0 &&
		    errno != EINTR)
			break;
		if (t->pfds[t->ncpu].revents & POLLIN) {
			uint64_t v;

			if (read(t->efd, &v, sizeof(v)) < 0)
				v = 0;
		}
		pthread_mutex_lock(&t->lock);
		req = t->flush_req;
		stopping = t->stopping;
		pthread_mutex_unlock(&t->lock);
		flush = req != t->flush_done;
		/*
		 * Batching: the buffers wake us on the first event, but a
		 * round reads at most once per ROUND_NS unless asked to
		 * flush, so at high rates each read(2) returns full pages.
		 * Events wait for HOLD_NS anyway.
		 */
		if (!flush && !stopping && last_round &&
		    clock_now_ns() - last_round < ROUND_NS) {
			sleep_until(last_round + ROUND_NS);
			poll(t->pfds, t->ncpu, 0);
		}
		atomic_fetch_add_explicit(&t->wakeups, 1, memory_order_relaxed);
		now = clock_now_ns();
		last_round = now;
		horizon = stopping ? UINT64_MAX : flush ? now : now - HOLD_NS;
		for (i = 0; i < t->ncpu; i++) {
			struct cpu_reader *c = &t->cpus[i];

			/* Not readable when polled: empty, nothing older. */
			if (!stopping && !flush &&
			    !(t->pfds[i].revents & (POLLIN | POLLERR)))
				continue;
			drain_cpu(t, c, stopping ? 0 : ROUND_PAGES);
			/* Not emptied: later events of it may be older. */
			if (!c->empty && c->last_ts < horizon)
				horizon = c->last_ts;
		}
		deliver(t, horizon);
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

static void destroy(struct tracer *t)
{
	unsigned i;

	for (i = 0; i < t->ncpu; i++)
		close(t->cpus[i].fd);
	if (t->efd >= 0)
		close(t->efd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t->cpus);
	free(t->pfds);
	free(t->page);
	free(t->pend);
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
	if (setup_instance(t, o, why, whylen) != 0 ||
	    open_cpus(t, why, whylen) != 0)
		goto fail_instance;
	t->page = malloc(t->page_size);
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
	for (unsigned i = 0; i < t->ncpu; i++)
		close(t->cpus[i].fd);
	t->ncpu = 0;
	tracefs_instance_remove(t->tracefs, t->name);
fail:
	destroy(t);
	return NULL;
}

int tracer_describe(const struct tracer *t, char *buf, size_t len)
{
	return snprintf(
		buf, len,
		"instance %s; read: trace_pipe_raw of %u CPUs, "
		"clock mono; filter %s == %u (%u:%u); events: %s%s%s%s%s",
		t->inst, t->ncpu, t->dev_field, t->kdev, t->kdev >> 20,
		t->kdev & 0xfffffu, t->enabled,
		t->skipped[0] ? "; skipped: " : "", t->skipped,
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
	for (unsigned i = 0; i < t->ncpu; i++)
		close(t->cpus[i].fd);
	t->ncpu = 0;
	ret = tracefs_instance_remove(t->tracefs, t->name);
	destroy(t);
	return ret;
}
