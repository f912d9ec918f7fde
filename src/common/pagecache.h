/* SPDX-License-Identifier: MIT */
/*
 * Page-cache probes shared by the daemon (drop-cache verification) and the
 * tests: cachestat(2), which Debian 12's headers do not declare yet.
 */
#ifndef TESTFS_PAGECACHE_H
#define TESTFS_PAGECACHE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The largest FUSE_READ the kernel sends: 256 of its pages
 * (FUSE_MAX_MAX_PAGES; libfuse's buffer and max_write are 256 pages of
 * getpagesize()): 1 MiB with 4 KiB pages, 4 MiB with 16 KiB, 16 MiB with
 * 64 KiB. A reply cut shorter than its request is a short read to the
 * kernel, which then takes the file to end there (fuse_short_read()).
 */
#define PAGECACHE_READ_PAGES 256u
size_t pagecache_read_max(void);

struct pagecache_stat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/*
 * Counts the cached pages of @fd in [@off, @off + @len); @len 0 means to the
 * end of the file. Returns 0 or a negative errno (-ENOSYS before Linux 6.5).
 */
int pagecache_stat(int fd, uint64_t off, uint64_t len,
		   struct pagecache_stat *st);

#endif
