/* SPDX-License-Identifier: MIT */
/*
 * tracefs plumbing for the tracer: finding (and, as root, mounting)
 * tracefs, reading and writing its control files, and the tracer's own
 * instances, instances/testfs-<pid>, including removing those a crashed
 * or killed daemon left behind.
 */
#ifndef TESTFS_TRACE_TRACEFS_H
#define TESTFS_TRACE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TRACEFS_DEFAULT "/sys/kernel/tracing"
#define TRACEFS_INSTANCE_PREFIX "testfs-"

/*
 * Finds tracefs: @want if given (must be a tracefs mount, never mounted
 * here), else /sys/kernel/tracing, else any tracefs in /proc/self/mounts;
 * if there is none and we are root, mounts it on /sys/kernel/tracing.
 * Writes the directory to @dir. Returns 0, or -errno with the reason in
 * @why.
 */
int tracefs_find(const char *want, char *dir, size_t dirlen, char *why,
		 size_t whylen);

/* Whether @dir is a tracefs mount (statfs magic). */
bool tracefs_is_tracefs(const char *dir);

/*
 * Reads the file @dir/@rel into a malloc'd NUL-terminated buffer (tracefs
 * files report size 0, so it reads to EOF). NULL with errno on failure.
 */
char *tracefs_read(const char *dir, const char *rel);

/*
 * Writes @text to @dir/@rel in one write(2), truncating. Returns 0 or
 * -errno.
 */
int tracefs_write(const char *dir, const char *rel, const char *text);

/* The instance name of process @pid: "testfs-<pid>". */
void tracefs_instance_name(pid_t pid, char *buf, size_t len);

/*
 * Whether the instance @name (in @tracefs/instances) is a testfs instance
 * whose owner is gone: its name is testfs-<pid> and no process @pid
 * exists, or the process @pid started after the instance was created
 * (the pid was reused; also when it is the caller's own pid). Stores the
 * pid in @pid_out if non-NULL.
 */
bool tracefs_instance_is_stale(const char *tracefs, const char *name,
			       pid_t *pid_out);

/*
 * Stops and removes one instance: tracing_on 0, all its events disabled,
 * then rmdir (retried briefly while the kernel says EBUSY). Returns 0 or
 * -errno; -ENOENT when it does not exist.
 */
int tracefs_instance_remove(const char *tracefs, const char *name);

/*
 * Removes every stale testfs instance (tracefs_instance_is_stale). Writes
 * a summary ("removed testfs-123, testfs-456"; empty if none) to @report
 * if non-NULL. Returns how many were removed, or -errno if the instances
 * directory cannot be read; failures to remove one are in @report.
 */
int tracefs_remove_stale(const char *tracefs, char *report, size_t len);

#endif
