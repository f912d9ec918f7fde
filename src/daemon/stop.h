/* SPDX-License-Identifier: MIT */
/*
 * One SIGTERM, SIGINT or SIGHUP ends the request loop, every time.
 *
 * libfuse's handlers only set the session's exit flag, and its loop tests
 * that flag before each read of /dev/fuse. A signal handled after the
 * test but before the read blocks is not seen until a request arrives,
 * which may be never: the daemon then ignores the signal. The window is
 * short natively; under valgrind it is wide, because a signal pending for
 * a thread is delivered when that thread enters its next blocking system
 * call, which is the read, and the read is then started afresh.
 *
 * So the handler also wakes a helper thread, which interrupts the loop's
 * thread with SIGURG (a handler that does nothing, so the read fails with
 * EINTR and the loop tests the flag again) every STOP_KICK_MS until the
 * loop has returned. The same holds for testfs_stop_serving(), which
 * raises SIGTERM in the loop's thread.
 */
#ifndef TESTFS_STOP_H
#define TESTFS_STOP_H

#include "../core/testfs.h"

/* How often the loop's thread is interrupted until the loop returns. */
#define STOP_KICK_MS 100

/*
 * Installs libfuse's signal handlers for @t's session, wrapped, and starts
 * the helper thread. Returns 0 or a negative errno.
 */
int stop_signals_install(struct testfs *t);

/* Stops the helper thread and restores the default actions. */
void stop_signals_remove(struct testfs *t);

/*
 * fuse_session_loop() on @t's session, in the calling thread (which must
 * be t->serving_thread), interruptible as described above; with
 * --threads N > 1, loop_mt_run(), whose waiting thread is the one kicked.
 */
int stop_session_loop(struct testfs *t);

#endif
