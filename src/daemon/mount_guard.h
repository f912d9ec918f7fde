/* SPDX-License-Identifier: MIT */
/*
 * The mount guard: a small process that removes the mount of a daemon
 * that died without unmounting (SIGKILL), for --transport uring.
 *
 * Over /dev/fuse, fusermount3's auto_unmount does that: when the daemon
 * dies its /dev/fuse file closes, the kernel aborts the connection, and
 * fusermount3 (which checks once, util/fusermount.c should_auto_unmount()
 * in libfuse 3.14) finds a mount whose root answers ENOTCONN. Over the
 * ring, the waiting ring commands hold the /dev/fuse file until io_uring
 * has torn the dead process's rings down, after fusermount3 has looked,
 * so the mount stayed.
 *
 * The guard is forked early, while the daemon is still single-threaded
 * and holds neither /dev/fuse nor a ring, and is joined to it by a socket
 * whose other end only the daemon holds (close-on-exec: fusermount3 and
 * whatever else the daemon runs do not inherit it; drop-cache workers are
 * threads). Once mounted the daemon sends the mount's device number; when
 * the socket reads end-of-file (the daemon exited, however) the guard
 * looks up the mountpoint in /proc/self/mountinfo and, only if the mount
 * there is still this one (fuse.testfs, same device), aborts the
 * connection (/sys/fs/fuse/connections/MINOR/abort) and detaches it
 * (umount2(MNT_DETACH), or fusermount3 -u -z when not root), within
 * MOUNT_GUARD_LIMIT_S seconds. A daemon that unmounted first leaves it
 * nothing to do.
 */
#ifndef TESTFS_MOUNT_GUARD_H
#define TESTFS_MOUNT_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

/* The most the guard spends removing a dead mount before it gives up. */
#define MOUNT_GUARD_LIMIT_S 10

/*
 * Forks the guard for @mountpoint (absolute). @keep_stderr: the guard
 * keeps the daemon's stderr for its one message (--foreground), else its
 * stdio is /dev/null (a background daemon's caller must see end-of-file
 * on its output once the daemon is ready). 0 or -errno (no guard then).
 */
int mount_guard_start(const char *mountpoint, bool keep_stderr);

/* Once mounted: the guard is to remove the mount of device @dev. */
void mount_guard_arm(dev_t dev);

/*
 * Ends the guard and waits for it (idempotent; nothing if none): called
 * after unmounting, or when there is nothing to guard (no ring).
 */
void mount_guard_release(void);

#endif
