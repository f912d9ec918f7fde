// SPDX-License-Identifier: MIT
/*
 * --backing DIR: a tree of real files (two programs of /usr/bin and files
 * of odd sizes) read through the mount equals the original byte for byte;
 * the log's pages are the page cache's, as for synthetic files; rules and
 * errors apply; bad input gets a clear message and status 2.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "mount_harness.h"

#define PAGE 4096u
#define MAGIC_TMPFS 0x01021994

static struct tfs_mount mnt;
/* The backing tree of the running test. */
static char tree[128];

/* Odd sizes: one byte, around a page, and past a FUSE read (1 MiB). */
static const struct {
	const char *name;
	size_t size;
} odd_files[] = {
	{ "one.bin", 1 },
	{ "page_less_one.bin", PAGE - 1 },
	{ "page_plus_one.bin", PAGE + 1 },
	{ "sub/odd.bin", 12345 },
	{ "sub/deep/big_odd.bin", (1u << 20) * 3 + 7 },
	{ "empty.bin", 0 },
};

/* Programs copied in: real ELF files of the system, not chosen sizes. */
static const char *const programs[] = { "/usr/bin/ls", "/usr/bin/cmp" };

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len, "write %s", path);
	close(fd);
}

static char *read_whole(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert_not_null(buf);
	/* Reads of odd lengths, so the kernel's pages are cut differently
	 * from the reads. */
	while ((n = read(fd, buf + got, 70001)) > 0)
		got += (size_t)n;
	cr_assert_eq(n, 0, "read %s: %s", path, strerror(errno));
	close(fd);
	*len = got;
	return buf;
}

static void make_tree(const char *base)
{
	char path[256];
	size_t i, j, len;
	char *data;

	snprintf(tree, sizeof(tree), "%s/testfs-backing.XXXXXX", base);
	cr_assert_not_null(mkdtemp(tree), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/sub", tree);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sub/deep", tree);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/bin", tree);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/empty_dir", tree);
	cr_assert_eq(mkdir(path, 0755), 0);
	for (i = 0; i < sizeof(odd_files) / sizeof(odd_files[0]); i++) {
		data = malloc(odd_files[i].size + 1);
		cr_assert_not_null(data);
		/* Every byte depends on its offset and file: a misplaced
		 * page cannot compare equal. */
		for (j = 0; j < odd_files[i].size; j++)
			data[j] = (char)((j * 2654435761u >> 13) ^ (i * 77));
		snprintf(path, sizeof(path), "%s/%s", tree, odd_files[i].name);
		write_file(path, data, odd_files[i].size);
		free(data);
	}
	for (i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
		data = read_whole(programs[i], &len);
		snprintf(path, sizeof(path), "%s/bin/%s", tree,
			 strrchr(programs[i], '/') + 1);
		write_file(path, data, len);
		cr_assert_eq(chmod(path, 0755), 0);
		free(data);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void remove_tree(void)
{
	if (tree[0])
		nftw(tree, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	tree[0] = '\0';
}

static void start_on(const char *base, const char *const *extra)
{
	const char *args[16] = { "--backing", NULL, "--file", "syn.bin:1M" };
	size_t n = 4;

	make_tree(base);
	args[1] = tree;
	while (extra && *extra && n < 15)
		args[n++] = *extra++;
	args[n] = NULL;
	harness_start(&mnt, args);
}

static void start(void)
{
	start_on("/tmp", NULL);
}

static void stop(void)
{
	harness_stop_checked(&mnt);
	remove_tree();
}

static void cold(const char *name)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "drop-cache %s", name);
	cr_assert_eq(harness_ctl(&mnt, cmd), 0, "%s failed", cmd);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
}

/* Every file of the tree reads the same through the mount. */
static void assert_tree_equal(void)
{
	const char *names[16];
	char path[256], *a, *b;
	size_t n = 0, i, la, lb;

	for (i = 0; i < sizeof(odd_files) / sizeof(odd_files[0]); i++)
		names[n++] = odd_files[i].name;
	names[n++] = "bin/ls";
	names[n++] = "bin/cmp";
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", tree, names[i]);
		a = read_whole(path, &la);
		b = read_whole(harness_path(&mnt, names[i]), &lb);
		cr_assert_eq(la, lb, "%s: %zu bytes, %zu through the mount",
			     names[i], la, lb);
		cr_assert_eq(memcmp(a, b, la), 0, "%s differs", names[i]);
		free(a);
		free(b);
	}
}

