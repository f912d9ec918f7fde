// SPDX-License-Identifier: MIT
/*
 * The one JSON reader (src/json/): values, every string escape, the
 * member iterator, and each limit and class of bad input.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

static struct json_reader rd;

static struct json_reader *open_text(const char *text, unsigned flags)
{
	cr_assert_eq(json_reader_init(&rd, text, strlen(text), flags), 0);
	return &rd;
}

/* The one string value of @text, decoded (free it); NULL with *@err. */
static char *string_of(const char *text, unsigned flags, int *err)
{
	char *s = NULL;

	*err = json_read_string(open_text(text, flags), &s);
	if (!*err)
		*err = json_read_end(&rd);
	return *err ? NULL : s;
}

Test(json_reader, simple_escapes)
{
	int err;
	char *s = string_of("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"", 0, &err);

	cr_assert_eq(err, 0);
	cr_assert_str_eq(s, "a\"b\\c/d\be\ff\ng\rh\ti");
	free(s);
}

Test(json_reader, u_escapes_are_utf8)
{
	int err;
	char *s;

	/* U+00E9, U+20AC, U+1F600 (the pair D83D DE00). */
	s = string_of("\"\\u00e9 \\u20AC \\ud83d\\ude00 \\u0041\"", 0, &err);
	cr_assert_eq(err, 0);
	cr_assert_str_eq(s, "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 A");
	free(s);
}

Test(json_reader, byte_escapes_are_raw_bytes)
{
	int err;
	char *s;

	/*
	 * The daemon writes the byte 0xe9 of a Latin-1 name as \udce9; \u00e9
	 * is the character U+00E9 (two bytes of UTF-8).
	 */
	s = string_of("\"caf\\udce9\\u00e9\\u0001\\u20ac\"",
		      JSON_READ_BYTE_ESCAPES, &err);
	cr_assert_eq(err, 0);
	cr_assert_str_eq(s, "caf\xe9\xc3\xa9\x01\xe2\x82\xac");
	free(s);
	/* Without the flag a lone low surrogate is an error. */
	s = string_of("\"caf\\udce9\"", 0, &err);
	cr_assert_neq(err, 0);
	free(s);
}

Test(json_reader, bad_strings)
{
	static const char *const bad[] = {
		"\"abc",	      /* unterminated */
		"\"a\\\"",	      /* escaped quote, then the end */
		"\"\\x\"",	      /* unknown escape */
		"\"\\u12\"",	      /* short \u */
		"\"\\u12g4\"",	      /* not hex */
		"\"\\ud83d\"",	      /* high surrogate alone */
		"\"\\ud83d\\u0041\"", /* high surrogate, no low */
		"\"\\ude00\"",	      /* low surrogate alone */
		"\"\\u0000\"",	      /* NUL */
		"\"a\nb\"",	      /* raw control character */
		"abc",		      /* not a string */
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cr_assert_null(string_of(bad[i], 0, &err), "%s", bad[i]);
		cr_assert_eq(err, -EPROTO, "%s", bad[i]);
		cr_assert_not_null(rd.why, "%s", bad[i]);
	}
}

Test(json_reader, string_into_cuts_and_counts)
{
	char buf[4];
	size_t len;

	cr_assert_eq(json_read_string_into(open_text("\"abcdef\"", 0), buf,
					   sizeof(buf), &len),
		     0);
	cr_assert_str_eq(buf, "abc");
	cr_assert_eq(len, 6);
	cr_assert_eq(json_read_end(&rd), 0);
}

Test(json_reader, numbers)
{
	uint64_t u;
	int64_t i;
	double d;

	cr_assert_eq(json_read_u64(open_text("18446744073709551615", 0), &u),
		     0);
	cr_assert_eq(u, UINT64_MAX);
	cr_assert_eq(json_read_u64(open_text("18446744073709551616", 0), &u),
		     -EPROTO);
	cr_assert_eq(u, UINT64_MAX, "left alone on error");
	cr_assert_str_eq(rd.why, "a number out of range");
	cr_assert_eq(json_read_u64(open_text("-1", 0), &u), -EPROTO);
	cr_assert_eq(json_read_u64(open_text("1.5", 0), &u), -EPROTO);
	cr_assert_eq(json_read_u64(open_text("01", 0), &u), -EPROTO);
	cr_assert_eq(json_read_i64(open_text("-9223372036854775808", 0), &i),
		     0);
	cr_assert_eq(i, INT64_MIN);
	cr_assert_eq(json_read_i64(open_text("9223372036854775808", 0), &i),
		     -EPROTO);
	cr_assert_eq(json_read_double(open_text("-2.5e3", 0), &d), 0);
	cr_assert_float_eq(d, -2500.0, 1e-9);
	/* Found by fuzz/fuzz_json.c: a number longer than 127 digits. */
	{
		char big[302];

		memset(big, '9', 300);
		big[300] = '\0';
		cr_assert_eq(json_read_double(open_text(big, 0), &d), 0);
		cr_assert_float_eq(d, 1e300, 1e286);
	}
	cr_assert_eq(json_read_double(open_text("1.", 0), &d), -EPROTO);
	cr_assert_eq(json_read_double(open_text("1e", 0), &d), -EPROTO);
	cr_assert_eq(json_read_double(open_text("-", 0), &d), -EPROTO);
}

Test(json_reader, member_iterator)
{
	struct json_reader *r =
		open_text(" { \"a\" : 1 , \"n\\u0061me\": \"x\", \"skip\": "
			  "{\"deep\": [1, 2, {\"k\": null}]}, \"b\": true } ",
			  0);
	struct json_iter it;
	uint64_t a = 0;
	bool b = false;
	char *name = NULL;

	cr_assert_eq(json_read_object(r, &it), 0);
	while (json_read_next(&it)) {
		if (json_key_is(&it, "a"))
			cr_assert_eq(json_read_u64(r, &a), 0);
		else if (json_key_is(&it, "name"))
			cr_assert_eq(json_read_string(r, &name), 0);
		else if (json_key_is(&it, "b"))
			cr_assert_eq(json_read_bool(r, &b), 0);
		else
			cr_assert_eq(json_read_skip(r), 0);
	}
	cr_assert_null(r->why, "%s", r->why);
	cr_assert_eq(it.n, 4);
	cr_assert_eq(a, 1);
	cr_assert(b);
	cr_assert_str_eq(name, "x");
	cr_assert_eq(r->depth, 0);
	cr_assert_eq(json_read_end(r), 0);
	free(name);
}

Test(json_reader, array_iterator_and_empty_containers)
{
	struct json_reader *r = open_text("[[], {}, 3]", 0);
	struct json_iter it, in;
	uint64_t v;

	cr_assert_eq(json_read_array(r, &it), 0);
	cr_assert(json_read_next(&it));
	cr_assert_eq(json_read_array(r, &in), 0);
	cr_assert_not(json_read_next(&in));
	cr_assert(json_read_next(&it));
	cr_assert_eq(json_read_object(r, &in), 0);
	cr_assert_not(json_read_next(&in));
	cr_assert(json_read_next(&it));
	cr_assert_eq(json_read_u64(r, &v), 0);
	cr_assert_eq(v, 3);
	cr_assert_not(json_read_next(&it));
	cr_assert_eq(json_read_end(r), 0);
}

Test(json_reader, long_keys_match_nothing)
{
	char text[256];
	struct json_iter it;
	struct json_reader *r;

	snprintf(text, sizeof(text), "{\"%0*d\": 1}", JSON_READ_MAX_KEY + 8, 0);
	r = open_text(text, 0);
	cr_assert_eq(json_read_object(r, &it), 0);
	cr_assert(json_read_next(&it));
	cr_assert(it.key_cut);
	cr_assert_not(json_key_is(&it, it.key));
	cr_assert_eq(json_read_skip(r), 0);
	cr_assert_not(json_read_next(&it));
}

Test(json_reader, bad_documents_say_why)
{
	static const struct {
		const char *text;
		const char *why;
	} bad[] = {
		{ "{\"a\" 1}", "expected ':' after a key" },
		{ "{\"a\": 1 \"b\": 2}", "expected ',' or '}'" },
		{ "{1: 2}", "expected a quoted key" },
		{ "[1 2]", "expected ',' or ']'" },
		{ "[1,]", "expected a value" },
		{ "{\"a\": tru}", "expected true or false" },
		{ "{\"a\": nul}", "expected null" },
		{ "[", "expected a value, found the end" },
		{ "1 2", "text after the value" },
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		open_text(bad[i].text, 0);
		err = json_read_skip(&rd);
		if (!err)
			err = json_read_end(&rd);
		cr_assert_eq(err, -EPROTO, "%s", bad[i].text);
		cr_assert_str_eq(rd.why, bad[i].why, "%s", bad[i].text);
	}
}

Test(json_reader, depth_limit)
{
	char text[2 * JSON_READ_MAX_DEPTH + 8];
	size_t n = JSON_READ_MAX_DEPTH;

	/* 64 levels are read, 65 are not. */
	memset(text, '[', n);
	memset(text + n, ']', n);
	text[2 * n] = '\0';
	cr_assert_eq(json_read_skip(open_text(text, 0)), 0);
	memset(text, '[', n + 1);
	memset(text + n + 1, ']', n + 1);
	text[2 * n + 2] = '\0';
	cr_assert_eq(json_read_skip(open_text(text, 0)), -EPROTO);
	cr_assert_str_eq(rd.why, "values nested too deep");
	cr_assert_eq(json_read_offset(&rd), n);
}

Test(json_reader, size_limit)
{
	static const char text[] = "{}";

	cr_assert_eq(json_reader_init(&rd, text, JSON_READ_MAX_TEXT + 1, 0),
		     -EFBIG);
	cr_assert_eq(json_read_peek(&rd), JSON_BAD);
	cr_assert_eq(json_read_error(&rd), -EFBIG);
}

Test(json_reader, peek)
{
	cr_assert_eq(json_read_peek(open_text(" {", 0)), JSON_OBJECT);
	cr_assert_eq(json_read_peek(open_text("[", 0)), JSON_ARRAY);
	cr_assert_eq(json_read_peek(open_text("\"", 0)), JSON_STRING);
	cr_assert_eq(json_read_peek(open_text("-1", 0)), JSON_NUMBER);
	cr_assert_eq(json_read_peek(open_text("false", 0)), JSON_BOOL);
	cr_assert_eq(json_read_peek(open_text("null", 0)), JSON_NULL);
	cr_assert_eq(json_read_peek(open_text("  ", 0)), JSON_END);
	cr_assert_eq(json_read_peek(open_text("}", 0)), JSON_BAD);
}

Test(json_reader, the_first_error_sticks)
{
	struct json_reader *r = open_text("{\"a\": x, \"b\": 2}", 0);
	struct json_iter it;
	uint64_t v = 7;

	cr_assert_eq(json_read_object(r, &it), 0);
	cr_assert(json_read_next(&it));
	cr_assert_eq(json_read_u64(r, &v), -EPROTO);
	cr_assert_eq(json_read_offset(r), 6);
	/* Nothing moves after it: no more members, no value. */
	cr_assert_not(json_read_next(&it));
	cr_assert_eq(json_read_skip(r), -EPROTO);
	cr_assert_not(json_read_null(r));
	cr_assert_eq(json_read_peek(r), JSON_BAD);
	cr_assert_eq(json_read_error(r), -EPROTO);
	cr_assert_str_eq(r->why, "expected a number");
	cr_assert_eq(v, 7);
}
