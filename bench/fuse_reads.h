/* SPDX-License-Identifier: MIT */
/*
 * Counting the FUSE_READ requests the kernel sends to each FUSE
 * connection, from its fuse:fuse_request_send tracepoint in a tracefs
 * instance of our own (root, tracefs). For benchmarks: how many requests
 * (and so how large, on average) a run's reads became. Nothing here knows
 * about testfs.
 */
#ifndef TESTFS_BENCH_FUSE_READS_H
#define TESTFS_BENCH_FUSE_READS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct fuse_reads {
	char dir[128]; /* the instance, "" when not set up */
};

/*
 * Creates the instance and starts counting. Returns 0 or -errno (no
 * tracefs, not root, no fuse events); @fr is then unusable.
 */
int fuse_reads_open(struct fuse_reads *fr);

/*
 * The FUSE_READs sent since the previous call (or the open) to each of
 * the @n mounts whose st_dev are @devs, in @counts; the count starts
 * again from 0. Returns 0, or -EOVERFLOW when events were lost (the
 * counts are then too low), or -errno.
 */
int fuse_reads_take(struct fuse_reads *fr, const dev_t *devs, unsigned n,
		    uint64_t *counts);

/* Stops counting and removes the instance. */
void fuse_reads_close(struct fuse_reads *fr);

#endif
