// SPDX-License-Identifier: MIT
/*
 * The tools' output files (src/common/outfile.h): a regular file is
 * replaced whole or not at all, a link is followed and stays, a FIFO or
 * device is written into and stays what it is, and every write error
 * (ENOSPC from a scratch /dev/full node, EFBIG from RLIMIT_FSIZE) comes
 * back. The real /dev/full is never touched.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/outfile.h"
#include "fifo_reader.h"

static char dir[PATH_MAX];

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/testfs-test.outfile.XXXXXX",
		 tmp && *tmp == '/' ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
}

static int remove_one(const char *p, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void teardown(void)
{
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

TestSuite(outfile, .init = setup, .fini = teardown, .timeout = 30);

static const char *at(const char *name)
{
	static char p[4][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static char *slurp(const char *path)
{
	static char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static mode_t kind(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
	return st.st_mode & S_IFMT;
}

/* The folder holds exactly @n entries: no temporary file left. */
static void expect_entries(int n)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int seen = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			seen++;
	closedir(d);
	cr_expect_eq(seen, n, "%d entries in %s, want %d", seen, dir, n);
}

/* A character device like /dev/full (1, 7), in the scratch folder. */
static const char *scratch_full(void)
{
	const char *p = at("full");

	if (mknod(p, S_IFCHR | 0666, makedev(1, 7)))
		cr_skip_test("mknod %s: %s (root is needed)", p,
			     strerror(errno));
	return p;
}

Test(outfile, a_new_file_is_created)
{
	cr_assert_eq(outfile_write(at("new"), "hello\n", 6), 0);
	cr_assert_str_eq(slurp(at("new")), "hello\n");
	cr_assert_eq(kind(at("new")), S_IFREG);
	expect_entries(1);
}

