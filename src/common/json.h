/* SPDX-License-Identifier: MIT */
/*
 * JSON output helpers. File names are arbitrary bytes; they are written as
 * JSON strings with every control character escaped (\n, \t, \r, \", \\,
 * else \u00XX), valid UTF-8 kept as is and each byte 0xXX of invalid UTF-8
 * written as \udcXX: a lone low surrogate, which no character is, so two
 * different names never give the same string (Python reads it back with
 * errors="surrogateescape"; the one JSON reader, src/json/, with
 * JSON_READ_BYTE_ESCAPES, too).
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
