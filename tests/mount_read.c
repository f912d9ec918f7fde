// SPDX-License-Identifier: MIT
/*
 * The read log is exact: for every access pattern, the pages the log says
 * were fetched are the pages the page cache holds (mincore), no page is
 * fetched twice, nothing is lost, and the data is what the file holds.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <testfs/pattern.h>

#include "mount_harness.h"

#define PAGE 4096u
#define BIG_PAGES 16384u /* big.bin: 64 MiB */

static struct tfs_mount mnt;

static void start_big(void)
{
	static const char *const args[] = { "--file",  "big.bin:64M",
					    "--file",  "z.bin:1M:zero",
					    "--ra-kb", "1024",
					    NULL };

	harness_start(&mnt, args);
}

static void stop(void)
{
	harness_stop_checked(&mnt);
}

static void cold(const char *name)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "drop-cache %s", name);
	cr_assert_eq(harness_ctl(&mnt, cmd), 0, "%s failed", cmd);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
}

static int open_big(void)
{
	int fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "open: %s", strerror(errno));
	return fd;
}

static void verify(const char *name, uint64_t off, const void *buf, size_t len)
{
	uint64_t bad = 0;
	int ret = testfs_verify("stamp", name, off, buf, len, &bad);

	cr_assert_eq(ret, 0, "%s: data differs at offset %llu", name,
		     (unsigned long long)bad);
}

TestSuite(read, .init = start_big, .fini = stop, .timeout = 60);

Test(read, sequential_read_whole_file)
{
	char *buf = malloc(PAGE);
	size_t fetched;
	uint64_t off;
	int fd;

	cold("big.bin");
	fd = open_big();
	for (off = 0; off < 16ull << 20; off += PAGE) {
		cr_assert_eq(pread(fd, buf, PAGE, (off_t)off), PAGE);
		verify("big.bin", off, buf, PAGE);
	}
	close(fd);
	fetched = harness_assert_log_matches_cache(&mnt, "big.bin", BIG_PAGES);
	/* Every page read must have been fetched (nothing was cached). */
	cr_assert_geq(fetched, 4096, "only %zu pages fetched", fetched);
	free(buf);
}

Test(read, pread_middle_partial)
{
	char *buf = malloc(1 << 20);
	int fd;

	cold("big.bin");
	fd = open_big();
	cr_assert_eq(pread(fd, buf, 1 << 20, 7 << 20), 1 << 20);
	verify("big.bin", 7 << 20, buf, 1 << 20);
	close(fd);
	harness_assert_log_matches_cache(&mnt, "big.bin", BIG_PAGES);
	free(buf);
}

Test(read, mmap_slice)
{
	volatile char sink;
	char *map;
	size_t i;
	int fd;

	cold("big.bin");
	fd = open_big();
	map = mmap(NULL, 1024 * PAGE, PROT_READ, MAP_SHARED, fd,
		   1024 * (off_t)PAGE);
	cr_assert_neq(map, MAP_FAILED);
	for (i = 0; i < 1024; i++) {
		sink = map[i * PAGE];
		verify("big.bin", (1024 + i) * (uint64_t)PAGE, map + i * PAGE,
		       PAGE);
	}
	(void)sink;
	munmap(map, 1024 * PAGE);
	close(fd);
	harness_assert_log_matches_cache(&mnt, "big.bin", BIG_PAGES);
}

Test(read, mprotect_split_mapping)
{
	size_t seg = 256, nseg = 16, i;
	volatile char sink;
	char *map;
	int fd;

	cold("big.bin");
	fd = open_big();
	map = mmap(NULL, seg * nseg * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	for (i = 1; i < nseg; i += 2)
		cr_assert_eq(mprotect(map + i * seg * PAGE, seg * PAGE,
				      PROT_READ | PROT_WRITE),
			     0);
	for (i = 0; i < seg * nseg; i++)
		sink = map[i * PAGE];
	(void)sink;
	munmap(map, seg * nseg * PAGE);
	close(fd);
	harness_assert_log_matches_cache(&mnt, "big.bin", BIG_PAGES);
}

Test(read, random_touches_madv_random)
{
	volatile char sink;
	unsigned seed = 12345;
	char *map;
	size_t i, touched = 0;
	int fd;

	cold("big.bin");
	fd = open_big();
	map = mmap(NULL, (size_t)BIG_PAGES * PAGE, PROT_READ, MAP_SHARED, fd,
		   0);
	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(madvise(map, (size_t)BIG_PAGES * PAGE, MADV_RANDOM), 0);
	for (i = 0; i < 300; i++) {
		size_t p = rand_r(&seed) % BIG_PAGES;

		sink = map[p * PAGE];
		touched++;
	}
	(void)sink;
	munmap(map, (size_t)BIG_PAGES * PAGE);
	close(fd);
	cr_assert_leq(
		harness_assert_log_matches_cache(&mnt, "big.bin", BIG_PAGES),
		touched, "MADV_RANDOM fetched more pages than touched");
}

Test(read, fadvise_and_readahead_syscall)
{
	char buf[PAGE];
	int fd;

	cold("big.bin");
	fd = open_big();
	cr_assert_eq(
		posix_fadvise(fd, 100 * PAGE, 64 * PAGE, POSIX_FADV_WILLNEED),
		0);
	cr_assert_eq(readahead(fd, 4000 * (off64_t)PAGE, 32 * PAGE), 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_eq(pread(fd, buf, PAGE, 9000 * (off_t)PAGE), PAGE);
	verify("big.bin", 9000 * (uint64_t)PAGE, buf, PAGE);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL), 0);
	cr_assert_eq(pread(fd, buf, PAGE, 12000 * (off_t)PAGE), PAGE);
	close(fd);
	harness_assert_log_matches_cache(&mnt, "big.bin", BIG_PAGES);
}

