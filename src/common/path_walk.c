// SPDX-License-Identifier: MIT
#include "path_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Why @name of @dirfd could not be opened as a directory. */
static int classify(int dirfd, const char *name, int err)
{
	struct stat st;

	/* O_PATH | O_NOFOLLOW | O_DIRECTORY on a link gives ENOTDIR. */
	if ((err == ENOTDIR || err == ELOOP) &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return -ELOOP;
	return -err;
}

int path_open_dir_nofollow(const char *path, const char **leaf, size_t *bad_len)
{
	char comp[NAME_MAX + 1];
	const char *p = path, *slash;
	size_t len;
	int fd, next, err;

	*bad_len = 0;
	fd = open(*p == '/' ? "/" : ".", DIR_FLAGS);
	if (fd < 0)
		return -errno;
	for (;;) {
		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		if (!slash)
			break;
		len = (size_t)(slash - p);
		*bad_len = (size_t)(slash - path);
		if (len > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		next = openat(fd, comp, DIR_FLAGS);
		if (next < 0) {
			err = classify(fd, comp, errno);
			close(fd);
			return err;
		}
		close(fd);
		fd = next;
		p = slash;
	}
	*leaf = *p ? p : ".";
	*bad_len = 0;
	return fd;
}
