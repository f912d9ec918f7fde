/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by the benchmarks in bench/: time, medians, a
 * process's memory, progress lines. Nothing here knows about testfs.
 */
#ifndef TESTFS_BENCH_COMMON_H
#define TESTFS_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NS_PER_S 1000000000ull
#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)
#define TIB (1024ull * GIB)

/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);

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

/* "NAME: MESSAGE" on stderr, at once. */
void bench_progress(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
