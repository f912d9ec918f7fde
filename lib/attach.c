// SPDX-License-Identifier: MIT
/*
 * Attaching to a testfs mount this process did not start (a daemon run by
 * hand, by a script or by another program), so that tools and tests reach
 * every mount the same way: through the library, never by opening
 * .testfs/ files of their own.
 */
#include "lib_i.h"

#include "mountinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/*
 * The nearest testfs mountpoint at or above @path (canonical), malloc'd.
 * Only mountinfo is read on the way up: no request reaches a mount.
 */
static int find_root(const char *path, char **out)
{
	char *dir, *slash;

	dir = realpath(path, NULL);
	if (!dir)
		return -errno;
	for (;;) {
		if (mountinfo_is_testfs(dir)) {
			*out = dir;
			return 0;
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return -ENODEV;
}

int testfs_attach(const char *path, struct testfs_mount **out)
{
	struct testfs_settings set;
	struct testfs_mount *fs;
	struct stat st;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path || !*path)
		return -EINVAL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->attached = true;
	fs->stopped = true;
	fs->pid = -1;
	fs->timeout_ms = LIB_DEFAULT_TIMEOUT_MS;
	err = find_root(path, &fs->mountpoint);
	if (err)
		goto free_fs;
	if (stat(fs->mountpoint, &st) != 0) {
		err = -errno;
		goto free_fs;
	}
	fs->conn_id = (major(st.st_dev) << 20) | minor(st.st_dev);
	/* A fuse.testfs mount of something else has no such config. */
	err = lib_read_config(fs, NULL, NULL, &set);
	if (!err && !set.version[0])
		err = -EPROTO;
	if (err)
		goto free_fs;
	fs->pid = set.pid;
	*out = fs;
	return 0;

free_fs:
	free(fs->mountpoint);
	free(fs);
	return err;
}

bool testfs_attached(const struct testfs_mount *fs)
{
	return fs && fs->attached;
}

void testfs_detach(struct testfs_mount *fs)
{
	if (!fs)
		return;
	free(fs->mountpoint);
	free(fs->root);
	free(fs);
}
