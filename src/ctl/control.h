/* SPDX-License-Identifier: MIT */
/*
 * MOUNT/.testfs/: the control directory. Readable files are rendered into
 * a snapshot when opened and served from it, so a reader sees one
 * consistent state however it reads; ctl takes commands on write.
 */
#ifndef TESTFS_CONTROL_H
#define TESTFS_CONTROL_H

#include "../fuse/testfs_i.h"

struct control_snapshot {
	char *data;
	size_t len;
};

/*
 * Renders the snapshot of control file @n for a reader. Returns 0 or a
 * negative errno (-ENOMEM).
 */
int control_snapshot(struct testfs *t, const struct node *n,
		     struct control_snapshot **out);
void control_snapshot_free(struct control_snapshot *snap);

/*
 * Executes the commands in @buf (one per line) and replies to @req: the
 * byte count when all succeeded, EINVAL (bad command) or another errno when
 * one failed, with the explanation in .testfs/error. Commands that need
 * the mount (drop-cache) run on a worker thread, which replies.
 */
void control_write(struct testfs *t, fuse_req_t req, const char *buf,
		   size_t len);

/* Records the explanation that .testfs/error shows. */
void control_set_error(struct testfs *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The binary log (.testfs/log.bin) starts with this header. */
struct control_log_header {
	char magic[8];	      /* "TFSLOG1\n" */
	uint32_t version;     /* 1 */
	uint32_t record_size; /* sizeof(struct log_record) */
	uint64_t count;	      /* records that follow */
	uint64_t lost;	      /* records since clear not in this snapshot */
	uint64_t first_seq;   /* first seq since the last clear */
	uint64_t next_seq;    /* seq the next record will get */
	uint32_t page_size;
	uint32_t reserved[3];
};

_Static_assert(sizeof(struct control_log_header) == 64, "64-byte header");

#endif
