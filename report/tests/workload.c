// SPDX-License-Identifier: MIT
/*
 * The report test's access pattern on a testfs mount: map pages
 * [FIRST, FIRST + N) of one file and fault each page in order (the
 * vma-boundary story), or read(2) a whole file in 4 KiB blocks (the
 * sequential ramp). Usage: workload mmap FILE FIRST N | workload read FILE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096ul

static int touch_slice(const char *path, unsigned long first, unsigned long n)
{
	volatile const unsigned char *p;
	unsigned long i, sum = 0;
	void *map;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	map = mmap(NULL, n * PAGE, PROT_READ, MAP_SHARED, fd,
		   (off_t)(first * PAGE));
	close(fd);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	p = map;
	for (i = 0; i < n; i++)
		sum += p[i * PAGE];
	munmap(map, n * PAGE);
	printf("touched %lu pages (sum %lu)\n", n, sum);
	return 0;
}

static int read_all(const char *path)
{
	static char buf[PAGE];
	unsigned long blocks = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		blocks++;
	if (got < 0)
		perror("read");
	close(fd);
	printf("read %lu blocks\n", blocks);
	return got < 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "mmap") == 0)
		return touch_slice(argv[2], strtoul(argv[3], NULL, 10),
				   strtoul(argv[4], NULL, 10));
	if (argc == 3 && strcmp(argv[1], "read") == 0)
		return read_all(argv[2]);
	fprintf(stderr, "usage: workload mmap FILE FIRST N | read FILE\n");
	return 2;
}
