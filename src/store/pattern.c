// SPDX-License-Identifier: MIT
/*
 * Synthetic file contents: see include/testfs/pattern.h for the layout.
 */
#include "pattern_gen.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD_STEP 0x9e3779b97f4a7c15ull

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t fnv1a64(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void pattern_source_init(struct pattern_source *src,
			 const struct testfs_pattern *p, const char *name)
{
	src->kind = p->kind;
	src->name = name;
	src->name_len = strlen(name);
	if (p->kind == TESTFS_PATTERN_RANDOM)
		src->key = mix64(p->seed ^ 0x7465737466735f72ull);
	else
		src->key = fnv1a64(name, src->name_len);
}

/* Word @w of the stream (byte offset w * 8), stored little-endian. */
static inline void put_word(unsigned char *dst, uint64_t key, uint64_t w)
{
	uint64_t v = mix64(key + w * WORD_STEP);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(dst, &v, 8);
#else
	for (int i = 0; i < 8; i++)
		dst[i] = (unsigned char)(v >> (8 * i));
#endif
}

static void stamp_header(const struct pattern_source *src, uint64_t page,
			 unsigned char *dst)
{
	char hdr[TESTFS_STAMP_HEADER + 1];
	int n;

	n = snprintf(hdr, sizeof(hdr), "testfs page %" PRIu64 " file %.*s",
		     page, (int)src->name_len, src->name);
	if (n < 0)
		n = 0;
	if (n > (int)TESTFS_STAMP_HEADER - 1)
		n = TESTFS_STAMP_HEADER - 1;
	memset(hdr + n, ' ', TESTFS_STAMP_HEADER - 1 - (size_t)n);
	hdr[TESTFS_STAMP_HEADER - 1] = '\n';
	memcpy(dst, hdr, TESTFS_STAMP_HEADER);
}

/* One whole aligned page (stamp) or 4096-byte unit (random) at @dst. */
static void generate_unit(const struct pattern_source *src, uint64_t unit,
			  unsigned char *dst)
{
	uint64_t w = unit * (TESTFS_STAMP_PAGE / 8);
	size_t i = 0;

	if (src->kind == TESTFS_PATTERN_STAMP) {
		stamp_header(src, unit, dst);
		i = TESTFS_STAMP_HEADER;
	}
	for (; i < TESTFS_STAMP_PAGE; i += 8)
		put_word(dst + i, src->key, w + i / 8);
}

void pattern_generate(const struct pattern_source *src, uint64_t off, void *buf,
		      size_t len)
{
	unsigned char tmp[TESTFS_STAMP_PAGE];
	unsigned char *dst = buf;

	if (src->kind == TESTFS_PATTERN_ZERO) {
		memset(buf, 0, len);
		return;
	}
	while (len) {
		uint64_t unit = off / TESTFS_STAMP_PAGE;
		size_t in = (size_t)(off % TESTFS_STAMP_PAGE);
		size_t n = TESTFS_STAMP_PAGE - in;

		if (n > len)
			n = len;
		if (in == 0 && n == TESTFS_STAMP_PAGE) {
			generate_unit(src, unit, dst);
		} else {
			generate_unit(src, unit, tmp);
			memcpy(dst, tmp + in, n);
		}
		dst += n;
		off += n;
		len -= n;
	}
}

int testfs_pattern_parse(const char *spec, struct testfs_pattern *out)
{
	const char *p;
	char *end;
	uint64_t seed;

	if (!spec)
		return -EINVAL;
	if (strcmp(spec, "stamp") == 0) {
		*out = (struct testfs_pattern){ TESTFS_PATTERN_STAMP, 0 };
		return 0;
	}
	if (strcmp(spec, "zero") == 0) {
		*out = (struct testfs_pattern){ TESTFS_PATTERN_ZERO, 0 };
		return 0;
	}
	if (strcmp(spec, "random") == 0) {
		*out = (struct testfs_pattern){ TESTFS_PATTERN_RANDOM, 0 };
		return 0;
	}
	if (strncmp(spec, "random:", 7) != 0)
		return -EINVAL;
	p = spec + 7;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	seed = strtoull(p, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = (struct testfs_pattern){ TESTFS_PATTERN_RANDOM, seed };
	return 0;
}

int testfs_pattern_format(const struct testfs_pattern *p, char *buf,
			  size_t size)
{
	switch (p->kind) {
	case TESTFS_PATTERN_STAMP:
		return snprintf(buf, size, "stamp");
	case TESTFS_PATTERN_ZERO:
		return snprintf(buf, size, "zero");
	case TESTFS_PATTERN_RANDOM:
		return snprintf(buf, size, "random:%" PRIu64, p->seed);
	}
	return snprintf(buf, size, "unknown");
}

void testfs_pattern_fill(const struct testfs_pattern *p, const char *name,
			 uint64_t off, void *buf, size_t len)
{
	struct pattern_source src;

	pattern_source_init(&src, p, name);
	pattern_generate(&src, off, buf, len);
}

int testfs_pattern_verify(const struct testfs_pattern *p, const char *name,
			  uint64_t off, const void *buf, size_t len,
			  uint64_t *bad_off)
{
	unsigned char expect[TESTFS_STAMP_PAGE];
	const unsigned char *got = buf;
	struct pattern_source src;
	size_t i;

	pattern_source_init(&src, p, name);
	while (len) {
		size_t n =
			TESTFS_STAMP_PAGE - (size_t)(off % TESTFS_STAMP_PAGE);

		if (n > len)
			n = len;
		pattern_generate(&src, off, expect, n);
		if (memcmp(expect, got, n) != 0) {
			for (i = 0; expect[i] == got[i]; i++)
				;
			if (bad_off)
				*bad_off = off + i;
			return -EILSEQ;
		}
		got += n;
		off += n;
		len -= n;
	}
	return 0;
}

int testfs_verify(const char *pattern, const char *name, uint64_t off,
		  const void *buf, size_t len, uint64_t *bad_off)
{
	struct testfs_pattern p;

	if (testfs_pattern_parse(pattern, &p))
		return -EINVAL;
	return testfs_pattern_verify(&p, name, off, buf, len, bad_off);
}
