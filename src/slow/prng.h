/* SPDX-License-Identifier: MIT */
/*
 * Reproducible random numbers for the latency engine: xoshiro256** seeded
 * through splitmix64, uniform and normal deviates, and the three real
 * functions the random models need (ln, exp, sqrt).
 *
 * The real functions are written here rather than taken from libm for two
 * reasons: the same seed must give the same delays with any C library (libm
 * results may differ in the last bit between versions, which can move a
 * rounded nanosecond), and this code is linked into libtestfs.so, which is
 * built with --no-undefined and does not link libm.
 */
#ifndef TESTFS_SLOW_PRNG_H
#define TESTFS_SLOW_PRNG_H

#include <stdbool.h>
#include <stdint.h>

struct prng {
	uint64_t s[4];
	/* The polar method makes normal deviates in pairs; one is kept. */
	double spare;
	bool has_spare;
};

/* Sets the state from @seed (any value, 0 included). */
void prng_seed(struct prng *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t prng_next(struct prng *r);

/*
 * Uniform in [0, @n) for @n >= 1, as the high word of next * n (Lemire's
 * multiply-shift; the bias is below n / 2^64, far below anything a test
 * could see). Returns 0 for @n == 0.
 */
uint64_t prng_below(struct prng *r, uint64_t n);

/* Uniform in the open interval (0, 1), with 53 random bits. */
double prng_open01(struct prng *r);

/* A standard normal deviate: Marsaglia's polar form of Box-Muller. */
double prng_normal(struct prng *r);

/* Natural logarithm of @x > 0 (finite); -1e308 for @x <= 0. */
double real_ln(double x);

/* e^@x, within a few ulps; 0 below -745, 1e308 above 709 (not inf). */
double real_exp(double x);

/* Square root of @x >= 0; 0 for @x <= 0. */
double real_sqrt(double x);

/* floor(sqrt(@x)) for any 64-bit @x, exactly. */
uint64_t int_sqrt(uint64_t x);

#endif
