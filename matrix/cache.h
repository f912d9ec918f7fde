/* SPDX-License-Identifier: MIT */
/*
 * The kernel cache, shared by testfs-matrix, kernel/build.sh, the lab
 * test and the scripts (which ask `testfs-matrix cache-dir`):
 * ${TESTFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/testfs}, with
 *
 *	apt/            the private apt configuration (matrix/apt.h)
 *	debs/           downloaded packages
 *	kernels/NAME/   one kernel (bzImage, release, config, modules/),
 *	                written to kernels/.tmp-NAME.PID/ and renamed
 *	src/, build/, ccache/   the lab kernel builds (kernel/build.sh)
 */
#ifndef TESTFS_MATRIX_CACHE_H
#define TESTFS_MATRIX_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* The cache root (no trailing slash); nothing is created. */
void cache_root(char *buf, size_t len);

/*
 * The cache folder @sub ("" for the root) into @out, created with its
 * parents. 0, or -errno with the folder and the error in @why.
 */
int cache_dir(const char *sub, char *out, size_t len, char *why, size_t whylen);

/* mkdir -p @path (mode 0755). 0 or -errno. */
int mkdir_parents(const char *path);

/*
 * The folder of this program (/proc/self/exe), or the one @up levels
 * above it, into @out: 0, or -errno (-ENOENT: no such folder).
 */
int self_dir(unsigned up, char *out, size_t len);

bool path_is_file(const char *p);
bool path_is_dir(const char *p);

/* The first line of @path into @buf ("" if none). */
void read_first_line(const char *path, char *buf, size_t len);

/* Writes @len bytes to @path through a temporary file and rename(). */
int write_atomic(const char *path, const char *data, size_t len);

/* rm -rf @path without crossing into mounts; 0 or -errno. */
int remove_tree(const char *path);

#endif
