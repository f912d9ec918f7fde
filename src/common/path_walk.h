/* SPDX-License-Identifier: MIT */
/*
 * Paths the daemon writes to with its privileges, often root's, may run
 * through directories other users control (/tmp): a planted link in any
 * component would redirect the write. These helpers walk a path one
 * component at a time and never follow a symbolic link.
 */
#ifndef TESTFS_PATH_WALK_H
#define TESTFS_PATH_WALK_H

#include <stddef.h>

/*
 * Opens (O_PATH) the directory holding the last component of @path,
 * walking from "/" (or from the working directory for a relative @path)
 * with openat(O_NOFOLLOW | O_DIRECTORY) for each component, so no
 * symbolic link is followed anywhere. Sets *@leaf to the last component
 * inside @path ("." when @path ends in '/'). Returns the descriptor, or a
 * negative errno with *@bad_len the length of the prefix of @path that
 * ends with the component at fault: -ELOOP for a symbolic link, -ENOTDIR,
 * -ENOENT, -EACCES, -ENAMETOOLONG as openat() gives them.
 */
int path_open_dir_nofollow(const char *path, const char **leaf,
			   size_t *bad_len);

#endif
