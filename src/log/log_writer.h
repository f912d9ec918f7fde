/* SPDX-License-Identifier: MIT */
/*
 * --log PATH: a thread that drains the ring into a JSON Lines file. The
 * read path never waits for it; it wakes on a timer and on flush requests.
 * Records it could not write before the ring overwrote them are written as
 * a {"lost":N,...} line, never skipped silently.
 */
#ifndef TESTFS_LOG_WRITER_H
#define TESTFS_LOG_WRITER_H

#include <stdint.h>

#include "log_ring.h"

typedef const char *(*log_name_fn)(void *ctx, uint64_t ino);

struct log_writer;

/*
 * Opens (creates or truncates) @path and starts the thread. Returns 0 or a
 * negative errno (the file could not be opened, or no thread).
 */
int log_writer_start(struct log_writer **out, struct log_ring *ring,
		     const char *path, uint32_t page_size, log_name_fn name_of,
		     void *name_ctx);

/* Writes everything published so far; returns 0 or the write error. */
int log_writer_flush(struct log_writer *w);

/*
 * Sets (or with NULL clears) a function called before each drain, such as
 * the correlator's sync, so records are written with their attribution.
 * It returns the position before which records are final; the drain
 * stops there.
 */
void log_writer_set_sync(struct log_writer *w, uint64_t (*sync)(void *ctx),
			 void *ctx);

/* Records the writer had to give up on since it started. */
uint64_t log_writer_lost(struct log_writer *w);

/* Final flush, stops the thread, closes the file. Returns the last error. */
int log_writer_stop(struct log_writer *w);

#endif
