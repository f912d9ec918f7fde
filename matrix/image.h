/* SPDX-License-Identifier: MIT */
/*
 * The guest image: an initramfs (cpio "newc", uncompressed) holding
 * busybox, the testfs binaries and the shared libraries they load, the
 * guest init and the matrix runner. One base archive is built per
 * testfs-matrix run; each kernel's initrd is that archive followed by a
 * second one with its fuse.ko and the command (the kernel unpacks
 * concatenated archives in order).
 *
 * Guest layout: /init, /bin/busybox, /matrix/run.sh, /matrix/cmd (the
 * command's arguments, one a line), /matrix/bin/ (testfs, testfs-touch,
 * testfs-scenario), /matrix/tests/ (ra_*), /matrix/lib/ (libraries, by
 * soname; LD_LIBRARY_PATH), the ELF interpreter at its own path,
 * /usr/bin/fusermount3, /lib/modules/fuse.ko.
 */
#ifndef TESTFS_MATRIX_IMAGE_H
#define TESTFS_MATRIX_IMAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

#define MAX_TESTS 32

/* Where the binaries a run needs are, on the host. */
struct bins {
	char daemon[PATH_MAX];
	char touch[PATH_MAX];
	char scenario[PATH_MAX];
	char run_sh[PATH_MAX];
	char init_sh[PATH_MAX];
	char busybox[PATH_MAX]; /* "" if busybox-static is missing */
	char fusermount[PATH_MAX];
	char tests_dir[PATH_MAX]; /* "" when not run from the build tree */
	char tests[MAX_TESTS][PATH_MAX];
	unsigned ntests;
	/* Another architecture's binaries (matrix/arch.h): their sysroot,
	 * whose libraries and the machine's multiarch ones they load. "":
	 * the host's, whose libraries ldd finds. */
	char sysroot[PATH_MAX];
};

/*
 * Finds the binaries next to testfs-matrix (the build tree: ../src,
 * ../scenario, ../tests) or installed (its own folder and the data
 * folder). -ENOENT with the reason in @why if one is missing.
 */
int bins_find(struct bins *b, char *why, size_t whylen);

/* The suite's ra_* binaries of @b->tests_dir into @b->tests. 0. */
int bins_tests(struct bins *b);

/*
 * Writes the base archive to @path, with the suite's binaries and their
 * libraries (Criterion's pull in some 10 MiB) only if @with_suite.
 * 0 or -errno with the reason.
 */
int image_build_base(const struct bins *b, bool with_suite, const char *path,
		     char *why, size_t whylen);

/*
 * Writes @path: the base archive @base, then fuse.ko of @k (if any) and
 * /matrix/cmd holding @argv.
 */
int image_for_kernel(const char *base, const struct kernel *k,
		     char *const *argv, const char *path, char *why,
		     size_t whylen);

#endif
