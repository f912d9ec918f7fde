// SPDX-License-Identifier: MIT
/*
 * ra-slice: map pages [FIRST, FIRST + NPAGES) of a file, touch one byte of
 * each page in order, and count with cachestat(2) how many pages of the
 * file are in the page cache before, inside and after the mapping.
 *
 *   cc -O2 ra-slice.c -o ra-slice     (cachestat.h beside it)
 *   ./ra-slice FILE FIRST NPAGES [plain|exec|random|sequential|willneed]
 *
 * plain maps PROT_READ; exec maps PROT_READ | PROT_EXEC; random and
 * sequential call madvise(MADV_RANDOM / MADV_SEQUENTIAL) before touching;
 * willneed calls madvise(MADV_WILLNEED) and touches nothing.
 *
 * Only system calls, so a reader sees every step. cachestat(2) counts the
 * pages the kernel put in the cache, including those whose read is still
 * in flight: readahead inserts its pages before it sends the reads, in the
 * task that faulted, so the count does not depend on how fast the device
 * answers. Start from a cold cache (a fresh testfs mount, or
 * "drop-cache NAME" written to .testfs/ctl).
 *
 * Exit status: 0 done, 1 a system call failed, 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cachestat.h"

static int parse(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: ra-slice FILE FIRST NPAGES "
			"[plain|exec|random|sequential|willneed]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 4 ? argv[4] : "plain";
	uint64_t first, n, pages, i;
	long long before, inside, after;
	int prot = PROT_READ, advice = -1, fd;
	volatile const char *p;
	struct stat st;
	char *map;

	if (argc < 4 || argc > 5 || parse(argv[2], &first) ||
	    parse(argv[3], &n) || n == 0)
		return usage();
	if (!strcmp(mode, "exec"))
		prot |= PROT_EXEC;
	else if (!strcmp(mode, "random"))
		advice = MADV_RANDOM;
	else if (!strcmp(mode, "sequential"))
		advice = MADV_SEQUENTIAL;
	else if (!strcmp(mode, "willneed"))
		advice = MADV_WILLNEED;
	else if (strcmp(mode, "plain"))
		return usage();

	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	pages = ((uint64_t)st.st_size + PAGE - 1) / PAGE;
	if (first >= pages || n > pages - first) {
		fprintf(stderr,
			"ra-slice: pages [%llu, %llu] are past the end "
			"of the file (%llu pages)\n",
			(unsigned long long)first,
			(unsigned long long)(first + n - 1),
			(unsigned long long)pages);
		return 2;
	}
	map = mmap(NULL, n * PAGE, prot, MAP_SHARED, fd, first * PAGE);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (advice >= 0 && madvise(map, n * PAGE, advice) != 0) {
		perror("madvise");
		return 1;
	}
	/* One byte per page, in order: each access may fault. */
	p = map;
	if (advice != MADV_WILLNEED)
		for (i = 0; i < n; i++)
			(void)p[i * PAGE];

	before = cached_pages(fd, 0, first);
	inside = cached_pages(fd, first, n);
	after = cached_pages(fd, first + n, pages - first - n);
	if (before < 0 || inside < 0 || after < 0) {
		perror("cachestat");
		return 1;
	}
	printf("mapped pages [%llu, %llu] (%s), %s\n",
	       (unsigned long long)first, (unsigned long long)(first + n - 1),
	       mode, advice == MADV_WILLNEED ? "touched none" : "touched each");
	printf("cached: %lld before the mapping, %lld inside, %lld after it\n",
	       before, inside, after);
	munmap(map, n * PAGE);
	close(fd);
	return 0;
}
