// SPDX-License-Identifier: MIT
/*
 * The readahead model (scenario/core/ra_model.c) against examples worked out by
 * hand from mm/filemap.c, mm/readahead.c and the lab kernels' fault_ra_limit()
 * (kernel/vma-limit*): each expectation has its arithmetic beside it. All
 * examples use a 4096-page file and ra_pages 32 (read_ahead_kb 128), so a
 * read-around is 32 pages from fault - 16 with async_size 8 (marker at
 * start + 24), and every async window after it is 32 pages with its marker
 * on its first page (next_ra_size(32, 32) = 32, async_size = size).
 */
#include <criterion/criterion.h>

#include <stdint.h>

#include "ra_model.h"

#define FILE_PAGES 4096
#define RA 32

/* The model after touching every page of [@first, @last] in order. */
static void touch_vma(struct ra_model *m, enum ra_policy p, uint64_t first,
		      uint64_t last)
{
	uint64_t page;

	cr_assert_eq(ra_model_init(m, FILE_PAGES, RA, 256, p), 0);
	for (page = first; page <= last; page++)
		ra_model_fault(m, page, first, last);
}

static uint64_t cached_in(const struct ra_model *m, uint64_t first,
			  uint64_t last)
{
	uint64_t p, n = 0;

	for (p = first; p <= last; p++)
		n += ra_model_cached(m, p);
	return n;
}

/* Pages cached before @first and after @last. */
static void outside(const struct ra_model *m, uint64_t first, uint64_t last,
		    uint64_t *before, uint64_t *after)
{
	*before = first ? cached_in(m, 0, first - 1) : 0;
	*after = cached_in(m, last + 1, FILE_PAGES - 1);
}

/*
 * VMA [1024, 2047], as kernel/check.sh maps it.
 * Current: read-around at 1024 reads [1008, 1039] (16 before), marker
 * 1032; fault 1032 starts [1040, 1071], then windows at 1040 + 32k; the
 * marker 2032 (k = 31) starts [2064, 2095]: 2095 - 2047 = 48 after.
 */
Test(ra_model, vma_boundary_current)
{
	struct ra_model m;
	uint64_t b, a;

	touch_vma(&m, RA_POLICY_CURRENT, 1024, 2047);
	outside(&m, 1024, 2047, &b, &a);
	cr_expect_eq(b, 16, "before: %llu", (unsigned long long)b);
	cr_expect_eq(a, 48, "after: %llu", (unsigned long long)a);
	cr_expect_eq(m.windows[0].first, 1008);
	/* 1 read-around + async windows at 1040..2064: 1 + 33 */
	cr_expect_eq(m.nwindows, 34, "windows: %zu", m.nwindows);
	cr_expect_eq(m.major_faults, 1);
	ra_model_free(&m);
}

/*
 * Unconditional limit: read-around starts at max(1008, 1024) = 1024,
 * [1024, 1055], marker 1048; windows at 1056 + 32k; the marker 2016
 * (k = 30) would start 2048 > max_index 2047: nothing. 0 before, 0 after.
 */
Test(ra_model, vma_boundary_limited)
{
	struct ra_model m;
	uint64_t b, a;

	touch_vma(&m, RA_POLICY_VMA_LIMITED, 1024, 2047);
	outside(&m, 1024, 2047, &b, &a);
	cr_expect_eq(b, 0, "before: %llu", (unsigned long long)b);
	cr_expect_eq(a, 0, "after: %llu", (unsigned long long)a);
	cr_expect_eq(cached_in(&m, 1024, 2047), 1024);
	cr_expect_eq(m.windows[m.nwindows - 1].pages, 0);
	ra_model_free(&m);
}

/*
 * Conditional limit: the same windows as the unconditional one up to the
 * marker 2016, but 2048 - 2016 = 32 is not < ra_pages 32, so that fault is
 * not limited and reads [2048, 2079]: 0 before, 32 after (kernel/README.md
 * measures the same on lab:6.12+vma-limit-conditional).
 */
Test(ra_model, vma_boundary_conditional)
{
	struct ra_model m;
	uint64_t b, a;

	touch_vma(&m, RA_POLICY_VMA_CONDITIONAL, 1024, 2047);
	outside(&m, 1024, 2047, &b, &a);
	cr_expect_eq(b, 0, "before: %llu", (unsigned long long)b);
	cr_expect_eq(a, 32, "after: %llu", (unsigned long long)a);
	cr_expect_eq(m.windows[m.nwindows - 1].first, 2048);
	cr_expect_eq(m.windows[m.nwindows - 1].pages, 32);
	ra_model_free(&m);
}

