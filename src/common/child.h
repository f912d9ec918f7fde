/* SPDX-License-Identifier: MIT */
/*
 * Starting a helper process and reading small files, for every program
 * that runs a daemon (libtestfs, the benchmarks) or reads a sysfs or
 * /proc value: the child's signal state before exec, the "ready" line it
 * writes when it serves, and one-read file contents.
 */
#ifndef TESTFS_CHILD_H
#define TESTFS_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * In a child between fork() and exec (async-signal-safe): SIGTERM,
 * SIGINT, SIGHUP and SIGPIPE back to their default action, no signal
 * blocked, whatever the parent had. A FUSE daemon (libfuse) installs its
 * handlers only over default dispositions.
 */
void child_default_signals(void);

/*
 * Waits up to @timeout_ms for "ready\n" on pipe @fd, keeping what came in
 * @buf (@size bytes, at least 2; always NUL-terminated): 0; -EIO when the
 * pipe closed or @buf filled first (a child that failed may have said why
 * in @buf); -ETIMEDOUT; or -errno.
 */
int child_wait_ready(int fd, unsigned timeout_ms, char *buf, size_t size);

/*
 * The start of file @path (a sysfs or /proc value) into @buf (@size
 * bytes, at least 1, at most INT_MAX; NUL-terminated) with one read(2):
 * the bytes read, or -errno (-EIO: the file is empty).
 */
int read_small_file(const char *path, char *buf, size_t size);

#endif
