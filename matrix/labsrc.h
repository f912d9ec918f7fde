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

/* The source packages of every line, for apt_search() */
#define LAB_SOURCE_REGEX "^linux-source-[0-9]+\\.[0-9]+$"

/*
 * debian:latest as a lab --source: the newest line any suite has a
 * linux-source package of ("7.3") into @line. 0, or -errno with the
 * reason (the indexes cannot be read, no source package at all).
 */
int lab_latest_source(char *line, size_t len, char *why, size_t whylen);

#endif
