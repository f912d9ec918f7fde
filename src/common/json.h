/* SPDX-License-Identifier: MIT */
/*
 * JSON output helpers. File names are arbitrary bytes; they are written as
 * JSON strings with every control character escaped, valid UTF-8 kept as is
 * and each byte of invalid UTF-8 written as \u00XX (its Latin-1 reading), so
 * the output is always valid JSON.
 */
#ifndef TESTFS_JSON_H
#define TESTFS_JSON_H

#include <stddef.h>

#include "strbuf.h"

/* Appends @len bytes of @s as a quoted JSON string. */
void json_add_string(struct strbuf *sb, const char *s, size_t len);
/* Appends NUL-terminated @s as a quoted JSON string. */
void json_add_cstring(struct strbuf *sb, const char *s);

#endif
