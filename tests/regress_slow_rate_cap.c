// SPDX-License-Identifier: MIT
/*
 * Every delay testfs applies is capped at 1 h, the longest duration a
 * model may be given (UNITS_DURATION_MAX). Delays derived from a rate
 * were not: bw:1B/s made one 16 KiB read wait 16384 s (4.5 h), and the
 * channel's backlog let later reads wait longer still.
 */
#include <criterion/criterion.h>

#include <stdint.h>

#include "slow/latency.h"
#include "slow/units.h"

static struct latency_model *parse(const char *spec)
{
	struct latency_model *m = NULL;
	char err[256];
	int ret = latency_parse(spec, &m, err, sizeof(err));

	cr_assert_eq(ret, 0, "latency_parse(\"%s\") = %d: %s", spec, ret, err);
	return m;
}

static void expect_capped(const char *spec)
{
	struct latency_model *m = parse(spec);
	uint64_t now = 0, d;
	int i;

	/* Back-to-back reads: the channel's backlog grows with each. */
	for (i = 0; i < 8; i++) {
		d = latency_delay(m, now, (uint64_t)i * 16384, 16384);
		cr_expect_leq(d, UNITS_DURATION_MAX,
			      "%s: read %d waits %llu s, more than the 1 h cap",
			      spec, i, (unsigned long long)(d / 1000000000ull));
		now += 1000000000ull;
	}
	latency_free(m);
}

Test(rate_cap, bw_of_one_byte_per_second)
{
	expect_capped("bw:1B/s");
}

Test(rate_cap, device_with_a_tiny_bandwidth)
{
	expect_capped("nvme:bw=1B/s");
	expect_capped("hdd:bw=1B/s");
}

Test(rate_cap, ordinary_rates_are_not_affected)
{
	struct latency_model *m = parse("bw:1MB/s");

	/* 16384 B at 10^6 B/s: 16.384 ms, far below the cap. */
	cr_expect_eq(latency_delay(m, 0, 0, 16384), 16384000ull);
	latency_free(m);
}
