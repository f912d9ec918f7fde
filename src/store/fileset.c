// SPDX-License-Identifier: MIT
#include "fileset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum control_file id;
} control_files[] = {
	{ CONTROL_NAME_LOG, CONTROL_LOG },
	{ CONTROL_NAME_LOG_BIN, CONTROL_LOG_BIN },
	{ CONTROL_NAME_CTL, CONTROL_CTL },
	{ CONTROL_NAME_ERROR, CONTROL_ERROR },
	{ CONTROL_NAME_CONFIG, CONTROL_CONFIG },
	{ CONTROL_NAME_STATS, CONTROL_STATS },
};

static uint64_t key_hash(uint64_t parent, const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (parent * 0x9e3779b97f4a7c15ull);
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

static int table_grow(struct fileset *fs)
{
	size_t size = fs->table ? (fs->table_mask + 1) * 2 : 64;
	uint64_t *t = calloc(size, sizeof(*t));
	size_t i;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < fs->count; i++) {
		struct node *n = &fs->nodes[i];
		size_t slot;

		if (n->ino == 1)
			continue;
		slot = key_hash(n->parent, n->name, strlen(n->name)) &
		       (size - 1);
		while (t[slot])
			slot = (slot + 1) & (size - 1);
		t[slot] = n->ino;
	}
	free(fs->table);
	fs->table = t;
	fs->table_mask = size - 1;
	return 0;
}

static struct node *lookup_n(struct fileset *fs, uint64_t parent,
			     const char *name, size_t len)
{
	size_t slot = key_hash(parent, name, len) & fs->table_mask;

	while (fs->table[slot]) {
		struct node *n = &fs->nodes[fs->table[slot] - 1];

		if (n->parent == parent && strncmp(n->name, name, len) == 0 &&
		    n->name[len] == '\0')
			return n;
		slot = (slot + 1) & fs->table_mask;
	}
	return NULL;
}

struct node *fileset_lookup(struct fileset *fs, uint64_t parent,
			    const char *name)
{
	return lookup_n(fs, parent, name, strlen(name));
}

struct node *fileset_get(struct fileset *fs, uint64_t ino)
{
	if (ino == 0 || ino > fs->count)
		return NULL;
	return &fs->nodes[ino - 1];
}

/* Adds a node under @parent; takes ownership of @path. */
static struct node *add_node(struct fileset *fs, uint64_t parent, char *path,
			     enum node_kind kind)
{
	struct node *n, *dir;
	size_t slot;

	if (fs->count == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 64;
		struct node *p = realloc(fs->nodes, cap * sizeof(*p));

		if (!p)
			goto out_free;
		fs->nodes = p;
		fs->cap = cap;
	}
	if ((fs->count + 1) * 2 > fs->table_mask + 1 && table_grow(fs))
		goto out_free;
	n = &fs->nodes[fs->count];
	memset(n, 0, sizeof(*n));
	n->ino = ++fs->count;
	n->parent = parent;
	n->path = path;
	n->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	n->kind = kind;
	atomic_init(&n->was_read, false);
	if (parent == 0) /* the root */
		return n;
	slot = key_hash(parent, n->name, strlen(n->name)) & fs->table_mask;
	while (fs->table[slot])
		slot = (slot + 1) & fs->table_mask;
	fs->table[slot] = n->ino;
	dir = &fs->nodes[parent - 1];
	if (dir->last_child)
		fs->nodes[dir->last_child - 1].next_sibling = n->ino;
	else
		dir->first_child = n->ino;
	dir->last_child = n->ino;
	dir->nchildren++;
	return n;
out_free:
	free(path);
	return NULL;
}

