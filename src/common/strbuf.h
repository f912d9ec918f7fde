/* SPDX-License-Identifier: MIT */
/*
 * A growable byte buffer for text built off the read path: control file
 * snapshots, JSON, error messages.
 */
#ifndef TESTFS_STRBUF_H
#define TESTFS_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct strbuf {
	char *data;
	size_t len;
	size_t cap;
	/* Set when an allocation failed; later appends are dropped. */
	bool oom;
};

#define STRBUF_INIT                                                            \
	{                                                                      \
		NULL, 0, 0, false                                              \
	}

void strbuf_free(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
int strbuf_reserve(struct strbuf *sb, size_t extra);
void strbuf_add_slow(struct strbuf *sb, const void *data, size_t len);
/* Inline while it fits: the read log's lines are many short pieces. */
static inline void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (sb->cap - sb->len > len && !sb->oom) {
		memcpy(sb->data + sb->len, data, len);
		sb->len += len;
		sb->data[sb->len] = '\0';
		return;
	}
	strbuf_add_slow(sb, data, len);
}
void strbuf_addc(struct strbuf *sb, char c);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/*
 * @v in decimal, as printf's %llu and %lld write it, without printf: the
 * read log's records are made of numbers, one line per read.
 */
void strbuf_add_u64(struct strbuf *sb, uint64_t v);
void strbuf_add_i64(struct strbuf *sb, int64_t v);
/* A string literal, its length known at compile time. */
#define strbuf_addlit(sb, lit) strbuf_add((sb), (lit), sizeof(lit) - 1)
/*
 * Appends what @fd holds from its offset to its end (read(2) until it
 * returns 0; EINTR retried). Returns 0, -ENOMEM, or the -errno of a read;
 * @sb keeps what came before the error.
 */
int strbuf_read_fd(struct strbuf *sb, int fd);
/* Hands the (NUL-terminated) contents to the caller and resets @sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

#endif
