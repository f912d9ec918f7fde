/* SPDX-License-Identifier: MIT */
/*
 * The multi-threaded request loop (--threads N, N > 1). Kept apart from
 * serve.c because libfuse's thread count is only settable through the
 * loop configuration of FUSE API 3.12, while the rest of testfs builds
 * against API 3.4, whose struct fuse_loop_config has a different layout.
 */
#ifndef TESTFS_LOOP_MT_H
#define TESTFS_LOOP_MT_H

#include <stdbool.h>

struct fuse_session;

/*
 * Whether a second device fd can be attached to @se's connection
 * (FUSE_DEV_IOC_CLONE): then each request thread reads its own fd. The
 * probe's fd is closed again; that does not end the connection.
 */
bool loop_mt_clone_works(struct fuse_session *se);

/*
 * Serves @se with up to @threads request threads (each started when all
 * others are busy, kept until the loop ends), each on a cloned fd when
 * @clone_fd. Returns like fuse_session_loop(): 0, -errno, or the signal
 * that ended it.
 */
int loop_mt_run(struct fuse_session *se, unsigned threads, bool clone_fd);

#endif
