// SPDX-License-Identifier: MIT
/*
 * The JSON reader (json_reader.h): a cursor over the text, no tree. The
 * grammar is RFC 8259's; what a caller does not want it skips whole, so
 * unknown members of newer daemons' output are checked, not trusted.
 */
#include "json_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct json_reader *r, const char *why)
{
	if (!r->err) {
		r->err = -EPROTO;
		r->why = why;
		r->why_at = r->p;
	}
	return r->err;
}

int json_read_error(const struct json_reader *r)
{
	return r->err;
}

int json_reader_init(struct json_reader *r, const char *text, size_t len,
		     unsigned flags)
{
	memset(r, 0, sizeof(*r));
	r->start = text;
	r->p = text;
	r->end = text + len;
	r->flags = flags;
	r->max_depth = JSON_READ_MAX_DEPTH;
	if (len > JSON_READ_MAX_TEXT) {
		r->err = -EFBIG;
		r->why = "text too large";
		r->why_at = text;
		r->end = text;
	}
	return r->err;
}

size_t json_read_offset(const struct json_reader *r)
{
	return (size_t)((r->why ? r->why_at : r->p) - r->start);
}

static void skip_ws(struct json_reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

/* Consumes @c after optional white space. */
static bool take(struct json_reader *r, char c)
{
	skip_ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

static bool take_word(struct json_reader *r, const char *word)
{
	size_t len = strlen(word);

	skip_ws(r);
	if ((size_t)(r->end - r->p) < len || memcmp(r->p, word, len) != 0)
		return false;
	r->p += len;
	return true;
}

enum json_type json_read_peek(struct json_reader *r)
{
	if (r->err)
		return JSON_BAD;
	skip_ws(r);
	if (r->p >= r->end)
		return JSON_END;
	switch (*r->p) {
	case '{':
		return JSON_OBJECT;
	case '[':
		return JSON_ARRAY;
	case '"':
		return JSON_STRING;
	case 't':
	case 'f':
		return JSON_BOOL;
	case 'n':
		return JSON_NULL;
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
			return JSON_NUMBER;
		return JSON_BAD;
	}
}

int json_read_end(struct json_reader *r)
{
	if (r->err)
		return r->err;
	skip_ws(r);
	return r->p == r->end ? 0 : fail(r, "text after the value");
}

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

static int hex4(struct json_reader *r, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (r->end - r->p < 4)
		return fail(r, "short \\u escape");
	for (i = 0; i < 4; i++) {
		char c = *r->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(r, "bad hex digit in a \\u escape");
	}
	*out = v;
	return 0;
}

/* The code point of a \u escape, "\u" taken; surrogate pairs joined. */
static int u_escape(struct json_reader *r, unsigned *cp)
{
	unsigned lo;
	int err;

	err = hex4(r, cp);
	if (err)
		return err;
	/* With JSON_READ_BYTE_ESCAPES, U+DC80..U+DCFF: left for escape(). */
	if (*cp >= 0xdc80 && *cp <= 0xdcff &&
	    (r->flags & JSON_READ_BYTE_ESCAPES))
		return 0;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(r, "a lone low surrogate");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
		return fail(r, "a high surrogate without its low half");
	r->p += 2;
	err = hex4(r, &lo);
	if (err)
		return err;
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(r, "a high surrogate without its low half");
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* Where decoded bytes go: up to size - 1 of them kept, all counted. */
struct sink {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct sink *s, char c)
{
	if (s->len + 1 < s->size)
		s->buf[s->len] = c;
	s->len++;
}

static void put_utf8(struct sink *s, unsigned cp)
{
	if (cp < 0x80) {
		put(s, (char)cp);
		return;
	}
	if (cp < 0x800) {
		put(s, (char)(0xc0 | cp >> 6));
	} else if (cp < 0x10000) {
		put(s, (char)(0xe0 | cp >> 12));
		put(s, (char)(0x80 | ((cp >> 6) & 0x3f)));
	} else {
		put(s, (char)(0xf0 | cp >> 18));
		put(s, (char)(0x80 | ((cp >> 12) & 0x3f)));
		put(s, (char)(0x80 | ((cp >> 6) & 0x3f)));
	}
	put(s, (char)(0x80 | (cp & 0x3f)));
}

/* One escape, the backslash taken. */
static int escape(struct json_reader *r, struct sink *s)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned cp;
	int err;

	if (r->p >= r->end)
		return fail(r, "unterminated string");
	if (*r->p == 'u') {
		r->p++;
		err = u_escape(r, &cp);
		if (err)
			return err;
		if (cp == 0)
			return fail(r, "\\u0000 in a string");
		if (cp >= 0xdc80 && cp <= 0xdcff)
			put(s, (char)(cp & 0xff));
		else
			put_utf8(s, cp);
		return 0;
	}
	hit = *r->p ? strchr(from, *r->p) : NULL;
	if (!hit)
		return fail(r, "bad escape in a string");
	r->p++;
	put(s, to[hit - from]);
	return 0;
}

/* Decodes the string that comes next into @s (terminated if it has room). */
static int decode(struct json_reader *r, struct sink *s)
{
	int err;

	if (r->err)
		return r->err;
	if (!take(r, '"'))
		return fail(r, "expected a string");
	for (;;) {
		if (r->p >= r->end)
			return fail(r, "unterminated string");
		if (*r->p == '"')
			break;
		if ((unsigned char)*r->p < 0x20)
			return fail(r, "a control character in a string");
		if (*r->p != '\\') {
			put(s, *r->p++);
			continue;
		}
		r->p++;
		err = escape(r, s);
		if (err)
			return err;
	}
	r->p++;
	if (s->size)
		s->buf[s->len < s->size ? s->len : s->size - 1] = '\0';
	return 0;
}

int json_read_string_into(struct json_reader *r, char *buf, size_t size,
			  size_t *len)
{
	struct sink s = { buf, size, 0 };
	int err = decode(r, &s);

	if (!err && len)
		*len = s.len;
	return err;
}

int json_read_string(struct json_reader *r, char **out)
{
	const char *q;
	struct sink s = { NULL, 0, 0 };
	int err;

	if (!out || r->err)
		return decode(r, &s);
	skip_ws(r);
	if (r->p >= r->end || *r->p != '"')
		return fail(r, "expected a string");
	/* Escapes only shrink: the raw span bounds the decoded length. */
	for (q = r->p + 1; q < r->end && *q != '"'; q++)
		if (*q == '\\' && ++q == r->end)
			break;
	s.size = (size_t)(q - r->p);
	s.buf = malloc(s.size);
	if (!s.buf)
		return r->err = -ENOMEM;
	err = decode(r, &s);
	if (err) {
		free(s.buf);
		return err;
	}
	*out = s.buf;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Numbers and words                                                   */
/* ------------------------------------------------------------------ */

static const char *digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/*
 * The number that comes next, as RFC 8259 spells it: its span in
 * [*@start, r->p), taken; *@integer when it has no fraction or exponent.
 */
static int number(struct json_reader *r, const char **start, bool *integer)
{
	const char *p, *q;

	if (r->err)
		return r->err;
	skip_ws(r);
	p = *start = r->p;
	if (p < r->end && *p == '-')
		p++;
	q = digits(p, r->end);
	if (q == p)
		return fail(r, "expected a number");
	if (*p == '0' && q - p > 1)
		return fail(r, "a number with a leading zero");
	*integer = true;
	if (q < r->end && *q == '.') {
		p = q + 1;
		q = digits(p, r->end);
		if (q == p)
			return fail(r, "a number without digits after '.'");
		*integer = false;
	}
	if (q < r->end && (*q == 'e' || *q == 'E')) {
		p = q + 1;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		q = digits(p, r->end);
		if (q == p)
			return fail(r, "a number without exponent digits");
		*integer = false;
	}
	r->p = q;
	return 0;
}

/*
 * The integer that comes next: its magnitude in *@v, at most @max_pos
 * for a positive one and @max_neg for a negative one (*@neg).
 */
static int integer(struct json_reader *r, uint64_t max_pos, uint64_t max_neg,
		   uint64_t *v, bool *neg)
{
	const char *s, *p;
	uint64_t max;
	bool whole;
	unsigned d;
	int err;

	err = number(r, &s, &whole);
	if (err)
		return err;
	*neg = *s == '-';
	max = *neg ? max_neg : max_pos;
	if (!whole || (*neg && !max_neg)) {
		r->p = s;
		return fail(r, max_neg ? "expected an integer"
				       : "expected an unsigned integer");
	}
	*v = 0;
	for (p = s + *neg; p < r->p; p++) {
		d = (unsigned)(*p - '0');
		if (*v > (max - d) / 10) {
			r->p = s;
			return fail(r, "a number out of range");
		}
		*v = *v * 10 + d;
	}
	return 0;
}

int json_read_u64(struct json_reader *r, uint64_t *out)
{
	uint64_t v;
	bool neg;
	int err;

	err = integer(r, UINT64_MAX, 0, &v, &neg);
	if (!err)
		*out = v;
	return err;
}

int json_read_i64(struct json_reader *r, int64_t *out)
{
	uint64_t v;
	bool neg;
	int err;

	err = integer(r, INT64_MAX, (uint64_t)INT64_MAX + 1, &v, &neg);
	if (!err)
		*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return err;
}

int json_read_double(struct json_reader *r, double *out)
{
	char buf[128], *text = buf;
	const char *s;
	bool whole;
	size_t n;
	int err;

	err = number(r, &s, &whole);
	if (err)
		return err;
	/* strtod() needs a terminated copy; a long number gets its own. */
	n = (size_t)(r->p - s);
	if (n >= sizeof(buf)) {
		text = malloc(n + 1);
		if (!text)
			return r->err = -ENOMEM;
	}
	memcpy(text, s, n);
	text[n] = '\0';
	*out = strtod(text, NULL);
	if (text != buf)
		free(text);
	return 0;
}

int json_read_bool(struct json_reader *r, bool *out)
{
	if (r->err)
		return r->err;
	if (take_word(r, "true"))
		*out = true;
	else if (take_word(r, "false"))
		*out = false;
	else
		return fail(r, "expected true or false");
	return 0;
}

bool json_read_null(struct json_reader *r)
{
	return !r->err && take_word(r, "null");
}

/* ------------------------------------------------------------------ */
/* Objects and arrays                                                  */
/* ------------------------------------------------------------------ */

static int open_container(struct json_reader *r, struct json_iter *it,
			  char open, char close)
{
	memset(it, 0, sizeof(*it));
	it->r = r;
	it->close = close;
	if (r->err)
		return r->err;
	skip_ws(r);
	if (r->p < r->end && *r->p == open && r->depth >= r->max_depth)
		return fail(r, "values nested too deep");
	if (!take(r, open))
		return fail(r, open == '{' ? "expected an object"
					   : "expected an array");
	r->depth++;
	return 0;
}

int json_read_object(struct json_reader *r, struct json_iter *it)
{
	return open_container(r, it, '{', '}');
}

int json_read_array(struct json_reader *r, struct json_iter *it)
{
	return open_container(r, it, '[', ']');
}

bool json_read_next(struct json_iter *it)
{
	struct json_reader *r = it->r;
	size_t len;

	if (r->err || it->closed)
		return false;
	if (it->n == 0 ? take(r, it->close) : !take(r, ',')) {
		if (it->n && !take(r, it->close)) {
			fail(r, it->close == '}' ? "expected ',' or '}'"
						 : "expected ',' or ']'");
			return false;
		}
		it->closed = true;
		r->depth--;
		return false;
	}
	it->n++;
	if (it->close == ']')
		return true;
	skip_ws(r);
	if (r->p >= r->end || *r->p != '"') {
		fail(r, "expected a quoted key");
		return false;
	}
	if (json_read_string_into(r, it->key, sizeof(it->key), &len))
		return false;
	it->key_cut = len >= sizeof(it->key);
	if (!take(r, ':')) {
		fail(r, "expected ':' after a key");
		return false;
	}
	return true;
}

bool json_key_is(const struct json_iter *it, const char *name)
{
	return !it->key_cut && strcmp(it->key, name) == 0;
}

int json_read_skip(struct json_reader *r)
{
	struct json_iter it;
	const char *s;
	bool b, integer;

	switch (json_read_peek(r)) {
	case JSON_OBJECT:
	case JSON_ARRAY:
		if (*r->p == '{')
			json_read_object(r, &it);
		else
			json_read_array(r, &it);
		while (json_read_next(&it))
			json_read_skip(r);
		return r->err;
	case JSON_STRING:
		return json_read_string(r, NULL);
	case JSON_NUMBER:
		return number(r, &s, &integer);
	case JSON_BOOL:
		return json_read_bool(r, &b);
	case JSON_NULL:
		return json_read_null(r) ? 0 : fail(r, "expected null");
	case JSON_END:
		return fail(r, "expected a value, found the end");
	default:
		return fail(r, "expected a value");
	}
}
