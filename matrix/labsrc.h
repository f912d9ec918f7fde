/* SPDX-License-Identifier: MIT */
/*
 * The sources of lab kernels: Debian's linux-source-VERSION, installed in
 * /usr/src or fetched into the cache (debs/linux-source-VERSION.tar.xz)
 * for kernel/build.sh to unpack.
 */
#ifndef TESTFS_MATRIX_LABSRC_H
#define TESTFS_MATRIX_LABSRC_H

#include <stddef.h>

/*
 * Makes linux-source-@ver's tarball available to kernel/build.sh: 0 when
 * /usr/src or the cache has it, else it is fetched into the cache. -errno
 * with the reason in @why (no such package, the fetch failed).
 */
int lab_fetch_source(const char *ver, char *why, size_t whylen);

#endif
