/* SPDX-License-Identifier: MIT */
/*
 * The kernel's side of the readahead knobs: the mount's bdi
 * (/sys/class/bdi/MAJ:MIN/read_ahead_kb) and its FUSE connection
 * (/sys/fs/fuse/connections/DEV/), written and read back.
 */
#ifndef TESTFS_KNOBS_H
#define TESTFS_KNOBS_H

#include "testfs.h"

/*
 * Finds the mount's device from @st_dev, applies --ra-kb, and reads every
 * effective value into t->knobs. Problems that do not stop the mount (no
 * root, no fusectl) are written as a warning into @warn (empty if none).
 */
void knobs_apply(struct testfs *t, dev_t st_dev, char *warn, size_t warnlen);

/* Re-reads the effective values (for .testfs/config). */
void knobs_refresh(struct testfs *t);

#endif
