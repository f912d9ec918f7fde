// SPDX-License-Identifier: MIT
/*
 * prereq.h: tools on PATH, a static busybox, headers of the -dev
 * packages, the cache folder and free disk.
 */
#include "prereq.h"

#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "arch.h"
#include "cache.h"

/* Free disk a command needs in the cache, in GiB. */
#define DEBIAN_GIB 2 /* a kernel package unpacked in full, then cut */
#define BUILD_GIB 20 /* a source tree, its objects, ccache's share */

struct missing {
	char text[4096]; /* one line per piece */
	char pkgs[1024]; /* the packages that install them */
	size_t tlen, plen;
	unsigned n;
	bool setup; /* scripts/setup.sh makes a piece that is no package */
};

static void add(struct missing *m, const char *what, const char *pkg,
		const char *role)
{
	m->n++;
	if (m->tlen < sizeof(m->text))
		m->tlen += (size_t)snprintf(
			m->text + m->tlen, sizeof(m->text) - m->tlen,
			"  %s%s%s%s: %s\n", what, pkg ? " (package " : "",
			pkg ? pkg : "", pkg ? ")" : "", role);
	if (pkg && m->plen < sizeof(m->pkgs) && !strstr(m->pkgs, pkg))
		m->plen +=
			(size_t)snprintf(m->pkgs + m->plen,
					 sizeof(m->pkgs) - m->plen, " %s", pkg);
}

/* Whether @tool is an executable on PATH. */
static bool on_path(const char *tool)
{
	const char *path = getenv("PATH");
	char p[4200];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(p, sizeof(p), "%.*s/%s", (int)n, n ? path : ".", tool);
		if (access(p, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* Whether @path is an ELF executable without an interpreter (static). */
static bool static_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool ok = false;
	unsigned i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64) {
		ok = true;
		for (i = 0; ok && i < eh.e_phnum; i++)
			if (pread(fd, &ph, sizeof(ph),
				  (off_t)(eh.e_phoff +
					  (Elf64_Off)i * eh.e_phentsize)) !=
				    (ssize_t)sizeof(ph) ||
			    ph.p_type == PT_INTERP)
				ok = false;
	}
	close(fd);
	return ok;
}

static void tools(struct missing *m, const char *const (*t)[3], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!on_path(t[i][0]))
			add(m, t[i][0], t[i][1], t[i][2]);
}

static void disk(struct missing *m, const char *dir, unsigned gib,
		 const char *role)
{
	struct statvfs sv;
	char what[2300];
	double have;

	if (statvfs(dir, &sv))
		return;
	have = (double)sv.f_bavail * (double)sv.f_frsize / (1u << 30);
	if (have >= gib)
		return;
	snprintf(what, sizeof(what), "free disk in %s: %.1f GiB of %u GiB", dir,
		 have, gib);
	add(m, what, NULL, role);
}

/* testfs built for arm64, and the arm64 busybox in its sysroot. */
static void arm64_build(struct missing *m)
{
	char dir[2048], p[2100], what[2200];

	if (!arch_arm64_build(dir, sizeof(dir))) {
		snprintf(what, sizeof(what), "testfs built for arm64 in %s",
			 dir);
		add(m, what, NULL,
		    "the arm64 guests' testfs (scripts/setup.sh "
		    "--matrix-arm64 builds it)");
		m->setup = true;
		return;
	}
	snprintf(p, sizeof(p), "%s/sysroot/bin/busybox", dir);
	if (!static_elf(p)) {
		add(m, p, NULL,
		    "the arm64 guests' shell (scripts/setup.sh --matrix-arm64 "
		    "unpacks busybox-static:arm64 there)");
		m->setup = true;
	}
}

