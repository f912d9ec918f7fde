/* SPDX-License-Identifier: MIT */
/*
 * cachestat(2) for the tutorial's programs (ra-slice.c, ra-split.c;
 * keep this file beside them): the Linux 6.5 ABI spelt out for older
 * headers, and the one question they ask of it.
 */
#ifndef RA_TUTORIAL_CACHESTAT_H
#define RA_TUTORIAL_CACHESTAT_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451 /* the same number on every architecture */
#endif

#define PAGE 4096ull

struct cachestat_range {
	uint64_t off;
	uint64_t len;
};

struct cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/*
 * Pages of @fd in the page cache among pages [first, first + n) (0 when
 * @n is 0), or -1 with errno set.
 */
static inline long long cached_pages(int fd, uint64_t first, uint64_t n)
{
	struct cachestat_range r = { first * PAGE, n * PAGE };
	struct cachestat cs;

	if (n == 0)
		return 0;
	if (syscall(__NR_cachestat, fd, &r, &cs, 0) != 0)
		return -1;
	return (long long)cs.nr_cache;
}

#endif
