/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/extents.h
 *
 * libtestfs, part of <testfs.h> (include that): extents: sets of pages as
 * sorted, coalesced inclusive ranges, and byte offsets.
 */
#ifndef TESTFS_EXTENTS_H
#define TESTFS_EXTENTS_H

#include <testfs/common.h>

TESTFS_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Extents: sets of pages as sorted, coalesced inclusive ranges         */
/* ------------------------------------------------------------------ */

struct testfs_extent {
	uint64_t first;
	uint64_t last;
};

struct testfs_extents {
	struct testfs_extent *v;
	size_t n;
	size_t cap;
	/** Pages in all extents. */
	uint64_t pages;
};

/** Initialiser for an empty set. */
#define TESTFS_EXTENTS_INIT                                                    \
	{                                                                      \
		NULL, 0, 0, 0                                                  \
	}

/** Frees the ranges; @e is empty and reusable afterwards. */
void testfs_extents_free(struct testfs_extents *e);

/**
 * Adds pages [@first, @last], merging with neighbours.
 *
 * @return 0, -EINVAL if @first > @last, -ENOMEM.
 */
int testfs_extents_add(struct testfs_extents *e, uint64_t first, uint64_t last);

/** Whether page @page is in @e. */
bool testfs_extents_contains(const struct testfs_extents *e, uint64_t page);

/** Whether @a and @b hold the same pages. */
bool testfs_extents_equal(const struct testfs_extents *a,
			  const struct testfs_extents *b);

/**
 * Writes @e as "[a, b] [c, d] ..." (or "(none)") into @buf of @size
 * bytes, abbreviated with "..." when it does not fit.
 *
 * @return the length written (excluding the NUL).
 */
size_t testfs_extents_format(const struct testfs_extents *e, char *buf,
			     size_t size);

/**
 * Pages of @a not in @b, into @out (which is emptied first).
 *
 * @return 0 or -ENOMEM.
 */
int testfs_extents_subtract(const struct testfs_extents *a,
			    const struct testfs_extents *b,
			    struct testfs_extents *out);

/* ------------------------------------------------------------------ */
/* Byte offsets                                                        */
/* ------------------------------------------------------------------ */

/*
 * The rest of the library counts the kernel's pages (testfs_page_size()
 * bytes on the running kernel, testfs_log_page_size() in a log; on a
 * 4 KiB kernel page 0 is bytes 0..4095). These take byte ranges as a
 * program's read(2) or mmap(2) offsets give them: bytes [@off, @off +
 * @len), @len > 0; a byte range stands for every page holding one of its
 * bytes (the pages the kernel must bring in to serve it), so a range that
 * starts or ends inside a page takes the whole page. Explanations write
 * byte ranges inclusive, like page ranges: "bytes [4096, 12287]".
 */

/**
 * The running kernel's pages (testfs_page_size()) bytes [@off, @off +
 * @len) fall in: [*@first, *@last] (either pointer may be NULL). E.g.
 * off 4000, len 200 gives pages [0, 1] with 4 KiB pages, [0, 0] with
 * 16 KiB ones. (Before TESTFS_0.7: 4096-byte pages on every kernel.)
 *
 * @return 0, or -EINVAL for @len 0 or a range past UINT64_MAX.
 */
int testfs_pages_of_bytes(uint64_t off, uint64_t len, uint64_t *first,
			  uint64_t *last);

/**
 * The bytes of the running kernel's pages [@first, @last]: offset *@off
 * and length *@len
 * (either pointer may be NULL), the inverse of testfs_pages_of_bytes()
 * for whole pages.
 *
 * @return 0, or -EINVAL if @first > @last or the bytes do not fit in
 *	   64 bits.
 */
int testfs_bytes_of_pages(uint64_t first, uint64_t last, uint64_t *off,
			  uint64_t *len);

/**
 * Adds the running kernel's pages bytes [@off, @off + @len) fall in to
 * @e (for the
 * expected extents of testfs_check_fetched() and
 * testfs_check_touched_plus()).
 *
 * @return 0, -EINVAL (NULL @e, @len 0, past UINT64_MAX) or -ENOMEM.
 */
int testfs_extents_add_bytes(struct testfs_extents *e, uint64_t off,
			     uint64_t len);

TESTFS_END_DECLS

#endif