int prereq_check(unsigned needs, const char *who)
{
	static const char *const guest[][3] = {
		{ "qemu-system-x86_64", "qemu-system-x86", "boots the guests" },
	};
	static const char *const debian[][3] = {
		{ "apt-get", "apt", "fetches Debian's kernels" },
		{ "apt-cache", "apt", "reads Debian's package indexes" },
		{ "dpkg", "dpkg", "unpacks a kernel package (dpkg -x)" },
		{ "xz", "xz-utils", "decompresses fuse.ko" },
	};
	static const char *const build[][3] = {
		{ "gcc", "gcc", "compiles the kernel" },
		{ "make", "make", "runs the kernel's build" },
		{ "ccache", "ccache", "keeps the objects between variants" },
		{ "flex", "flex", "the kernel's lexers" },
		{ "bison", "bison", "the kernel's parsers" },
		{ "bc", "bc", "the kernel's generated constants" },
		{ "patch", "patch", "applies the patch series" },
		{ "tar", "tar", "unpacks the source" },
		{ "xz", "xz-utils", "unpacks the source" },
		{ "flock", "util-linux", "one build of a variant at a time" },
	};
	static const char *const arm64[][3] = {
		{ "qemu-system-aarch64", "qemu-system-arm",
		  "boots the arm64 guests" },
		{ "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu",
		  "builds testfs for arm64" },
	};
	static const char *const cross[][3] = {
		{ "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu",
		  "compiles the arm64 kernel" },
	};
	struct missing m = { .n = 0 };
	char root[2048], why[2300];

	if (needs & NEED_GUEST) {
		tools(&m, guest, sizeof(guest) / sizeof(guest[0]));
		if (!static_elf("/bin/busybox"))
			add(&m, "/bin/busybox, statically linked",
			    "busybox-static", "the guests' shell and tools");
	}
	if (needs & NEED_ARM64) {
		tools(&m, arm64, sizeof(arm64) / sizeof(arm64[0]));
		arm64_build(&m);
	}
	if (needs & NEED_CROSS)
		tools(&m, cross, sizeof(cross) / sizeof(cross[0]));
	if (needs & NEED_DEBIAN)
		tools(&m, debian, sizeof(debian) / sizeof(debian[0]));
	if (needs & NEED_BUILD) {
		tools(&m, build, sizeof(build) / sizeof(build[0]));
		if (access("/usr/include/libelf.h", R_OK))
			add(&m, "libelf.h", "libelf-dev",
			    "objtool's ELF reader");
		if (access("/usr/include/openssl/opensslv.h", R_OK))
			add(&m, "openssl/opensslv.h", "libssl-dev",
			    "the kernel's signing tools");
	}
	if (needs & (NEED_CACHE | NEED_DEBIAN | NEED_BUILD)) {
		if (cache_dir("", root, sizeof(root), why, sizeof(why))) {
			add(&m, "a writable cache folder", NULL, why);
		} else {
			if (needs & NEED_DEBIAN)
				disk(&m, root, DEBIAN_GIB,
				     "room to unpack a Debian kernel");
			if (needs & NEED_BUILD)
				disk(&m, root, BUILD_GIB,
				     "room for a kernel tree and its objects");
		}
	}
	if (!m.n)
		return 0;
	fprintf(stderr, "%s: %u thing%s this command needs %s missing:\n%s",
		who, m.n, m.n == 1 ? "" : "s", m.n == 1 ? "is" : "are", m.text);
	if (m.plen)
		fprintf(stderr, "Install %s with:\n  apt-get install -y%s\n",
			m.plen > strcspn(m.pkgs + 1, " ") + 1 ? "them" : "it",
			m.pkgs);
	if (m.plen || m.setup)
		fprintf(stderr,
			"%sscripts/setup.sh --%s in testfs's source tree%s\n",
			m.plen ? "(or run " : "Run ",
			(needs & NEED_BUILD) && (needs & NEED_CROSS)
				? "lab --matrix-arm64"
			: needs & NEED_BUILD ? "lab"
			: needs & NEED_ARM64 ? "matrix-arm64"
					     : "matrix",
			m.plen ? ")" : "");
	return 1;
}
