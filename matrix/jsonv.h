/* SPDX-License-Identifier: MIT */
/*
 * A JSON tree for testfs-matrix, read with the one JSON reader
 * (src/json/), so the side-by-side table can pick fields out of each
 * kernel's result and a result can be checked to be whole JSON before
 * it is embedded.
 */
#ifndef TESTFS_MATRIX_JSONV_H
#define TESTFS_MATRIX_JSONV_H

#include <stdbool.h>
#include <stddef.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	bool b;
	double num;
	char *str;	  /* JV_STR */
	char **keys;	  /* JV_OBJ */
	struct jv **vals; /* JV_OBJ, JV_ARR */
	size_t n;
};

/* Parses @len bytes of @text. NULL if it is not one whole JSON value. */
struct jv *jv_parse(const char *text, size_t len);
void jv_free(struct jv *v);

/*
 * The value at @path, dot-separated object keys and array indexes
 * ("verdicts.policies.0.verdict"), or NULL.
 */
const struct jv *jv_get(const struct jv *v, const char *path);
/* The string at @path, or NULL when absent or not a string. */
const char *jv_str(const struct jv *v, const char *path);
/* The number at @path, or @def. */
double jv_num(const struct jv *v, const char *path, double def);
/* The value at @path is true (false when absent or not a boolean). */
bool jv_true(const struct jv *v, const char *path);
/* The string at @path equals @want. */
bool jv_str_is(const struct jv *v, const char *path, const char *want);

#endif
