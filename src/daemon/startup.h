/* SPDX-License-Identifier: MIT */
/*
 * Start-up reporting. In the background (the default) the process forks
 * before anything else runs; the parent waits until the child says the
 * mount is ready, or why it failed, prints that and exits with the child's
 * verdict, so `testfs ... MNT && client` never races the mount. In the
 * foreground the same messages go straight to stderr. Every message is
 * escaped (text.h: control characters, invalid UTF-8, backslashes), so
 * callers pass names raw and never escape them themselves.
 */
#ifndef TESTFS_STARTUP_H
#define TESTFS_STARTUP_H

#include <stdbool.h>

/* Forks when !@foreground; returns only in the process that serves. */
int startup_begin(bool foreground);

/* A warning to show the user (does not end start-up). */
void startup_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The mount is ready: @line (may be NULL) is shown, the parent exits 0. */
void startup_ready(const char *line);

/* Start-up failed: the parent prints the reason and exits with @status. */
void startup_fail(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* True once startup_ready() or startup_fail() was called. */
bool startup_done(void);

/* The status startup_fail() was called with, or 0. */
int startup_failed(void);

#endif
