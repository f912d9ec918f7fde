// SPDX-License-Identifier: MIT
/*
 * testfs-trace: print the kernel's readahead and filemap events of one
 * mount as text lines, from the tracer the daemon uses (src/trace). For
 * humans and for checking the tracer; needs root and tracefs.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "mountinfo.h"
#include "parse.h"
#include "tracer.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fputs("Usage: testfs-trace [OPTIONS] MOUNTPOINT\n"
	      "\n"
	      "Prints the readahead:* and filemap:* tracepoint events of\n"
	      "the file system on MOUNTPOINT (usually testfs), one line\n"
	      "each: CLOCK_MONOTONIC time, CPU, pid, event, device, inode\n"
	      "and the event's fields (page numbers). Runs until Ctrl-C,\n"
	      "SIGTERM or --seconds, then removes its tracefs instance.\n"
	      "Needs root.\n"
	      "\n"
	      "  --seconds N     stop after N seconds\n"
	      "  --quiet         no event lines, only the summary\n"
	      "  --buffer-kb N   per-CPU ring buffer (default 4096)\n"
	      "  -h, --help      this text\n"
	      "\n"
	      "The summary (events per kind, lost, CPU time) goes to\n"
	      "stderr. Exit status: 0 done, 1 failure, 2 bad arguments.\n",
	      f);
}

struct out {
	int quiet;
	uint64_t n;
};

static void on_event(const struct trace_event *ev, void *arg)
{
	struct out *o = arg;
	char line[512];

	o->n++;
	if (o->quiet)
		return;
	trace_event_format(ev, line, sizeof(line));
	puts(line);
}

int main(int argc, char **argv)
{
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct tracer_options opts = { 0 };
	struct tracer_stats st;
	struct mount_entry me;
	struct sigaction sa;
	struct rusage ru;
	struct out out = { 0 };
	struct tracer *t;
	char why[512], desc[2048], dir[PATH_MAX];
	const char *mnt = NULL;
	uint64_t seconds = 0, t0, t1;
	unsigned k;
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--quiet")) {
			out.quiet = 1;
		} else if ((!strcmp(a, "--seconds") ||
			    !strcmp(a, "--buffer-kb")) &&
			   i + 1 < argc) {
			const char *bad;
			uint64_t v;

			if (parse_uint(argv[i + 1], 1, 1u << 30, &v, &bad)) {
				fprintf(stderr, "testfs-trace: %s %s: %s\n", a,
					argv[i + 1], bad);
				return 2;
			}
			if (!strcmp(a, "--seconds"))
				seconds = v;
			else
				opts.buffer_kb = (unsigned)v;
			i++;
		} else if (a[0] == '-' || mnt) {
			usage(stderr);
			return 2;
		} else {
			mnt = a;
		}
	}
	if (!mnt) {
		usage(stderr);
		return 2;
	}
	if (!realpath(mnt, dir)) {
		fprintf(stderr, "testfs-trace: %s: %s\n", mnt, strerror(errno));
		return 1;
	}
	if (!mountinfo_find(dir, &me)) {
		fprintf(stderr, "testfs-trace: %s is not a mountpoint\n", dir);
		return 1;
	}
	if (strcmp(me.fstype, "fuse.testfs") != 0)
		fprintf(stderr, "testfs-trace: note: %s is %s, not testfs\n",
			dir, me.fstype);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* SIGPIPE: a closed pipe (| head) is a normal end, not a crash. */
	for (k = 0; k < sizeof(stop_sigs) / sizeof(stop_sigs[0]); k++)
		sigaction(stop_sigs[k], &sa, NULL);

	opts.dev_major = major(me.dev);
	opts.dev_minor = minor(me.dev);
	opts.fn = on_event;
	opts.arg = &out;
	t = tracer_start(&opts, why, sizeof(why));
	if (!t) {
		fprintf(stderr, "testfs-trace: %s\n", why);
		return 1;
	}
	tracer_describe(t, desc, sizeof(desc));
	fprintf(stderr, "testfs-trace: %s: %s\n", dir, desc);

	t0 = clock_now_ns();
	while (!stop_signal) {
		struct timespec ts = { 0, 100000000L };

		if (seconds && clock_now_ns() - t0 >= seconds * 1000000000ull)
			break;
		nanosleep(&ts, NULL);
		fflush(stdout);
	}
	ret = tracer_stop(t, &st);
	t1 = clock_now_ns();
	fflush(stdout);

	fprintf(stderr, "testfs-trace: %" PRIu64 " events in %.3f s (",
		st.events, (double)(t1 - t0) / 1e9);
	for (k = 0; k < TRACE_KIND_COUNT; k++)
		fprintf(stderr, "%s%s %" PRIu64, k ? ", " : "",
			trace_kind_name(k), st.per_kind[k]);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr,
		"); lost %" PRIu64 ", %" PRIu64 " pages in %" PRIu64
		" reads, %" PRIu64 " wakeups (%" PRIu64
		" by a watermark), bad %" PRIu64 ", late %" PRIu64
		"; cpu %.3f s user %.3f s sys\n",
		st.lost, st.pages, st.reads, st.wakeups, st.woken, st.bad,
		st.late,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	if (ret) {
		fprintf(stderr, "testfs-trace: removing %s: %s\n",
			"the tracefs instance", strerror(-ret));
		return 1;
	}
	return 0;
}
