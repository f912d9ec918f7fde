// SPDX-License-Identifier: MIT
/*
 * The served namespace: the control directory, implied directories,
 * conflicts, lookups through the hash table and directory order.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/fileset.h"

static struct fileset fs;
static const struct testfs_pattern stamp = { TESTFS_PATTERN_STAMP, 0 };

static void setup(void)
{
	cr_assert_eq(fileset_init(&fs), 0);
}

static void teardown(void)
{
	fileset_destroy(&fs);
}

TestSuite(fileset, .init = setup, .fini = teardown);

static void add_ok(const char *path)
{
	const char *why = NULL;
	int ret;

	ret = fileset_add_file(&fs, path, 4096, &stamp, &why);
	cr_assert_eq(ret, 0, "add \"%s\" = %d (%s)", path, ret,
		     why ? why : "no reason");
}

static void add_fails(const char *path, int want)
{
	size_t count = fs.count, nfiles = fs.nfiles;
	const char *why = NULL;
	int ret;

	ret = fileset_add_file(&fs, path, 4096, &stamp, &why);
	cr_assert_eq(ret, want, "add \"%s\" = %d, want %d",
		     path ? path : "(null)", ret, want);
	cr_assert_not_null(why, "add \"%s\": no reason",
			   path ? path : "(null)");
	/* A rejected file leaves nothing behind. */
	cr_assert_eq(fs.count, count, "add \"%s\" left nodes behind",
		     path ? path : "(null)");
	cr_assert_eq(fs.nfiles, nfiles);
}

/* --- init and the control directory --- */

Test(fileset, init_root)
{
	struct node *root = fileset_get(&fs, 1);

	cr_assert_not_null(root);
	cr_assert_eq(root->ino, 1);
	cr_assert_eq(root->kind, NODE_DIR);
	cr_assert_str_eq(root->path, "");
	cr_assert_eq(root->parent, 0);
	cr_assert_eq(fileset_find(&fs, ""), root);
	cr_assert_eq(fs.nfiles, 0);
	/* Only the control directory in an otherwise empty root. */
	cr_assert_eq(root->nchildren, 1);
	cr_assert_eq(root->first_child, fs.control_dir);
}

Test(fileset, init_control_dir)
{
	static const struct {
		const char *name;
		enum control_file id;
	} want[] = {
		{ "log", CONTROL_LOG },	      { "log.bin", CONTROL_LOG_BIN },
		{ "ctl", CONTROL_CTL },	      { "error", CONTROL_ERROR },
		{ "config", CONTROL_CONFIG }, { "stats", CONTROL_STATS },
	};
	struct node *dir, *n;
	char path[64];
	size_t i;

	dir = fileset_lookup(&fs, 1, FILESET_CONTROL_DIR);
	cr_assert_not_null(dir);
	cr_assert_eq(dir->ino, fs.control_dir);
	cr_assert_eq(dir->kind, NODE_DIR);
	cr_assert_eq(dir->parent, 1);
	cr_assert_str_eq(dir->path, ".testfs");
	cr_assert_eq(dir->nchildren, 6);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		n = fileset_lookup(&fs, fs.control_dir, want[i].name);
		cr_assert_not_null(n, "no .testfs/%s", want[i].name);
		cr_assert_eq(n->kind, NODE_CONTROL);
		cr_assert_eq(n->control, want[i].id, "%s", want[i].name);
		cr_assert_eq(n->parent, fs.control_dir);
		cr_assert_str_eq(n->name, want[i].name);
		snprintf(path, sizeof(path), ".testfs/%s", want[i].name);
		cr_assert_str_eq(n->path, path);
		cr_assert_eq(fileset_find(&fs, path), n);
		cr_assert_eq(fileset_get(&fs, n->ino), n);
	}
	/* Control files live only in the control directory. */
	cr_assert_null(fileset_lookup(&fs, 1, "log"));
}

Test(fileset, get_out_of_range)
{
	cr_assert_null(fileset_get(&fs, 0));
	cr_assert_null(fileset_get(&fs, fs.count + 1));
	cr_assert_not_null(fileset_get(&fs, fs.count));
}

Test(fileset, inode_is_index_plus_one)
{
	size_t i;

	add_ok("a/b.bin");
	for (i = 0; i < fs.count; i++)
		cr_assert_eq(fs.nodes[i].ino, i + 1);
}

