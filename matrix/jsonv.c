// SPDX-License-Identifier: MIT
/*
 * The JSON reader (jsonv.h): recursive descent over the whole text, with
 * a depth limit so a hostile result cannot exhaust the stack.
 */
#include "jsonv.h"

#include <stdlib.h>
#include <string.h>

#define JV_DEPTH 64

struct jin {
	const char *p;
	const char *end;
};

static void ws(struct jin *in)
{
	while (in->p < in->end && strchr(" \t\r\n", *in->p))
		in->p++;
}

static bool take(struct jin *in, char c)
{
	ws(in);
	if (in->p < in->end && *in->p == c) {
		in->p++;
		return true;
	}
	return false;
}

static bool word(struct jin *in, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(in->end - in->p) < n || memcmp(in->p, w, n))
		return false;
	in->p += n;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* UTF-8 of code point @u into @o; returns the bytes written. */
static size_t utf8(unsigned u, char *o)
{
	if (u < 0x80) {
		o[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		o[0] = (char)(0xc0 | (u >> 6));
		o[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	o[0] = (char)(0xe0 | (u >> 12));
	o[1] = (char)(0x80 | ((u >> 6) & 0x3f));
	o[2] = (char)(0x80 | (u & 0x3f));
	return 3;
}

static char *parse_str(struct jin *in)
{
	const char *s;
	char *out, *o;

	if (!take(in, '"'))
		return NULL;
	s = in->p;
	out = malloc((size_t)(in->end - s) + 1);
	if (!out)
		return NULL;
	for (o = out; in->p < in->end && *in->p != '"'; in->p++) {
		unsigned u = 0;
		int i, h;

		if ((unsigned char)*in->p < 0x20)
			goto bad;
		if (*in->p != '\\') {
			*o++ = *in->p;
			continue;
		}
		if (++in->p == in->end)
			goto bad;
		switch (*in->p) {
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case '/':
		case '\\':
		case '"':
			*o++ = *in->p;
			break;
		case 'u':
			for (i = 0; i < 4; i++) {
				if (++in->p == in->end ||
				    (h = hexval(*in->p)) < 0)
					goto bad;
				u = u * 16 + (unsigned)h;
			}
			/* Surrogates are kept as they are: only shown. */
			o += utf8(u, o);
			break;
		default:
			goto bad;
		}
	}
	if (in->p == in->end)
		goto bad;
	in->p++;
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static struct jv *parse_val(struct jin *in, int depth);

static int push(struct jv *v, char *key, struct jv *val)
{
	struct jv **nv = realloc(v->vals, (v->n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	v->vals = nv;
	if (v->type == JV_OBJ) {
		char **nk = realloc(v->keys, (v->n + 1) * sizeof(*nk));

		if (!nk)
			return -1;
		v->keys = nk;
		v->keys[v->n] = key;
	}
	v->vals[v->n++] = val;
	return 0;
}

static struct jv *parse_container(struct jin *in, int depth, bool obj)
{
	struct jv *v = calloc(1, sizeof(*v));
	char close = obj ? '}' : ']';

	if (!v)
		return NULL;
	v->type = obj ? JV_OBJ : JV_ARR;
	if (take(in, close))
		return v;
	do {
		char *key = NULL;
		struct jv *val;

		if (obj) {
			ws(in);
			key = parse_str(in);
			if (!key || !take(in, ':')) {
				free(key);
				goto bad;
			}
		}
		val = parse_val(in, depth + 1);
		if (!val || push(v, key, val)) {
			free(key);
			jv_free(val);
			goto bad;
		}
	} while (take(in, ','));
	if (take(in, close))
		return v;
bad:
	jv_free(v);
	return NULL;
}

static struct jv *parse_val(struct jin *in, int depth)
{
	struct jv *v;
	char *endp;

	if (depth > JV_DEPTH)
		return NULL;
	ws(in);
	if (in->p == in->end)
		return NULL;
	if (*in->p == '{' || *in->p == '[') {
		bool obj = *in->p++ == '{';

		return parse_container(in, depth, obj);
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	if (*in->p == '"') {
		v->type = JV_STR;
		v->str = parse_str(in);
		if (!v->str)
			goto bad;
	} else if (word(in, "true") || word(in, "false")) {
		v->type = JV_BOOL;
		v->b = in->p[-1] == 'e' && in->p[-2] == 'u';
	} else if (word(in, "null")) {
		v->type = JV_NULL;
	} else {
		char buf[64];
		size_t n = 0;

		while (in->p + n < in->end && n < sizeof(buf) - 1 &&
		       strchr("+-0123456789.eE", in->p[n]))
			n++;
		if (!n)
			goto bad;
		memcpy(buf, in->p, n);
		buf[n] = '\0';
		v->type = JV_NUM;
		v->num = strtod(buf, &endp);
		if (*endp)
			goto bad;
		in->p += n;
	}
	return v;
bad:
	jv_free(v);
	return NULL;
}

struct jv *jv_parse(const char *text, size_t len)
{
	struct jin in = { text, text + len };
	struct jv *v = parse_val(&in, 0);

	ws(&in);
	if (v && in.p != in.end) {
		jv_free(v);
		return NULL;
	}
	return v;
}

void jv_free(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		jv_free(v->vals[i]);
	}
	free(v->keys);
	free(v->vals);
	free(v->str);
	free(v);
}

const struct jv *jv_get(const struct jv *v, const char *path)
{
	char key[128];
	size_t i, n;

	while (v && *path) {
		n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		path += n + (path[n] == '.');
		if (v->type == JV_OBJ) {
			for (i = 0; i < v->n; i++)
				if (strcmp(v->keys[i], key) == 0)
					break;
		} else if (v->type == JV_ARR) {
			char *e;

			i = strtoul(key, &e, 10);
			if (*e)
				return NULL;
		} else {
			return NULL;
		}
		v = i < v->n ? v->vals[i] : NULL;
	}
	return v;
}

const char *jv_str(const struct jv *v, const char *path)
{
	v = jv_get(v, path);
	return v && v->type == JV_STR ? v->str : NULL;
}

double jv_num(const struct jv *v, const char *path, double def)
{
	v = jv_get(v, path);
	return v && v->type == JV_NUM ? v->num : def;
}
