// SPDX-License-Identifier: MIT
#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void strbuf_free(struct strbuf *sb)
{
	free(sb->data);
	sb->data = NULL;
	sb->len = sb->cap = 0;
	sb->oom = false;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->data)
		sb->data[0] = '\0';
}

int strbuf_reserve(struct strbuf *sb, size_t extra)
{
	size_t need, cap;
	char *p;

	if (sb->oom)
		return -ENOMEM;
	if (extra > ((size_t)-1) / 2 - sb->len)
		goto out_oom;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(sb->data, cap);
	if (!p)
		goto out_oom;
	sb->data = p;
	sb->cap = cap;
	return 0;
out_oom:
	sb->oom = true;
	return -ENOMEM;
}

void strbuf_add_slow(struct strbuf *sb, const void *data, size_t len)
{
	if (strbuf_reserve(sb, len))
		return;
	memcpy(sb->data + sb->len, data, len);
	sb->len += len;
	sb->data[sb->len] = '\0';
}

void strbuf_addc(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

/*
 * Formats once into the room the buffer has; only text longer than that
 * is formatted a second time, after the buffer grew.
 */
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	size_t room = sb->cap > sb->len ? sb->cap - sb->len : 0;
	va_list copy;
	int n;

	if (sb->oom)
		return;
	va_copy(copy, ap);
	n = vsnprintf(room ? sb->data + sb->len : NULL, room, fmt, copy);
	va_end(copy);
	if (n < 0) {
		if (room)
			sb->data[sb->len] = '\0';
		return;
	}
	if ((size_t)n < room) {
		sb->len += (size_t)n;
		return;
	}
	if (strbuf_reserve(sb, (size_t)n)) {
		if (room)
			sb->data[sb->len] = '\0';
		return;
	}
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_add_u64(struct strbuf *sb, uint64_t v)
{
	char digits[20];
	size_t n = sizeof(digits);

	do {
		digits[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	strbuf_add(sb, digits + n, sizeof(digits) - n);
}

void strbuf_add_i64(struct strbuf *sb, int64_t v)
{
	if (v < 0) {
		strbuf_addc(sb, '-');
		strbuf_add_u64(sb, -(uint64_t)v);
		return;
	}
	strbuf_add_u64(sb, (uint64_t)v);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

int strbuf_read_fd(struct strbuf *sb, int fd)
{
	ssize_t n;

	for (;;) {
		if (strbuf_reserve(sb, 4096))
			return -ENOMEM;
		n = read(fd, sb->data + sb->len, sb->cap - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		sb->len += (size_t)n;
		sb->data[sb->len] = '\0';
		if (n == 0)
			return 0;
	}
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (!sb->data && !sb->oom)
		strbuf_reserve(sb, 0);
	p = sb->data;
	if (len)
		*len = sb->len;
	sb->data = NULL;
	sb->len = sb->cap = 0;
	return p;
}
