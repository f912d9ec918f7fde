/* SPDX-License-Identifier: MIT */
/*
 * What a testfs-matrix command needs from the machine, checked before
 * any work: every missing piece is listed in one message, with the one
 * command that installs them (scripts/setup.sh --matrix or --lab does the
 * same).
 */
#ifndef TESTFS_MATRIX_PREREQ_H
#define TESTFS_MATRIX_PREREQ_H

enum prereq_need {
	NEED_CACHE = 1,	 /* the cache folder, created and writable */
	NEED_GUEST = 2,	 /* QEMU and a static busybox for the guests */
	NEED_DEBIAN = 4, /* apt and dpkg for Debian's kernels, free disk */
	NEED_BUILD = 8,	 /* the kernel build's tools and headers, disk */
	NEED_ARM64 = 16, /* arm64 guests: qemu-system-aarch64, the cross
			    compiler, testfs built for arm64 (arch.h) */
	NEED_CROSS = 32, /* an arm64 lab kernel's build: the cross compiler */
};

/*
 * Checks everything @needs (a mask of enum prereq_need). 0, or 1 after
 * one message on stderr, prefixed with @who ("testfs-matrix", ...).
 */
int prereq_check(unsigned needs, const char *who);

#endif
