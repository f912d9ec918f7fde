/* SPDX-License-Identifier: MIT */
/*
 * The two parts of the latency benchmark: delay precision (latency.c,
 * with main) and throughput against the latency models (latency_model.c,
 * with the instance helpers both use).
 */
#ifndef TESTFS_BENCH_LATENCY_H
#define TESTFS_BENCH_LATENCY_H

#include <testfs.h>

#define US 1000ull
#define MS 1000000ull

#define PAGE TESTFS_PAGE_SIZE

/*
 * testfs_start() and the mount's settings (testfs_settings()) into
 * *@set, with a reason (bench_fail) for each way it fails; on failure
 * nothing is left running.
 */
int latency_start(const struct testfs_config *cfg, const char *model,
		  struct testfs_mount **fs, struct testfs_settings *set);

/* A knob in effect, or -1 when the daemon could not read it (0). */
long latency_knob(unsigned v);

/* Part 2: one row per model; 0, or -errno with bench_failure set. */
int latency_throughput(void);

#endif
