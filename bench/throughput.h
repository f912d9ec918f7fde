/* SPDX-License-Identifier: MIT */
/*
 * The throughput benchmark in three parts (throughput.c says what it
 * measures): the servers, the tmpfs and their clean-up on every path
 * (throughput_mounts.c), the runs (throughput_runs.c), and the report
 * and main (throughput.c).
 */
#ifndef TESTFS_BENCH_THROUGHPUT_H
#define TESTFS_BENCH_THROUGHPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <testfs.h>

#include "bench_common.h"

#define PAGE TESTFS_PAGE_SIZE

#define FILE_BYTES (512 * MIB)
#define FILE_SIZE_ARG "512M"
#define FILE_PAGES (FILE_BYTES / PAGE)
#define TOUCHES 20000u

#define DEFAULT_ROUNDS 11
#define QUICK_ROUNDS 3
#define MAX_ROUNDS 50

#define START_LIMIT_MS 10000u
#define STOP_LIMIT_MS 10000u
#define RUN_LIMIT_S 120u

enum system { SYS_STAMP, SYS_ZERO, SYS_MINIMAL, SYS_TMPFS, NSYS };

static const char *const sys_names[NSYS] = {
	"testfs stamp",
	"testfs zero",
	"minimal",
	"tmpfs",
};

enum workload { W_READ_1M, W_READ_4K, W_MMAP_RAND, NWORK };

struct workload_def {
	const char *name;
	/* read(2) size; 0: random mmap touches. */
	size_t block;
	const char *unit;
};

static const struct workload_def workloads[NWORK] = {
	{ "read 1 MiB", MIB, "MB/s" },
	{ "read 4 KiB", 4096, "MB/s" },
	{ "mmap rand 4K", 0, "k pages/s" },
};

static const unsigned ra_values[] = { 128, 1024 };

#define NRA (sizeof(ra_values) / sizeof(ra_values[0]))

/* One run's figures. */
struct sample {
	double value;	    /* MB/s or k pages/s */
	uint64_t wall_ns;   /* the timed loop */
	uint64_t server_ns; /* server CPU during it, 0 for tmpfs */
	uint64_t client_ns; /* this thread's CPU during it */
};

extern struct sample results[NRA][NWORK][NSYS][MAX_ROUNDS];

/* Effective read_ahead_kb per ra block and system (-1 unknown). */
extern long effective_ra[NRA][NSYS];

/* --raw: print every run as it ends (stderr). */
extern bool raw;

/* --daemon-arg: more testfs arguments (e.g. --no-trace), NULL-ended. */
#define MAX_DAEMON_ARGS 16
extern const char *daemon_args[MAX_DAEMON_ARGS + 1];
extern int ndaemon_args;

/* How the cold state was reached, over all FUSE runs. */
struct eviction_counts {
	unsigned runs;
	unsigned retries;
	unsigned drop_cache;
	bool mincore;
};
extern struct eviction_counts eviction;

/* Set once the watchdog has started cleaning up. */
extern _Atomic int stopping;

struct mounts {
	struct testfs_mount *testfs;
	/* mkdtemp() names in /tmp, short by construction. */
	char minimal[64];
	pid_t minimal_pid;
	int tmpfs_fd; /* the file on the detached tmpfs, or -1 */
	const char *testfs_bin;
	const char *minimal_bin;
};

/* throughput_mounts.c */

/* Limits the current step to @seconds from now (0: no limit). */
void set_deadline(unsigned seconds);

/*
 * Stops every server still registered, unmounts and removes every
 * registered mountpoint.
 */
void cleanup_slots(void);

/*
 * The watchdog thread (@arg: the signals it takes, which every other
 * thread blocks): ends the run on a signal or an exceeded time limit.
 */
void *watchdog_main(void *arg);

/* On a bench_failure the watchdog caused: let it finish and exit. */
void wait_if_stopping(void);

/* read_ahead_kb of the mount at @mountpoint (from sysfs), or -1. */
long read_ra_kb(const char *mountpoint);

/* testfs's read_ahead_kb in effect (testfs_settings()), or -1. */
long testfs_ra_kb(const struct testfs_mount *fs);

/* Start and stop testfs and the minimal server at read_ahead_kb @ra_kb. */
int start_testfs(struct mounts *m, unsigned ra_kb);
int stop_testfs(struct mounts *m);
int start_minimal(struct mounts *m, unsigned ra_kb);
int stop_minimal(struct mounts *m);

/* The tmpfs file, detached at once (m->tmpfs_fd). */
int mount_tmpfs(struct mounts *m);

/* throughput_runs.c */

/* SIGBUS in the touch loop (a failed FUSE read). */
void on_sigbus(int sig);

/* The warm-up round and @rounds rounds at ra_values[@ra]. */
int run_ra(struct mounts *m, unsigned ra, int rounds, char *buf);

#endif
