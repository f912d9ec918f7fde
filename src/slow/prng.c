// SPDX-License-Identifier: MIT
#include "prng.h"

#include <string.h>

#define LN2_HI 6.93147180369123816490e-01 /* high bits of ln 2 */
#define LN2_LO 1.90821492927058770002e-10 /* ln 2 - LN2_HI */
#define LN2 0.693147180559945309417
#define SQRT2 1.41421356237309504880

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void prng_seed(struct prng *r, uint64_t seed)
{
	int i;

	/* splitmix64 never gives xoshiro the all-zero state it cannot leave. */
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
	r->spare = 0;
	r->has_spare = false;
}

uint64_t prng_next(struct prng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t prng_below(struct prng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)prng_next(r) * n) >> 64);
}

double prng_open01(struct prng *r)
{
	/* The midpoints of 2^53 equal cells: never 0, never 1. */
	return ((double)(prng_next(r) >> 11) + 0.5) * 0x1p-53;
}

double prng_normal(struct prng *r)
{
	double u, v, s, f;

	if (r->has_spare) {
		r->has_spare = false;
		return r->spare;
	}
	do {
		u = 2 * prng_open01(r) - 1;
		v = 2 * prng_open01(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	f = real_sqrt(-2 * real_ln(s) / s);
	r->spare = v * f;
	r->has_spare = true;
	return u * f;
}

static uint64_t double_bits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

static double bits_double(uint64_t b)
{
	double x;

	memcpy(&x, &b, sizeof(x));
	return x;
}

/* 2^k for -1022 <= k <= 1023. */
static double pow2(int k)
{
	return bits_double((uint64_t)(k + 1023) << 52);
}

double real_ln(double x)
{
	uint64_t b;
	double m, s, s2, sum;
	int e;

	if (!(x > 0))
		return -1e308;
	if (x < 0x1p-1022) {
		/* Subnormal: scale into the normal range first. */
		x *= 0x1p54;
		e = -54;
	} else {
		e = 0;
	}
	b = double_bits(x);
	e += (int)((b >> 52) & 0x7ff) - 1023;
	m = bits_double((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	if (m > SQRT2) {
		m /= 2;
		e++;
	}
	/*
	 * ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...) with s = (m-1)/(m+1);
	 * m in [0.71, 1.42] gives |s| <= 0.172, so s^25 is below 1e-19.
	 */
	s = (m - 1) / (m + 1);
	s2 = s * s;
	sum = 1.0 / 23;
	for (int k = 21; k >= 1; k -= 2)
		sum = 1.0 / k + s2 * sum;
	return e * LN2_HI + (2 * s * sum + e * LN2_LO);
}

double real_exp(double x)
{
	double r, sum;
	int k, n;

	if (x > 709)
		return 1e308;
	if (x < -745)
		return 0;
	/* x = k ln 2 + r with |r| <= ln2 / 2, ln 2 split for precision. */
	k = (int)(x / LN2 + (x >= 0 ? 0.5 : -0.5));
	r = (x - k * LN2_HI) - k * LN2_LO;
	/* Taylor series; r^21 / 21! is below 1e-29 for |r| <= 0.35. */
	sum = 1;
	for (n = 20; n >= 1; n--)
		sum = 1 + r * sum / n;
	if (k < -1022)
		return sum * pow2(k + 600) * pow2(-600);
	if (k > 1023)
		return sum * pow2(k - 600) * pow2(600);
	return sum * pow2(k);
}

double real_sqrt(double x)
{
	double y;
	int i;

	if (!(x > 0))
		return 0;
	if (x > 1e308)
		return 1e154;
	/* Halving the exponent is within a factor of 1.5 of the root. */
	y = bits_double((double_bits(x) >> 1) + (0x3ffull << 51));
	for (i = 0; i < 6; i++)
		y = 0.5 * (y + x / y);
	return y;
}

uint64_t int_sqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	/* Digit by digit, in base 4: exact for every 64-bit value. */
	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}
