/* SPDX-License-Identifier: MIT */
/*
 * --log PATH: a thread that drains the ring into a JSON Lines file. The
 * read path never waits for it; it wakes on a timer and on flush requests.
 * Records it could not write before the ring overwrote them are written as
 * a {"lost":N,...} line, never skipped silently: one line per contiguous
 * run, written before the next record or when the writer stops.
 *
 * A write that fails (a full disk) never leaves part of a line in the
 * file: what reached it of the line it failed in is cut back off. The
 * records after the last whole line are lost, counted like the others,
 * and their loss line is written by the first write that works again.
 */
#ifndef TESTFS_LOG_WRITER_H
#define TESTFS_LOG_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "log_ring.h"

typedef const char *(*log_name_fn)(void *ctx, uint64_t ino);

struct log_writer;

/*
 * Opens @path for the log: creates it with mode 0600, or truncates an
 * existing regular file that the caller (real uid) owns. Refuses a symbolic
 * link (-ELOOP), anything that is not a regular file (-EINVAL) and a file
 * of another user (-EPERM), leaving them untouched. Returns the descriptor,
 * or a negative errno with the reason in @why.
 */
int log_writer_open(const char *path, char *why, size_t whylen);

/*
 * Starts the thread writing to @fd (from log_writer_open(), owned by the
 * writer from then on). Returns 0 or a negative errno (no thread; @fd is
 * left to the caller).
 */
int log_writer_start(struct log_writer **out, struct log_ring *ring, int fd,
		     uint32_t page_size, log_name_fn name_of, void *name_ctx);

/*
 * Writes everything published so far. Returns 0, or the error of a write
 * that failed (-ENOSPC, ...): this one's, or that of a write that kept
 * records out of the file since the last flush (the thread's drains
 * too). Such records are counted in log_writer_lost() and a loss line is
 * written for them once a write works again.
 */
int log_writer_flush(struct log_writer *w);

/*
 * Sets (or with NULL clears) a function called before each drain, such as
 * the correlator's sync, so records are written with their attribution.
 * It returns the position before which records are final; the drain
 * stops there.
 */
void log_writer_set_sync(struct log_writer *w, uint64_t (*sync)(void *ctx),
			 void *ctx);

/*
 * Records the writer had to give up on since it started: overwritten in
 * the ring before it got to them, or kept out by a failed write.
 */
uint64_t log_writer_lost(struct log_writer *w);

/*
 * Final flush, stops the thread, closes the file. Returns the first error
 * (0 if every write worked); *@unwritten (may be NULL) gets the number of
 * records failed writes kept out of the file.
 */
int log_writer_stop(struct log_writer *w, uint64_t *unwritten);

#endif
