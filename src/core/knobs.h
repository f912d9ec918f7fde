/* SPDX-License-Identifier: MIT */
/*
 * The kernel's side of the readahead knobs: the mount's bdi
 * (/sys/class/bdi/MAJ:MIN/read_ahead_kb) and its FUSE connection
 * (/sys/fs/fuse/connections/DEV/), written and read back.
 */
#ifndef TESTFS_KNOBS_H
#define TESTFS_KNOBS_H

#include "testfs_core.h"

/*
 * Finds the mount's device from @st_dev, applies --ra-kb, and reads every
 * effective value into t->knobs. Problems that do not stop the mount (no
 * root, no fusectl) are written as a warning into @warn (empty if none).
 */
void knobs_apply(struct testfs *t, dev_t st_dev, char *warn, size_t warnlen);

/* Re-reads the effective values (for .testfs/config). */
void knobs_refresh(struct testfs *t);

/* The largest read_ahead_kb testfs sets (--ra-kb, the ra-kb command). */
#define KNOBS_RA_KB_MAX (1u << 20)

/*
 * The ra-kb command: writes @kb to the mount's
 * /sys/class/bdi/MAJ:MIN/read_ahead_kb (root only) and reads back what
 * the kernel uses. Call with t->ctl_lock held. On failure returns a
 * negative errno with the reason in @why.
 */
int knobs_set_ra_kb(struct testfs *t, int64_t kb, char *why, size_t whylen);

#endif
