// SPDX-License-Identifier: MIT
/*
 * The tracer's set-up: its tracefs instance (tracing off, clock mono, the
 * buffer's size and watermark, the page layout, each event with its
 * device filter) and the per-CPU buffers it reads.
 */
#include "tracer_i.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

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
 * Enables event @k with its device filter (for folios added to the page
 * cache with t->large_folios only, also order > 0). On failure returns
 * -errno and says why in @why; the event is left disabled and unfiltered.
 */
static int enable_kind(struct tracer *t, unsigned k, char *why, size_t len)
{
	char rel[256], ev[200], filter[96];
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
	snprintf(filter, sizeof(filter), "%s == %u%s", t->dev_field, t->kdev,
		 k == TRACE_ADD_FOLIO && t->large_folios ? " && order > 0"
							 : "");
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

int tracer_open_cpus(struct tracer *t, char *why, size_t whylen)
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
		memset(&t->cpus[t->ncpu], 0, sizeof(t->cpus[t->ncpu]));
		t->cpus[t->ncpu].fd = fd;
		t->cpus[t->ncpu].cpu = cpu;
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

int tracer_setup_instance(struct tracer *t, const struct tracer_options *o,
			  char *why, size_t whylen)
{
	char *hp, *he, *clock;
	char num[32];
	unsigned kb, k,
		want = o->kinds ? o->kinds : (1u << TRACE_KIND_COUNT) - 1;
	int ret;

	t->large_folios = o->large_folios;
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
	kb = o->buffer_kb ? o->buffer_kb : TRACER_DEFAULT_BUFFER_KB;
	snprintf(num, sizeof(num), "%u", kb);
	ret = tracefs_write(t->inst, "buffer_size_kb", num);
	if (ret) {
		snprintf(why, whylen, "buffer_size_kb %s: %s", num,
			 strerror(-ret));
		return ret;
	}
	/*
	 * A full buffer drops new events (counted in per_cpu/cpuN/stats)
	 * rather than overwriting old ones unnoticed. A reader polling a
	 * CPU's trace_pipe_raw is woken when buffer_percent of its pages
	 * are filled (since 6.1; 0 would wake it on every first event),
	 * so the reader reads in large batches; it also reads on a timer
	 * and when flushed (tracer.c), so a kernel whose poll ignores the
	 * watermark, or an instance without the file, only reads later.
	 */
	tracefs_write(t->inst, "options/overwrite", "0");
	snprintf(num, sizeof(num), "%u", TRACER_WATERMARK);
	if (tracefs_write(t->inst, "buffer_percent", num) == 0)
		t->watermark = TRACER_WATERMARK;

	/*
	 * Larger sub-buffers (Linux 6.8 on): one read(2) takes
	 * TRACER_SUBBUF_KB of events, not 4 KiB; each read costs the kernel
	 * a lock with interrupts off. Kernels without the file keep pages.
	 */
	snprintf(num, sizeof(num), "%u", TRACER_SUBBUF_KB);
	tracefs_write(t->inst, "buffer_subbuf_size_kb", num);

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
	t->buffer_pages = (unsigned)((size_t)kb * 1024 / t->page_size);
	if (!t->buffer_pages)
		t->buffer_pages = 1;

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
