/* SPDX-License-Identifier: MIT */
/*
 * Debian's kernels as SPECs: debian:LINE (6.1, 6.12, 7.0, ...: every
 * kernel line a suite of matrix/apt.c offers) and debian:latest (the
 * newest line). A line resolves to its newest x86-64 image package of the
 * plain flavour (linux-image-VERSION-amd64, the -unsigned one when there
 * is one); debian:LINE/arm64 and debian:LINE/arm64-16k to its arm64
 * images (-arm64, -arm64-16k: 4 KiB and 16 KiB pages, matrix/arch.h).
 * The package is fetched with apt (matrix/apt.h), unpacked with dpkg -x
 * (never installed) into kernels/debian-LINE/ (debian-LINE-arm64/, ...)
 * of the cache.
 */
#ifndef TESTFS_MATRIX_DEBIAN_H
#define TESTFS_MATRIX_DEBIAN_H

#include <stdbool.h>
#include <stddef.h>

struct debian_kernel {
	char line[32];	   /* "7.3" */
	char package[160]; /* the image package */
	char release[128]; /* its uname -r: "7.3.4+deb13-amd64" */
	char flavour[16];  /* "amd64", "arm64", "arm64-16k" */
};

/* Whether @spec is a Debian SPEC ("debian:..."). */
bool debian_is_spec(const char *spec);

/*
 * Its form: debian:latest or debian:N.N, each optionally followed by
 * /arm64 or /arm64-16k. 0, or -EINVAL with why.
 */
int debian_check_spec(const char *spec, char *why, size_t whylen);

/* The cache folder name of a Debian SPEC's line, once resolved. */
void debian_name(const struct debian_kernel *dk, char *name, size_t len);

/*
 * Resolves @spec through the package indexes (refreshed first when
 * older than a day). 0; -ENOENT when no suite offers that line (@why
 * names the lines there are); another -errno when the indexes could not
 * be read (@why says which command failed and what it printed).
 */
int debian_resolve(const char *spec, struct debian_kernel *dk, char *why,
		   size_t whylen);

/*
 * Fetches and unpacks @dk into the cache folder @dir (through a
 * temporary folder and rename(): never half there): bzImage, config,
 * release, source.txt and, where FUSE is a module, its fuse.ko. Progress
 * lines on stdout tagged "[@tag]". 0, or -errno with why.
 */
int debian_fetch(const struct debian_kernel *dk, const char *dir,
		 const char *tag, char *why, size_t whylen);

/*
 * `testfs-matrix kernels --available [--refresh]`: every line the suites
 * offer, its x86-64 and arm64 packages and its linux-source. 0, or 1
 * after a message when the indexes cannot be read.
 */
int debian_available(bool refresh);

#endif
