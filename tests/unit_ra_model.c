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

/*
 * The first windows of read(2) of @block pages over a 1024-page file
 * (ra_pages @ra, FUSE max_pages 256) on a kernel of @release with pages of
 * @page_size bytes; whether io_pages is FUSE's max_pages in @fuse.
 */
static void read_blocks(struct ra_model *m, uint32_t ra, uint32_t page_size,
			const char *release, uint32_t block, bool *fuse)
{
	cr_assert_eq(ra_model_init(m, 1024, ra, 256, RA_POLICY_CURRENT), 0);
	ra_model_set_page_size(m, page_size);
	*fuse = ra_model_set_release(m, release);
	ra_model_read(m, 0, 1024, block);
}

/*
 * The first @n windows are [i * @size, (i + 1) * @size), the rest (the
 * last marker's window, past the end of the file) read nothing.
 */
static void expect_windows(const struct ra_model *m, uint32_t size, size_t n)
{
	size_t i;

	cr_expect_geq(m->nwindows, n, "windows: %zu", m->nwindows);
	for (i = n; i < m->nwindows; i++)
		cr_expect_eq(m->windows[i].pages, 0, "window %zu: %llu pages",
			     i, (unsigned long long)m->windows[i].pages);
	for (i = 0; i < m->nwindows && i < n; i++) {
		cr_expect_eq(m->windows[i].first, i * size, "window %zu: %llu",
			     i, (unsigned long long)m->windows[i].first);
		cr_expect_eq(m->windows[i].pages, size, "window %zu: %llu", i,
			     (unsigned long long)m->windows[i].pages);
	}
}

/*
 * 1 MiB read(2) (256 pages of 4 KiB), ra_pages 32. Before 7.3 io_pages is
 * 128 KiB = 32 pages, not above ra_pages, so max_pages = 32:
 * get_init_ra_size(256, 32) = 32, async_size 32 >> 1 = 16; the marker
 * 16 starts (32, next_ra_size(32, 32) = 32), and so on: 32 windows of 32.
 * On 7.3 io_pages = FUSE's max_pages 256: max_pages = min(256, 256) =
 * 256, the first window (0, 256), async_size 128; the marker 128 with
 * 128 pages left: max_pages min(128, 256) = 128, start 256, size
 * max(256, next_ra_size(256, 128) = 128) = 256, marker 256; each next
 * read(2) hits it with 256 left: 4 windows of 256.
 */
Test(ra_model, fuse_io_pages_4k)
{
	struct ra_model m;
	bool fuse;

	read_blocks(&m, 32, 4096, "7.2.13+deb14-amd64", 256, &fuse);
	cr_expect(!fuse);
	cr_expect_eq(m.io_pages, 32);
	expect_windows(&m, 32, 32);
	ra_model_free(&m);

	read_blocks(&m, 32, 4096, "7.3.4+deb13-amd64", 256, &fuse);
	cr_expect(fuse);
	cr_expect_eq(m.io_pages, 256);
	expect_windows(&m, 256, 4);
	cr_expect_eq(ra_model_requests(&m), 4);
	ra_model_free(&m);

	/* 4 KiB read(2)s never ask for more than ra_pages: the ramp */
	read_blocks(&m, 32, 4096, "7.3.4+deb13-amd64", 1, &fuse);
	cr_expect_eq(m.windows[0].pages, 4);
	cr_expect_eq(m.windows[1].pages, 8);
	cr_expect_eq(m.windows[3].pages, 32);
	ra_model_free(&m);
}

/*
 * 16 KiB pages: ra_pages 8 (128 KiB), a 1 MiB read(2) is 64 pages. Before
 * 7.3 io_pages is 8: windows of 8. On 7.3 max_pages = min(64, 256) = 64:
 * (0, 64) with async_size 32; the marker 32 with 32 left: max_pages 32,
 * start 64, size max(64, next_ra_size(64, 32) = 32) = 64: 16 windows of
 * 64 pages (1 MiB each).
 */
Test(ra_model, fuse_io_pages_16k)
{
	struct ra_model m;
	bool fuse;

	read_blocks(&m, 8, 16384, "6.12.118+deb13-arm64-16k", 64, &fuse);
	cr_expect(!fuse);
	expect_windows(&m, 8, 128);
	ra_model_free(&m);

	read_blocks(&m, 8, 16384, "7.3.4+deb13-arm64-16k", 64, &fuse);
	cr_expect(fuse);
	expect_windows(&m, 64, 16);
	ra_model_free(&m);
}

/*
 * 16 KiB read(2)s at ra_pages 8: get_init_ra_size(1, 8) = 2, marker 1;
 * the async window starts at 2 with next_ra_size(2, 8) = 4 pages. 6.16
 * and later round its end 6 down to 4: (2, 2), then (4, 4), (8, 8);
 * 6.12 does not: (2, 4), (6, 8), as measured on Debian's 6.12.118 and
 * 7.3.4 arm64-16k.
 */
Test(ra_model, async_rounding_by_release)
{
	static const uint64_t rounded[][2] = {
		{ 0, 2 }, { 2, 2 }, { 4, 4 }, { 8, 8 }, { 16, 8 }
	};
	static const uint64_t unrounded[][2] = {
		{ 0, 2 }, { 2, 4 }, { 6, 8 }, { 14, 8 }, { 22, 8 }
	};
	struct ra_model m;
	bool fuse;
	size_t i;

	read_blocks(&m, 8, 16384, "7.3.4+deb13-arm64-16k", 1, &fuse);
	cr_expect(!m.unaligned_async);
	for (i = 0; i < 5; i++) {
		cr_expect_eq(m.windows[i].first, rounded[i][0]);
		cr_expect_eq(m.windows[i].pages, rounded[i][1]);
	}
	ra_model_free(&m);
	read_blocks(&m, 8, 16384, "6.12.118+deb13-arm64-16k", 1, &fuse);
	cr_expect(m.unaligned_async);
	for (i = 0; i < 5; i++) {
		cr_expect_eq(m.windows[i].first, unrounded[i][0]);
		cr_expect_eq(m.windows[i].pages, unrounded[i][1]);
	}
	ra_model_free(&m);
	/* A release without a version leaves the default (6.18) */
	read_blocks(&m, 8, 16384, "", 1, &fuse);
	cr_expect(!m.unaligned_async);
	ra_model_free(&m);
}

Test(ra_model, release_at_least)
{
	cr_expect(ra_release_at_least("6.18.15+deb13-amd64", 6, 17));
	cr_expect(ra_release_at_least("7.0.13+deb13-amd64", 6, 17));
	cr_expect(!ra_release_at_least("6.16.12+deb13-amd64", 6, 17));
	cr_expect(!ra_release_at_least("6.9.0", 6, 17));
	cr_expect(ra_release_at_least("7.3.0-lab+vma-limit", 7, 3));
	cr_expect(!ra_release_at_least("7.2.13+deb14-amd64", 7, 3));
	cr_expect(!ra_release_at_least("", 6, 0));
	cr_expect(!ra_release_at_least(NULL, 6, 0));
	cr_expect(!ra_release_at_least("lab", 6, 0));
	cr_expect(!ra_fuse_io_pages_of_release("6.18.44-fc-v1045"));
	cr_expect(ra_fuse_io_pages_of_release("8.0.1"));
}
