// SPDX-License-Identifier: MIT
/*
 * mprotect_split: does readahead keep up across VMA boundaries? Maps a
 * file whole, mprotects every other 4 MiB segment read-write (so the
 * mapping becomes many VMAs), touches one byte per page in order, and
 * reports the requests that were not full readahead windows and the
 * time it took.
 *
 *   cc mprotect_split.c $(pkg-config --cflags --libs testfs) -o mprotect_split
 *   ./mprotect_split [RA_KB]
 *
 * Exit status: 0 when every request after the first was a full window,
 * 1 when some were not (readahead stalled at a boundary), 2 on errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <testfs.h>

#define FILE_PAGES 16384u /* 64 MiB: 16 VMAs of 4 MiB */
#define VMA_PAGES 1024u

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	static const char *const files[] = { "big.bin:64M", NULL };
	struct testfs_config cfg = { .files = files };
	uint64_t ra_pages, nreq = 0, partial = 0;
	struct testfs_log *log = NULL;
	struct testfs_map map;
	struct testfs_mount *fs;
	double t0, t1;
	int ret, nvma;
	size_t i;

	cfg.ra_kb = argc > 1 ? (unsigned)atoi(argv[1]) : 128;
	ra_pages = cfg.ra_kb / 4;
	ret = testfs_start(&cfg, &fs);
	if (ret) {
		fprintf(stderr, "testfs_start: %s\n", strerror(-ret));
		return 2;
	}
	ret = testfs_cold(fs, "big.bin");
	/* MAP_PRIVATE so that PROT_WRITE is allowed on a read-only file. */
	if (!ret)
		ret = testfs_map(fs, "big.bin", 0, FILE_PAGES, PROT_READ,
				 MAP_PRIVATE, &map);
	if (ret) {
		fprintf(stderr, "mprotect_split: %s\n", strerror(-ret));
		testfs_stop(fs);
		return 2;
	}
	nvma = testfs_split(&map, VMA_PAGES, PROT_READ, PROT_READ | PROT_WRITE);
	t0 = now_ms();
	testfs_touch(&map, TESTFS_ORDER_FORWARD, 0, NULL);
	t1 = now_ms();
	testfs_unmap(&map);
	ret = testfs_log_snapshot(fs, &log);
	if (ret) {
		fprintf(stderr, "snapshot: %s\n", strerror(-ret));
		testfs_stop(fs);
		return 2;
	}
	for (i = 0; i < testfs_log_count(log); i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind != TESTFS_RECORD_READ)
			continue;
		/* The first request is the read-around of the first fault. */
		if (nreq++ && r->pages != ra_pages) {
			partial++;
			printf("short window: pages [%llu, %llu]\n",
			       (unsigned long long)r->page,
			       (unsigned long long)(r->page + r->pages - 1));
		}
	}
	printf("%d VMAs, read_ahead_kb %u: %llu requests, %llu not full windows, touched in %.1f ms\n",
	       nvma, cfg.ra_kb, (unsigned long long)nreq,
	       (unsigned long long)partial, t1 - t0);
	testfs_log_free(log);
	testfs_stop(fs);
	return partial ? 1 : 0;
}