/*
 * A VMA end off the window grid, [1000, 1999], where the condition bites.
 * Conditional: read-around [1000, 1031] (start clamped from 984), marker
 * 1024; windows at 1032 + 32k. Marker 1960 (k = 29): 2000 - 1960 = 40 >= 32,
 * not limited: [1992, 2023], 24 pages past 1999. Marker 1992: 2000 - 1992
 * = 8 < 32, limited to 1999: the window at 2024 reads nothing.
 * Unconditional: the fault at 1960 is limited too: [1992, 1999] only (8
 * pages, async_size 32 > 8, so no marker): 0 after.
 * Current: read-around [984, 1015] (16 before), marker 1008; windows at
 * 1016 + 32k; marker 1976 (k = 30) reads [2008, 2039]: 40 after.
 */
Test(ra_model, conditional_off_grid)
{
	static const struct {
		enum ra_policy p;
		uint64_t before, after;
	} want[] = {
		{ RA_POLICY_CURRENT, 16, 40 },
		{ RA_POLICY_VMA_LIMITED, 0, 0 },
		{ RA_POLICY_VMA_CONDITIONAL, 0, 24 },
	};
	struct ra_model m;
	uint64_t b, a;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		touch_vma(&m, want[i].p, 1000, 1999);
		outside(&m, 1000, 1999, &b, &a);
		cr_expect_eq(b, want[i].before, "%s: before %llu, want %llu",
			     ra_policy_name(want[i].p), (unsigned long long)b,
			     (unsigned long long)want[i].before);
		cr_expect_eq(a, want[i].after, "%s: after %llu, want %llu",
			     ra_policy_name(want[i].p), (unsigned long long)a,
			     (unsigned long long)want[i].after);
		ra_model_free(&m);
	}
}

/*
 * mprotect-split: the file as four VMAs of 1024 pages, touched in order.
 * Current and conditional: read-around [0, 31] (start max(0, -16)),
 * marker 24, windows at 32k; the marker 992 = 1024 - 32 is not limited
 * under either (1024 - 992 = 32 is not < 32), so [1024, 1055] is read
 * ahead of the boundary: no VMA starts with a missing page, 1 major fault.
 * Unconditional: the window after marker 992 starts at 1024 > 1023 and
 * reads nothing, so pages 1024, 2048 and 3072 fault: 3 missing, 4 major.
 */
Test(ra_model, mprotect_split)
{
	static const struct {
		enum ra_policy p;
		uint64_t missing, faults;
	} want[] = {
		{ RA_POLICY_CURRENT, 0, 1 },
		{ RA_POLICY_VMA_LIMITED, 3, 4 },
		{ RA_POLICY_VMA_CONDITIONAL, 0, 1 },
	};
	struct ra_model m;
	uint64_t page, missing;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_eq(ra_model_init(&m, FILE_PAGES, RA, 256, want[i].p),
			     0);
		missing = 0;
		for (page = 0; page < FILE_PAGES; page++) {
			uint64_t first = page / 1024 * 1024;

			if (ra_model_fault(&m, page, first, first + 1023) &&
			    page == first && page)
				missing++;
		}
		cr_expect_eq(missing, want[i].missing, "%s: %llu missing",
			     ra_policy_name(want[i].p),
			     (unsigned long long)missing);
		cr_expect_eq(m.major_faults, want[i].faults,
			     "%s: %llu major faults", ra_policy_name(want[i].p),
			     (unsigned long long)m.major_faults);
		cr_expect_eq(cached_in(&m, 0, FILE_PAGES - 1), FILE_PAGES);
		ra_model_free(&m);
	}
}

/* kernel/build.sh: LOCALVERSION "-lab" (guest.config) + "+SERIES". */
Test(ra_model, policy_of_release)
{
	cr_expect_eq(ra_policy_of_release("6.12.57-lab"), RA_POLICY_CURRENT);
	cr_expect_eq(ra_policy_of_release("6.12.57-lab+vma-limit"),
		     RA_POLICY_VMA_LIMITED);
	cr_expect_eq(ra_policy_of_release("6.12.57-lab+vma-limit-conditional"),
		     RA_POLICY_VMA_CONDITIONAL);
	cr_expect_eq(ra_policy_of_release("6.12.117+deb12-amd64"), -1);
	cr_expect_eq(ra_policy_of_release("6.18.0"), -1);
	cr_expect_eq(ra_policy_of_release("6.12.57-lab+other"), -1);
	cr_expect_eq(ra_policy_of_release(""), -1);
	cr_expect_eq(ra_policy_of_release(NULL), -1);
}
