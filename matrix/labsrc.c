// SPDX-License-Identifier: MIT
/*
 * labsrc: Debian's linux-source-VERSION for kernel/build.sh.
 */
#include "labsrc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "kernel.h"

int lab_fetch_source(const char *ver, char *why, size_t whylen)
{
	char root[PATH_MAX - 64], p[PATH_MAX];

	snprintf(p, sizeof(p), "/usr/src/linux-source-%s.tar.xz", ver);
	if (access(p, R_OK) == 0)
		return 0;
	cache_root(root, sizeof(root));
	snprintf(p, sizeof(p), "%s/debs/linux-source-%s.tar.xz", root, ver);
	if (access(p, R_OK) == 0)
		return 0;
	snprintf(why, whylen, "linux-source-%s is not fetched (%s)", ver, p);
	return -ENOENT;
}
