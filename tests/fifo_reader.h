/* SPDX-License-Identifier: MIT */
/*
 * A FIFO with a reader thread, for tests that hand a FIFO to a program
 * as its output file: the FIFO is open for reading before the program
 * starts (so the program never blocks opening it, and a program that
 * replaces the FIFO instead of writing into it cannot hang the test),
 * and what arrives is kept until the test has waited for the program.
 */
#ifndef TESTFS_FIFO_READER_H
#define TESTFS_FIFO_READER_H

#include <stddef.h>

struct fifo_reader;

/* Makes the FIFO @path and starts reading it; NULL on failure (errno). */
struct fifo_reader *fifo_reader_start(const char *path);

/*
 * Call once the writer has exited: reads what is left, stops the
 * thread and returns everything that arrived (malloc'd, NUL-terminated,
 * *@len bytes if @len is not NULL).
 */
char *fifo_reader_end(struct fifo_reader *r, size_t *len);

#endif
