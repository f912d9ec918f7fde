/* SPDX-License-Identifier: MIT */
/*
 * The FUSE front end: the lowlevel request handlers of one mount, whose
 * userdata is its struct testfs.
 */
#ifndef TESTFS_FS_OPS_H
#define TESTFS_FS_OPS_H

#include <linux/fuse.h>

#include "rules.h"
#include "testfs_core.h"

extern const struct fuse_lowlevel_ops testfs_ops;

/*
 * A request as it was taken off the device or a ring entry, before it is
 * processed: it is registered with the log's reorder stage
 * (log/log_order.h) under its FUSE unique, and a data read gets its
 * ticket, arrival time and rule verdict here, so the log and the rules
 * see the reads in the kernel's order whatever thread takes them.
 */
struct fs_claim {
	bool taken; /* a data read */
	uint64_t unique;
	struct log_ticket *ticket; /* NULL: the handler reserves */
	uint64_t arrived;
	uint64_t ino;
	uint64_t off;
	uint32_t size;
	uint32_t pid;
	struct rule_verdict v;
};

/*
 * Registers the request of header @in and first argument @arg (@arglen
 * bytes) in @c. Every receiver calls it for every request it takes, right
 * after taking it.
 */
void fs_claim_take(struct testfs *t, const struct fuse_in_header *in,
		   const void *arg, size_t arglen, struct fs_claim *c);

/* @c is the request this thread processes next. */
void fs_claim_use(const struct fs_claim *c);

/* fs_claim_take() and fs_claim_use() of a request read into @buf. */
void fs_claim(struct testfs *t, const struct fuse_buf *buf);

/*
 * After the request was processed: a data read no handler took (a
 * request libfuse answered itself) is logged as failed (ECANCELED).
 */
void fs_claim_settle(struct testfs *t);

#endif
