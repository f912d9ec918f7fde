// SPDX-License-Identifier: MIT
/*
 * MOUNT/.testfs/config as the library needs it: file names for the log's
 * inode numbers (the "files" array) and the kernel tracer's state (the
 * "trace" object). A small JSON reader for the daemon's own output (it
 * escapes odd names; \u00XX stands for that raw byte).
 */
#include "lib_i.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JSON_MAX_DEPTH 64

/* ------------------------------------------------------------------ */
/* File names from .testfs/config                                      */
/* ------------------------------------------------------------------ */

struct json_in {
	const char *p;
	const char *end;
	int depth;
};

void lib_free_names(struct name_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int add_name(struct name_table *t, uint64_t ino, char *name)
{
	struct file_name *v;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;

		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].ino = ino;
	t->v[t->n].name = name;
	t->n++;
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	const struct file_name *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

const char *lib_name_of(const struct name_table *t, uint64_t ino)
{
	struct file_name key = { .ino = ino };
	const struct file_name *f;

	if (!t->n)
		return "";
	f = bsearch(&key, t->v, t->n, sizeof(*t->v), cmp_ino);
	return f ? f->name : "";
}

static void skip_ws(struct json_in *in)
{
	while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' ||
				   *in->p == '\n' || *in->p == '\r'))
		in->p++;
}

/* Consumes @c after optional white space. */
static bool take(struct json_in *in, char c)
{
	skip_ws(in);
	if (in->p < in->end && *in->p == c) {
		in->p++;
		return true;
	}
	return false;
}

static int parse_hex4(struct json_in *in, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (in->end - in->p < 4)
		return -EPROTO;
	for (i = 0; i < 4; i++) {
		char c = *in->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EPROTO;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
	}
	*o++ = (char)(0x80 | (cp & 0x3f));
	return o;
}

/*
 * The code point of the \u escape after "\u" at in->p, joining surrogate
 * pairs. Below 0x100 it is a raw byte: the daemon writes every control
 * character and every byte of invalid UTF-8 as \u00XX.
 */