/* --- adding files --- */

Test(fileset, add_creates_directories)
{
	struct testfs_pattern zero = { TESTFS_PATTERN_ZERO, 0 };
	struct node *a, *ab, *f;
	const char *why = NULL;

	cr_assert_eq(fileset_add_file(&fs, "a/b/c.bin", 12345, &zero, &why), 0);
	cr_assert_eq(fs.nfiles, 1);
	a = fileset_find(&fs, "a");
	cr_assert_not_null(a);
	cr_assert_eq(a->kind, NODE_DIR);
	cr_assert_eq(a->parent, 1);
	cr_assert_str_eq(a->path, "a");
	ab = fileset_find(&fs, "a/b");
	cr_assert_not_null(ab);
	cr_assert_eq(ab->kind, NODE_DIR);
	cr_assert_eq(ab->parent, a->ino);
	cr_assert_str_eq(ab->path, "a/b");
	cr_assert_str_eq(ab->name, "b");
	f = fileset_find(&fs, "a/b/c.bin");
	cr_assert_not_null(f);
	cr_assert_eq(f->kind, NODE_FILE);
	cr_assert_eq(f->parent, ab->ino);
	cr_assert_eq(f->size, 12345);
	cr_assert_eq(f->pattern.kind, TESTFS_PATTERN_ZERO);
	cr_assert_str_eq(f->path, "a/b/c.bin");
	cr_assert_str_eq(f->name, "c.bin");
	cr_assert_eq(a->nchildren, 1);
	cr_assert_eq(a->first_child, ab->ino);
	cr_assert_eq(ab->first_child, f->ino);
}

Test(fileset, lookup_by_parent_and_name)
{
	struct node *a, *c;

	add_ok("a/b/c.bin");
	add_ok("top.bin");
	a = fileset_lookup(&fs, 1, "a");
	cr_assert_not_null(a);
	cr_assert_eq(a, fileset_find(&fs, "a"));
	cr_assert_not_null(fileset_lookup(&fs, 1, "top.bin"));
	c = fileset_lookup(&fs, fileset_find(&fs, "a/b")->ino, "c.bin");
	cr_assert_eq(c, fileset_find(&fs, "a/b/c.bin"));
	/* Names are one component, looked up under the right parent. */
	cr_assert_null(fileset_lookup(&fs, 1, "a/b"));
	cr_assert_null(fileset_lookup(&fs, 1, "c.bin"));
	cr_assert_null(fileset_lookup(&fs, a->ino, "top.bin"));
	cr_assert_null(fileset_lookup(&fs, 1, "A"));
	cr_assert_null(fileset_lookup(&fs, 1, "top.bi"));
	cr_assert_null(fileset_lookup(&fs, 1, "top.bin2"));
	cr_assert_null(fileset_lookup(&fs, 1, ""));
}

Test(fileset, find_misses)
{
	add_ok("a/b/c.bin");
	cr_assert_null(fileset_find(&fs, "nope"));
	cr_assert_null(fileset_find(&fs, "a/nope"));
	cr_assert_null(fileset_find(&fs, "a/b/c.bin/x"));
	cr_assert_null(fileset_find(&fs, "b/c.bin"));
	cr_assert_null(fileset_find(&fs, "a/b/c"));
}

Test(fileset, pattern_source_uses_full_path)
{
	struct testfs_pattern r = { TESTFS_PATTERN_RANDOM, 5 };
	unsigned char got[200], want[200];
	const char *why;
	struct node *n;

	cr_assert_eq(fileset_add_file(&fs, "d/s.bin", 1 << 20, &stamp, &why),
		     0);
	n = fileset_find(&fs, "d/s.bin");
	pattern_generate(&n->source, 4000, got, sizeof(got));
	testfs_pattern_fill(&stamp, "d/s.bin", 4000, want, sizeof(want));
	cr_assert_arr_eq(got, want, sizeof(got));

	cr_assert_eq(fileset_add_file(&fs, "r.bin", 1 << 20, &r, &why), 0);
	n = fileset_find(&fs, "r.bin");
	cr_assert_eq(n->pattern.seed, 5);
	pattern_generate(&n->source, 0, got, sizeof(got));
	testfs_pattern_fill(&r, "r.bin", 0, want, sizeof(want));
	cr_assert_arr_eq(got, want, sizeof(got));
}

