// SPDX-License-Identifier: MIT
/*
 * testfs is a read-only file system: every request that would change it
 * fails with EROFS and changes nothing. open(O_RDONLY|O_TRUNC) used to
 * succeed, and the kernel then emptied the file's page cache behind the
 * test that had filled it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/pagecache.h"
#include "mount_harness.h"

#define FILE_SIZE (256 * 1024)

static struct tfs_mount mnt;

static void start(void)
{
	const char *args[] = { "--file", "a.bin:256K", "--file", "dir/b.bin:4K",
			       NULL };

	harness_require_fuse();
	if (geteuid() != 0)
		cr_skip_test("needs root: as another user default_permissions "
			     "answers EACCES before testfs is asked");
	harness_start(&mnt, args);
}

static void stop(void)
{
	harness_stop_checked(&mnt);
}

TestSuite(read_only, .init = start, .fini = stop, .timeout = 60);

/*
 * Pages of @path the page cache holds or evicted by reclaim: truncation
 * removes both the pages and reclaim's shadow entries, so this sum drops
 * only when something truncated the file, not when DAMON or kswapd
 * evicted a page in the meantime.
 */
static uint64_t cached_or_evicted(const char *path)
{
	struct pagecache_stat st;
	int fd = open(path, O_RDONLY);
	int err;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	err = pagecache_stat(fd, 0, 0, &st);
	close(fd);
	if (err == -ENOSYS)
		cr_skip_test("cachestat() not available on this kernel");
	cr_assert_eq(err, 0, "cachestat: %s", strerror(-err));
	return st.nr_cache + st.nr_evicted;
}

static void read_all(const char *path)
{
	char *buf = malloc(FILE_SIZE);
	int fd = open(path, O_RDONLY);

	cr_assert_not_null(buf);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, FILE_SIZE), FILE_SIZE);
	close(fd);
	free(buf);
}

#define EXPECT_EROFS(call)                                                     \
	do {                                                                   \
		errno = 0;                                                     \
		cr_expect_eq((call), -1, #call " succeeded");                  \
		cr_expect_eq(errno, EROFS, #call ": %s, want EROFS",           \
			     strerror(errno));                                 \
	} while (0)

Test(read_only, open_with_o_trunc_fails_and_keeps_the_page_cache)
{
	const char *path = harness_path(&mnt, "a.bin");
	uint64_t before, after;
	struct stat st;

	read_all(path);
	before = cached_or_evicted(path);
	cr_assert_eq(before, FILE_SIZE / 4096,
		     "%llu of %d pages cached after reading the whole file",
		     (unsigned long long)before, FILE_SIZE / 4096);
	EXPECT_EROFS(open(path, O_RDONLY | O_TRUNC));
	EXPECT_EROFS(open(path, O_WRONLY | O_TRUNC));
	EXPECT_EROFS(open(path, O_RDWR));
	after = cached_or_evicted(path);
	cr_expect_eq(after, before, "%llu pages cached before, %llu after",
		     (unsigned long long)before, (unsigned long long)after);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_size, FILE_SIZE);
}

Test(read_only, control_files_refuse_o_trunc_except_ctl)
{
	int fd;

	EXPECT_EROFS(
		open(harness_path(&mnt, ".testfs/stats"), O_RDONLY | O_TRUNC));
	/* "echo cmd > ctl" opens with O_TRUNC: it must keep working. */
	fd = open(harness_path(&mnt, ".testfs/ctl"), O_WRONLY | O_TRUNC);
	cr_expect_geq(fd, 0, "ctl: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

Test(read_only, namespace_changes_fail_with_erofs)
{
	char *file = strdup(harness_path(&mnt, "a.bin"));
	char *dir = strdup(harness_path(&mnt, "dir"));
	char *nested = strdup(harness_path(&mnt, "dir/b.bin"));
	char *newp = strdup(harness_path(&mnt, "new"));

	cr_assert(file && dir && nested && newp);
	EXPECT_EROFS(open(newp, O_WRONLY | O_CREAT, 0644));
	EXPECT_EROFS(open(newp, O_RDONLY | O_CREAT, 0644));
	EXPECT_EROFS(mkdir(newp, 0755));
	EXPECT_EROFS(mknod(newp, S_IFREG | 0644, 0));
	EXPECT_EROFS(mkfifo(newp, 0644));
	EXPECT_EROFS(symlink("a.bin", newp));
	EXPECT_EROFS(link(file, newp));
	EXPECT_EROFS(unlink(file));
	EXPECT_EROFS(rmdir(dir));
	EXPECT_EROFS(rename(file, newp));
	EXPECT_EROFS(rename(nested, newp));
	cr_expect_eq(access(newp, F_OK), -1, "'new' appeared");
	cr_expect_eq(access(file, F_OK), 0);
	cr_expect_eq(access(nested, F_OK), 0);
	free(file);
	free(dir);
	free(nested);
	free(newp);
}

Test(read_only, attribute_changes_fail_with_erofs)
{
	const char *path = harness_path(&mnt, "a.bin");
	struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };
	struct stat st;

	EXPECT_EROFS(truncate(path, 0));
	EXPECT_EROFS(truncate(path, 2 * FILE_SIZE));
	EXPECT_EROFS(chmod(path, 0600));
	EXPECT_EROFS(chown(path, 1, 1));
	EXPECT_EROFS(utimes(path, tv));
	EXPECT_EROFS(setxattr(path, "user.testfs", "x", 1, 0));
	EXPECT_EROFS(removexattr(path, "user.testfs"));
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_size, FILE_SIZE);
	cr_expect_eq(st.st_mode & 07777, 0444);
}
