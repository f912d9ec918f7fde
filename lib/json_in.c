// SPDX-License-Identifier: MIT
/*
 * A small JSON reader for the daemon's own output (.testfs/config). File
 * names are bytes: the daemon writes each byte 0xXX of invalid UTF-8 as
 * a lone low surrogate \udcXX (src/common/json.h), read back here as
 * that byte; every other escape means its character. Only what the
 * config needs: objects, arrays, strings, unsigned numbers, true/false;
 * anything else is skipped whole.
 */
#include "json_in.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

void lib_json_skip_ws(struct json_in *in)
{
	while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' ||
				   *in->p == '\n' || *in->p == '\r'))
		in->p++;
}

/* Consumes @c after optional white space. */
bool lib_json_take(struct json_in *in, char c)
{
	lib_json_skip_ws(in);
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

/* A lone low surrogate U+DC80..U+DCFF: the raw byte 0x80..0xff. */
#define RAW_BYTE_LO 0xdc80u
#define RAW_BYTE_HI 0xdcffu

/*
 * The code point of the \u escape after "\u" at in->p, joining surrogate
 * pairs; a lone U+DC80..U+DCFF is left for the caller (a raw byte).
 */
static int parse_u_escape(struct json_in *in, unsigned *cp)
{
	unsigned lo;
	int err;

	err = parse_hex4(in, cp);
	if (err)
		return err;
	if (*cp >= RAW_BYTE_LO && *cp <= RAW_BYTE_HI)
		return 0;
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
		if (cp < 0x80)
			*(*o)++ = (char)cp;
		else if (cp >= RAW_BYTE_LO && cp <= RAW_BYTE_HI)
			*(*o)++ = (char)(cp & 0xff);
		else
			*o = put_utf8(*o, cp);
		return 0;
	default:
		return -EPROTO;
	}
}

/* A string; decoded into malloc'd *@out, or skipped when @out is NULL. */
int lib_json_string(struct json_in *in, char **out)
{
	const char *q;
	char *buf, *o;
	int err;

	if (!lib_json_take(in, '"'))
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

int lib_json_u64(struct json_in *in, uint64_t *out)
{
	uint64_t v = 0;
	unsigned d;

	lib_json_skip_ws(in);
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

/* The members of an object or the elements of an array, opener taken. */
static int skip_members(struct json_in *in, char close, bool keys)
{
	int err;

	if (lib_json_take(in, close))
		return 0;
	do {
		if (keys) {
			err = lib_json_string(in, NULL);
			if (err)
				return err;
			if (!lib_json_take(in, ':'))
				return -EPROTO;
		}
		err = lib_json_skip(in);
		if (err)
			return err;
	} while (lib_json_take(in, ','));
	return lib_json_take(in, close) ? 0 : -EPROTO;
}

int lib_json_skip(struct json_in *in)
{
	const char *start;
	int err;

	lib_json_skip_ws(in);
	if (in->p >= in->end)
		return -EPROTO;
	if (*in->p == '"')
		return lib_json_string(in, NULL);
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

/* Consumes the literal @word. */
bool lib_json_take_word(struct json_in *in, const char *word)
{
	size_t len = strlen(word);

	lib_json_skip_ws(in);
	if ((size_t)(in->end - in->p) < len || memcmp(in->p, word, len) != 0)
		return false;
	in->p += len;
	return true;
}

int lib_json_bool(struct json_in *in, bool *out)
{
	if (lib_json_take_word(in, "true"))
		*out = true;
	else if (lib_json_take_word(in, "false"))
		*out = false;
	else
		return -EPROTO;
	return 0;
}
