/* SPDX-License-Identifier: MIT */
/*
 * Values in latency and error specs: durations, rates, sizes and decimal
 * fractions, parsed strictly and formatted canonically, so that parsing a
 * formatted value gives it back exactly. parse_duration() and parse_rate()
 * are declared in latency.h; the rest is internal to src/slow/.
 */
#ifndef TESTFS_SLOW_UNITS_H
#define TESTFS_SLOW_UNITS_H

#include <stdint.h>

#include "strbuf.h"

/* The longest duration a spec may give, and the longest random delay. */
#define UNITS_DURATION_MAX (3600ull * 1000000000ull)

/*
 * A non-negative decimal number with up to @places decimals ("0.25",
 * "1", "1.50"), returned scaled by 10^@places (0.25 with 6 places gives
 * 250000). Returns 0, -EINVAL (empty, sign, garbage, too many decimals) or
 * -ERANGE (scaled value above @max); *why says what was wrong.
 */
int units_parse_decimal(const char *s, unsigned places, uint64_t max,
			uint64_t *out, const char **why);

/* Writes @ns as an integer in the largest of s, ms, us, ns that divides. */
void units_format_duration(struct strbuf *sb, uint64_t ns);

/*
 * Writes @bps as an integer in the largest decimal unit (TB/s, GB/s, MB/s,
 * kB/s) that divides it, else the largest binary one (TiB/s ... KiB/s),
 * else B/s.
 */
void units_format_rate(struct strbuf *sb, uint64_t bps);

/* Writes @bytes as parse_size() reads it: "1T", "512M", "4097". */
void units_format_size(struct strbuf *sb, uint64_t bytes);

/* Writes @v / 10^@places as a plain decimal without trailing zeros. */
void units_format_decimal(struct strbuf *sb, uint64_t v, unsigned places);

/* floor(@len * 10^9 / @bps), saturated at UINT64_MAX; 0 when @bps is 0. */
uint64_t units_transfer_ns(uint64_t len, uint64_t bps);

#endif
