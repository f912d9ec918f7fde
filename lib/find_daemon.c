// SPDX-License-Identifier: MIT
/*
 * Which testfs daemon to run. A library in the build tree it was built in
 * belongs with that build's daemon (a test of a change must run the
 * changed daemon, not an older installed one); an installed library
 * belongs with the installed daemon. The caller's choice (testfs_config's
 * daemon, then $TESTFS_BIN) overrides both.
 */
#include "lib_i.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TESTFS_INSTALLED_DAEMON
#define TESTFS_INSTALLED_DAEMON "/usr/local/bin/testfs"
#endif
#ifndef TESTFS_BUILD_DAEMON
#define TESTFS_BUILD_DAEMON ""
#endif
#ifndef TESTFS_BUILD_ROOT
#define TESTFS_BUILD_ROOT ""
#endif

/* The first executable @name in $PATH, malloc'd into *@out. */
static int search_path(const char *name, char **out)
{
	const char *path = getenv("PATH"), *p, *colon;
	char *cand;
	size_t dirlen;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = colon + 1) {
		colon = strchrnul(p, ':');
		dirlen = (size_t)(colon - p);
		if (asprintf(&cand, "%.*s/%s", (int)dirlen, dirlen ? p : ".",
			     name) < 0)
			return -ENOMEM;
		if (access(cand, X_OK) == 0) {
			*out = cand;
			return 0;
		}
		free(cand);
		if (!*colon)
			return -ENOENT;
	}
}

/* A daemon named by the caller: a path, or a name to look up in $PATH. */
static int resolve_named(const char *name, char **out)
{
	if (!strchr(name, '/'))
		return search_path(name, out);
	if (access(name, X_OK) != 0)
		return -errno;
	*out = strdup(name);
	return *out ? 0 : -ENOMEM;
}

/*
 * Whether this code runs from the build tree it was built in: the shared
 * library loaded from there, or a program there that linked the static
 * one. Paths are compared after realpath(), so symlinks do not matter.
 */
static bool in_build_tree(void)
{
	char self[PATH_MAX], *root, *obj;
	const char *file = NULL;
	size_t len;
	Dl_info info;
	bool in;
	ssize_t n;

	if (!*TESTFS_BUILD_ROOT)
		return false;
	if (dladdr((void *)in_build_tree, &info) && info.dli_fname &&
	    strchr(info.dli_fname, '/'))
		file = info.dli_fname;
	if (!file) {
		/* The main program: dladdr() names it as it was run. */
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return false;
		self[n] = '\0';
		file = self;
	}
	root = realpath(TESTFS_BUILD_ROOT, NULL);
	obj = realpath(file, NULL);
	len = root ? strlen(root) : 0;
	in = root && obj && strncmp(obj, root, len) == 0 && obj[len] == '/';
	free(root);
	free(obj);
	return in;
}

static int take_known(const char *path, char **out)
{
	if (!*path || access(path, X_OK) != 0)
		return -ENOENT;
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

int lib_find_daemon(const char *named, char **out)
{
	const char *env = getenv("TESTFS_BIN");

	*out = NULL;
	if (named)
		return resolve_named(named, out);
	if (env && *env)
		return resolve_named(env, out);
	if (in_build_tree() && take_known(TESTFS_BUILD_DAEMON, out) == 0)
		return 0;
	if (take_known(TESTFS_INSTALLED_DAEMON, out) == 0)
		return 0;
	return search_path("testfs", out);
}

int testfs_find_daemon(const struct testfs_config *cfg, char *buf, size_t size)
{
	char *path;
	int err;

	if (!buf || !size)
		return -EINVAL;
	buf[0] = '\0';
	if (cfg && cfg->daemon && !*cfg->daemon)
		return -EINVAL;
	err = lib_find_daemon(cfg ? cfg->daemon : NULL, &path);
	if (err)
		return err;
	if (strlen(path) >= size)
		err = -ENAMETOOLONG;
	else
		memcpy(buf, path, strlen(path) + 1);
	free(path);
	return err;
}
