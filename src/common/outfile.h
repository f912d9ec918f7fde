/* SPDX-License-Identifier: MIT */
/*
 * The output files the tools write (testfs-report -o, testfs-scenario
 * --html, testfs-matrix --json, --ktap, --html and image), one way for
 * all of them:
 *
 * - absent, or a regular file: the data goes to a new file in the same
 *   folder, flushed to disk and renamed over the name, so a reader sees
 *   the old file or the whole new one, never half of it (a file that
 *   was there keeps its permission bits, and its owner where the
 *   writer may give it);
 * - a symbolic link: followed, and these rules apply to what it points
 *   to; the link stays. Not a link someone else owns in a sticky folder
 *   anyone may write to, like /tmp (EACCES, as fs.protected_symlinks=1
 *   says, whatever the machine's setting);
 * - a FIFO, a character or block device: written into, never replaced
 *   (the data is what the user sent there);
 * - a descriptor of this process (/dev/stdout, /dev/stderr, /dev/fd/N,
 *   /proc/self/fd/N): written through it, whatever it is, as the tool
 *   writes its own output there ("--json /dev/stdout > out" keeps both);
 *   EBADF if it is not open for writing;
 * - a folder: EISDIR; a socket: ENXIO (as open(2) says).
 *
 * Every write, the flush and the close are checked: the first error is
 * what the caller gets (ENOSPC on a full disk or /dev/full).
 */
#ifndef TESTFS_OUTFILE_H
#define TESTFS_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
	/* Where to write the data. */
	FILE *f;
	/* The file it ends up in (links followed). */
	char path[PATH_MAX];
	/* The temporary file renamed to @path; "" when writing directly. */
	char tmp[PATH_MAX];
	int fd;
	/* The first write error (negative errno), kept for outfile_close(). */
	int err;
};

/*
 * Opens @path for writing as above. A FIFO blocks until a reader opens
 * it, as for any writer.
 *
 * Returns 0 or a negative errno (EISDIR, ELOOP, ENAMETOOLONG, EBADF, what
 * open or lstat said); nothing is left behind on failure.
 */
int outfile_open(struct outfile *o, const char *path);

/*
 * Finishes the file opened by outfile_open(): flush, fsync and rename
 * for a regular file, flush for a special one; always closes.
 *
 * Returns 0 or the first negative errno of any write, the flush, the
 * close or the rename (the temporary file is then removed and @path is
 * left as it was).
 */
int outfile_close(struct outfile *o);

/* Gives up on the file: closes it and removes the temporary file. */
void outfile_abort(struct outfile *o);

/* outfile_open(), @len bytes of @data, outfile_close(). */
int outfile_write(const char *path, const void *data, size_t len);

/*
 * Whether @path could be written as outfile_open() would, without
 * opening or creating it (a FIFO is not opened, a file not truncated):
 * its folder exists and may be written to, it is not a folder, a
 * special file may be written to.
 *
 * Returns 0 or a negative errno.
 */
int outfile_check(const char *path);

#endif
