// SPDX-License-Identifier: MIT
/*
 * pattern_speed: how fast the daemon generates file contents, per word
 * generator (src/store/pattern.c, compiled in: the generators are not
 * public API).
 *
 *   build/bench/pattern_speed [--quick]
 *
 * For the stamp and random patterns and every generator this CPU runs
 * ("avx512", "avx2", "scalar"; the daemon uses the first), it generates
 * 512 MiB in 1 MiB and in 4 KiB pieces into one buffer (as the read path
 * does into its reply buffer) and prints the best of 5 runs (--quick 2)
 * as ns per 4 KiB page and GB/s (10^9 bytes/s). It checks that every
 * generator wrote the same bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <testfs/pattern.h>

#include "bench_common.h"
#include "pattern_gen.h"

#define NAME "pattern_speed"
#define TOTAL (512 * MIB)

static const char *const generators[] = { "avx512", "avx2", "scalar" };

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		struct testfs_pattern p;
	} pats[] = {
		{ "stamp", { TESTFS_PATTERN_STAMP, 0 } },
		{ "random", { TESTFS_PATTERN_RANDOM, 1 } },
	};
	static const size_t pieces[] = { MIB, 4096 };
	unsigned reps = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 2 : 5;
	const char *first = NULL;
	struct pattern_source src;
	unsigned char *buf, *ref;
	double best, ns;
	uint64_t off, t0;
	size_t g, p, k;
	unsigned r;

	buf = aligned_alloc(4096, MIB);
	ref = malloc(MIB);
	if (!buf || !ref)
		return 1;
	printf("| pattern | generator | piece | ns per 4 KiB page | GB/s  |\n");
	printf("|---------|-----------|------:|------------------:|------:|"
	       "\n");
	for (p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		pattern_source_init(&src, &pats[p].p, "stamp.bin");
		for (g = 0; g < sizeof(generators) / sizeof(generators[0]);
		     g++) {
			if (pattern_select_words(generators[g]) == -ENOTSUP)
				continue;
			if (!first)
				first = generators[g];
			/* Every generator must write the same bytes. */
			pattern_generate(&src, 12345 * MIB + 7, buf, MIB);
			if (!strcmp(generators[g], first))
				memcpy(ref, buf, MIB);
			else if (memcmp(ref, buf, MIB) != 0) {
				fprintf(stderr, NAME ": %s differs\n",
					generators[g]);
				return 1;
			}
			for (k = 0; k < sizeof(pieces) / sizeof(pieces[0]);
			     k++) {
				best = 1e18;
				for (r = 0; r < reps; r++) {
					t0 = bench_now_ns();
					for (off = 0; off < TOTAL;
					     off += pieces[k])
						pattern_generate(
							&src, off,
							buf + off % MIB,
							pieces[k]);
					ns = (double)(bench_now_ns() - t0);
					if (ns < best)
						best = ns;
				}
				printf("| %-7s | %-9s | %5s | %17.0f | %5.1f "
				       "|\n",
				       pats[p].name, generators[g],
				       pieces[k] == MIB ? "1 MiB" : "4 KiB",
				       best / (TOTAL / 4096),
				       (double)TOTAL / best);
			}
		}
	}
	printf("\nThe daemon uses %s on this CPU.\n", first);
	free(buf);
	free(ref);
	return 0;
}
