/* SPDX-License-Identifier: MIT */
/*
 * --backing DIR: real files served read-only, read with io_uring.
 *
 * The scan (before mounting) adds every regular file under DIR with the
 * size it has then, and every subdirectory. Symbolic links are never
 * followed, wherever they point, and are skipped like FIFOs, sockets and
 * devices: one warning line names what was skipped. Each file stays open
 * while served; O_DIRECT is used where the backing file system takes it,
 * so the backing page cache neither hides nor adds reads (tmpfs and ramfs
 * keep file data in the page cache, so there reads are buffered).
 *
 * The served size is the size at the scan. A backing file that shrinks
 * later reads as zeros past its new end; one that grows is served up to
 * its old size.
 */
#ifndef TESTFS_BACKING_H
#define TESTFS_BACKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fileset.h"

struct backing_scan {
	uint64_t files;
	uint64_t dirs;
	uint64_t direct; /* files opened with O_DIRECT */
	uint64_t skipped;
	/* Names skipped (special files, symbolic links, unreadable), for the
	 * warning line: "a/fifo (FIFO), lnk (symbolic link), ...". */
	char skipped_names[512];
};

/*
 * Adds the tree under @dir to @fs. Returns 0, -ENOENT / -ENOTDIR /
 * -EACCES... for a DIR that cannot be served (a sentence in @err), -EEXIST
 * for a name another file already has, or -ENOMEM.
 */
int backing_scan(struct fileset *fs, const char *dir, struct backing_scan *r,
		 char *err, size_t errlen);

/*
 * Reads up to @size bytes of backing file @n at @off (clamped to its
 * served size; zeros where the backing file is now shorter) through this
 * thread's io_uring. *data points into this thread's buffer, valid until
 * its next read. Returns the byte count or a negative errno.
 */
int64_t backing_read(struct node *n, uint64_t off, size_t size,
		     const char **data);

/* Reads so far: through io_uring, and with read(2) where no ring could be
 * set up; O_DIRECT refusals that turned a file buffered. */
struct backing_counters {
	uint64_t uring_reads;
	uint64_t sync_reads;
	uint64_t direct_fallbacks;
	bool registered; /* the buffers are registered with the ring */
};
void backing_counters(struct backing_counters *c);

#endif
