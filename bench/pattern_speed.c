// SPDX-License-Identifier: MIT
/*
 * pattern_speed: how fast the daemon generates file contents, per word
 * generator (src/store/pattern.c, compiled in: the generators are not
 * public API), and what a read's reply costs to prepare, the old way and
 * the new way side by side.
 *
 *   build/bench/pattern_speed [--quick]
 *
 * Generators: for the stamp and random patterns and every generator
 * this CPU runs ("avx512", "avx2", "scalar"; the daemon uses the
 * first), it generates 512 MiB (--quick 64 MiB) in 1 MiB and in 4 KiB
 * pieces into one 1 MiB buffer (as the read path does into its reply
 * buffer). It checks that every generator wrote the same bytes.
 *
 * Replies: the work of one 1 MiB read before its reply is sent, each
 * before/after pair measured in the same run:
 *   zero, memset per read (before): the zeros written into the reply
 *     buffer for every read;
 *   zero, one buffer (after): the reply points into a buffer of zeros
 *     written once (src/fuse/fs_ops.c): no work at all per read;
 *   stamp over io_uring, generate + copy (before): the stamp generated
 *     into the thread's buffer, then copied into the ring entry's
 *     payload (src/daemon/loop_uring.c);
 *   stamp over io_uring, into the payload (after): generated straight
 *     into the payload, no copy;
 *   stamp over /dev/fuse: generated into the thread's buffer, the reply
 *     written from there (unchanged, for comparison).
 *
 * Every figure is the median over the 1 MiB steps of the time one step
 * took (not a whole pass's wall time), as ns per 4 KiB page and GB/s
 * (10^9 bytes/s): a step preempted on a busy machine moves the median
 * little. Exit status 0, 1 when a generator differs or memory runs out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <testfs/pattern.h>

#include "bench_common.h"
#include "pattern_gen.h"

#define NAME "pattern_speed"
#define STEPS_MAX 512

static const char *const generators[] = { "avx512", "avx2", "scalar" };

static unsigned steps = STEPS_MAX; /* 1 MiB steps per figure */
static double step_ns[STEPS_MAX];
static unsigned char *buf, *payload;
static struct pattern_source src;

/* The ways a 1 MiB step's bytes come to be (see the top). */
enum way {
	GEN_1M,
	GEN_4K,
	ZERO_MEMSET,
	ZERO_SHARED, /* not measured: nothing to do */
	RING_COPY,
	RING_DIRECT
};

static void step(enum way w, uint64_t off)
{
	size_t k;

	switch (w) {
	case GEN_1M:
		pattern_generate(&src, off, buf, MIB);
		break;
	case GEN_4K:
		for (k = 0; k < MIB; k += 4096)
			pattern_generate(&src, off + k, buf + k, 4096);
		break;
	case ZERO_MEMSET:
		memset(buf, 0, MIB);
		break;
	case RING_COPY:
		pattern_generate(&src, off, buf, MIB);
		memcpy(payload, buf, MIB);
		break;
	case RING_DIRECT:
		pattern_generate(&src, off, payload, MIB);
		break;
	default:
		break;
	}
	/* Keep the compiler from dropping work nobody reads. */
	__asm__ volatile("" : : "r"(buf), "r"(payload) : "memory");
}

/* Median ns per 1 MiB step of @w over the steps. */
static double measure(enum way w)
{
	uint64_t t0;
	unsigned i;

	for (i = 0; i < steps; i++) {
		t0 = bench_now_ns();
		step(w, (uint64_t)i * MIB);
		step_ns[i] = (double)(bench_now_ns() - t0);
	}
	return bench_median(step_ns, steps, NULL, NULL);
}

static void row(const char *a, const char *b, const char *c, double ns)
{
	printf("| %-7s | %-9s | %5s | %17.0f | %5.1f |\n", a, b, c,
	       ns / (MIB / 4096), ns > 0 ? (double)MIB / ns : 0.0);
}

static int generator_table(void)
{
	static const struct {
		const char *name;
		struct testfs_pattern p;
	} pats[] = {
		{ "stamp", { TESTFS_PATTERN_STAMP, 0 } },
		{ "random", { TESTFS_PATTERN_RANDOM, 1 } },
	};
	unsigned char *ref = malloc(MIB);
	const char *first = NULL;
	size_t g, p;

	if (!ref)
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
			if (!strcmp(generators[g], first)) {
				memcpy(ref, buf, MIB);
			} else if (memcmp(ref, buf, MIB) != 0) {
				fprintf(stderr, NAME ": %s differs\n",
					generators[g]);
				free(ref);
				return 1;
			}
			row(pats[p].name, generators[g], "1 MiB",
			    measure(GEN_1M));
			row(pats[p].name, generators[g], "4 KiB",
			    measure(GEN_4K));
		}
	}
	printf("\nThe daemon uses %s on this CPU.\n", first);
	pattern_select_words(first);
	free(ref);
	return 0;
}

static void reply_table(void)
{
	static const struct testfs_pattern stamp = { TESTFS_PATTERN_STAMP, 0 };
	static const struct {
		enum way w;
		const char *what, *when;
	} rows[] = {
		{ ZERO_MEMSET, "zero, memset per read", "before" },
		{ ZERO_SHARED, "zero, one buffer", "after" },
		{ RING_COPY, "stamp over io_uring, generate + copy", "before" },
		{ RING_DIRECT, "stamp over io_uring, into the payload",
		  "after" },
		{ GEN_1M, "stamp over /dev/fuse, into the reply buffer",
		  "unchanged" },
	};
	size_t i;
	double ns;

	pattern_source_init(&src, &stamp, "stamp.bin");
	printf("\nPreparing a 1 MiB read's reply (median per 1 MiB "
	       "step):\n\n");
	printf("| reply | | ns per 4 KiB page | GB/s |\n");
	printf("|---|---|--:|--:|\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].w == ZERO_SHARED) {
			printf("| %s | %s | 0 (no work per read) | - |\n",
			       rows[i].what, rows[i].when);
			continue;
		}
		ns = measure(rows[i].w);
		printf("| %s | %s | %.0f | %.1f |\n", rows[i].what,
		       rows[i].when, ns / (MIB / 4096), (double)MIB / ns);
	}
}

int main(int argc, char **argv)
{
	int ret;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--quick") != 0)) {
		fprintf(stderr, "usage: " NAME " [--quick]\n");
		return 2;
	}
	if (argc == 2)
		steps = 64;
	buf = aligned_alloc(4096, MIB);
	payload = aligned_alloc(4096, MIB);
	if (!buf || !payload)
		return 1;
	/* Both buffers' pages exist before any clock runs. */
	memset(buf, 1, MIB);
	memset(payload, 1, MIB);
	ret = generator_table();
	if (!ret)
		reply_table();
	free(buf);
	free(payload);
	return ret;
}
