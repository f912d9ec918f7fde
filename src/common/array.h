/* SPDX-License-Identifier: MIT */
/*
 * Growing arrays: room for element @n of *@v, an array of *@cap elements
 * of @size bytes, doubling it (from 16) when full. Header-only, so the
 * small libraries that share it (the correlator, page age) link nothing
 * for it.
 */
#ifndef TESTFS_COMMON_ARRAY_H
#define TESTFS_COMMON_ARRAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* True when *@v has room for element @n; false: out of memory (or the
 * size overflows), *@v unchanged. */
static inline bool array_grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return true;
	c = *cap ? *cap * 2 : 16;
	if (size && c > SIZE_MAX / size)
		return false;
	p = realloc(*v, c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

#endif
