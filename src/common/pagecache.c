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
