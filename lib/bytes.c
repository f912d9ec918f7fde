// SPDX-License-Identifier: MIT
/*
 * Byte offsets: the pages a byte range falls in and back (the running
 * kernel's pages), and the checks stated in bytes (the log's pages). Everything
 * else in the library counts pages; these convert at the edge and say both in
 * their explanations.
 */
#include "lib_i.h"

#include "strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The pages of @page_size bytes that bytes [@off, @off + @len) fall in. */
static int pages_of_bytes(uint32_t page_size, uint64_t off, uint64_t len,
			  uint64_t *first, uint64_t *last)
{
	if (!len || off > UINT64_MAX - (len - 1))
		return -EINVAL;
	if (first)
		*first = off / page_size;
	if (last)
		*last = (off + (len - 1)) / page_size;
	return 0;
}

int testfs_pages_of_bytes(uint64_t off, uint64_t len, uint64_t *first,
			  uint64_t *last)
{
	return pages_of_bytes(lib_page_size(), off, len, first, last);
}

int testfs_bytes_of_pages(uint64_t first, uint64_t last, uint64_t *off,
			  uint64_t *len)
{
	uint64_t ps = lib_page_size();

	/* The bytes must fit: the last page's last byte at most UINT64_MAX. */
	if (first > last || last > UINT64_MAX / ps ||
	    last - first + 1 > UINT64_MAX / ps)
		return -EINVAL;
	if (off)
		*off = first * ps;
	if (len)
		*len = (last - first + 1) * ps;
	return 0;
}

/* Extents count the running kernel's pages, like the calls that fill them
 * from the page cache. */
int testfs_extents_add_bytes(struct testfs_extents *e, uint64_t off,
			     uint64_t len)
{
	uint64_t first, last;
	int err;

	if (!e)
		return -EINVAL;
	err = testfs_pages_of_bytes(off, len, &first, &last);
	return err ? err : testfs_extents_add(e, first, last);
}

typedef int page_check_fn(const struct testfs_log *log, const char *name,
			  uint64_t first, uint64_t last, char **why);

/*
 * Runs @check on the pages bytes [@off, @off + @len) fall in; a failure's
 * explanation says the bytes first: "NAME: bytes [A, B) are pages [C, D]:
 * " and then the page check's own words.
 */
static int check_bytes(page_check_fn *check, const struct testfs_log *log,
		       const char *name, uint64_t off, uint64_t len, char **why)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t first, last;
	char *page_why = NULL;
	const char *words;
	size_t n = strlen(name);
	int err;

	err = lib_check_start(log, name, why);
	if (err)
		return err;
	/* The log's pages: the unit of the page check. */
	err = pages_of_bytes(lib_log_page_size(log), off, len, &first, &last);
	if (err)
		return err;
	err = check(log, name, first, last, &page_why);
	if (err <= 0)
		return err;
	/* The page check's words without its "NAME: ". */
	words = page_why;
	if (strncmp(words, name, n) == 0 && strncmp(words + n, ": ", 2) == 0)
		words += n + 2;
	strbuf_addf(&sb,
		    "%s: bytes [%" PRIu64 ", %" PRIu64 "] are pages [%" PRIu64
		    ", %" PRIu64 "]: %s",
		    name, off, off + (len - 1), first, last, words);
	free(page_why);
	return lib_check_fail(&sb, why);
}

int testfs_check_within_bytes(const struct testfs_log *log, const char *name,
			      uint64_t off, uint64_t len, char **why)
{
	return check_bytes(testfs_check_within, log, name, off, len, why);
}

int testfs_check_covers_bytes(const struct testfs_log *log, const char *name,
			      uint64_t off, uint64_t len, char **why)
{
	return check_bytes(testfs_check_covers, log, name, off, len, why);
}
