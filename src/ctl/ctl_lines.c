// SPDX-License-Identifier: MIT
#include "ctl_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctl_lines_init(struct ctl_lines *l, size_t max)
{
	memset(l, 0, sizeof(*l));
	l->max = max ? max : 1;
}

void ctl_lines_free(struct ctl_lines *l)
{
	strbuf_free(&l->pending);
}

/*
 * Refuses the write @buf: the pending line goes, and the line the write
 * ends in is dropped up to its newline unless the write ended it.
 */
static int refuse(struct ctl_lines *l, const char *buf, size_t len, int err)
{
	strbuf_reset(&l->pending);
	l->pending.oom = false;
	l->dropping = buf[len - 1] != '\n';
	return err;
}

/* Whether a line reaches l->max bytes without a newline within @buf. */
static bool too_long(const struct ctl_lines *l, const char *buf, size_t len)
{
	size_t line = l->pending.len;
	const char *p = buf, *end = buf + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)((nl ? nl : end) - p) >= l->max - line)
			return true;
		if (!nl)
			break;
		p = nl + 1;
		line = 0;
	}
	return false;
}

int ctl_lines_write(struct ctl_lines *l, const char *buf, size_t len,
		    char **out, char *why, size_t whylen)
{
	const char *nl;
	size_t upto;

	*out = NULL;
	if (!len)
		return 0;
	if (l->dropping) {
		snprintf(
			why, whylen,
			"the rest of a refused line, dropped up to its newline (nothing in this write ran)");
		return refuse(l, buf, len, -EINVAL);
	}
	if (memchr(buf, '\0', len)) {
		snprintf(
			why, whylen,
			"command contains a NUL byte (the rest of its line is dropped up to its newline)");
		return refuse(l, buf, len, -EINVAL);
	}
	if (too_long(l, buf, len)) {
		snprintf(
			why, whylen,
			"a line reached %zu bytes without a newline (it is dropped up to its newline)",
			l->max);
		return refuse(l, buf, len, -EINVAL);
	}
	strbuf_add(&l->pending, buf, len);
	if (l->pending.oom) {
		snprintf(why, whylen, "out of memory");
		return refuse(l, buf, len, -ENOMEM);
	}
	nl = memrchr(l->pending.data, '\n', l->pending.len);
	if (!nl)
		return 0;
	upto = (size_t)(nl - l->pending.data) + 1;
	*out = strndup(l->pending.data, upto);
	if (!*out) {
		snprintf(why, whylen, "out of memory");
		return refuse(l, buf, len, -ENOMEM);
	}
	memmove(l->pending.data, l->pending.data + upto, l->pending.len - upto);
	l->pending.len -= upto;
	l->pending.data[l->pending.len] = '\0';
	return 0;
}

int ctl_lines_close(struct ctl_lines *l, char **out, char *why, size_t whylen)
{
	*out = NULL;
	l->dropping = false;
	if (!l->pending.len)
		return 0;
	*out = strndup(l->pending.data, l->pending.len);
	strbuf_reset(&l->pending);
	if (!*out) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}
