/* SPDX-License-Identifier: MIT */
/*
 * The lines of .testfs/ctl, assembled from the writes that carry them:
 * a command may arrive in pieces (dd bs=1, a long write the kernel split)
 * and one write may carry several. Only whole lines come out, and a write
 * is taken or refused whole:
 *  - a write with a NUL byte is refused;
 *  - a write in which a line reaches the limit without a newline is
 *    refused (comment lines too: the limit is on bytes, not on commands);
 *  - a refused write takes the line it ends in with it: what follows of
 *    that line, up to its newline, is dropped, and the writes that carry
 *    it are refused too. So the tail of a refused line never runs as a
 *    command of its own.
 */
#ifndef TESTFS_CTL_LINES_H
#define TESTFS_CTL_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

/* The limit of .testfs/ctl, as testfs-control(5) gives it. */
#define CTL_LINE_MAX 65536

struct ctl_lines {
	/* A line that reaches this many bytes without a newline is refused. */
	size_t max;
	/* The line being assembled (no newline yet). */
	struct strbuf pending;
	/* Inside a refused line: dropped up to its newline (or close). */
	bool dropping;
};

/* Starts with no line pending; @max is at least 1. */
void ctl_lines_init(struct ctl_lines *l, size_t max);
void ctl_lines_free(struct ctl_lines *l);

/*
 * Takes the @len bytes of one write. Returns 0 with *@out the lines it
 * completed (malloc'd, NUL-terminated, each with its newline; NULL when
 * it completed none), or a negative errno with the reason in @why and
 * nothing out: -EINVAL (a NUL byte, a line too long, the rest of a
 * refused line) or -ENOMEM. After a refusal the line pending is gone and,
 * unless the refused write ended with a newline, so is the rest of the
 * line it ended in.
 */
int ctl_lines_write(struct ctl_lines *l, const char *buf, size_t len,
		    char **out, char *why, size_t whylen);

/*
 * close() of ctl: the line pending without a newline (malloc'd *@out, or
 * NULL when there is none or it was being dropped), which ends it.
 * Returns 0 or -ENOMEM (with @why).
 */
int ctl_lines_close(struct ctl_lines *l, char **out, char *why, size_t whylen);

#endif
