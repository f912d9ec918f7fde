/* SPDX-License-Identifier: MIT */
/*
 * libtestfs's JSON reader (lib/json_in.c). Not installed. Every function
 * skips leading white space; those returning int give 0 or -EPROTO (bad
 * input) / -ENOMEM and leave the position undefined on error.
 */
#ifndef TESTFS_LIB_JSON_IN_H
#define TESTFS_LIB_JSON_IN_H

#include <stdbool.h>
#include <stdint.h>

struct json_in {
	const char *p;
	const char *end;
	int depth;
};

void lib_json_skip_ws(struct json_in *in);
/* Consumes @c if it comes next. */
bool lib_json_take(struct json_in *in, char c);
/* Consumes the literal @word ("null", ...) if it comes next. */
bool lib_json_take_word(struct json_in *in, const char *word);
/* A string, decoded into malloc'd *@out, or skipped when @out is NULL. */
int lib_json_string(struct json_in *in, char **out);
/* An unsigned integer. */
int lib_json_u64(struct json_in *in, uint64_t *out);
int lib_json_bool(struct json_in *in, bool *out);
/* Any value, nested up to 64 levels. */
int lib_json_skip(struct json_in *in);

#endif
