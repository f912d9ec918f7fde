/* SPDX-License-Identifier: MIT */
/*
 * The FUSE front end: the lowlevel request handlers of one mount, whose
 * userdata is its struct testfs.
 */
#ifndef TESTFS_FS_OPS_H
#define TESTFS_FS_OPS_H

#include "testfs_core.h"

extern const struct fuse_lowlevel_ops testfs_ops;

/*
 * With several request threads (daemon/loop_mt.c): called on the thread
 * that has just received @buf, before the next request can be received.
 * A data read gets its log position and arrival time here, so the log
 * keeps the kernel's order; the handler, on this thread, fills the
 * record in. fs_claim_settle(), after the request was processed, ends a
 * claim no handler took (a request libfuse answered itself).
 */
void fs_claim(struct testfs *t, const struct fuse_buf *buf);
void fs_claim_settle(struct testfs *t);

#endif
