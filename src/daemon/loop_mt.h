/* SPDX-License-Identifier: MIT */
/*
 * The multi-threaded request loop (--threads N, N > 1).
 *
 * Up to N threads read /dev/fuse at once and answer in parallel. One
 * starts; a thread that takes a request when no other is left waiting
 * in read(2) starts another, up to N, and they stay. With few requests
 * in flight few threads run: fewer wake-ups and colder caches than N
 * threads taking turns (4 readers of 4 KiB on this 2-vCPU machine: N
 * threads from the start cost 106 ms of CPU a run against 48 ms for a
 * server that had grown 2). The
 * log's order is still the kernel's (the readahead tests and the
 * correlator read windows from it): each thread registers every request
 * it takes, by its FUSE unique, with the log's reorder stage
 * (log/log_order.h) before processing it, and a read's record enters the
 * log once every request the kernel numbered before it has arrived. A
 * data read's arrival time and rule verdict are taken at that moment too.
 *
 * All threads read the one session fd. A cloned fd per thread
 * (FUSE_DEV_IOC_CLONE) would not change the order, as every fd of a
 * connection takes requests from one queue; but replies must go to the
 * fd a request was read from, and libfuse 3.14 routes them so only in
 * its own loop.
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
