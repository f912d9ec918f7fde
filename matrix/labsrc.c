// SPDX-License-Identifier: MIT
/*
 * labsrc: Debian's linux-source-VERSION for kernel/build.sh. Installed in
 * /usr/src it is used where it is; else the package of whichever suite has
 * the newest version is fetched through matrix/apt.c's private apt
 * configuration and its tarball taken out of it into the cache's debs/
 * (written under a temporary name and renamed: build.sh never sees half a
 * tarball).
 */
#include "labsrc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apt.h"
#include "cache.h"

/* Runs the shell command @cmd; 0 or -EIO with its status in @why. */
static int shell(const char *cmd, const char *what, char *why, size_t whylen)
{
	int st = system(cmd);

	if (st == 0)
		return 0;
	snprintf(why, whylen, "%s failed (%s, status %d)", what, cmd,
		 WIFEXITED(st) ? WEXITSTATUS(st) : st);
	return -EIO;
}

int lab_fetch_source(const char *ver, char *why, size_t whylen)
{
	char root[PATH_MAX - 256], p[PATH_MAX], dir[PATH_MAX - 64];
	char deb[PATH_MAX], pkg[64], version[128], cmd[3 * PATH_MAX + 256];
	const char *pkgs[] = { pkg, NULL };
	int err;

	snprintf(pkg, sizeof(pkg), "linux-source-%s", ver);
	snprintf(p, sizeof(p), "/usr/src/%s.tar.xz", pkg);
	if (access(p, R_OK) == 0)
		return 0;
	cache_root(root, sizeof(root));
	snprintf(p, sizeof(p), "%s/debs/%s.tar.xz", root, pkg);
	if (access(p, R_OK) == 0)
		return 0;
	err = apt_ready(false, why, whylen);
	if (err)
		return err;
	if (apt_field(pkg, "Version", version, sizeof(version), why, whylen)) {
		snprintf(why, whylen,
			 "unknown Debian line %s: no package %s in the suites "
			 "(testfs-matrix kernels --available lists them)",
			 ver, pkg);
		return -ENOENT;
	}
	fprintf(stderr, "testfs-matrix: fetching %s %s (about 170 MB)\n", pkg,
		version);
	snprintf(dir, sizeof(dir), "%s/debs/pkgs", root);
	err = apt_fetch(pkgs, dir, "lab", why, whylen);
	if (err)
		return err;
	if (!apt_deb_path(dir, pkg, deb, sizeof(deb))) {
		snprintf(why, whylen, "%s was fetched but no %s_*.deb is in %s",
			 pkg, pkg, dir);
		return -ENOENT;
	}
	/* The tarball only: the package's other files are its docs */
	snprintf(cmd, sizeof(cmd),
		 "dpkg-deb --fsys-tarfile '%s' | tar -xOf - "
		 "./usr/src/%s.tar.xz > '%s.tmp' && mv '%s.tmp' '%s'",
		 deb, pkg, p, p, p);
	err = shell(cmd, "unpacking the source package", why, whylen);
	if (err) {
		snprintf(cmd, sizeof(cmd), "%s.tmp", p);
		unlink(cmd);
		return err;
	}
	snprintf(cmd, sizeof(cmd), "%s/debs/%s.version", root, pkg);
	snprintf(version + strlen(version), sizeof(version) - strlen(version),
		 "\n");
	write_atomic(cmd, version, strlen(version));
	/* The tarball is what build.sh reads: the .deb is not needed again */
	unlink(deb);
	return 0;
}

int lab_latest_source(char *line, size_t len, char *why, size_t whylen)
{
	char *names = NULL, *tok, *save = NULL;
	int major, minor, best_major = -1, best_minor = -1, n;
	int err = apt_ready(false, why, whylen);

	if (!err)
		err = apt_search(LAB_SOURCE_REGEX, &names, why, whylen);
	if (err)
		return err;
	for (tok = strtok_r(names, "\n", &save); tok;
	     tok = strtok_r(NULL, "\n", &save)) {
		n = 0;
		if (sscanf(tok, "linux-source-%d.%d%n", &major, &minor, &n) !=
			    2 ||
		    tok[n])
			continue;
		if (major > best_major ||
		    (major == best_major && minor > best_minor)) {
			best_major = major;
			best_minor = minor;
		}
	}
	free(names);
	if (best_major < 0) {
		snprintf(why, whylen,
			 "debian:latest: no suite offers a linux-source "
			 "package (testfs-matrix kernels --available lists "
			 "what they offer)");
		return -ENOENT;
	}
	snprintf(line, len, "%d.%d", best_major, best_minor);
	return 0;
}
