// SPDX-License-Identifier: MIT
/*
 * Reads a saved testfs log (the daemon's --log file or a copy of
 * MOUNT/.testfs/log): one flat JSON object per line, a read, a mark, an
 * access record or a "lost" notice. Keys this reader does not know are
 * skipped, so logs of newer daemons still load; a line that is not a
 * flat JSON object, or lacks a key its kind needs, is an error naming
 * the file and line.
 */
#include "report.h"

#include <errno.h>
#include <stdarg.h>
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
	if (json_reader_init(&in, line, len, 0))
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
	const char *missing;
};

/* A required unsigned number; records the key if it is missing. */
static uint64_t need_u(struct loader *l, const char *key)
{
	const struct member *m = find(l->o, key);

	if (!m || m->type != J_NUM) {
		if (!l->missing)
			l->missing = key;
		return 0;
	}
	return m->num;
}

/* An optional page: absent or null is HTMLREP_NO_PAGE. */
static uint64_t opt_page(const struct object *o, const char *key)
{
	const struct member *m = find(o, key);

	return m && m->type == J_NUM ? m->num : HTMLREP_NO_PAGE;
}

static uint64_t opt_u(const struct object *o, const char *key)
{
	const struct member *m = find(o, key);

	return m && m->type == J_NUM ? m->num : 0;
}

static const char *need_s(struct loader *l, const char *key)
{
	const struct member *m = find(l->o, key);

	if (!m || m->type != J_STR) {
		if (!l->missing)
			l->missing = key;
		return "";
	}
	return m->str;
}

static int load_read(struct loader *l, const char *file)
{
	const struct object *o = l->o;
	const struct member *m;
	struct htmlrep_range g;
	long fi;

	memset(&g, 0, sizeof(g));
	g.seq = need_u(l, "seq");
	g.first = need_u(l, "page");
	g.pages = need_u(l, "pages");
	g.t_ns = need_u(l, "t_ns");
	g.done_ns = need_u(l, "done_ns");
	g.delay_ns = opt_u(o, "delay_ns");
	if (l->missing)
		return -EPROTO;
	m = find(o, "err");
	g.err = m && m->type == J_NUM ? (int32_t)m->num : 0;
	if (m && m->type == J_NEG)
		g.err = -1;
	m = find(o, "cause");
	snprintf(g.cause, sizeof(g.cause), "%s",
		 m && m->type == J_STR ? m->str : "unknown");
	m = find(o, "direct");
	if (m && m->type == J_TRUE)
		snprintf(g.cause, sizeof(g.cause), "direct");
	g.window = (uint32_t)opt_u(o, "window");
	g.ra_start = opt_page(o, "ra_start");
	g.ra_size = (uint32_t)opt_u(o, "ra_size");
	g.ra_async = (uint32_t)opt_u(o, "ra_async");
	g.marker = opt_page(o, "ra_marker");
	g.trigger = opt_page(o, "trigger_page");
	m = find(o, "late");
	g.late = m && m->type == J_TRUE;
	/* A read the daemon answered with an error has no pages. */
	if (!g.pages)
		return 0;
	fi = htmlrep_file(l->r, file, 0);
	if (fi < 0)
		return (int)fi;
	g.file = (size_t)fi;
	return htmlrep_add_range(l->r, &g);
}

static int load_access(struct loader *l, const char *file, const char *type)
{
	const struct object *o = l->o;
	struct htmlrep_access a;
	long fi;

	memset(&a, 0, sizeof(a));
	a.seq = need_u(l, "seq");
	a.first = need_u(l, "page");
	a.pages = need_u(l, "pages");
	a.t_ns = need_u(l, "t_ns");
	if (l->missing)
		return -EPROTO;
	a.end_ns = opt_u(o, "end_ns");
	if (a.end_ns < a.t_ns)
		a.end_ns = a.t_ns;
	a.events = (uint32_t)opt_u(o, "events");
	a.late = (uint32_t)opt_u(o, "late");
	snprintf(a.type, sizeof(a.type), "%s", type);
	if (!a.pages)
		return 0;
	fi = htmlrep_file(l->r, file, 0);
	if (fi < 0)
		return (int)fi;
	a.file = (size_t)fi;
	return htmlrep_add_access(l->r, &a);
}

/* One record into the model; -EPROTO with @what set when it is not one. */
static int load_object(struct loader *l, const char **what)
{
	const struct member *m;
	const char *file;
	int err;

	if (find(l->o, "lost")) {
		l->r->lost += need_u(l, "lost");
		err = l->missing ? -EPROTO : 0;
	} else if ((m = find(l->o, "mark"))) {
		uint64_t seq = need_u(l, "seq"), t_ns = need_u(l, "t_ns");

		if (m->type != J_STR && !l->missing)
			l->missing = "mark";
		err = l->missing ? -EPROTO
				 : htmlrep_add_mark(l->r, seq, t_ns, m->str);
	} else if ((m = find(l->o, "access"))) {
		file = need_s(l, "file");
		err = m->type == J_STR ? load_access(l, file, m->str) : -EPROTO;
		if (m->type != J_STR && !l->missing)
			l->missing = "access";
	} else if (find(l->o, "file")) {
		file = need_s(l, "file");
		err = l->missing ? -EPROTO : load_read(l, file);
	} else {
		*what = "not a testfs log record (no \"file\", \"mark\", "
			"\"access\" or \"lost\" key)";
		return -EPROTO;
	}
	if (err == -EPROTO && l->missing)
		*what = "a record without its";
	return err;
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

int htmlrep_load_jsonl(struct htmlrep *r, const char *path, char *why,
		       size_t whylen)
{
	struct object *obj;
	struct loader l;
	char *line = NULL;
	size_t cap = 0, lineno = 0, records = 0;
	const char *what, *bad;
	ssize_t len;
	FILE *f;
	int err = 0;

	f = fopen(path, "r");
	if (!f)
		return fail(why, whylen, -errno, "%s: %s", path,
			    strerror(errno));
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		fclose(f);
		return fail(why, whylen, -ENOMEM, "%s: out of memory", path);
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if ((size_t)len != strlen(line)) {
			err = fail(why, whylen, -EPROTO,
				   "%s:%zu: a NUL byte: not a JSON Lines log",
				   path, lineno);
			break;
		}
		if (blank(line))
			continue;
		bad = parse_object(line, (size_t)len, obj);
		if (bad) {
			err = fail(why, whylen, -EPROTO, "%s:%zu: %s", path,
				   lineno, bad);
			break;
		}
		l.r = r;
		l.o = obj;
		l.missing = NULL;
		what = NULL;
		err = load_object(&l, &what);
		if (err == -EPROTO) {
			err = fail(why, whylen, err, "%s:%zu: %s%s%s%s", path,
				   lineno, what ? what : "bad record",
				   l.missing ? " \"" : "",
				   l.missing ? l.missing : "",
				   l.missing ? "\" (an unsigned number or "
					       "string)"
					     : "");
			break;
		}
		if (err) {
			err = fail(why, whylen, err, "%s:%zu: %s", path, lineno,
				   strerror(-err));
			break;
		}
		records++;
	}
	if (!err && ferror(f))
		err = fail(why, whylen, -EIO, "%s: read error", path);
	if (!err && records == 0)
		err = fail(
			why, whylen, -ENODATA,
			"%s: no log record in it (an empty log: was anything "
			"read from the mount before it was saved?)",
			path);
	free(line);
	free(obj->text);
	free(obj);
	fclose(f);
	return err;
}
