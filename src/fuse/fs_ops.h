/* SPDX-License-Identifier: MIT */
/*
 * The FUSE front end: the lowlevel request handlers of one mount, whose
 * userdata is its struct testfs.
 */
#ifndef TESTFS_FS_OPS_H
#define TESTFS_FS_OPS_H

#include "../core/testfs.h"

extern const struct fuse_lowlevel_ops testfs_ops;

#endif
