// SPDX-License-Identifier: MIT
/*
 * ra-split: map a whole file privately, make every other SEGMENT pages
 * writable with mprotect(2) so the one mapping becomes many VMAs, then
 * touch one byte of each page in order.
 *
 *   cc -O2 ra-split.c -o ra-split     (cachestat.h beside it)
 *   ./ra-split FILE SEGMENT_PAGES
 *
 * It prints how many VMAs /proc/self/maps shows for the mapping and how
 * many pages of the file cachestat(2) finds in the page cache afterwards.
 * What readahead did at each VMA boundary is in the testfs log.
 *
 * Exit status: 0 done, 1 a system call failed, 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cachestat.h"

/* VMAs of this process that lie inside [start, end). */
static int count_vmas(uintptr_t start, uintptr_t end)
{
	unsigned long lo, hi;
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo >= start &&
		    hi <= end)
			n++;
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	uint64_t seg, pages, i;
	volatile const char *p;
	long long cached;
	struct stat st;
	char *map, *end;
	int fd, vmas;

	if (argc != 3)
		goto usage;
	errno = 0;
	seg = strtoull(argv[2], &end, 10);
	if (errno || *end || end == argv[2] || seg == 0)
		goto usage;

	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	pages = (uint64_t)st.st_size / PAGE;
	if (pages < 2 * seg) {
		fprintf(stderr,
			"ra-split: the file has %llu pages, fewer than "
			"two segments\n",
			(unsigned long long)pages);
		return 2;
	}
	/* Private, so a read-only file may still be mapped writable. */
	map = mmap(NULL, pages * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = seg; i + seg <= pages; i += 2 * seg)
		if (mprotect(map + i * PAGE, seg * PAGE,
			     PROT_READ | PROT_WRITE) != 0) {
			perror("mprotect");
			return 1;
		}
	vmas = count_vmas((uintptr_t)map, (uintptr_t)(map + pages * PAGE));

	p = map;
	for (i = 0; i < pages; i++)
		(void)p[i * PAGE];

	cached = cached_pages(fd, 0, pages);
	if (cached < 0) {
		perror("cachestat");
		return 1;
	}
	printf("%d VMAs of %llu pages over %llu pages, touched each\n", vmas,
	       (unsigned long long)seg, (unsigned long long)pages);
	printf("cached: %lld of %llu pages\n", cached,
	       (unsigned long long)pages);
	munmap(map, pages * PAGE);
	close(fd);
	return 0;
usage:
	fprintf(stderr, "usage: ra-split FILE SEGMENT_PAGES\n");
	return 2;
}
