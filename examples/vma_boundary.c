// SPDX-License-Identifier: MIT
/*
 * vma_boundary: does readahead fetch pages no one can reach through the
 * mapping? Maps the middle third of a file, touches every page in order,
 * and counts the pages the kernel fetched before and after the VMA.
 *
 *   cc vma_boundary.c $(pkg-config --cflags --libs testfs) -o vma_boundary
 *   ./vma_boundary [RA_KB [PROT_EXEC]]
 *
 * Exit status: 0 when no page was fetched outside the VMA, 1 when some
 * were (read-around and async readahead ignore VMA bounds on current
 * kernels, so 1 is the expected answer there), 2 when it could not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <testfs.h>

#define FILE_PAGES 3072u /* 12 MiB: the 1G/3G of the original test, scaled */

/* Which kernel decision fetched @page, if the daemon traced it. */
static void explain(const struct testfs_log *log, const char *what,
		    uint64_t page)
{
	const struct testfs_window *w;

	if (!testfs_log_traced(log))
		return;
	w = testfs_log_window_of(log, "seg.bin", page);
	if (!w) {
		printf("%s (%llu): not fetched\n", what,
		       (unsigned long long)page);
		return;
	}
	printf("%s (%llu): %s window [%llu, %llu], triggered at page %llu\n",
	       what, (unsigned long long)page, testfs_cause_name(w->cause),
	       (unsigned long long)w->start,
	       (unsigned long long)(w->start + w->size - 1),
	       (unsigned long long)w->trigger_page);
}

int main(int argc, char **argv)
{
	static const char *const files[] = { "seg.bin:12M", NULL };
	struct testfs_config cfg = { .files = files };
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	uint64_t first = FILE_PAGES / 3, npages = FILE_PAGES / 3;
	uint64_t before = 0, after = 0;
	int prot = PROT_READ, ret;
	struct testfs_log *log;
	struct testfs_map map;
	struct testfs_mount *fs;
	char text[256];

	cfg.ra_kb = argc > 1 ? (unsigned)atoi(argv[1]) : 128;
	if (argc > 2 && strcmp(argv[2], "PROT_EXEC") == 0)
		prot |= PROT_EXEC;

	/* The daemon runs in its own process; the mount is private. */
	ret = testfs_start(&cfg, &fs);
	if (ret) {
		fprintf(stderr, "testfs_start: %s\n", strerror(-ret));
		return 2;
	}
	/* Cold cache, empty log: only what follows is measured. */
	ret = testfs_cold(fs, "seg.bin");
	if (!ret)
		ret = testfs_map(fs, "seg.bin", first, npages, prot, MAP_SHARED,
				 &map);
	if (!ret) {
		ret = (int)testfs_touch(&map, TESTFS_ORDER_FORWARD, 0, NULL);
		testfs_unmap(&map);
	}
	/* The snapshot waits for in-flight async readahead first. */
	if (ret >= 0)
		ret = testfs_log_snapshot(fs, &log);
	if (ret < 0) {
		fprintf(stderr, "vma_boundary: %s\n", strerror(-ret));
		testfs_stop(fs);
		return 2;
	}
	testfs_log_outside(log, "seg.bin", first, first + npages - 1, &before,
			   &after);
	testfs_log_fetched(log, "seg.bin", &fetched);
	testfs_extents_format(&fetched, text, sizeof(text));
	printf("VMA [%llu, %llu]%s, read_ahead_kb %u: fetched %s\n",
	       (unsigned long long)first,
	       (unsigned long long)(first + npages - 1),
	       prot & PROT_EXEC ? " PROT_EXEC" : "", cfg.ra_kb, text);
	printf("%llu pages before the VMA, %llu after it\n",
	       (unsigned long long)before, (unsigned long long)after);
	/* Why (kernel correlation, as root): the windows at both ends. */
	explain(log, "first page", first);
	explain(log, "page after the end", first + npages);

	testfs_extents_free(&fetched);
	testfs_log_free(log);
	testfs_stop(fs);
	return before || after ? 1 : 0;
}