/*
 * With read_ahead_kb 1024 the window grows to 256 pages and, with
 * max_pages 256, each window arrives as one 1 MiB FUSE_READ
 * (measured on 6.18: (0,4) (4,16) (20,32) (52,64) (116,128) (244,256)
 * (500,256) ... for 4 KiB reads from offset 0).
 */
Test(read, ra_1024_sends_256_page_requests)
{
	char *buf = malloc(PAGE);
	struct tfs_log log;
	size_t i, full = 0;
	uint64_t off;
	int fd;

	cold("big.bin");
	fd = open_big();
	for (off = 0; off < 32ull << 20; off += PAGE)
		cr_assert_eq(pread(fd, buf, PAGE, (off_t)off), PAGE);
	close(fd);
	harness_settle(&mnt);
	harness_log(&mnt, &log);
	for (i = 0; i < log.count; i++) {
		uint32_t pages = log.recs[i].read.len / PAGE;

		cr_assert_leq(pages, 256, "request %zu has %u pages", i, pages);
		if (log.recs[i].read.off >= 500 * PAGE)
			cr_expect_eq(
				pages, 256,
				"request at page %llu has %u pages, expected full 256-page windows",
				(unsigned long long)(log.recs[i].read.off /
						     PAGE),
				pages);
		full += pages == 256;
	}
	cr_assert_geq(full, 28, "only %zu requests of 256 pages", full);
	harness_log_free(&log);
	free(buf);
}

Test(read, zero_pattern_and_eof)
{
	char buf[2 * PAGE];
	int fd;
	size_t i;

	cold("z.bin");
	fd = open(harness_path(&mnt, "z.bin"), O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, buf, sizeof(buf), (1 << 20) - PAGE), PAGE,
		     "a read across EOF returns the bytes up to EOF");
	for (i = 0; i < PAGE; i++)
		cr_assert_eq(buf[i], 0);
	cr_assert_eq(pread(fd, buf, sizeof(buf), 1 << 20), 0);
	close(fd);
	harness_assert_log_matches_cache(&mnt, "z.bin", 256);
}

/* Requests of at most --max-pages pages, however large the window. */
Test(maxpages, max_pages_32)
{
	static const char *const args[] = { "--file", "big.bin:64M", "--ra-kb",
					    "1024",   "--max-pages", "32",
					    NULL };
	char *buf = malloc(1 << 20);
	struct tfs_mount m;
	struct tfs_log log;
	size_t i, max = 0;
	int fd;

	harness_start(&m, args);
	fd = open(harness_path(&m, "big.bin"), O_RDONLY);
	cr_assert_geq(fd, 0);
	for (i = 0; i < 8; i++)
		cr_assert_eq(read(fd, buf, 1 << 20), 1 << 20);
	close(fd);
	harness_settle(&m);
	harness_log(&m, &log);
	for (i = 0; i < log.count; i++)
		if (log.recs[i].read.len / PAGE > max)
			max = log.recs[i].read.len / PAGE;
	harness_log_free(&log);
	harness_stop(&m);
	cr_assert_eq(max, 32, "largest request %zu pages, expected 32", max);
	free(buf);
}

/* Sizes up to 2^62 bytes cost no memory: read the last page of a 4 EiB file. */
Test(huge, last_page_of_a_4_eib_file, .timeout = 60)
{
	static const char *const args[] = { "--file", "huge.bin:4E", NULL };
	const uint64_t size = 1ull << 62;
	struct tfs_mount m;
	struct stat st;
	char buf[PAGE];
	int fd;

	harness_start(&m, args);
	cr_assert_eq(stat(harness_path(&m, "huge.bin"), &st), 0);
	cr_assert_eq((uint64_t)st.st_size, size);
	fd = open(harness_path(&m, "huge.bin"), O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_eq(pread(fd, buf, PAGE, (off_t)(size - PAGE)), PAGE);
	verify("huge.bin", size - PAGE, buf, PAGE);
	cr_assert_eq(pread(fd, buf, PAGE, (off_t)size), 0, "read at EOF");
	close(fd);
	harness_assert_log_matches_cache(&m, "huge.bin", 16);
	harness_stop(&m);
}
