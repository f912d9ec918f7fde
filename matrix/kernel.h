/* SPDX-License-Identifier: MIT */
/*
 * The kernels testfs-matrix runs on, named by a SPEC:
 *
 *	host            the running kernel, no VM
 *	debian:6.1      Debian's unsigned kernel image packages, fetched
 *	debian:6.12     with apt-get download and unpacked with dpkg -x
 *	lab:NAME, ...   any other kernel already in the cache (kernels/NAME
 *	                with ':' written '-')
 *	PATH            an x86_64 bzImage, or a folder laid out like a
 *	                cache entry (bzImage, config, modules/)
 *
 * The cache (shared with the lab kernel builder) is
 * ${TESTFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/testfs}: debs/ holds the
 * downloaded packages, kernels/NAME/ one unpacked kernel (bzImage,
 * release, config, modules/ with fuse.ko where FUSE is a module,
 * source.txt), written to kernels/.tmp-NAME.PID/ and renamed.
 */
#ifndef TESTFS_MATRIX_KERNEL_H
#define TESTFS_MATRIX_KERNEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct kernel {
	char spec[256];
	char name[256]; /* the cache folder's name */
	bool host;
	char image[PATH_MAX];
	char config[PATH_MAX];	/* "" unknown */
	char fuse_ko[PATH_MAX]; /* "" none needed or none found */
	char release[128];
	char fuse;	/* 'y' built in, 'm' module, 'n' absent, '?' unknown */
	char skip[512]; /* non-empty: not runnable, this is why */
};

/* The cache root (no trailing slash). */
void cache_root(char *buf, size_t len);

/*
 * Whether @spec names a kernel at all (0), or -EINVAL with the reason in
 * @why (an unknown name, a path that does not exist): a usage error.
 */
int kernel_check_spec(const char *spec, char *why, size_t whylen);

/*
 * Resolves @spec into @k: fetches and unpacks a Debian package into the
 * cache when it is not there yet. What makes the kernel unusable (no
 * package, not a bzImage, no FUSE) is set in @k->skip, not returned.
 */
void kernel_prepare(struct kernel *k, const char *spec);

/* Prints the cached kernels and what each supports. Returns 0. */
int kernels_list(void);

/* Whether the kernel config file @config sets @opt to y. */
bool config_has(const char *config, const char *opt);

/* Records what a run found the kernel to support (its caps JSON). */
void kernel_save_caps(const struct kernel *k, const char *json, size_t len);

#endif
