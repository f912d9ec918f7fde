// SPDX-License-Identifier: MIT
#include "pagecache.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cachestat_range_uapi {
	uint64_t off;
	uint64_t len;
};

int pagecache_stat(int fd, uint64_t off, uint64_t len,
		   struct pagecache_stat *st)
{
	struct cachestat_range_uapi range = { off, len };

	memset(st, 0, sizeof(*st));
	if (syscall(__NR_cachestat, fd, &range, st, 0) < 0)
		return -errno;
	return 0;
}

size_t pagecache_read_max(void)
{
	static size_t max;

	if (!max) {
		long page = sysconf(_SC_PAGESIZE);

		max = PAGECACHE_READ_PAGES * (size_t)(page > 0 ? page : 4096);
	}
	return max;
}