TestSuite(backing, .init = start, .fini = stop, .timeout = 60);

Test(backing, bytes_equal_through_the_mount)
{
	struct stat st;

	assert_tree_equal();
	/* The tree's shape: an empty directory is served, sizes as is. */
	cr_assert_eq(stat(harness_path(&mnt, "empty_dir"), &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert_eq(stat(harness_path(&mnt, "sub/deep/big_odd.bin"), &st), 0);
	cr_assert_eq(st.st_size, (1 << 20) * 3 + 7);
	/* Synthetic files are served beside them. */
	cr_assert_eq(stat(harness_path(&mnt, "syn.bin"), &st), 0);
	cr_assert_eq(st.st_size, 1 << 20);
}

/* A program runs from the mount: exec and the loader's mmaps work. */
Test(backing, program_runs_from_the_mount)
{
	const char *argv[] = { harness_path(&mnt, "bin/cmp"), "--version",
			       NULL };
	char *out = NULL;

	cr_assert_eq(harness_run(argv, &out, 20), 0, "%s", out);
	cr_assert_not_null(strstr(out, "cmp"), "%s", out);
	free(out);
}

Test(backing, log_matches_cache_read)
{
	size_t len, fetched;
	char *b;

	cold("sub/deep/big_odd.bin");
	b = read_whole(harness_path(&mnt, "sub/deep/big_odd.bin"), &len);
	free(b);
	fetched = harness_assert_log_matches_cache(&mnt, "sub/deep/big_odd.bin",
						   769);
	/* 3 MiB + 7 bytes: 769 pages, every one read. */
	cr_assert_eq(fetched, 769, "%zu pages fetched", fetched);
}

/* Faults on an mmap of a real program, every fifth page touched. */
Test(backing, log_matches_cache_mmap)
{
	const char *path = harness_path(&mnt, "bin/ls");
	volatile const char *p;
	size_t npages, i, sum = 0;
	struct stat st;
	int fd;

	cold("bin/ls");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	npages = ((size_t)st.st_size + PAGE - 1) / PAGE;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq((void *)p, MAP_FAILED);
	for (i = 0; i < npages; i += 5)
		sum += (unsigned char)p[i * PAGE];
	(void)sum;
	munmap((void *)p, (size_t)st.st_size);
	close(fd);
	cr_assert_gt(harness_assert_log_matches_cache(&mnt, "bin/ls", npages),
		     0);
}

/* .testfs/config says how each backing file is read. */
Test(backing, config_names_the_reads)
{
	char *cfg =
		harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	struct statfs sf;

	cr_assert_not_null(strstr(cfg, "\"io\":\"io_uring\""), "%s", cfg);
	cr_assert_not_null(strstr(cfg, "\"files\":8,"), "%s", cfg);
	cr_assert_eq(statfs(tree, &sf), 0);
	/* O_DIRECT wherever the file system takes it: ext4, xfs, ... */
	if (sf.f_type != MAGIC_TMPFS)
		cr_assert_not_null(strstr(cfg, "\"direct\":8,"), "%s", cfg);
	free(cfg);
}

/* The same error rules as synthetic files: page 1 of one file fails. */
Test(backing, error_rule_applies)
{
	char buf[PAGE];
	int fd;

	cr_assert_eq(harness_ctl(&mnt, "error file=sub/odd.bin,pages=1,"
				       "errno=EIO"),
		     0);
	cold("sub/odd.bin");
	fd = open(harness_path(&mnt, "sub/odd.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	cr_assert_eq(pread(fd, buf, PAGE, 0), PAGE);
	errno = 0;
	cr_assert_eq(pread(fd, buf, PAGE, PAGE), -1);
	cr_assert_eq(errno, EIO, "%s", strerror(errno));
	close(fd);
}

/*
 * The size is fixed at start: a backing file truncated while served
 * keeps its size, the bytes still there read as before, and the rest as
 * zeros (documented in testfs(8)).
 */
Test(backing, shrunk_backing_file_reads_zeros)
{
	char path[256], *a, *b;
	size_t la, lb, i, cut = 5000;

	snprintf(path, sizeof(path), "%s/sub/odd.bin", tree);
	a = read_whole(path, &la);
	cr_assert_eq(truncate(path, (off_t)cut), 0);
	cold("sub/odd.bin");
	b = read_whole(harness_path(&mnt, "sub/odd.bin"), &lb);
	cr_assert_eq(lb, 12345, "size changed to %zu", lb);
	cr_assert_eq(memcmp(a, b, cut), 0);
	for (i = cut; i < lb; i++)
		cr_assert_eq(b[i], 0, "byte %zu is %d", i, b[i]);
	free(a);
	free(b);
}

/* tmpfs keeps its data in the page cache: reads there are buffered. */
TestSuite(backing_tmpfs, .fini = stop, .timeout = 60);

Test(backing_tmpfs, tmpfs_is_read_buffered)
{
	struct statfs sf;
	char *cfg;

	if (statfs("/dev/shm", &sf) != 0 || sf.f_type != MAGIC_TMPFS)
		cr_skip_test("/dev/shm is not a tmpfs here");
	start_on("/dev/shm", NULL);
	assert_tree_equal();
	cfg = harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	cr_assert_not_null(strstr(cfg, "\"direct\":0,\"buffered\":8,"), "%s",
			   cfg);
	free(cfg);
}

/* Bad input: named in the message, status 2, nothing mounted. */
static void expect_usage(const char *const *argv, const char *named)
{
	char *out = NULL;
	int status = harness_run(argv, &out, 10);

	cr_expect_eq(status, 2, "exit %d: %s", status, out);
	cr_expect_not_null(strstr(out, named), "does not name '%s': %s", named,
			   out);
	free(out);
}

Test(backing_input, missing_dir)
{
	const char *argv[] = { harness_bin(), "--backing",
			       "/nonexistent/backing", "/mnt", NULL };

	expect_usage(argv, "'/nonexistent/backing': No such file");
}

Test(backing_input, regular_file_as_dir)
{
	const char *argv[] = { harness_bin(), "--backing", "/etc/passwd",
			       "/mnt", NULL };

	expect_usage(argv, "'/etc/passwd': not a directory");
}

Test(backing_input, given_twice)
{
	const char *argv[] = { harness_bin(), "--backing", "/tmp", "--backing",
			       "/usr",	      "/mnt",	   NULL };

	expect_usage(argv, "only one backing directory");
}

/* A backing file and a --file of the same name. */
Test(backing_input, name_collides_with_file)
{
	const char *argv[] = { harness_bin(), "--file", "one.bin:1M",
			       "--backing",   NULL,	"/mnt",
			       NULL };

	make_tree("/tmp");
	argv[4] = tree;
	expect_usage(argv, "'one.bin': duplicate file name");
	remove_tree();
}

/* A directory the daemon's user cannot read (root reads everything, so
 * the daemon runs as nobody). */
Test(backing_input, unreadable_dir)
{
	char dir[] = "/tmp/testfs-backing.XXXXXX";
	const char *argv[] = { "/usr/bin/setpriv",
			       "--reuid=65534",
			       "--regid=65534",
			       "--clear-groups",
			       harness_bin(),
			       "--backing",
			       dir,
			       "/mnt",
			       NULL };

	if (access(argv[0], X_OK) != 0 || geteuid() != 0)
		cr_skip_test("needs root and setpriv");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0700), 0);
	expect_usage(argv, "Permission denied");
	rmdir(dir);
}

/*
 * Special files and symbolic links (inside or leaving DIR) are skipped
 * with one warning line that names them; the rest is served. A mountpoint
 * that does not exist ends the start right after the scan.
 */
Test(backing_input, special_files_warned)
{
	const char *argv[] = { harness_bin(), "--backing", NULL,
			       "/nonexistent/mnt", NULL };
	char path[256], *out = NULL, *line;
	int status;

	make_tree("/tmp");
	argv[2] = tree;
	snprintf(path, sizeof(path), "%s/fifo", tree);
	cr_assert_eq(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/leaves", tree);
	cr_assert_eq(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/sub/inside", tree);
	cr_assert_eq(symlink("odd.bin", path), 0);
	status = harness_run(argv, &out, 10);
	cr_expect_eq(status, 1, "exit %d: %s", status, out);
	line = strstr(out, "warning: --backing");
	cr_assert_not_null(line, "%s", out);
	cr_assert_not_null(strstr(line, "skipped 3 entries"), "%s", out);
	cr_assert_not_null(strstr(line, "fifo (FIFO)"), "%s", out);
	cr_assert_not_null(strstr(line, "leaves (symbolic link"), "%s", out);
	cr_assert_not_null(strstr(line, "sub/inside (symbolic link"), "%s",
			   out);
	/* One line. */
	cr_assert_null(strchr(line, '\n')
			       ? strstr(strchr(line, '\n'), "--backing")
			       : NULL,
		       "%s", out);
	free(out);
	remove_tree();
}

/* Lines of @out that start with "testfs: ". */
static unsigned count_testfs_lines(const char *out)
{
	const char *p = out;
	unsigned n = 0;

	while (p && *p) {
		n += strncmp(p, "testfs: ", 8) == 0;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* Neither ESC, BEL, a C1 CSI nor invalid UTF-8 reaches the terminal. */
static void expect_no_raw_controls(const char *out)
{
	const unsigned char *p;

	for (p = (const unsigned char *)out; *p; p++)
		cr_expect(*p == '\n' || (*p >= 0x20 && *p != 0x7f &&
					 *p != 0xff && *p != 0x9b),
			  "raw byte 0x%02x on stderr: %s", *p, out);
}

/*
 * Names of skipped entries come from disk: a newline in one must not
 * forge a second "testfs: ..." line, and ESC/OSC sequences must not reach
 * the terminal. Each is shown escaped (\n, \xNN, \\).
 */
Test(backing_input, skipped_names_are_escaped)
{
	static const char *const odd[] = {
		"evil\ntestfs: forged line",
		"\x1b]0;owned\x07title",
		"bad\xff\xfe",
		"back\\slash",
		/* Two literals, so that 31 is not read into the \x escape. */
		("c1\xc2\x9b"
		 "31m"),
	};
	static const char *const shown[] = {
		"evil\\ntestfs: forged line (FIFO)",
		"\\x1b]0;owned\\x07title (FIFO)",
		"bad\\xff\\xfe (FIFO)",
		"back\\\\slash (FIFO)",
		"c1\\xc2\\x9b31m (FIFO)",
	};
	const char *argv[] = { harness_bin(), "--backing", NULL,
			       "/nonexistent/mnt", NULL };
	char path[256], *out = NULL;
	size_t i;
	int status;

	make_tree("/tmp");
	argv[2] = tree;
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tree, odd[i]);
		cr_assert_eq(mkfifo(path, 0644), 0, "%s", strerror(errno));
	}
	status = harness_run(argv, &out, 10);
	cr_expect_eq(status, 1, "exit %d: %s", status, out);
	cr_expect_not_null(strstr(out, "skipped 5 entries"), "%s", out);
	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		cr_expect_not_null(strstr(out, shown[i]), "'%s' not in: %s",
				   shown[i], out);
	/* The warning and the mountpoint's failure: two lines, no more. */
	cr_expect_eq(count_testfs_lines(out), 2, "%s", out);
	expect_no_raw_controls(out);
	free(out);
	remove_tree();
}

/* Names given by the user are escaped the same way. */
Test(backing_input, names_from_the_command_line_are_escaped)
{
	const char *argv[] = { harness_bin(), "--backing",
			       "/nonexistent/a\ntestfs: forged\x1b[2J", "/mnt",
			       NULL };
	const char *argv_mnt[] = { harness_bin(), "--file", "a.bin:4K",
				   "/nonexistent/m\ntestfs: forged\x1b[2J",
				   NULL };
	char *out = NULL;
	int status;

	status = harness_run(argv, &out, 10);
	cr_expect_eq(status, 2, "exit %d: %s", status, out);
	cr_expect_not_null(
		strstr(out, "'/nonexistent/a\\ntestfs: forged\\x1b[2J'"), "%s",
		out);
	cr_expect_eq(count_testfs_lines(out), 1, "%s", out);
	expect_no_raw_controls(out);
	free(out);
	status = harness_run(argv_mnt, &out, 10);
	cr_expect_eq(status, 1, "exit %d: %s", status, out);
	cr_expect_not_null(
		strstr(out, "'/nonexistent/m\\ntestfs: forged\\x1b[2J'"), "%s",
		out);
	cr_expect_eq(count_testfs_lines(out), 1, "%s", out);
	expect_no_raw_controls(out);
	free(out);
}
