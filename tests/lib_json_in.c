// SPDX-License-Identifier: MIT
/*
 * The JSON reader (src/json/, as libtestfs uses it) against the daemon's JSON
 * writer: any name (bytes 1..255) written by json_add_string() reads back byte
 * for byte; \u00XX is the character U+00XX, \udc80..\udcff the raw byte.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_reader.h"

static int decode(const char *json, char **out)
{
	struct json_reader r;

	json_reader_init(&r, json, strlen(json), JSON_READ_BYTE_ESCAPES);
	return json_read_string(&r, out);
}

static void expect_decoded(const char *json, const char *bytes)
{
	char *out = NULL;

	cr_assert_eq(decode(json, &out), 0, "%s refused", json);
	cr_expect_str_eq(out, bytes, "%s", json);
	free(out);
}

Test(json_in, latin1_escape_is_a_character)
{
	expect_decoded("\"\\u00ff\\u00fe\"", "\xc3\xbf\xc3\xbe");
	expect_decoded("\"\\u0001a\"", "\x01"
				       "a");
}

Test(json_in, lone_low_surrogate_is_a_raw_byte)
{
	expect_decoded("\"bad\\udcff\\udcfeutf8\"", "bad\xff\xfeutf8");
	expect_decoded("\"\\udc80\"", "\x80");
	/* A pair stays a character: U+1F480. */
	expect_decoded("\"\\ud83d\\udc80\"", "\xf0\x9f\x92\x80");
}

Test(json_in, other_lone_surrogates_are_refused)
{
	char *out = NULL;

	cr_expect_eq(decode("\"\\udc7f\"", &out), -EPROTO);
	cr_expect_eq(decode("\"\\udd00\"", &out), -EPROTO);
	cr_expect_eq(decode("\"\\ud800x\"", &out), -EPROTO);
	cr_expect_null(out);
}

/* Every byte string the writer takes comes back as it was. */
Test(json_in, writer_round_trip)
{
	unsigned seed = 12345;
	char name[64], *out;
	struct strbuf sb;
	size_t len, i;
	int round;

	for (round = 0; round < 20000; round++) {
		len = 1 + (size_t)(rand_r(&seed) % (sizeof(name) - 1));
		for (i = 0; i < len; i++) {
			/* Half the bytes high, where UTF-8 starts. */
			name[i] = (char)(rand_r(&seed) % 2
						 ? 0x80 + rand_r(&seed) % 128
						 : 1 + rand_r(&seed) % 255);
		}
		sb = (struct strbuf)STRBUF_INIT;
		json_add_string(&sb, name, len);
		cr_assert(!sb.oom);
		out = NULL;
		cr_assert_eq(decode(sb.data, &out), 0, "%s refused", sb.data);
		cr_assert_eq(strlen(out), len, "%s", sb.data);
		cr_assert_eq(memcmp(out, name, len), 0, "%s", sb.data);
		free(out);
		strbuf_free(&sb);
	}
}
