/* SPDX-License-Identifier: MIT */
/*
 * The life of one mount: create the FUSE session, mount, confirm the
 * mount answers and apply the knobs, serve until unmounted or signalled,
 * unmount and flush the log.
 */
#ifndef TESTFS_SERVE_H
#define TESTFS_SERVE_H

#include "testfs_core.h"

/* Returns the process exit status (0 clean unmount, 1 failure). */
int serve(struct testfs *t);

#endif
