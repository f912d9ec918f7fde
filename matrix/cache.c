// SPDX-License-Identifier: MIT
/*
 * cache.h: where the kernel cache is, and the few file operations every
 * module that writes into it needs.
 */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cache_root(char *buf, size_t len)
{
	const char *env = getenv("TESTFS_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (xdg && *xdg)
		snprintf(buf, len, "%s/testfs", xdg);
	else
		snprintf(buf, len, "%s/.cache/testfs",
			 home && *home ? home : "/tmp");
}

int mkdir_parents(const char *path)
{
	char p[4096];
	size_t i;

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	return path_is_dir(p) ? 0 : -ENOTDIR;
}

int cache_dir(const char *sub, char *out, size_t len, char *why, size_t whylen)
{
	char root[2048];
	int err;

	cache_root(root, sizeof(root));
	snprintf(out, len, "%s%s%s", root, sub[0] ? "/" : "", sub);
	err = mkdir_parents(out);
	if (!err && access(out, W_OK | X_OK))
		err = -errno;
	if (err)
		snprintf(why, whylen,
			 "cannot create the cache folder %s: %s (set "
			 "TESTFS_CACHE to a writable folder)",
			 out, strerror(-err));
	return err;
}

int self_dir(unsigned up, char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	unsigned i;

	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	exe[n] = '\0';
	for (i = 0; i <= up; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
	snprintf(out, len, "%s", exe);
	return 0;
}

bool path_is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool path_is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

void read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

int write_atomic(const char *path, const char *data, size_t len)
{
	char tmp[4200];
	int fd, err = 0;
	size_t off = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

int remove_tree(const char *path)
{
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT))
		return errno ? -errno : -EIO;
	return 0;
}