Test(outfile, a_regular_file_is_replaced_keeping_its_mode)
{
	struct stat st;

	put(at("old"), "old contents, longer than the new\n");
	cr_assert_eq(chmod(at("old"), 0640), 0);
	cr_assert_eq(outfile_write(at("old"), "new\n", 4), 0);
	cr_assert_str_eq(slurp(at("old")), "new\n");
	cr_assert_eq(stat(at("old"), &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0640, "mode %o", st.st_mode & 0777);
	expect_entries(1);
}

Test(outfile, a_symlink_is_followed_and_stays)
{
	put(at("target"), "old\n");
	cr_assert_eq(symlink("target", at("link")), 0);
	cr_assert_eq(outfile_write(at("link"), "new\n", 4), 0);
	cr_assert_eq(kind(at("link")), S_IFLNK);
	cr_assert_str_eq(slurp(at("target")), "new\n");
	expect_entries(2);
}

Test(outfile, a_chain_of_links_to_a_missing_file_creates_it)
{
	cr_assert_eq(mkdir(at("sub"), 0755), 0);
	cr_assert_eq(symlink("sub/l2", at("l1")), 0);
	cr_assert_eq(symlink("../made", at("sub/l2")), 0);
	cr_assert_eq(outfile_write(at("l1"), "x", 1), 0);
	cr_assert_eq(kind(at("l1")), S_IFLNK);
	cr_assert_eq(kind(at("sub/l2")), S_IFLNK);
	cr_assert_str_eq(slurp(at("made")), "x");
}

/* As fs.protected_symlinks=1: whatever this machine's setting. */
Test(outfile, another_users_link_in_a_sticky_folder_is_not_followed)
{
	put(at("victim"), "kept\n");
	cr_assert_eq(mkdir(at("tmp"), 0777), 0);
	cr_assert_eq(chmod(at("tmp"), 01777), 0);
	cr_assert_eq(symlink("../victim", at("tmp/out")), 0);
	if (geteuid() != 0)
		cr_skip_test("root is needed to give the link away");
	cr_assert_eq(lchown(at("tmp/out"), 65534, 65534), 0);
	cr_expect_eq(outfile_write(at("tmp/out"), "x", 1), -EACCES);
	cr_expect_eq(outfile_check(at("tmp/out")), -EACCES);
	cr_expect_str_eq(slurp(at("victim")), "kept\n");
	cr_expect_eq(kind(at("tmp/out")), S_IFLNK);
	/* Our own link there, or theirs in a folder that is not sticky. */
	cr_assert_eq(lchown(at("tmp/out"), 0, 0), 0);
	cr_expect_eq(outfile_write(at("tmp/out"), "ours\n", 5), 0);
	cr_expect_str_eq(slurp(at("victim")), "ours\n");
	cr_assert_eq(chmod(at("tmp"), 0777), 0);
	cr_assert_eq(lchown(at("tmp/out"), 65534, 65534), 0);
	cr_expect_eq(outfile_write(at("tmp/out"), "x\n", 2), 0);
	cr_expect_str_eq(slurp(at("victim")), "x\n");
}

Test(outfile, bad_targets_are_refused)
{
	cr_assert_eq(symlink("loop", at("loop")), 0);
	cr_expect_eq(outfile_write(at("loop"), "x", 1), -ELOOP);
	cr_expect_eq(outfile_write(dir, "x", 1), -EISDIR);
	cr_expect_eq(outfile_write(at("nodir/"), "x", 1), -EISDIR);
	cr_expect_eq(outfile_write(at("nodir/x"), "x", 1), -ENOENT);
	cr_expect_eq(outfile_write("", "x", 1), -ENOENT);
	cr_expect_eq(outfile_check(at("nodir/x")), -ENOENT);
	cr_expect_eq(outfile_check(dir), -EISDIR);
	expect_entries(1);
}

Test(outfile, a_fifo_is_written_into_and_stays_a_fifo)
{
	struct fifo_reader *r = fifo_reader_start(at("fifo"));
	char *got;

	cr_assert_not_null(r, "mkfifo: %s", strerror(errno));
	cr_assert_eq(outfile_write(at("fifo"), "through\n", 8), 0);
	got = fifo_reader_end(r, NULL);
	cr_assert_str_eq(got, "through\n");
	free(got);
	cr_assert_eq(kind(at("fifo")), S_IFIFO);
	expect_entries(1);
}

Test(outfile, check_neither_opens_a_fifo_nor_truncates_a_file)
{
	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	/* No reader: opening it for writing would block until timeout. */
	cr_assert_eq(outfile_check(at("fifo")), 0);
	put(at("file"), "kept\n");
	cr_assert_eq(outfile_check(at("file")), 0);
	cr_assert_eq(outfile_check(at("absent")), 0);
	cr_assert_str_eq(slurp(at("file")), "kept\n");
	expect_entries(2);
}

Test(outfile, a_full_device_says_enospc_and_stays_a_device)
{
	const char *full = scratch_full();
	struct outfile o;
	int i;

	cr_assert_eq(outfile_write(full, "x", 1), -ENOSPC);
	cr_assert_eq(kind(full), S_IFCHR);
	/* Through a link, and from a stream written piece by piece. */
	cr_assert_eq(symlink("full", at("link")), 0);
	cr_assert_eq(outfile_open(&o, at("link")), 0);
	for (i = 0; i < 10000; i++)
		fprintf(o.f, "line %d\n", i);
	cr_assert_eq(outfile_close(&o), -ENOSPC);
	cr_assert_eq(kind(full), S_IFCHR);
	cr_assert_eq(kind(at("link")), S_IFLNK);
	expect_entries(2);
}

Test(outfile, a_failed_write_leaves_the_old_file_and_no_temporary)
{
	static char big[256 * 1024];
	struct rlimit lim = { 64 * 1024, 64 * 1024 };

	put(at("old"), "old\n");
	/* Files may not grow past 64 KiB: write(2) says EFBIG. */
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	memset(big, 'x', sizeof(big));
	cr_assert_eq(outfile_write(at("old"), big, sizeof(big)), -EFBIG);
	cr_assert_str_eq(slurp(at("old")), "old\n");
	expect_entries(1);
}

/*
 * A descriptor of this process (/dev/stdout, /dev/fd/N, /proc/self/fd/N)
 * is written through: its link is no path ("pipe:[ino]" for a pipe, which
 * failed with ENOENT), and a file behind it is already open, so it is
 * neither replaced nor truncated (--json /dev/stdout > out lost what the
 * tool had printed to out before the rename).
 */
Test(outfile, a_pipe_named_by_its_descriptor_is_written_through)
{
	const char *fmts[] = { "/dev/fd/%d", "/proc/self/fd/%d",
			       "/proc/%d/fd/%d" };
	char path[64], got[64];
	int p[2];
	unsigned i;
	ssize_t n;

	cr_assert_eq(pipe(p), 0);
	for (i = 0; i < 3; i++) {
		if (i < 2)
			snprintf(path, sizeof(path), fmts[i], p[1]);
		else
			snprintf(path, sizeof(path), fmts[i], (int)getpid(),
				 p[1]);
		cr_assert_eq(outfile_check(path), 0, "%s", path);
		cr_assert_eq(outfile_write(path, "piped\n", 6), 0, "%s", path);
		n = read(p[0], got, sizeof(got) - 1);
		cr_assert_eq(n, 6, "%s: read %zd", path, n);
		got[n] = '\0';
		cr_assert_str_eq(got, "piped\n");
	}
	/* The read end: not open for writing. */
	snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
	cr_assert_eq(outfile_check(path), -EBADF);
	cr_assert_eq(outfile_write(path, "x", 1), -EBADF);
	close(p[0]);
	close(p[1]);
}

Test(outfile, a_file_named_by_its_descriptor_keeps_what_it_holds)
{
	char path[64];
	struct stat before, after;
	int fd = open(at("out"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "table\n", 6), 6);
	cr_assert_eq(fstat(fd, &before), 0);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	cr_assert_eq(outfile_write(path, "{}\n", 3), 0);
	cr_assert_eq(write(fd, "end\n", 4), 4);
	close(fd);
	cr_assert_eq(stat(at("out"), &after), 0);
	cr_expect_eq(after.st_ino, before.st_ino, "the file was replaced");
	cr_assert_str_eq(slurp(at("out")), "table\n{}\nend\n");
	expect_entries(1);
}
