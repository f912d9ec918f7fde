/* SPDX-License-Identifier: MIT */
/*
 * The namespace testfs serves: the synthetic data files, the directories
 * their names imply, and the control directory. Built once before mounting
 * and read-only afterwards, so the request handlers read it without locks.
 * An inode number is the node's index + 1 (the root is FUSE_ROOT_ID, 1).
 */
#ifndef TESTFS_FILESET_H
#define TESTFS_FILESET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <testfs/pattern.h>

#include "control_dir.h"
#include "pattern_gen.h"

#define FILESET_NAME_MAX 255
#define FILESET_PATH_MAX 4095
#define FILESET_CONTROL_DIR CONTROL_DIR

enum node_kind {
	NODE_DIR,
	NODE_FILE,
	NODE_CONTROL,
};

/* The files of MOUNT/.testfs/. */
enum control_file {
	CONTROL_NONE = 0,
	CONTROL_LOG,
	CONTROL_LOG_BIN,
	CONTROL_CTL,
	CONTROL_ERROR,
	CONTROL_CONFIG,
	CONTROL_STATS,
};

struct node {
	uint64_t ino;
	uint64_t parent;
	/* Path relative to the mount ("a/b.bin"; "" for the root). */
	char *path;
	/* Last component of path. */
	const char *name;
	enum node_kind kind;
	enum control_file control;
	uint64_t size;
	struct testfs_pattern pattern;
	struct pattern_source source;
	/* Children of a directory as a list of inode numbers (0 ends it). */
	uint64_t first_child;
	uint64_t last_child;
	uint64_t next_sibling;
	uint64_t nchildren;
	/* Set on the first read; drop-cache without a name visits these. */
	atomic_bool was_read;
	/*
	 * A file of --backing DIR: its open descriptor (-1 for a synthetic
	 * file) and whether reads bypass the backing page cache (O_DIRECT;
	 * cleared for good if the backing file system refuses a read).
	 */
	int backing_fd;
	atomic_bool direct;
	/* A backing file's permission bits, less every write bit. */
	uint16_t mode;
};

struct fileset {
	struct node *nodes;
	size_t count;
	size_t cap;
	/* Open-addressing table of (parent, name) -> ino. */
	uint64_t *table;
	size_t table_mask;
	size_t nfiles;
	uint64_t control_dir;
};

/* Creates the root directory and the control directory. */
int fileset_init(struct fileset *fs);
void fileset_destroy(struct fileset *fs);

/*
 * Checks that @path can name a data file: not empty, relative, no empty,
 * "." or ".." components, components of at most 255 bytes, at most 4095
 * bytes in all, not inside the control directory. Returns 0 or -EINVAL /
 * -ENAMETOOLONG with a sentence in *why.
 */
int fileset_check_path(const char *path, const char **why);

/*
 * Adds a data file, creating the directories its path names. Returns 0,
 * -EINVAL / -ENAMETOOLONG (bad path), -EEXIST (a file or directory of that
 * name exists, *why says which) or -ENOMEM.
 */
int fileset_add_file(struct fileset *fs, const char *path, uint64_t size,
		     const struct testfs_pattern *pattern, const char **why);

/*
 * Adds a file served from @fd (--backing), which the set now owns (closed
 * by fileset_destroy(), also on error); @size is fixed from here on, and
 * @mode's read and execute bits are served (a program runs from there).
 * Returns as fileset_add_file().
 */
int fileset_add_backing(struct fileset *fs, const char *path, uint64_t size,
			uint16_t mode, int fd, bool direct, const char **why);

/*
 * Adds directory @path and its parents (an empty directory of --backing
 * DIR). Returns 0 (also if it exists), or as fileset_add_file().
 */
int fileset_add_dir(struct fileset *fs, const char *path, const char **why);

struct node *fileset_get(struct fileset *fs, uint64_t ino);
struct node *fileset_lookup(struct fileset *fs, uint64_t parent,
			    const char *name);
/* A node by its path relative to the mount, or NULL. */
struct node *fileset_find(struct fileset *fs, const char *path);

#endif