int fileset_init(struct fileset *fs)
{
	struct node *dir, *n;
	size_t i;
	char *path;

	memset(fs, 0, sizeof(*fs));
	path = strdup("");
	if (!path || !add_node(fs, 0, path, NODE_DIR))
		goto out_nomem;
	path = strdup(FILESET_CONTROL_DIR);
	if (!path || !(dir = add_node(fs, 1, path, NODE_DIR)))
		goto out_nomem;
	fs->control_dir = dir->ino;
	for (i = 0; i < sizeof(control_files) / sizeof(control_files[0]); i++) {
		size_t len = strlen(FILESET_CONTROL_DIR) + 1 +
			     strlen(control_files[i].name) + 1;

		path = malloc(len);
		if (!path)
			goto out_nomem;
		strcpy(path, FILESET_CONTROL_DIR "/");
		strcat(path, control_files[i].name);
		n = add_node(fs, fs->control_dir, path, NODE_CONTROL);
		if (!n)
			goto out_nomem;
		n->control = control_files[i].id;
	}
	return 0;
out_nomem:
	fileset_destroy(fs);
	return -ENOMEM;
}

void fileset_destroy(struct fileset *fs)
{
	size_t i;

	for (i = 0; i < fs->count; i++)
		free(fs->nodes[i].path);
	free(fs->nodes);
	free(fs->table);
	memset(fs, 0, sizeof(*fs));
}

int fileset_check_path(const char *path, const char **why)
{
	const char *p = path, *slash;
	size_t len;

	if (!path || !*path) {
		*why = "empty file name";
		return -EINVAL;
	}
	if (strlen(path) > FILESET_PATH_MAX) {
		*why = "file name longer than 4095 bytes";
		return -ENAMETOOLONG;
	}
	if (*path == '/') {
		*why = "file name must be relative to the mount (no leading '/')";
		return -EINVAL;
	}
	for (;;) {
		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		if (len == 0) {
			*why = "empty path component ('//' or a trailing '/')";
			return -EINVAL;
		}
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.')) {
			*why = "'.' and '..' are not allowed as path components";
			return -EINVAL;
		}
		if (len > FILESET_NAME_MAX) {
			*why = "path component longer than 255 bytes";
			return -ENAMETOOLONG;
		}
		if (p == path && len == strlen(FILESET_CONTROL_DIR) &&
		    strncmp(p, FILESET_CONTROL_DIR, len) == 0) {
			*why = "'" FILESET_CONTROL_DIR
			       "' is reserved for the control directory";
			return -EINVAL;
		}
		if (!slash)
			return 0;
		p = slash + 1;
	}
}

int fileset_add_file(struct fileset *fs, const char *path, uint64_t size,
		     const struct testfs_pattern *pattern, const char **why)
{
	uint64_t parent = 1;
	const char *p = path, *slash;
	struct node *n;
	char *copy;
	int err;

	err = fileset_check_path(path, why);
	if (err)
		return err;
	while ((slash = strchr(p, '/'))) {
		n = lookup_n(fs, parent, p, (size_t)(slash - p));
		if (n && n->kind != NODE_DIR) {
			*why = "a parent directory of this name is already a file";
			return -EEXIST;
		}
		if (!n) {
			copy = strndup(path, (size_t)(slash - path));
			if (!copy ||
			    !(n = add_node(fs, parent, copy, NODE_DIR))) {
				*why = "out of memory";
				return -ENOMEM;
			}
		}
		parent = n->ino;
		p = slash + 1;
	}
	n = fileset_lookup(fs, parent, p);
	if (n) {
		*why = n->kind == NODE_DIR
			       ? "a directory of this name is implied by another file"
			       : "duplicate file name";
		return -EEXIST;
	}
	copy = strdup(path);
	if (!copy || !(n = add_node(fs, parent, copy, NODE_FILE))) {
		*why = "out of memory";
		return -ENOMEM;
	}
	n->size = size;
	n->pattern = *pattern;
	pattern_source_init(&n->source, pattern, n->path);
	fs->nfiles++;
	return 0;
}

struct node *fileset_find(struct fileset *fs, const char *path)
{
	uint64_t parent = 1;
	const char *p = path, *slash;
	struct node *n;

	if (!*path)
		return fileset_get(fs, 1);
	while ((slash = strchr(p, '/'))) {
		n = lookup_n(fs, parent, p, (size_t)(slash - p));
		if (!n || n->kind != NODE_DIR)
			return NULL;
		parent = n->ino;
		p = slash + 1;
	}
	return fileset_lookup(fs, parent, p);
}
