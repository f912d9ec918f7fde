/* SPDX-License-Identifier: MIT */
/*
 * The multi-threaded request loop (--threads N, N > 1).
 *
 * The log's order is the kernel's: a read's position is its place among
 * the requests the kernel queued, which the readahead tests and the
 * correlator read windows from. So the N threads take turns at reading
 * /dev/fuse (one waits in read(2), the others answer what they took), and
 * a data read's log position and arrival time are claimed before the
 * turn passes on. Answering (generating the data, the reply, the delay
 * queue, rules) runs in parallel.
 *
 * All threads read the one session fd. A cloned fd per thread
 * (FUSE_DEV_IOC_CLONE) would not change that order, as every fd of a
 * connection takes requests from one queue; but replies must go to the
 * fd a request was read from, and libfuse 3.14 routes them so only in
 * its own loop, which hands out requests without an order.
 */
#ifndef TESTFS_LOOP_MT_H
#define TESTFS_LOOP_MT_H

#include "testfs_core.h"

/*
 * Serves @t->se with @t->threads threads, the calling thread waiting for
 * the end (a signal or testfs_stop_serving() reach it). Returns like
 * fuse_session_loop(): 0 when ended by a signal or the unmount, or
 * -errno; the session is reset, so it may be served again.
 */
int loop_mt_run(struct testfs *t);

#endif
