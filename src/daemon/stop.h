/* SPDX-License-Identifier: MIT */
/*
 * One SIGTERM, SIGINT or SIGHUP ends the request loop, every time, and no
 * request the loop has taken off /dev/fuse is left unanswered.
 *
 * libfuse's handlers set the session's exit flag, and libfuse tests that
 * flag also right after its read of /dev/fuse returns: a request read as
 * the signal arrives is then dropped, never answered. The kernel counts it
 * as delivered, so its sender waits for the answer without end, even when
 * killed. When the sender is a drop-cache worker of this daemon (its
 * open() goes through the mount), serving waits for that worker and the
 * daemon never exits. So the handlers here set testfs's own flag
 * (t->stop_loop) instead, which the loop tests only between requests.
 *
 * The loop tests it before each read of /dev/fuse. A signal handled after
 * the test but before the read blocks is not seen until a request
 * arrives, which may be never. The window is short natively; under
 * valgrind it is wide, because a signal pending for a thread is delivered
 * when that thread enters its next blocking system call, which is the
 * read, and the read is then started afresh.
 *
 * So the handler also wakes a helper thread, which interrupts the loop's
 * thread with SIGURG (a handler that does nothing, so the read fails with
 * EINTR and the loop tests the flag again) every STOP_KICK_MS until the
 * loop has returned. The same holds for testfs_stop_serving(), which sets
 * the flag and raises SIGTERM in the loop's thread.
 */
#ifndef TESTFS_STOP_H
#define TESTFS_STOP_H

#include "testfs_core.h"

/* How often the loop's thread is interrupted until the loop returns. */
#define STOP_KICK_MS 100

/*
 * Installs libfuse's signal handlers for @t's session (they also ignore
 * SIGPIPE), replaces those for the stop signals with testfs's own, and
 * starts the helper thread. Returns 0 or a negative errno.
 */
int stop_signals_install(struct testfs *t);

/* Stops the helper thread and restores the default actions. */
void stop_signals_remove(struct testfs *t);

/*
 * Serves @t's session like fuse_session_loop(), in the calling thread
 * (which must be t->serving_thread), until t->stop_loop is set or the
 * session fails; clears t->stop_loop on return. Returns 0 or a negative
 * errno. With --threads N > 1 the loop is loop_mt_run(), which stops
 * at the same flag and whose waiting thread is the one kicked.
 */
int stop_session_loop(struct testfs *t);

#endif
