/* SPDX-License-Identifier: MIT */
/*
 * Guests that are not x86-64: arm64 kernels (Debian's -arm64 and
 * -arm64-16k images, or an arm64 Image given by path), booted with
 * qemu-system-aarch64 under TCG (-M virt -cpu max) from an initramfs that
 * holds testfs cross-built for arm64 (build-arm64, made by
 * scripts/setup.sh --matrix-arm64 with cross/aarch64-linux-gnu.ini).
 *
 * Each kernel's page size comes from its image: the arm64 Image header's
 * flags (Documentation/arch/arm64/booting.rst: bits 1-2 are the kernel's
 * page size), 4096 on x86-64.
 */
#ifndef TESTFS_MATRIX_ARCH_H
#define TESTFS_MATRIX_ARCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "image.h"
#include "kernel.h"

#define QEMU_ARM64 "qemu-system-aarch64"

/* One guest architecture's image: its binaries and its base archive. */
struct arch_guest {
	struct bins bins;
	bool found;
	char base[PATH_MAX];
	bool built, failed;
	char why[1024];
};

/* Whether @spec is an arm64 kernel: debian:LINE/arm64[-16k], or a path
 * to an arm64 Image (or a folder holding one as Image). */
bool arch_spec_arm64(const char *spec);

/*
 * Whether @path is an uncompressed arm64 Image (its header's "ARM\x64"
 * magic); its page size (4096, 16384, 65536; 0 when the header does not
 * say) in *@page_size.
 */
bool arch_arm64_image(const char *path, unsigned *page_size);

/* The release in an Image ("Linux version RELEASE ..."), or "". */
void arch_image_release(const char *path, char *rel, size_t len);

/*
 * The arm64 build of testfs: $TESTFS_MATRIX_ARM64_BUILD, else
 * build-arm64 beside the build tree testfs-matrix runs from. Its folder
 * into @dir; false when it holds no arm64 testfs (src/testfs).
 */
bool arch_arm64_build(char *dir, size_t len);

/*
 * The arm64 guest's binaries: the arm64 build's, busybox and
 * fusermount3 from its sysroot (BUILD/sysroot/bin), libraries from the
 * sysroot and the machine's multiarch folders. -ENOENT with why.
 */
int arch_arm64_bins(struct bins *b, char *why, size_t whylen);

/*
 * The QEMU command line of an arm64 guest into @argv (at least 32
 * slots, NULL-ended): qemu-system-aarch64 -M virt -cpu max under TCG.
 */
void arch_arm64_argv(const char **argv, const char *smp, const char *image,
		     const char *initrd, const char *cmdline);

/*
 * "arm64, 16 KiB pages", "x86_64, 4 KiB pages" for @k into @buf; "" when
 * neither is known (a kernel skipped before its image was read).
 */
void arch_describe(const struct kernel *k, char *buf, size_t len);

/* The kernel command line's console for @k ("ttyS0", "ttyAMA0"). */
const char *arch_console(const struct kernel *k);

#endif
