/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by the benchmarks in bench/: time, medians, a
 * process's memory and CPU time, the failure message, reading a file to
 * its end, children and mounts, progress lines. Nothing here knows about
 * testfs.
 */
#ifndef TESTFS_BENCH_COMMON_H
#define TESTFS_BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define NS_PER_S 1000000000ull
#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)
#define TIB (1024ull * GIB)

/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);

/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) in ns. */
uint64_t bench_thread_cpu_ns(void);

/* Sleeps @ms milliseconds, through signals. */
void bench_sleep_ms(unsigned ms);

/*
 * CPU time in ns summed over the threads of @pid, from
 * /proc/PID/task/TID/schedstat (run time, wait time, timeslices); the
 * times its threads were scheduled in into *@slices if non-NULL. 0 when
 * @pid is not positive or is gone.
 */
uint64_t bench_sched_ns(pid_t pid, uint64_t *slices);

/* Why the run stopped, for the exit message ("WHAT: strerror"). */
extern char bench_failure[512];

/*
 * Sets bench_failure to the formatted WHAT and strerror(@err) (@err a
 * negative or positive errno); returns -|@err|.
 */
int bench_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* read(2) @fd to its end, @block bytes at a time: the bytes, or -errno. */
int64_t bench_read_all(int fd, char *buf, size_t block);

/* The first number in file @path (a sysfs or /proc value), or -1. */
long bench_read_long(const char *path);

/*
 * Waits up to @ms for child @pid; true when it is gone (its wait status
 * in *@status if non-NULL and it was reaped here).
 */
bool bench_reap(pid_t pid, unsigned ms, int *status);

/* Waits for "ready\n" on @fd for up to @ms: 0, -EIO or -ETIMEDOUT. */
int bench_wait_ready(int fd, unsigned ms);

/* Whether @path is a mountpoint now (in /proc/self/mountinfo). */
bool bench_is_mounted(const char *path);

/* Median of @v[@n] (sorted in place); *@min and *@max if non-NULL. */
double bench_median(double *v, size_t n, double *min, double *max);

/*
 * A "Name:   N kB" field of /proc/@pid/status (VmRSS, VmHWM ...) in
 * bytes (@pid 0: this process), or -errno.
 */
int64_t bench_status_bytes(pid_t pid, const char *field);

/*
 * The program named by environment variable @env, or else @sibling (a
 * path relative to this program's directory, e.g. "minimal_server" or
 * "../src/testfs") if it is executable: an absolute path to free(), or
 * NULL.
 */
char *bench_find_binary(const char *env, const char *sibling);

/*
 * The end of a benchmark's argument loop, for @arg that is none of its
 * options: -h or --help prints @usage on stdout and gives exit status 0,
 * anything else prints it on stderr and gives 1.
 */
int bench_not_an_option(const char *arg, void (*usage)(FILE *));

/* "NAME: MESSAGE" on stderr, at once. */
void bench_progress(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
