// SPDX-License-Identifier: MIT
/*
 * Sets of pages as sorted, coalesced, inclusive ranges: no two extents
 * overlap or touch, so equal sets have equal arrays.
 */
#include "lib_i.h"

#include "array.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void testfs_extents_free(struct testfs_extents *e)
{
	if (!e)
		return;
	free(e->v);
	e->v = NULL;
	e->n = 0;
	e->cap = 0;
	e->pages = 0;
}

/* Whether an extent ending at @last lies before @first without touching. */
static bool ends_before(uint64_t last, uint64_t first)
{
	return first > 0 && last < first - 1;
}

/* The first extent that does not end before @first (n if none). */
static size_t first_reaching(const struct testfs_extents *e, uint64_t first)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ends_before(e->v[mid].last, first))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int reserve_one(struct testfs_extents *e)
{
	return array_grow((void **)&e->v, &e->cap, e->n, sizeof(*e->v))
		       ? 0
		       : -ENOMEM;
}

int testfs_extents_add(struct testfs_extents *e, uint64_t first, uint64_t last)
{
	size_t i, j;
	int err;

	if (!e || first > last)
		return -EINVAL;
	i = first_reaching(e, first);
	/* Extents i..j-1 overlap or touch [first, last]. */
	for (j = i; j < e->n && !ends_before(last, e->v[j].first); j++) {
		if (e->v[j].first < first)
			first = e->v[j].first;
		if (e->v[j].last > last)
			last = e->v[j].last;
		e->pages -= e->v[j].last - e->v[j].first + 1;
	}
	if (i == j) {
		err = reserve_one(e);
		if (err)
			return err;
		memmove(&e->v[i + 1], &e->v[i], (e->n - i) * sizeof(e->v[0]));
		e->n++;
	} else if (j > i + 1) {
		memmove(&e->v[i + 1], &e->v[j], (e->n - j) * sizeof(e->v[0]));
		e->n -= j - i - 1;
	}
	e->v[i].first = first;
	e->v[i].last = last;
	e->pages += last - first + 1;
	return 0;
}

bool testfs_extents_contains(const struct testfs_extents *e, uint64_t page)
{
	size_t lo = 0, hi;

	if (!e)
		return false;
	hi = e->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->v[mid].last < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->n && e->v[lo].first <= page;
}

bool testfs_extents_equal(const struct testfs_extents *a,
			  const struct testfs_extents *b)
{
	size_t i;

	if (!a || !b)
		return a == b;
	if (a->n != b->n || a->pages != b->pages)
		return false;
	for (i = 0; i < a->n; i++) {
		if (a->v[i].first != b->v[i].first ||
		    a->v[i].last != b->v[i].last)
			return false;
	}
	return true;
}

/* "[18446744073709551615, 18446744073709551615]" and its NUL */
#define EXTENT_TEXT_MAX 45

static size_t extent_text(const struct testfs_extent *x,
			  char buf[EXTENT_TEXT_MAX])
{
	return (size_t)snprintf(buf, EXTENT_TEXT_MAX,
				"[%" PRIu64 ", %" PRIu64 "]", x->first,
				x->last);
}

/* Appends @s (@len bytes) at *@pos, as much as fits before the NUL. */
static void put(char *buf, size_t size, size_t *pos, const char *s, size_t len)
{
	if (*pos + 1 >= size)
		return;
	if (len > size - 1 - *pos)
		len = size - 1 - *pos;
	memcpy(buf + *pos, s, len);
	*pos += len;
}

size_t testfs_extents_format(const struct testfs_extents *e, char *buf,
			     size_t size)
{
	char text[EXTENT_TEXT_MAX], tail[EXTENT_TEXT_MAX];
	size_t i, pos = 0, total = 0, room, len, tail_len, keep;

	if (!buf || size == 0)
		return 0;
	room = size - 1;
	if (!e || e->n == 0) {
		put(buf, size, &pos, "(none)", 6);
		buf[pos] = '\0';
		return pos;
	}
	for (i = 0; i < e->n && total <= room; i++)
		total += (i ? 1 : 0) + extent_text(&e->v[i], text);
	if (total <= room) {
		for (i = 0; i < e->n; i++) {
			if (i)
				put(buf, size, &pos, " ", 1);
			len = extent_text(&e->v[i], text);
			put(buf, size, &pos, text, len);
		}
		buf[pos] = '\0';
		return pos;
	}

	/*
	 * Too long: as many leading extents as leave room for " ... " and
	 * the last one, so that the reader still sees where the set ends.
	 */
	tail_len = extent_text(&e->v[e->n - 1], tail);
	if (4 + tail_len > room) {
		put(buf, size, &pos, "...", 3);
		buf[pos] = '\0';
		return pos;
	}
	total = 0;
	keep = 0;
	for (i = 0; i + 1 < e->n; i++) {
		len = (i ? 1 : 0) + extent_text(&e->v[i], text);
		if (total + len + 5 + tail_len > room)
			break;
		total += len;
		keep++;
	}
	for (i = 0; i < keep; i++) {
		if (i)
			put(buf, size, &pos, " ", 1);
		len = extent_text(&e->v[i], text);
		put(buf, size, &pos, text, len);
	}
	if (keep)
		put(buf, size, &pos, " ", 1);
	put(buf, size, &pos, "... ", 4);
	put(buf, size, &pos, tail, tail_len);
	buf[pos] = '\0';
	return pos;
}

int testfs_extents_subtract(const struct testfs_extents *a,
			    const struct testfs_extents *b,
			    struct testfs_extents *out)
{
	struct testfs_extents res = TESTFS_EXTENTS_INIT;
	size_t i, j = 0;
	int err = 0;

	if (!a || !b || !out)
		return -EINVAL;
	/* Built aside so that @out may be @a or @b. */
	for (i = 0; i < a->n && !err; i++) {
		uint64_t cur = a->v[i].first, last = a->v[i].last;
		bool done = false;

		while (j < b->n && b->v[j].last < cur)
			j++;
		for (; j < b->n && b->v[j].first <= last; j++) {
			if (b->v[j].first > cur) {
				err = testfs_extents_add(&res, cur,
							 b->v[j].first - 1);
				if (err)
					break;
			}
			if (b->v[j].last >= last) {
				done = true;
				break;
			}
			cur = b->v[j].last + 1;
		}
		if (!err && !done)
			err = testfs_extents_add(&res, cur, last);
	}
	testfs_extents_free(out);
	if (err) {
		testfs_extents_free(&res);
		return err;
	}
	*out = res;
	return 0;
}
