/* SPDX-License-Identifier: MIT */
/*
 * The kernels testfs-matrix runs on, named by a SPEC:
 *
 *	host            the running kernel, no VM
 *	debian:LINE     Debian's kernel image of that line (6.1, 6.12,
 *	debian:latest   7.3, ...: matrix/debian.h), fetched with apt and
 *	                unpacked with dpkg -x; debian:LINE/arm64 and
 *	                debian:LINE/arm64-16k its arm64 images (arch.h)
 *	lab:NAME, ...   any other kernel already in the cache (kernels/NAME
 *	                with ':' written '-')
 *	PATH            an x86_64 bzImage or an arm64 Image, or a folder
 *	                laid out like a cache entry (bzImage or Image,
 *	                config, modules/)
 *
 * The cache and its layout: matrix/cache.h.
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
	char arch[16];	    /* "x86_64", "arm64" */
	unsigned page_size; /* the kernel's, in bytes; 0 unknown */
	char fuse;	 /* 'y' built in, 'm' module, 'n' absent, '?' unknown */
	char skip[1024]; /* non-empty: not runnable, this is why */
	bool fetch_failed; /* skipped because fetching it failed */
};

/*
 * Whether @spec names a kernel at all (0), or -EINVAL with the reason in
 * @why (an unknown name, a path that does not exist): a usage error.
 */
int kernel_check_spec(const char *spec, char *why, size_t whylen);

/*
 * For a Debian SPEC not in the cache: whether the indexes offer it (0),
 * -ENOENT (a usage error: no such line) or another -errno (the indexes
 * cannot be read), with the reason in @why. 0 for every other SPEC.
 */
int kernel_resolve(const char *spec, char *why, size_t whylen);

/*
 * Resolves @spec into @k: fetches and unpacks a Debian package into the
 * cache when it is not there yet. What makes the kernel unusable (no
 * package, not a bzImage, no FUSE) is set in @k->skip, not returned.
 */
void kernel_prepare(struct kernel *k, const char *spec);

/*
 * kernels [--available] [--refresh]: the cached kernels and what each
 * supports; with --available the Debian lines the suites offer (the
 * indexes updated first with --refresh). 0, 1 or 2.
 */
int kernels_command(int argc, char **argv);

/* Whether the kernel config file @config sets @opt to y. */
bool config_has(const char *config, const char *opt);

/* Records what a run found the kernel to support (its caps JSON). */
void kernel_save_caps(const struct kernel *k, const char *json, size_t len);

#endif
