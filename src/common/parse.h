/* SPDX-License-Identifier: MIT */
/*
 * Strict parsers for numbers given on the command line, in config files and
 * through .testfs/ctl. Each returns 0 or a negative errno and, on error,
 * points *why at a static sentence saying what was expected.
 */
#ifndef TESTFS_PARSE_H
#define TESTFS_PARSE_H

#include <stdint.h>

/* The largest file size testfs serves: 2^62 bytes (4 EiB). */
#define PARSE_SIZE_MAX (1ull << 62)

/*
 * A size in bytes: decimal digits with an optional binary suffix
 * K, M, G, T, P or E (also written KiB, MiB, ...). Rejects empty strings,
 * signs, garbage, zero when @allow_zero is false, and values above
 * PARSE_SIZE_MAX (-ERANGE).
 */
int parse_size(const char *s, int allow_zero, uint64_t *out, const char **why);

/* A plain decimal integer in [@min, @max]. */
int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
	       const char **why);

#endif
