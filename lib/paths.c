// SPDX-License-Identifier: MIT
/*
 * Where an instance is: its mountpoint, daemon, paths and files, and
 * reading its control files. Everything else reaches the mount through
 * these.
 */
#include "lib_i.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *testfs_mountpoint(const struct testfs_mount *fs)
{
	return fs ? fs->mountpoint : NULL;
}

pid_t testfs_pid(const struct testfs_mount *fs)
{
	return fs ? fs->pid : -1;
}

int testfs_path(const struct testfs_mount *fs, const char *name, char *buf,
		size_t size)
{
	int n;

	if (!fs || !buf || !size)
		return -EINVAL;
	if (!name)
		name = "";
	while (*name == '/')
		name++;
	if (*name)
		n = snprintf(buf, size, "%s/%s", fs->mountpoint, name);
	else
		n = snprintf(buf, size, "%s", fs->mountpoint);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

int testfs_open(const struct testfs_mount *fs, const char *name, int flags)
{
	char path[PATH_MAX];
	int fd, err;

	err = testfs_path(fs, name, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, flags | O_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

int64_t testfs_file_size(const struct testfs_mount *fs, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	err = testfs_path(fs, name, path, sizeof(path));
	if (err)
		return err;
	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return st.st_size;
}

int lib_open_control(const struct testfs_mount *fs, const char *name)
{
	char path[PATH_MAX];
	int err, fd;

	err = testfs_path(fs, name, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

ssize_t lib_read_full_at(int fd, void *buf, size_t len, int64_t off)
{
	size_t used = 0;
	ssize_t n;

	while (used < len) {
		if (off < 0)
			n = read(fd, (char *)buf + used, len - used);
		else
			n = pread(fd, (char *)buf + used, len - used,
				  (off_t)(off + (int64_t)used));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	return (ssize_t)used;
}

uint32_t lib_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint32_t)ps : TESTFS_PAGE_SIZE;
}

uint32_t testfs_page_size(void)
{
	return lib_page_size();
}
