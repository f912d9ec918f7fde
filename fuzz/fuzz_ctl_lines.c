// SPDX-License-Identifier: MIT
/*
 * The line assembler of .testfs/ctl (src/ctl/ctl_lines.c) under any
 * chunking of writes and closes. The input: byte 0 sets the line limit
 * (1 to 64, so inputs reach it), then events: a byte 0xff is a close(),
 * any other byte N is a write of the next N bytes (fewer at the end).
 *
 * Each answer is checked against a model that follows ctl_lines.h byte
 * by byte: a write is refused whole for a NUL byte, for a line reaching
 * the limit, or for touching a line a refused write touched; a line
 * comes out exactly when the write (or close) that ends it is taken, with
 * the bytes the stream gave it. So the tail of a refused line never comes
 * out, and nothing else is lost or made up.
 */
#include <errno.h>
#include <stdbool.h>

#include "ctl_lines.h"
#include "fuzz.h"

#define CLOSE_EVENT 0xff

/* The model: the line the stream is in. */
struct model {
	size_t limit;
	struct strbuf line; /* its bytes so far, if not poisoned */
	bool poisoned;	    /* a refused write touched it */
};

/* Whether the model refuses the write @b (@n > 0 bytes). */
static bool model_refuses(const struct model *m, const uint8_t *b, size_t n)
{
	size_t i, pos = m->line.len;

	if (m->poisoned)
		return true;
	for (i = 0; i < n; i++) {
		if (b[i] == '\0')
			return true;
		if (b[i] == '\n') {
			pos = 0;
			continue;
		}
		if (++pos >= m->limit)
			return true;
	}
	return false;
}

/* The model takes @b: the lines it ends go to @out. */
static void model_take(struct model *m, const uint8_t *b, size_t n,
		       struct strbuf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		strbuf_addc(&m->line, (char)b[i]);
		if (b[i] == '\n') {
			strbuf_add(out, m->line.data, m->line.len);
			strbuf_reset(&m->line);
		}
	}
}

static void check_lines(const char *text, size_t limit)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		FUZZ_CHECK(nl, "a line without its newline: '%s'", p);
		FUZZ_CHECK((size_t)(nl - p) < limit, "a line of %zu bytes",
			   (size_t)(nl - p));
		p = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf want = STRBUF_INIT;
	struct ctl_lines l;
	struct model m = { 0 };
	size_t i = 1, n;
	char why[160], *out;
	bool refused;
	int err;

	if (!size)
		return 0;
	m.limit = 1 + data[0] % 64;
	ctl_lines_init(&l, m.limit);
	while (i < size) {
		uint8_t ev = data[i++];

		strbuf_reset(&want);
		why[0] = '\0';
		if (ev == CLOSE_EVENT) {
			err = ctl_lines_close(&l, &out, why, sizeof(why));
			FUZZ_CHECK(err == 0, "close: %d", err);
			if (!m.poisoned && m.line.len)
				strbuf_add(&want, m.line.data, m.line.len);
			FUZZ_CHECK(!out == !want.len, "close gave %s, want %s",
				   out ? out : "nothing",
				   want.len ? want.data : "nothing");
			FUZZ_CHECK(!out || !strcmp(out, want.data),
				   "close gave '%s', want '%s'", out,
				   want.data);
			FUZZ_CHECK(!out || strlen(out) < m.limit,
				   "a line of %zu bytes", strlen(out));
			free(out);
			strbuf_reset(&m.line);
			m.poisoned = false;
			continue;
		}
		n = ev < size - i ? ev : size - i;
		err = ctl_lines_write(&l, (const char *)data + i, n, &out, why,
				      sizeof(why));
		refused = n && model_refuses(&m, data + i, n);
		if (refused) {
			FUZZ_CHECK(err == -EINVAL, "write refused with %d",
				   err);
			FUZZ_CHECK(why[0], "refused without a reason");
			FUZZ_CHECK(!out, "a refused write gave '%s'", out);
			strbuf_reset(&m.line);
			m.poisoned = data[i + n - 1] != '\n';
		} else {
			FUZZ_CHECK(err == 0,
				   "write taken by the model: %d (%s)", err,
				   why);
			model_take(&m, data + i, n, &want);
			FUZZ_CHECK(!out == !want.len, "write gave %s, want %s",
				   out ? out : "nothing",
				   want.len ? want.data : "nothing");
			if (out) {
				FUZZ_CHECK(!strcmp(out, want.data),
					   "write gave '%s', want '%s'", out,
					   want.data);
				check_lines(out, m.limit);
			}
			free(out);
		}
		i += n;
	}
	FUZZ_CHECK(!want.oom && !m.line.oom, "out of memory");
	ctl_lines_free(&l);
	strbuf_free(&m.line);
	strbuf_free(&want);
	return 0;
}
