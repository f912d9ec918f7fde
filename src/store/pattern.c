// SPDX-License-Identifier: MIT
/*
 * Synthetic file contents: see include/testfs/pattern.h for the layout.
 */
#include "pattern_gen.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD_STEP 0x9e3779b97f4a7c15ull
#define MIX_MUL1 0xbf58476d1ce4e5b9ull
#define MIX_MUL2 0x94d049bb133111ebull

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * MIX_MUL1;
	z = (z ^ (z >> 27)) * MIX_MUL2;
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

/*
 * The words: word w of a stream is mix64(key + w * WORD_STEP), stored
 * little-endian at byte offset w * 8. A generator writes @n words from
 * z = key + w * WORD_STEP on; the lanes of the vector versions are
 * independent, so they run as wide as the CPU allows. They are chosen
 * once at run time (cpuid, which valgrind also answers), so the binary
 * runs anywhere and uses AVX-512 where the CPU has it.
 */
typedef void words_fn(unsigned char *dst, uint64_t z, size_t n);

static void words_scalar(unsigned char *dst, uint64_t z, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, z += WORD_STEP) {
		uint64_t v = mix64(z);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(dst + 8 * i, &v, 8);
#else
		for (int b = 0; b < 8; b++)
			dst[8 * i + b] = (unsigned char)(v >> (8 * b));
#endif
	}
}

#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&        \
	(defined(__GNUC__) || defined(__clang__))
#define HAVE_WIDE_WORDS 1

/* One body per vector width: @lanes words per step. */
#define DEFINE_WORDS_VECTOR(fn, isa, lanes)                                    \
	__attribute__((target(isa))) static void fn(unsigned char *dst,        \
						    uint64_t z, size_t n)      \
	{                                                                      \
		typedef uint64_t vec                                           \
			__attribute__((vector_size(8 * (lanes))));             \
		vec v, lane = { 0 };                                           \
		size_t i;                                                      \
                                                                               \
		for (i = 0; i < (lanes); i++)                                  \
			lane[i] = z + i * WORD_STEP;                           \
		for (i = 0; i + (lanes) <= n; i += (lanes)) {                  \
			v = lane;                                              \
			v = (v ^ (v >> 30)) * MIX_MUL1;                        \
			v = (v ^ (v >> 27)) * MIX_MUL2;                        \
			v ^= v >> 31;                                          \
			memcpy(dst + 8 * i, &v, sizeof(v));                    \
			lane += (lanes)*WORD_STEP;                             \
		}                                                              \
		words_scalar(dst + 8 * i, z + i * WORD_STEP, n - i);           \
	}

DEFINE_WORDS_VECTOR(words_avx512, "avx512f,avx512dq", 8)
DEFINE_WORDS_VECTOR(words_avx2, "avx2", 4)
#endif

struct words_impl {
	const char *name;
	words_fn *fn;
};

/* Fastest first; the scalar one runs everywhere. */
static const struct words_impl words_impls[] = {
#ifdef HAVE_WIDE_WORDS
	{ "avx512", words_avx512 },
	{ "avx2", words_avx2 },
#endif
	{ "scalar", words_scalar },
};

#define NIMPLS (sizeof(words_impls) / sizeof(words_impls[0]))

static _Atomic(const struct words_impl *) words_current;

static bool words_supported(const struct words_impl *impl)
{
#ifdef HAVE_WIDE_WORDS
	__builtin_cpu_init();
	if (impl->fn == words_avx512)
		return __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512dq");
	if (impl->fn == words_avx2)
		return __builtin_cpu_supports("avx2");
#endif
	return impl->fn == words_scalar;
}

static const struct words_impl *words_get(void)
{
	const struct words_impl *impl =
		atomic_load_explicit(&words_current, memory_order_relaxed);
	size_t i;

	if (impl)
		return impl;
	for (i = 0; !impl; i++)
		if (words_supported(&words_impls[i]))
			impl = &words_impls[i];
	/* Every thread that gets here picks the same one. */
	atomic_store_explicit(&words_current, impl, memory_order_relaxed);
	return impl;
}

int pattern_select_words(const char *name)
{
	size_t i;

	for (i = 0; i < NIMPLS; i++) {
		if (strcmp(words_impls[i].name, name) != 0)
			continue;
		if (!words_supported(&words_impls[i]))
			return -ENOTSUP;
		atomic_store(&words_current, &words_impls[i]);
		return 0;
	}
	return -EINVAL;
}

const char *pattern_words_name(void)
{
	return words_get()->name;
}

static void put_words(unsigned char *dst, uint64_t key, uint64_t w, size_t n)
{
	words_get()->fn(dst, key + w * WORD_STEP, n);
}

/* Writes @v in decimal at @dst, without a NUL; returns its length. */
static size_t put_decimal(char *dst, uint64_t v)
{
	char digits[20];
	size_t n = 0, i;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		dst[i] = digits[n - 1 - i];
	return n;
}

/*
 * "testfs page N file NAME", padded with spaces, cut to leave room for
 * the final newline. The page number and " file " always fit (at most
 * 38 bytes); the name takes what is left. Written straight into @dst:
 * built on the stack and copied, the header's bytes were read back as
 * vectors before their byte-wise stores had landed, a stall on every
 * page.
 */
static void stamp_header(const struct pattern_source *src, uint64_t page,
			 unsigned char *dst)
{
	static const char page_text[] = "testfs page ";
	static const char file_text[] = " file ";
	char *hdr = (char *)dst;
	size_t n = sizeof(page_text) - 1, name_len = src->name_len;

	memcpy(hdr, page_text, n);
	n += put_decimal(hdr + n, page);
	memcpy(hdr + n, file_text, sizeof(file_text) - 1);
	n += sizeof(file_text) - 1;
	if (name_len > TESTFS_STAMP_HEADER - 1 - n)
		name_len = TESTFS_STAMP_HEADER - 1 - n;
	memcpy(hdr + n, src->name, name_len);
	n += name_len;
	memset(hdr + n, ' ', TESTFS_STAMP_HEADER - 1 - n);
	hdr[TESTFS_STAMP_HEADER - 1] = '\n';
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
	put_words(dst + i, src->key, w + i / 8, (TESTFS_STAMP_PAGE - i) / 8);
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
