/* SPDX-License-Identifier: MIT */
/*
 * The systems bench/concurrency measures and one run of its readers:
 * starting and stopping the servers (testfs, the minimal server, a
 * detached tmpfs file), making a file cold, timing R readers, and a
 * server's CPU time. concurrency.c's comment says what is measured.
 */
#ifndef TESTFS_BENCH_CONC_RUN_H
#define TESTFS_BENCH_CONC_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CONC_MAX_READERS 16
#define CONC_RUN_LIMIT_S 120 /* SIGALRM after this long in one run */
#define CONC_MAX_DAEMON_ARGS 8

/* The order of the report; even rounds run them forward, odd backward. */
/*
 * testfs (tracing on, and once with --no-trace), the minimal server from
 * its static buffer on 1 and N threads (the floor), the minimal server
 * filling each reply (a second line, only with conc_setup.fill_line),
 * tmpfs. The FUSE systems come first, tmpfs last.
 */
enum sys_id {
	T_ONE,
	T_MANY,
	T_URING,
	T_NOTRACE,
	M_ONE,
	M_MANY,
	M_FILL,
	TMPFS,
	NSYS
};

struct sys {
	char name[48];
	const char *skip; /* why it is not measured, or NULL */
	volatile pid_t pid;
	char dir[128];
	char file[192];
	dev_t dev; /* the mount's st_dev (FUSE systems) */
};

extern struct sys systems[NSYS];

struct conc_setup {
	const char *testfs, *minimal;	/* programs */
	uint64_t file_size;		/* bytes, a multiple of 1 MiB */
	unsigned threads;		/* N of --threads N */
	const char *pattern;		/* testfs's content */
	const char *const *daemon_args; /* more testfs arguments */
	unsigned n_daemon_args;
	bool fill_line; /* measure M_FILL too */
	bool no_log;	/* testfs without --log FILE */
};

/*
 * Starts every system (a skipped one gets its reason in .skip). Returns 0,
 * or -1 with the reason on stderr.
 */
int conc_start_all(const struct conc_setup *setup);

/* The directory of testfs's log files ("" with no_log). */
const char *conc_log_dir(void);

/* Stops every server and removes its mountpoint and its log file. */
void conc_stop_all(void);

/* Sends SIGTERM to every server; async-signal-safe. */
void conc_kill_servers(void);

/*
 * One run: @nreaders readers of @block bytes over the file of @s, cold
 * (tmpfs: cached). MB/s, or a negative value when the run could not be
 * made (not cold, a read failed).
 */
double conc_run(const struct sys *s, bool is_tmpfs, unsigned nreaders,
		size_t block);

#endif
