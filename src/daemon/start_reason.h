/* SPDX-License-Identifier: MIT */
/*
 * Why start-up failed, for the program that started the daemon with
 * --ready-fd: the daemon's messages still go to stderr as always, and the
 * last of them is kept, so that a failed start-up can also write it to
 * the ready descriptor ("error: REASON\n") where libtestfs reads it.
 */
#ifndef TESTFS_START_REASON_H
#define TESTFS_START_REASON_H

/*
 * Makes stdio's stderr a stream that writes to descriptor 2 unbuffered, as
 * before, and remembers the last line (libfuse's messages go through it
 * too). Without memory for it stderr stays as it was.
 */
void start_reason_capture(void);

/*
 * Writes "error: REASON\n" to @fd: the last error line printed (else the
 * last warning), without its "testfs: " prefix; "start-up failed" when
 * nothing was printed.
 */
void start_reason_send(int fd);

#endif
