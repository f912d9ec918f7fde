/* SPDX-License-Identifier: MIT */
/*
 * The settings one mount runs with. daemon/options.c fills them from the
 * command line and config files; the core, the FUSE front end and the
 * control directory only read them, so they need nothing of the parser.
 */
#ifndef TESTFS_SETTINGS_H
#define TESTFS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <testfs/pattern.h>

struct rule_set;

struct file_spec {
	char *name;
	uint64_t size;
	struct testfs_pattern pattern;
};

#define OPT_UNSET (-1)
#define OPT_TRACE_AUTO 0
#define OPT_TRACE_REQUIRED 1
#define OPT_TRACE_OFF (-1)
#define OPTIONS_DEFAULT_LOG_CAPACITY (1u << 20)
/* The kernel's own defaults, used when a knob is not given. */
#define KERNEL_DEFAULT_MAX_BACKGROUND 12
#define KERNEL_DEFAULT_CONGESTION_THRESHOLD 9
/* --threads: the default (see docs/benchmarks.md) and the most allowed. */
#define OPTIONS_DEFAULT_THREADS 1
#define TESTFS_THREADS_MAX 256
/* --transport: how requests reach the daemon (daemon/transport.h). */
#define OPT_TRANSPORT_DEV 0
#define OPT_TRANSPORT_URING 1

struct options {
	struct file_spec *files;
	size_t nfiles;
	size_t files_cap;
	/* Indexes + 1 into files by name hash (open addressing), 0: free. */
	size_t *name_index;
	size_t name_index_cap; /* a power of two, or 0 */
	bool default_files;    /* no file given: the built-in set */
	char *backing;	       /* --backing DIR, or NULL */
	char *mountpoint;
	char *log_path;
	int64_t ra_kb;
	int64_t max_pages;
	int64_t max_background;
	int64_t congestion_threshold;
	/* Request threads over /dev/fuse (--threads, 1..TESTFS_THREADS_MAX). */
	int64_t threads;
	int transport; /* OPT_TRANSPORT_*, default dev */
	/* Where it was given ("--congestion-threshold" or "FILE:LINE: ..."),
	 * for the check against max-background made at the end. */
	char congestion_what[192];
	uint64_t log_capacity;
	bool foreground;
	bool debug;
	bool quiet;
	bool auto_unmount;
	bool rmdir_after;
	bool help;
	bool version;
	int ready_fd;
	int64_t watch_pid;
	/* --trace / --no-trace; default OPT_TRACE_AUTO (0). */
	int trace;
	char *tracefs;	   /* --tracefs DIR, or NULL */
	bool trace_reads;  /* --trace-reads */
	bool trace_folios; /* --trace-folios */
	/* Where --trace-reads and --no-trace were given, as for
	 * congestion_what: they conflict, checked at the end. */
	char trace_reads_what[192];
	char trace_folios_what[192];
	char no_trace_what[192];
	/* --latency, --rule, --error, checked as they are parsed (NULL when
	 * none was given). */
	struct rule_set *rules;
	bool slow_given;
};

#endif
