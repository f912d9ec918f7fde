// SPDX-License-Identifier: MIT
/*
 * Reads a saved testfs log (the daemon's --log file or a copy of
 * MOUNT/.testfs/log): one flat JSON object per line, a read, a mark, an
 * access record or a "lost" notice. Keys this reader does not know are
 * skipped, so logs of newer daemons still load; a line that is not a
 * flat JSON object, lacks a key its kind needs, or holds a record that
 * cannot be (model.c's checks: no pages, pages past any file's end, an
 * access ending before it starts ...) is an error naming the file and
 * line.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

#define MAX_MEMBERS 48

enum jtype { J_NUM, J_NEG, J_STR, J_TRUE, J_FALSE, J_NULL };

struct member {
	/* "" for a key too long to be one this reader knows. */
	char key[JSON_READ_MAX_KEY];
	enum jtype type;
	uint64_t num;
	/* Strings: decoded into the object's text. */
	char *str;
};

struct object {
	struct member m[MAX_MEMBERS];
	size_t n;
	/* The decoded strings of one line: escapes only shrink. */
	char *text;
	size_t cap;
};

static bool blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return *p == '\0';
}

/* One member's value into @m; NULL or what was wrong with it. */
static const char *parse_value(struct json_reader *in, struct object *obj,
			       size_t *used, struct member *m)
{
	size_t len;
	int64_t neg;
	bool b;

	m->str = NULL;
	m->num = 0;
	switch (json_read_peek(in)) {
	case JSON_STRING:
		m->type = J_STR;
		m->str = obj->text + *used;
		if (!json_read_string_into(in, m->str, obj->cap - *used, &len))
			*used += len + 1;
		return NULL;
	case JSON_NUMBER:
		m->type = *in->p == '-' ? J_NEG : J_NUM;
		if (m->type == J_NEG ? json_read_i64(in, &neg)
				     : json_read_u64(in, &m->num))
			return "bad number";
		return NULL;
	case JSON_BOOL:
		if (!json_read_bool(in, &b))
			m->type = b ? J_TRUE : J_FALSE;
		return NULL;
	case JSON_NULL:
		m->type = J_NULL;
		if (!json_read_null(in))
			json_read_skip(in);
		return NULL;
	case JSON_OBJECT:
	case JSON_ARRAY:
		return "bad value (nested objects and arrays are not log "
		       "records)";
	default:
		json_read_skip(in);
		return NULL;
	}
}

/* Parses one line of @len bytes into @obj; returns NULL or what was wrong. */
static const char *parse_object(const char *line, size_t len,
				struct object *obj)
{
	struct json_reader in;
	struct json_iter it;
	const char *bad;
	size_t used = 0;
	char *text;

	obj->n = 0;
	if (obj->cap < len + 1) {
		text = realloc(obj->text, len + 1);
		if (!text)
			return "out of memory";
		obj->text = text;
		obj->cap = len + 1;
	}
	if (json_reader_init(&in, line, len, JSON_READ_BYTE_ESCAPES))
		return in.why;
	if (json_read_peek(&in) != JSON_OBJECT)
		return "not a JSON object (expected '{')";
	json_read_object(&in, &it);
	while (json_read_next(&it)) {
		if (obj->n == MAX_MEMBERS)
			return "too many members";
		snprintf(obj->m[obj->n].key, sizeof(obj->m[obj->n].key), "%s",
			 it.key_cut ? "" : it.key);
		bad = parse_value(&in, obj, &used, &obj->m[obj->n]);
		if (bad)
			return bad;
		if (json_read_error(&in))
			break;
		obj->n++;
	}
	if (json_read_error(&in))
		return in.why;
	if (it.n == 0)
		return "empty object";
	return json_read_end(&in) ? "text after the object" : NULL;
}

static const struct member *find(const struct object *o, const char *key)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->m[i].key, key) == 0)
			return &o->m[i];
	return NULL;
}

struct loader {
	struct htmlrep *r;
	const struct object *o;
	/* What is wrong with the record; "" while nothing is. */
	char why[256];
};