Test(fileset, duplicate_file)
{
	const char *why = NULL;

	add_ok("a.bin");
	add_ok("d/b.bin");
	add_fails("a.bin", -EEXIST);
	add_fails("d/b.bin", -EEXIST);
	cr_assert_eq(fileset_add_file(&fs, "a.bin", 1, &stamp, &why), -EEXIST);
	cr_assert(strstr(why, "duplicate"), "why = \"%s\"", why);
}

Test(fileset, file_then_directory_of_same_name)
{
	const char *why = NULL;

	add_ok("x");
	add_fails("x/y", -EEXIST);
	add_fails("x/y/z", -EEXIST);
	cr_assert_eq(fileset_add_file(&fs, "x/y", 1, &stamp, &why), -EEXIST);
	cr_assert(strstr(why, "file"), "why = \"%s\"", why);
	cr_assert_eq(fileset_find(&fs, "x")->kind, NODE_FILE);
}

Test(fileset, directory_then_file_of_same_name)
{
	const char *why = NULL;

	add_ok("p/q");
	add_fails("p", -EEXIST);
	cr_assert_eq(fileset_add_file(&fs, "p", 1, &stamp, &why), -EEXIST);
	cr_assert(strstr(why, "directory"), "why = \"%s\"", why);
	/* Same one level down, and a file under a file. */
	add_ok("m/n/o");
	add_fails("m/n", -EEXIST);
	add_fails("p/q/r", -EEXIST);
	cr_assert_eq(fileset_find(&fs, "p")->kind, NODE_DIR);
}

Test(fileset, control_dir_reserved)
{
	add_fails(".testfs", -EINVAL);
	add_fails(".testfs/x", -EINVAL);
	add_fails(".testfs/log", -EINVAL);
	/* Only at the top: elsewhere it is an ordinary name. */
	add_ok("a/.testfs");
	add_ok(".testfs2");
	add_ok(".testf");
}

Test(fileset, bad_paths)
{
	char name[300];

	add_fails(NULL, -EINVAL);
	add_fails("", -EINVAL);
	add_fails("/a", -EINVAL);
	add_fails("a//b", -EINVAL);
	add_fails("a/", -EINVAL);
	add_fails(".", -EINVAL);
	add_fails("..", -EINVAL);
	add_fails("./a", -EINVAL);
	add_fails("a/./b", -EINVAL);
	add_fails("a/..", -EINVAL);
	add_fails("../a", -EINVAL);
	memset(name, 'n', 256);
	name[256] = '\0';
	add_fails(name, -ENAMETOOLONG);
	/* Dots are fine when they are not the whole component. */
	add_ok("...");
	add_ok("..a");
	add_ok(".hidden");
	add_ok("a.");
}

Test(fileset, component_length_limit)
{
	char path[600];

	memset(path, 'n', 255);
	path[255] = '\0';
	add_ok(path);
	memset(path, 'd', 10);
	path[10] = '/';
	memset(path + 11, 'n', 256);
	path[11 + 256] = '\0';
	add_fails(path, -ENAMETOOLONG);
	path[11 + 255] = '\0';
	add_ok(path);
}

Test(fileset, path_length_limit)
{
	char *path = malloc(FILESET_PATH_MAX + 2);
	const char *why;
	size_t i;

	cr_assert_not_null(path);
	/* 4095 bytes: "ddd.../" repeated, components of 99 bytes. */
	memset(path, 'd', FILESET_PATH_MAX + 1);
	for (i = 99; i < FILESET_PATH_MAX; i += 100)
		path[i] = '/';
	path[FILESET_PATH_MAX] = '\0';
	cr_assert_eq(fileset_check_path(path, &why), 0, "%s", why);
	path[FILESET_PATH_MAX] = 'd';
	path[FILESET_PATH_MAX + 1] = '\0';
	cr_assert_eq(fileset_check_path(path, &why), -ENAMETOOLONG);
	free(path);
}

/* --- scale and order --- */

