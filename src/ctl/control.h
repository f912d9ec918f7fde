/* SPDX-License-Identifier: MIT */
/*
 * MOUNT/.testfs/: the control directory. Readable files are rendered into
 * a snapshot when opened and served from it, so a reader sees one
 * consistent state however it reads; ctl takes commands on write.
 */
#ifndef TESTFS_CONTROL_H
#define TESTFS_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"
#include "testfs_core.h"
#include "ctl_lines.h"

/*
 * What a reader of a control file sees. Most files are rendered whole at
 * open. The JSON log is streamed instead: its range of records is fixed at
 * open ([next_pos, end_pos) of the ring) and rendered as the reader
 * advances, so a million records cost neither a second of rendering on the
 * request loop nor a copy of the whole log.
 */
struct control_snapshot {
	struct handle_link link;
	char *data;
	size_t len;
	bool stream;
	uint64_t start_pos;
	uint64_t next_pos;
	uint64_t end_pos;
	uint64_t base_off; /* file offset of data[0] */
	/* A streamed log's window: with --threads, two reads of one open
	 * file may be served at once, and each moves it. */
	pthread_mutex_t lock;
	struct strbuf buf;
};

/*
 * Renders the snapshot of control file @n for a reader. Returns 0 or a
 * negative errno (-ENOMEM).
 */
int control_snapshot(struct testfs *t, const struct node *n,
		     struct control_snapshot **out);
void control_snapshot_free(struct testfs *t, struct control_snapshot *snap);

/*
 * The bytes of @snap at [@off, @off + @size): *@data and *@len (0 at the
 * end). Sequential reads of a streamed log render only what they need; a
 * read before the current position starts the rendering over. The bytes
 * are copied into @copy (@size bytes): a streamed log's window moves on
 * once its lock is dropped, and any snapshot may be freed as soon as the
 * reply reaches the client.
 */
void control_snapshot_read(struct testfs *t, struct control_snapshot *snap,
			   uint64_t off, size_t size, char *copy,
			   const char **data, size_t *len);

/* The state of one open of .testfs/ctl: a line not yet complete. */
struct control_session {
	struct handle_link link;
	/* With --threads, a write and a flush of one session (a dup'ed fd
	 * closed meanwhile) may be served at once: each takes lines in
	 * turn, under the lock. */
	pthread_mutex_t lock;
	struct ctl_lines lines;
};

/* Opens ctl; also empties .testfs/error. */
struct control_session *control_session_new(struct testfs *t);
void control_session_free(struct testfs *t, struct control_session *s);

/*
 * Takes bytes written to ctl. Complete lines run as commands, in order;
 * an incomplete last line waits for the next write or for close(). A
 * write is refused whole (EINVAL) for a NUL byte, a line reaching
 * CTL_LINE_MAX bytes without a newline, or the rest of a line refused
 * before (ctl_lines.h): nothing of it runs. Replies
 * to @req: the byte count when every command succeeded, EINVAL (bad
 * command) or another errno when one failed, with the explanation in
 * .testfs/error. Commands that need the mount (drop-cache) run on a
 * worker thread, which replies.
 */
void control_write(struct testfs *t, fuse_req_t req, struct control_session *s,
		   const char *buf, size_t len);

/* close() of ctl: runs a pending incomplete line, replies to @req. */
void control_flush(struct testfs *t, fuse_req_t req, struct control_session *s);

/*
 * The usage of the @i-th command ctl takes ("drop-cache [NAME]"), NULL
 * past the last.
 */
const char *control_command_usage(size_t i);

/* Appends every command's usage to @sb: "A@sepB@last_sepC". */
void control_command_list(struct strbuf *sb, const char *sep,
			  const char *last_sep);

/* Records the explanation that .testfs/error shows. */
void control_set_error(struct testfs *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
