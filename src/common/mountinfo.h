/* SPDX-License-Identifier: MIT */
/*
 * Looking a mountpoint up in /proc/self/mountinfo: shared by the daemon
 * (is it mounted, which device), libtestfs and the tests. Reading
 * mountinfo sends no request to any FUSE mount.
 */
#ifndef TESTFS_MOUNTINFO_H
#define TESTFS_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct mount_entry {
	dev_t dev;
	char fstype[64];
};

/*
 * Finds the topmost mount on @dir (an absolute, canonical path). Returns
 * true and fills @out (if non-NULL) when @dir is a mountpoint.
 */
bool mountinfo_find(const char *dir, struct mount_entry *out);

/*
 * Calls @fn for each mount of /proc/self/mountinfo, oldest first, with
 * its mountpoint (escapes undone) in @mnt and its device and file system
 * type in @e, until @fn returns non-zero. Returns that value, 0 after the
 * last mount, or -errno when mountinfo cannot be read.
 */
int mountinfo_each(int (*fn)(const char *mnt, const struct mount_entry *e,
			     void *arg),
		   void *arg);

/* Whether @dir is the mountpoint of a testfs mount ("fuse.testfs"). */
bool mountinfo_is_testfs(const char *dir);

#endif