Test(fileset, ten_thousand_files)
{
	char path[64];
	struct node *n;
	int i;

	for (i = 0; i < 10000; i++) {
		snprintf(path, sizeof(path), "d%02d/f%05d.bin", i % 100, i);
		add_ok(path);
	}
	cr_assert_eq(fs.nfiles, 10000);
	/* Root, .testfs, 6 control files, 100 directories, the files. */
	cr_assert_eq(fs.count, 1 + 1 + 6 + 100 + 10000);
	/* The table keeps at least half of its slots free. */
	cr_assert_geq(fs.table_mask + 1, 2 * fs.count);
	for (i = 0; i < 10000; i++) {
		snprintf(path, sizeof(path), "d%02d/f%05d.bin", i % 100, i);
		n = fileset_find(&fs, path);
		cr_assert_not_null(n, "%s not found", path);
		cr_assert_str_eq(n->path, path);
		cr_assert_eq(n->kind, NODE_FILE);
	}
	for (i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "d%02d", i);
		n = fileset_lookup(&fs, 1, path);
		cr_assert_not_null(n, "%s not found", path);
		cr_assert_eq(n->nchildren, 100);
	}
	/* The control directory survives the table growing. */
	n = fileset_find(&fs, ".testfs/stats");
	cr_assert_not_null(n);
	cr_assert_eq(n->control, CONTROL_STATS);
	cr_assert_null(fileset_find(&fs, "d00/f00001.bin"));
}

Test(fileset, readdir_in_insertion_order)
{
	static const char *const want[] = { ".testfs", "zeta", "alpha",
					    "mid",     "dir",  "beta" };
	struct node *root, *n, *dir;
	uint64_t ino;
	size_t i = 0;

	add_ok("zeta");
	add_ok("alpha");
	add_ok("mid");
	add_ok("dir/x");
	add_ok("beta");
	add_ok("dir/a");
	add_ok("dir/sub/y");
	add_ok("dir/0");

	root = fileset_get(&fs, 1);
	for (ino = root->first_child; ino; ino = n->next_sibling) {
		n = fileset_get(&fs, ino);
		cr_assert_not_null(n);
		cr_assert_lt(i, 6);
		cr_assert_str_eq(n->name, want[i], "entry %zu", i);
		cr_assert_eq(n->parent, 1);
		i++;
	}
	cr_assert_eq(i, 6);
	cr_assert_eq(root->nchildren, 6);
	cr_assert_str_eq(fileset_get(&fs, root->last_child)->name, "beta");

	dir = fileset_find(&fs, "dir");
	n = fileset_get(&fs, dir->first_child);
	cr_assert_str_eq(n->name, "x");
	n = fileset_get(&fs, n->next_sibling);
	cr_assert_str_eq(n->name, "a");
	n = fileset_get(&fs, n->next_sibling);
	cr_assert_str_eq(n->name, "sub");
	n = fileset_get(&fs, n->next_sibling);
	cr_assert_str_eq(n->name, "0");
	cr_assert_eq(n->next_sibling, 0);
	cr_assert_eq(dir->nchildren, 4);
}

/* --backing: empty directories are nodes; a backing file owns its fd. */
Test(fileset, backing_dirs_and_files)
{
	const char *why = NULL;
	struct node *n;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(fileset_add_dir(&fs, "e/f", &why), 0);
	/* Again, and as the parent of a file: not an error. */
	cr_assert_eq(fileset_add_dir(&fs, "e/f", &why), 0);
	add_ok("e/f/g.bin");
	cr_assert_eq(fileset_find(&fs, "e")->kind, NODE_DIR);
	cr_assert_eq(fileset_add_dir(&fs, "e/f/g.bin", &why), -EEXIST);
	cr_assert_eq(fileset_add_backing(&fs, "e/h", 5, 0755, fd, true, &why),
		     0);
	n = fileset_find(&fs, "e/h");
	cr_assert_not_null(n);
	cr_assert_eq(n->backing_fd, fd);
	cr_assert_eq(n->mode, 0555);
	cr_assert_eq(n->size, 5);
	/* A refused name still takes the descriptor (no leak): closed. */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_eq(fileset_add_backing(&fs, "e/h", 1, 0444, fd, false, &why),
		     -EEXIST);
	cr_assert_eq(fcntl(fd, F_GETFD), -1);
	cr_assert_eq(fileset_find(&fs, "e/f/g.bin")->backing_fd, -1);
}
