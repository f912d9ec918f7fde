/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/pattern.h
 *
 * The contents of testfs's synthetic files, computable anywhere.
 *
 * Every byte of a testfs file is a pure function of (pattern, file name,
 * offset), so a test can check any buffer it read without asking the daemon.
 *
 * - "stamp" (the default): each 4096-byte unit (TESTFS_STAMP_PAGE) starts
 *   with a 64-byte text header, "testfs page <index> file <name>" padded
 *   with spaces and ended by a newline (names longer than the header are
 *   cut there), followed by little-endian 64-bit words derived from
 *   (FNV-1a hash of the full name, offset). `head -c 64 FILE` shows which
 *   unit and file a buffer came from. The unit is 4096 bytes whatever the
 *   kernel's page size, so a file holds the same bytes on every kernel and
 *   any buffer verifies unit by unit: <index> is offset / 4096, the page
 *   number of a 4 KiB kernel; a 16 KiB page holds units 4 * page to
 *   4 * page + 3 (a 64 KiB page 16 units).
 * - "zero": all bytes are zero.
 * - "random[:SEED]": 64-bit words derived from (SEED, offset) only; the seed
 *   defaults to 0, and two files with the same seed hold the same bytes.
 *
 * These functions allocate nothing, never print, and are safe to call from
 * any thread.
 */
#ifndef TESTFS_PATTERN_H
#define TESTFS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Size of the unit the stamp pattern repeats its header in: 4096 bytes on
 * every kernel, a fraction of a page where pages are larger.
 */
#define TESTFS_STAMP_PAGE 4096u
/** Size of the text header at the start of each stamp unit. */
#define TESTFS_STAMP_HEADER 64u

enum testfs_pattern_kind {
	TESTFS_PATTERN_STAMP = 0,
	TESTFS_PATTERN_ZERO = 1,
	TESTFS_PATTERN_RANDOM = 2,
};

struct testfs_pattern {
	enum testfs_pattern_kind kind;
	/** Seed of the random pattern; ignored by the others. */
	uint64_t seed;
};

/**
 * Parses a pattern as written after a file's size: "stamp", "zero",
 * "random" or "random:SEED" (SEED a decimal 64-bit number).
 *
 * @return 0, or -EINVAL if @spec is none of these (then @out is untouched).
 */
int testfs_pattern_parse(const char *spec, struct testfs_pattern *out);

/**
 * Writes the canonical spelling of @p ("stamp", "zero", "random:SEED") into
 * @buf of @size bytes (always NUL-terminated when @size > 0).
 *
 * @return the length the full spelling needs, like snprintf().
 */
int testfs_pattern_format(const struct testfs_pattern *p, char *buf,
			  size_t size);

/**
 * Fills @buf with the @len bytes that file @name holds at offset @off.
 * The size of the file is not known here: the caller stops at its end.
 */
void testfs_pattern_fill(const struct testfs_pattern *p, const char *name,
			 uint64_t off, void *buf, size_t len);

/**
 * Checks that @buf holds what file @name holds at offset @off.
 *
 * @return 0 if all @len bytes match; -EILSEQ if one differs, with the file
 *	   offset of the first differing byte in *@bad_off (if non-NULL).
 */
int testfs_pattern_verify(const struct testfs_pattern *p, const char *name,
			  uint64_t off, const void *buf, size_t len,
			  uint64_t *bad_off);

/**
 * testfs_pattern_verify() with the pattern given as text, e.g.
 * testfs_verify("stamp", "big.bin", off, buf, len, NULL).
 *
 * @return 0, -EILSEQ on a mismatch, or -EINVAL for a bad @pattern.
 */
int testfs_verify(const char *pattern, const char *name, uint64_t off,
		  const void *buf, size_t len, uint64_t *bad_off);

#ifdef __cplusplus
}
#endif

#endif
