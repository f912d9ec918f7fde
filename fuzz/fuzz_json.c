// SPDX-License-Identifier: MIT
/*
 * The one JSON reader (src/json/json_reader.c). The first byte picks the
 * flags (bit 0: JSON_READ_BYTE_ESCAPES), the rest is the text, read twice:
 * once value by value with the typed calls and the member iterator, once
 * with json_read_skip(). Both must agree on success and on where they
 * stop; a failure must say why; a decoded string has no NUL inside and
 * is the same whether cut to fit or allocated whole; the depth never
 * passes the limit and is back to 0 after a whole value.
 */
#include <errno.h>

#include "fuzz.h"

#include "json_reader.h"

static int max_depth_seen;

static void string(struct json_reader *r)
{
	const char *at = r->p;
	char cut[8], *whole = NULL;
	size_t len = 0;
	int err;

	err = json_read_string_into(r, cut, sizeof(cut), &len);
	if (err)
		return;
	FUZZ_CHECK(strlen(cut) == (len < sizeof(cut) ? len : sizeof(cut) - 1),
		   "cut string of %zu bytes", len);
	r->p = at;
	err = json_read_string(r, &whole);
	FUZZ_CHECK(err == 0 || err == -ENOMEM, "second decoding: %d", err);
	if (!err) {
		FUZZ_CHECK(strlen(whole) == len, "a NUL inside a string");
		FUZZ_CHECK(!strncmp(whole, cut, sizeof(cut) - 1),
			   "cut and whole differ");
	}
	free(whole);
}

static void value(struct json_reader *r)
{
	struct json_iter it;
	uint64_t u;
	int64_t i;
	double d;
	bool b;
	const char *at;

	if (r->depth > max_depth_seen)
		max_depth_seen = r->depth;
	switch (json_read_peek(r)) {
	case JSON_OBJECT:
		json_read_object(r, &it);
		while (json_read_next(&it)) {
			FUZZ_CHECK(it.key_cut ||
					   strlen(it.key) < sizeof(it.key),
				   "key");
			value(r);
		}
		break;
	case JSON_ARRAY:
		json_read_array(r, &it);
		while (json_read_next(&it))
			value(r);
		break;
	case JSON_STRING:
		string(r);
		break;
	case JSON_NUMBER:
		at = r->p;
		if (json_read_double(r, &d))
			break;
		/* Every integer reader stops where the number ends. */
		{
			const char *end = r->p;

			r->p = at;
			if (!json_read_i64(r, &i))
				FUZZ_CHECK(r->p == end, "i64 span");
			r->err = 0;
			r->why = NULL;
			r->p = at;
			if (!json_read_u64(r, &u))
				FUZZ_CHECK(r->p == end && *at != '-',
					   "u64 span");
			r->err = 0;
			r->why = NULL;
			r->p = end;
		}
		break;
	case JSON_BOOL:
		json_read_bool(r, &b);
		break;
	case JSON_NULL:
		if (!json_read_null(r))
			json_read_skip(r);
		break;
	default:
		json_read_skip(r);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_reader walk, skip;
	unsigned flags;
	const char *text;
	int a, b;

	if (size < 1)
		return 0;
	flags = data[0] & 1 ? JSON_READ_BYTE_ESCAPES : 0;
	text = (const char *)data + 1;
	size--;

	max_depth_seen = 0;
	FUZZ_CHECK(json_reader_init(&walk, text, size, flags) == 0, "init");
	value(&walk);
	a = json_read_error(&walk);
	if (!a)
		a = json_read_end(&walk);
	FUZZ_CHECK(max_depth_seen <= JSON_READ_MAX_DEPTH, "depth %d",
		   max_depth_seen);

	json_reader_init(&skip, text, size, flags);
	b = json_read_skip(&skip);
	if (!b)
		b = json_read_end(&skip);
	FUZZ_CHECK((a == 0) == (b == 0), "walk %d, skip %d", a, b);
	if (!a) {
		FUZZ_CHECK(walk.depth == 0 && skip.depth == 0, "depth left");
		FUZZ_CHECK(walk.p == skip.p, "stopped apart");
	} else {
		FUZZ_CHECK(a == -EPROTO || a == -ENOMEM, "error %d", a);
		FUZZ_CHECK(walk.why && *walk.why, "an error without a reason");
		FUZZ_CHECK(json_read_offset(&walk) <= size, "offset");
	}
	return 0;
}
