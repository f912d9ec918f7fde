/* SPDX-License-Identifier: MIT */
/*
 * The pattern generator behind testfs/pattern.h, with the per-file key
 * computed once so the read path does not hash the name per request, and
 * the words generated as wide as the CPU allows.
 */
#ifndef TESTFS_PATTERN_GEN_H
#define TESTFS_PATTERN_GEN_H

#include <stddef.h>
#include <stdint.h>

#include <testfs/pattern.h>

struct pattern_source {
	enum testfs_pattern_kind kind;
	/* stamp: hash of the name; random: mixed seed. */
	uint64_t key;
	const char *name;
	size_t name_len;
};

void pattern_source_init(struct pattern_source *src,
			 const struct testfs_pattern *p, const char *name);
void pattern_generate(const struct pattern_source *src, uint64_t off, void *buf,
		      size_t len);

/*
 * The generator of the 64-bit words, picked at first use as the fastest
 * this CPU runs ("avx512", "avx2", "scalar"). pattern_select_words()
 * forces one, for tests and benchmarks: 0, -ENOTSUP if this CPU cannot
 * run it, -EINVAL for an unknown name. Every generator writes the same
 * bytes.
 */
int pattern_select_words(const char *name);
const char *pattern_words_name(void);

#endif
