// SPDX-License-Identifier: MIT
/*
 * arch.h: arm64 guests, their images, binaries and QEMU command line;
 * the libraries an ELF file loads, read from its dynamic section (ldd
 * cannot run a binary of another architecture).
 */
#include "arch.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "debian.h"
#include "lab.h"

/* The arm64 Image header (Documentation/arch/arm64/booting.rst). */
#define ARM64_MAGIC_OFF 0x38
#define ARM64_FLAGS_OFF 24

bool arch_arm64_image(const char *path, unsigned *page_size)
{
	static const unsigned sizes[4] = { 0, 4096, 16384, 65536 };
	unsigned char h[64];
	unsigned long long flags = 0;
	bool ok;
	int i, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	ok = pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     memcmp(h + ARM64_MAGIC_OFF, "ARM\x64", 4) == 0;
	close(fd);
	for (i = 7; ok && i >= 0; i--)
		flags = flags << 8 | h[ARM64_FLAGS_OFF + i];
	if (ok && page_size)
		*page_size = sizes[(flags >> 1) & 3];
	return ok;
}

void arch_image_release(const char *path, char *rel, size_t len)
{
	static const char key[] = "Linux version ";
	char buf[1 << 16];
	size_t have = 0;
	ssize_t n = 1;
	char *p = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	rel[0] = '\0';
	if (fd < 0)
		return;
	/* Windows of 64 KiB; the key's start is kept for the next one. */
	while (n > 0) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n > 0)
			have += (size_t)n;
		buf[have] = '\0';
		p = memmem(buf, have, key, sizeof(key) - 1);
		if (p && ((size_t)(p - buf) + 200 < have || n <= 0))
			break;
		if (p) {
			have -= (size_t)(p - buf);
			memmove(buf, p, have);
		} else if (have > sizeof(key)) {
			memmove(buf, buf + have - sizeof(key), sizeof(key));
			have = sizeof(key);
		}
		p = NULL;
	}
	close(fd);
	if (p) {
		p += sizeof(key) - 1;
		snprintf(rel, len, "%.*s", (int)strcspn(p, " \n"), p);
	}
}

bool arch_spec_arm64(const char *spec)
{
	char p[PATH_MAX];

	if (debian_is_spec(spec))
		return strstr(spec, "/arm64") != NULL;
	if (lab_is_spec(spec))
		return lab_spec_arch(spec) &&
		       !strcmp(lab_spec_arch(spec), LAB_ARM64_64K);
	if (!strchr(spec, '/') && spec[0] != '.')
		return false;
	if (path_is_dir(spec)) {
		snprintf(p, sizeof(p), "%s/Image", spec);
		return path_is_file(p);
	}
	return arch_arm64_image(spec, NULL);
}

bool arch_arm64_build(char *dir, size_t len)
{
	const char *env = getenv("TESTFS_MATRIX_ARM64_BUILD");
	char top[PATH_MAX], p[PATH_MAX + 16];

	if (env && *env) {
		snprintf(dir, len, "%s", env);
	} else {
		/* BUILD/matrix/testfs-matrix: BUILD's parent */
		if (self_dir(2, top, sizeof(top)) < 0)
			return false;
		snprintf(dir, len, "%s/build-arm64", top);
	}
	snprintf(p, sizeof(p), "%s/src/testfs", dir);
	return access(p, X_OK) == 0;
}

int arch_arm64_bins(struct bins *b, char *why, size_t whylen)
{
	char dir[PATH_MAX - 64];

	/* The guest scripts (sh) stay the host build's: @b starts as its. */
	if (!arch_arm64_build(dir, sizeof(dir))) {
		snprintf(why, whylen,
			 "no testfs built for arm64 in %s (run "
			 "scripts/setup.sh --matrix-arm64, or set "
			 "TESTFS_MATRIX_ARM64_BUILD)",
			 dir);
		return -ENOENT;
	}
	snprintf(b->daemon, sizeof(b->daemon), "%s/src/testfs", dir);
	snprintf(b->touch, sizeof(b->touch), "%s/tools/testfs-touch", dir);
	snprintf(b->scenario, sizeof(b->scenario),
		 "%s/scenario/testfs-scenario", dir);
	snprintf(b->tests_dir, sizeof(b->tests_dir), "%s/tests", dir);
	bins_tests(b);
	snprintf(b->sysroot, sizeof(b->sysroot), "%s/sysroot", dir);
	snprintf(b->busybox, sizeof(b->busybox), "%s/bin/busybox", b->sysroot);
	snprintf(b->fusermount, sizeof(b->fusermount), "%s/bin/fusermount3",
		 b->sysroot);
	if (access(b->busybox, X_OK)) {
		snprintf(why, whylen,
			 "%s is missing (scripts/setup.sh --matrix-arm64 "
			 "unpacks busybox-static:arm64 there)",
			 b->busybox);
		return -ENOENT;
	}
	return 0;
}

void arch_arm64_argv(const char **argv, const char *smp, const char *image,
		     const char *initrd, const char *cmdline)
{
	/* -cpu max with the cheaper pointer-authentication algorithm:
	 * the architected one (QARMA) costs much time under TCG. */
	const char *a[] = { QEMU_ARM64,
			    "-nodefaults",
			    "-no-user-config",
			    "-display",
			    "none",
			    "-serial",
			    "stdio",
			    "-monitor",
			    "none",
			    "-no-reboot",
			    "-M",
			    "virt",
			    "-cpu",
			    "max,pauth-impdef=on",
			    "-m",
			    "2048",
			    "-smp",
			    smp,
			    "-accel",
			    "tcg,thread=multi",
			    "-kernel",
			    image,
			    "-initrd",
			    initrd,
			    "-append",
			    cmdline,
			    NULL };
	size_t i;

	for (i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		argv[i] = a[i];
}

const char *arch_console(const struct kernel *k)
{
	return strcmp(k->arch, "arm64") == 0 ? "ttyAMA0" : "ttyS0";
}

void arch_describe(const struct kernel *k, char *buf, size_t len)
{
	if (!k->arch[0])
		snprintf(buf, len, "%s", "");
	else if (k->page_size)
		snprintf(buf, len, "%s, %u KiB pages", k->arch,
			 k->page_size / 1024);
	else
		snprintf(buf, len, "%s, page size unknown", k->arch);
}
