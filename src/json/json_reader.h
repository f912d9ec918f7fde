/* SPDX-License-Identifier: MIT */
/*
 * The one JSON reader of the tree (the writer is common/json.h): a cursor
 * over a text in memory, read value by value, with a member iterator for
 * objects and arrays. libtestfs reads .testfs/config with it,
 * testfs-report the saved log, testfs-matrix its results and
 * testfs-scenario the control files.
 *
 * Strings get every escape of RFC 8259 decoded, \u ones into UTF-8 with
 * surrogate pairs joined (a lone surrogate is an error, and so is \u0000,
 * which a C string cannot hold). With JSON_READ_BYTE_ESCAPES, a lone low
 * surrogate \udc80 to \udcff stands for the raw byte 0x80 to 0xff: the
 * daemon writes each byte of a name that is not valid UTF-8 so
 * (common/json.h, testfs-log(5)); \u00XX is always the character U+00XX.
 *
 * Limits: a text of at most JSON_READ_MAX_TEXT bytes, values nested at
 * most max_depth deep (JSON_READ_MAX_DEPTH unless the caller lowers it),
 * keys of at most JSON_READ_MAX_KEY - 1 bytes (a longer one is read, and
 * matches no name). Every function skips leading white space; those
 * returning int give 0, -EPROTO (not JSON, or past a limit; r->why says
 * what was wrong and json_read_offset() where), -ENOMEM or -EFBIG.
 *
 * The first error sticks: every later call returns it (or false, or
 * JSON_BAD) without moving, so a loop over members may ignore what each
 * read returns and ask json_read_error() once at the end:
 *
 *	json_read_object(r, &it);
 *	while (json_read_next(&it))
 *		if (json_key_is(&it, "ino"))
 *			json_read_u64(r, &ino);
 *		else
 *			json_read_skip(r);
 *	return json_read_error(r);
 */
#ifndef TESTFS_JSON_READER_H
#define TESTFS_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_READ_MAX_TEXT ((size_t)1 << 30)
#define JSON_READ_MAX_DEPTH 64
#define JSON_READ_MAX_KEY 64

/* \udc80-\udcff are raw bytes (the daemon's escape of invalid UTF-8). */
#define JSON_READ_BYTE_ESCAPES 1u

enum json_type {
	JSON_END, /* nothing but white space is left */
	JSON_BAD, /* no value can start here */
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_reader {
	const char *start;
	const char *p;
	const char *end;
	unsigned flags;
	int depth;
	int max_depth;
	/* Why the first error happened (a static string), or NULL. */
	const char *why;
	const char *why_at;
	/* The first error (0: none yet). */
	int err;
};

/* The members of an object or the elements of an array, one by one. */
struct json_iter {
	struct json_reader *r;
	char close;
	/* Members or elements read so far. */
	size_t n;
	/* The current member's key, decoded (objects only). */
	char key[JSON_READ_MAX_KEY];
	/* The key was longer than key[] holds: json_key_is() is false. */
	bool key_cut;
	bool closed;
};

/* Reads @len bytes of @text (no NUL needed). 0, or -EFBIG past the limit. */
int json_reader_init(struct json_reader *r, const char *text, size_t len,
		     unsigned flags);
/* The offset of the cursor, or of the first error, in the text. */
size_t json_read_offset(const struct json_reader *r);
/* The first error of @r (it sticks), or 0. */
int json_read_error(const struct json_reader *r);

/* The kind of the next value, without consuming it. */
enum json_type json_read_peek(struct json_reader *r);
/* 0 when only white space is left, else -EPROTO ("text after the value"). */
int json_read_end(struct json_reader *r);

/*
 * Opens the object (array) that comes next: then json_read_next() until
 * it returns 0, reading each value (json_read_skip() for the unwanted).
 */
int json_read_object(struct json_reader *r, struct json_iter *it);
int json_read_array(struct json_reader *r, struct json_iter *it);
/*
 * True: a member (its key in it->key) or element follows, its value is
 * next. False: the object or array is closed, or there was an error
 * (json_read_error()).
 */
bool json_read_next(struct json_iter *it);
/* The current member's key is @name. */
bool json_key_is(const struct json_iter *it, const char *name);

/* A string, decoded into malloc'd *@out, or only checked if @out is NULL. */
int json_read_string(struct json_reader *r, char **out);
/*
 * A string decoded into @buf of @size bytes, cut to fit and always
 * terminated (as snprintf); *@len (if not NULL) is its whole length.
 */
int json_read_string_into(struct json_reader *r, char *buf, size_t size,
			  size_t *len);
/* A number without sign, fraction or exponent that fits in 64 bits. */
int json_read_u64(struct json_reader *r, uint64_t *out);
/* An integer that fits in int64_t. */
int json_read_i64(struct json_reader *r, int64_t *out);
/* Any number. */
int json_read_double(struct json_reader *r, double *out);
int json_read_bool(struct json_reader *r, bool *out);
/* Consumes null if it comes next. */
bool json_read_null(struct json_reader *r);
/* Any value, checked whole. */
int json_read_skip(struct json_reader *r);

#endif