static int parse_u_escape(struct json_in *in, unsigned *cp)
{
	unsigned lo;
	int err;

	err = parse_hex4(in, cp);
	if (err)
		return err;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return -EPROTO;
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (in->end - in->p < 2 || in->p[0] != '\\' || in->p[1] != 'u')
		return -EPROTO;
	in->p += 2;
	err = parse_hex4(in, &lo);
	if (err)
		return err;
	if (lo < 0xdc00 || lo > 0xdfff)
		return -EPROTO;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* Decodes one escape after the backslash at in->p - 1 into @o. */
static int parse_escape(struct json_in *in, char **o)
{
	unsigned cp;
	int err;

	if (in->p >= in->end)
		return -EPROTO;
	switch (*in->p++) {
	case '"':
		*(*o)++ = '"';
		return 0;
	case '\\':
		*(*o)++ = '\\';
		return 0;
	case '/':
		*(*o)++ = '/';
		return 0;
	case 'b':
		*(*o)++ = '\b';
		return 0;
	case 'f':
		*(*o)++ = '\f';
		return 0;
	case 'n':
		*(*o)++ = '\n';
		return 0;
	case 'r':
		*(*o)++ = '\r';
		return 0;
	case 't':
		*(*o)++ = '\t';
		return 0;
	case 'u':
		err = parse_u_escape(in, &cp);
		if (err)
			return err;
		/* A NUL cannot be part of a C string. */
		if (cp == 0)
			return -EPROTO;
		if (cp < 0x100)
			*(*o)++ = (char)cp;
		else
			*o = put_utf8(*o, cp);
		return 0;
	default:
		return -EPROTO;
	}
}

/* A string; decoded into malloc'd *@out, or skipped when @out is NULL. */
static int parse_string(struct json_in *in, char **out)
{
	const char *q;
	char *buf, *o;
	int err;

	if (!take(in, '"'))
		return -EPROTO;
	for (q = in->p; q < in->end && *q != '"'; q++)
		if (*q == '\\' && ++q == in->end)
			break;
	if (q >= in->end)
		return -EPROTO;
	if (!out) {
		in->p = q + 1;
		return 0;
	}
	/* Escapes only shrink: \uXXXX (6) is at most 3 bytes of UTF-8,
	 * a surrogate pair (12) is 4. */
	buf = malloc((size_t)(q - in->p) + 1);
	if (!buf)
		return -ENOMEM;
	o = buf;
	while (in->p < q) {
		if (*in->p == '\0') {
			err = -EPROTO;
			goto free_buf;
		}
		if (*in->p != '\\') {
			*o++ = *in->p++;
			continue;
		}
		in->p++;
		err = parse_escape(in, &o);
		if (err)
			goto free_buf;
	}
	if (in->p != q) {
		err = -EPROTO;
		goto free_buf;
	}
	in->p++;
	*o = '\0';
	*out = buf;
	return 0;

free_buf:
	free(buf);
	return err;
}

static int parse_u64(struct json_in *in, uint64_t *out)
{
	uint64_t v = 0;
	unsigned d;

	skip_ws(in);
	if (in->p >= in->end || *in->p < '0' || *in->p > '9')
		return -EPROTO;
	while (in->p < in->end && *in->p >= '0' && *in->p <= '9') {
		d = (unsigned)(*in->p++ - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EPROTO;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int skip_value(struct json_in *in);

/* The members of an object or the elements of an array, opener taken. */
static int skip_members(struct json_in *in, char close, bool keys)
{
	int err;

	if (take(in, close))
		return 0;
	do {
		if (keys) {
			err = parse_string(in, NULL);
			if (err)
				return err;
			if (!take(in, ':'))
				return -EPROTO;
		}
		err = skip_value(in);
		if (err)
			return err;
	} while (take(in, ','));
	return take(in, close) ? 0 : -EPROTO;
}

static int skip_value(struct json_in *in)
{
	const char *start;
	int err;

	skip_ws(in);
	if (in->p >= in->end)
		return -EPROTO;
	if (*in->p == '"')
		return parse_string(in, NULL);
	if (*in->p == '{' || *in->p == '[') {
		bool obj = *in->p++ == '{';

		if (++in->depth > JSON_MAX_DEPTH)
			return -EPROTO;
		err = skip_members(in, obj ? '}' : ']', obj);
		in->depth--;
		return err;
	}
	/* Numbers, true, false, null. */
	start = in->p;
	while (in->p < in->end && *in->p &&
	       strchr("+-.0123456789eEtrufalsn", *in->p))
		in->p++;
	return in->p > start ? 0 : -EPROTO;
}

/* One {"name":..,"ino":..,...} of "files"; one without both is skipped. */
static int parse_file(struct json_in *in, struct name_table *t)
{
	char *key = NULL, *name = NULL;
	bool have_ino = false;
	uint64_t ino = 0;
	int err;

	if (!take(in, '{'))
		return -EPROTO;
	if (take(in, '}'))
		return 0;
	do {
		err = parse_string(in, &key);
		if (err)
			goto free_name;
		if (!take(in, ':')) {
			err = -EPROTO;
		} else if (strcmp(key, "name") == 0) {
			free(name);
			name = NULL;
			err = parse_string(in, &name);
		} else if (strcmp(key, "ino") == 0) {
			err = parse_u64(in, &ino);
			have_ino = true;
		} else {
			err = skip_value(in);
		}
		free(key);
		if (err)
			goto free_name;
	} while (take(in, ','));
	if (!take(in, '}')) {
		err = -EPROTO;
		goto free_name;
	}
	if (!name || !have_ino)
		goto free_name;
	err = add_name(t, ino, name);
	if (err)
		goto free_name;
	return 0;

free_name:
	free(name);
	return err;
}

static int parse_files(struct json_in *in, struct name_table *t)
{
	int err;

	if (!take(in, '['))
		return -EPROTO;
	if (take(in, ']'))
		return 0;
	do {
		err = parse_file(in, t);
		if (err)
			return err;
	} while (take(in, ','));
	return take(in, ']') ? 0 : -EPROTO;
}

/* Consumes the literal @word. */
static bool take_word(struct json_in *in, const char *word)
{
	size_t len = strlen(word);

	skip_ws(in);
	if ((size_t)(in->end - in->p) < len || memcmp(in->p, word, len) != 0)
		return false;
	in->p += len;
	return true;
}

static int parse_bool(struct json_in *in, bool *out)
{
	if (take_word(in, "true"))
		*out = true;
	else if (take_word(in, "false"))
		*out = false;
	else
		return -EPROTO;
	return 0;
}

/*
 * {"on":true|false,"why":"...",...}: other members (the daemon's
 * details) are skipped. An object without "on" leaves tr->on at -1.
 */
static int parse_trace(struct json_in *in, struct trace_state *tr)
{
	char *key = NULL;
	bool on;
	int err = 0;

	if (!take(in, '{'))
		return -EPROTO;
	if (take(in, '}'))
		return 0;
	do {
		err = parse_string(in, &key);
		if (err)
			return err;
		if (!take(in, ':')) {
			err = -EPROTO;
		} else if (strcmp(key, "on") == 0) {
			err = parse_bool(in, &on);
			if (!err)
				tr->on = on;
		} else if (strcmp(key, "why") == 0 && !take_word(in, "null")) {
			free(tr->why);
			tr->why = NULL;
			err = parse_string(in, &tr->why);
		} else if (strcmp(key, "why") != 0) {
			err = skip_value(in);
		}
		free(key);
		if (err)
			return err;
	} while (take(in, ','));
	return take(in, '}') ? 0 : -EPROTO;
}

/*
 * The "files" array and the "trace" object of the config object; other
 * members are skipped.
 */
static int parse_config(const char *buf, size_t len, struct name_table *t,
			struct trace_state *tr)
{
	struct json_in in = { buf, buf + len, 0 };
	char *key;
	int err;

	if (!take(&in, '{'))
		return -EPROTO;
	if (take(&in, '}'))
		return 0;
	do {
		err = parse_string(&in, &key);
		if (err)
			return err;
		if (!take(&in, ':'))
			err = -EPROTO;
		else if (strcmp(key, "files") == 0)
			err = parse_files(&in, t);
		else if (strcmp(key, "trace") == 0)
			err = parse_trace(&in, tr);
		else
			err = skip_value(&in);
		free(key);
		if (err)
			return err;
	} while (take(&in, ','));
	if (!take(&in, '}'))
		return -EPROTO;
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_ino);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading the control files                                           */
/* ------------------------------------------------------------------ */

int lib_open_control(struct testfs *fs, const char *name)
{
	char path[PATH_MAX];
	int err, fd;

	err = testfs_path(fs, name, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Reads up to @len bytes: the count (short only at the end) or -errno. */
ssize_t lib_read_full(int fd, void *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;

	while (used < len) {
		n = read(fd, (char *)buf + used, len - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	return (ssize_t)used;
}

int lib_read_config(struct testfs *fs, struct name_table *t,
		    struct trace_state *tr)
{
	struct name_table names = { 0 };
	struct trace_state trace = { -1, NULL };
	size_t cap = 16384, used = 0;
	char *buf, *grown;
	ssize_t n;
	int fd, err;

	if (t)
		lib_free_names(t);
	if (tr) {
		tr->on = -1;
		tr->why = NULL;
	}
	fd = lib_open_control(fs, ".testfs/config");
	if (fd < 0)
		return fd;
	buf = malloc(cap);
	if (!buf) {
		err = -ENOMEM;
		goto close_fd;
	}
	for (;;) {
		n = lib_read_full(fd, buf + used, cap - used);
		if (n < 0) {
			err = (int)n;
			goto free_buf;
		}
		used += (size_t)n;
		if (used < cap)
			break;
		grown = realloc(buf, 2 * cap);
		if (!grown) {
			err = -ENOMEM;
			goto free_buf;
		}
		buf = grown;
		cap *= 2;
	}
	err = parse_config(buf, used, &names, &trace);
	if (err) {
		lib_free_names(&names);
		free(trace.why);
		goto free_buf;
	}
	if (t)
		*t = names;
	else
		lib_free_names(&names);
	if (tr)
		*tr = trace;
	else
		free(trace.why);
free_buf:
	free(buf);
close_fd:
	close(fd);
	return err;
}