static void refuse(struct loader *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keeps the first reason a record is refused. */
static void refuse(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	if (l->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
}

static const char *type_name(enum jtype t)
{
	switch (t) {
	case J_NUM:
		return "a number";
	case J_NEG:
		return "negative";
	case J_STR:
		return "a string";
	case J_TRUE:
	case J_FALSE:
		return "a boolean";
	case J_NULL:
		break;
	}
	return "null";
}

/*
 * An unsigned number of at most @max under @key: required (absent is
 * an error) unless @dflt is given, which absent and, for pages, null
 * stand for.
 */
static uint64_t get_u(struct loader *l, const char *key, uint64_t max,
		      bool required, bool null_ok, uint64_t dflt)
{
	const struct member *m = find(l->o, key);

	if (!m || (null_ok && m->type == J_NULL)) {
		if (!m && required)
			refuse(l,
			       "a record without its \"%s\" (an unsigned "
			       "number)",
			       key);
		return dflt;
	}
	if (m->type != J_NUM)
		refuse(l, "\"%s\" is %s, not an unsigned number", key,
		       type_name(m->type));
	else if (m->num > max)
		refuse(l, "\"%s\" %" PRIu64 " is more than %" PRIu64, key,
		       m->num, max);
	else
		return m->num;
	return dflt;
}

static uint64_t need_u(struct loader *l, const char *key)
{
	return get_u(l, key, UINT64_MAX, true, false, 0);
}

/* An optional 32-bit count: absent is 0. */
static uint32_t opt_u32(struct loader *l, const char *key)
{
	return (uint32_t)get_u(l, key, UINT32_MAX, false, false, 0);
}

/* An optional page: absent or null is HTMLREP_NO_PAGE. */
static uint64_t opt_page(struct loader *l, const char *key)
{
	return get_u(l, key, UINT64_MAX, false, true, HTMLREP_NO_PAGE);
}

static const char *need_s(struct loader *l, const char *key)
{
	const struct member *m = find(l->o, key);

	if (!m)
		refuse(l, "a record without its \"%s\" (a string)", key);
	else if (m->type != J_STR)
		refuse(l, "\"%s\" is %s, not a string", key,
		       type_name(m->type));
	return m && m->type == J_STR ? m->str : "";
}

/* A true "key" (false, absent and null are false). */
static bool opt_true(const struct object *o, const char *key)
{
	const struct member *m = find(o, key);

	return m && m->type == J_TRUE;
}

/* What a read line and an access line share: seq, page, pages, t_ns. */
static void load_span(struct loader *l, uint64_t *seq, uint64_t *first,
		      uint64_t *pages, uint64_t *t_ns)
{
	*seq = need_u(l, "seq");
	*first = need_u(l, "page");
	*pages = need_u(l, "pages");
	*t_ns = need_u(l, "t_ns");
}

/* The index of @file in the model (added if new) in *@out, or -errno. */
static int file_index(struct loader *l, const char *file, size_t *out)
{
	long fi = htmlrep_file(l->r, file, 0);

	if (fi < 0)
		return (int)fi;
	*out = (size_t)fi;
	return 0;
}

static int load_read(struct loader *l, const char *file)
{
	const struct object *o = l->o;
	const struct member *m;
	struct htmlrep_range g;
	int err;

	memset(&g, 0, sizeof(g));
	load_span(l, &g.seq, &g.first, &g.pages, &g.t_ns);
	g.done_ns = need_u(l, "done_ns");
	g.delay_ns = get_u(l, "delay_ns", HTMLREP_TIME_LIMIT, false, false, 0);
	m = find(o, "err");
	if (m && m->type == J_NEG)
		g.err = -1;
	else
		g.err = (int32_t)get_u(l, "err", INT32_MAX, false, false, 0);
	m = find(o, "cause");
	snprintf(g.cause, sizeof(g.cause), "%s",
		 m && m->type == J_STR ? m->str : "unknown");
	if (opt_true(o, "direct"))
		snprintf(g.cause, sizeof(g.cause), "direct");
	g.window = opt_u32(l, "window");
	g.ra_start = opt_page(l, "ra_start");
	g.ra_size = opt_u32(l, "ra_size");
	g.ra_async = opt_u32(l, "ra_async");
	g.marker = opt_page(l, "ra_marker");
	g.trigger = opt_page(l, "trigger_page");
	g.late = opt_true(o, "late");
	g.ra_pages = opt_u32(l, "ra_pages");
	g.by_read = opt_true(o, "by_read");
	if (l->why[0])
		return -EPROTO;
	/* A read the daemon answered with an error need not name pages. */
	if (!g.pages && g.err)
		return 0;
	err = file_index(l, file, &g.file);
	if (!err && htmlrep_check_range(l->r, &g, l->why, sizeof(l->why)))
		err = -EPROTO;
	return err ? err : htmlrep_add_range(l->r, &g);
}

static int load_access(struct loader *l, const char *file, const char *type)
{
	struct htmlrep_access a;
	int err;

	memset(&a, 0, sizeof(a));
	load_span(l, &a.seq, &a.first, &a.pages, &a.t_ns);
	/* Without an end (one event), it ends where it starts. */
	a.end_ns = get_u(l, "end_ns", UINT64_MAX, false, false, a.t_ns);
	a.events = opt_u32(l, "events");
	a.late = opt_u32(l, "late");
	/* The three kinds the daemon writes (testfs-log(5)). */
	if (strcmp(type, "fault") && strcmp(type, "read") &&
	    strcmp(type, "map"))
		refuse(l, "\"access\" \"%.32s\" is not fault, read or map",
		       type);
	if (l->why[0])
		return -EPROTO;
	snprintf(a.type, sizeof(a.type), "%s", type);
	err = file_index(l, file, &a.file);
	if (!err && htmlrep_check_access(l->r, &a, l->why, sizeof(l->why)))
		err = -EPROTO;
	return err ? err : htmlrep_add_access(l->r, &a);
}

/* A loss line: its count, and its first and last seq agreeing with it. */
static int load_lost(struct loader *l)
{
	uint64_t n = need_u(l, "lost"), first, last;

	first = get_u(l, "first_seq", UINT64_MAX, false, false, 0);
	last = get_u(l, "last_seq", UINT64_MAX, false, false, 0);
	if (find(l->o, "first_seq") && find(l->o, "last_seq") &&
	    last - first + 1 != n)
		refuse(l,
		       "\"lost\" %" PRIu64 " but first_seq %" PRIu64
		       " to last_seq %" PRIu64 " are not that many",
		       n, first, last);
	if (n > UINT64_MAX - l->r->lost)
		refuse(l, "more records lost than a 64-bit count holds");
	if (l->why[0])
		return -EPROTO;
	l->r->lost += n;
	return 0;
}

/* One record into the model; -EPROTO with l->why set when it is not one. */
static int load_object(struct loader *l)
{
	const struct member *m;
	const char *file;
	uint64_t seq, t_ns;

	if (find(l->o, "lost"))
		return load_lost(l);
	if ((m = find(l->o, "mark"))) {
		seq = need_u(l, "seq");
		t_ns = get_u(l, "t_ns", HTMLREP_TIME_LIMIT, true, false, 0);
		file = need_s(l, "mark");
		return l->why[0] ? -EPROTO
				 : htmlrep_add_mark(l->r, seq, t_ns, file);
	}
	/* Folios entering the page cache: not drawn on the timeline. */
	if (find(l->o, "folios"))
		return 0;
	if ((m = find(l->o, "access"))) {
		const char *type = need_s(l, "access");

		file = need_s(l, "file");
		return l->why[0] ? -EPROTO : load_access(l, file, type);
	}
	if (find(l->o, "file")) {
		file = need_s(l, "file");
		return l->why[0] ? -EPROTO : load_read(l, file);
	}
	refuse(l, "not a testfs log record (no \"file\", \"mark\", "
		  "\"access\" or \"lost\" key)");
	return -EPROTO;
}

static int fail(char *why, size_t whylen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t whylen, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/*
 * The longest line read: a read record is some 500 bytes plus its file
 * name, at most PATH_MAX bytes written as \u escapes of 6 bytes each.
 */
#define MAX_LINE (1u << 20)

int htmlrep_read_jsonl(struct htmlrep *r, FILE *f, const char *name, char *why,
		       size_t whylen)
{
	struct object *obj;
	struct loader l;
	char *line = NULL;
	size_t cap = 0, lineno = 0, records = 0;
	const char *bad;
	ssize_t len;
	int err = 0;

	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return fail(why, whylen, -ENOMEM, "%s: out of memory", name);
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if ((size_t)len > MAX_LINE) {
			err = fail(why, whylen, -EPROTO,
				   "%s:%zu: a line of %zd bytes: not a testfs "
				   "log (its lines are under %u)",
				   name, lineno, len, MAX_LINE);
			break;
		}
		if ((size_t)len != strlen(line)) {
			err = fail(why, whylen, -EPROTO,
				   "%s:%zu: a NUL byte: not a JSON Lines log",
				   name, lineno);
			break;
		}
		if (blank(line))
			continue;
		bad = parse_object(line, (size_t)len, obj);
		if (bad) {
			err = fail(why, whylen, -EPROTO, "%s:%zu: %s", name,
				   lineno, bad);
			break;
		}
		l.r = r;
		l.o = obj;
		l.why[0] = '\0';
		err = load_object(&l);
		if (err == -EPROTO) {
			err = fail(why, whylen, err, "%s:%zu: %s", name, lineno,
				   l.why);
			break;
		}
		if (err) {
			err = fail(why, whylen, err, "%s:%zu: %s", name, lineno,
				   strerror(-err));
			break;
		}
		records++;
	}
	if (!err && ferror(f))
		err = fail(why, whylen, -EIO, "%s: read error", name);
	if (!err && records == 0)
		err = fail(
			why, whylen, -ENODATA,
			"%s: no log record in it (an empty log: was anything "
			"read from the mount before it was saved?)",
			name);
	free(line);
	free(obj->text);
	free(obj);
	return err;
}

int htmlrep_load_jsonl(struct htmlrep *r, const char *path, char *why,
		       size_t whylen)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return fail(why, whylen, -errno, "%s: %s", path,
			    strerror(errno));
	err = htmlrep_read_jsonl(r, f, path, why, whylen);
	fclose(f);
	return err;
}
