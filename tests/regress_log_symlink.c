// SPDX-License-Identifier: MIT
/*
 * --log PATH must never be a way to overwrite somebody else's file: a
 * symbolic link (as the last component or as any directory on the way),
 * anything but a regular file, or a file the caller does not own is
 * refused (exit 2, before mounting, naming the path and the reason) and
 * left exactly as it was; a new log file is created 0600.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount_harness.h"

#define SECRET "root:$6$salt$hash:19000:0:99999:7:::\n"

static char root[256], mnt[288], secret[288], link_path[288];
/* A directory that is not the caller's to write (root-owned in the
 * report), the secret inside it, and a link to it planted in /tmp. */
static char priv[288], priv_secret[320], evil[288];

static void setup(void)
{
	snprintf(root, sizeof(root), "%sXXXXXX", harness_prefix());
	cr_assert_not_null(mkdtemp(root));
	snprintf(mnt, sizeof(mnt), "%s/mnt", root);
	snprintf(secret, sizeof(secret), "%s/secret", root);
	snprintf(link_path, sizeof(link_path), "%s/log.jsonl", root);
	cr_assert_eq(mkdir(mnt, 0755), 0);
	snprintf(priv, sizeof(priv), "%s/private", root);
	snprintf(priv_secret, sizeof(priv_secret), "%s/victim", priv);
	snprintf(evil, sizeof(evil), "%s/evil", root);
	cr_assert_eq(mkdir(priv, 0700), 0);
}

static void teardown(void)
{
	unlink(link_path);
	unlink(secret);
	unlink(evil);
	unlink(priv_secret);
	rmdir(priv);
	rmdir(mnt);
	rmdir(root);
}

TestSuite(log_path, .init = setup, .fini = teardown, .timeout = 60);

static void write_secret_at(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, SECRET, strlen(SECRET)),
		     (ssize_t)strlen(SECRET));
	close(fd);
}

static void write_secret(void)
{
	write_secret_at(secret);
}

static void expect_untouched_at(const char *path)
{
	char buf[256] = { 0 };
	struct stat st;
	int fd;

	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode changed to %o",
		     st.st_mode & 07777);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(read(fd, buf, sizeof(buf) - 1), (ssize_t)strlen(SECRET));
	cr_expect_str_eq(buf, SECRET, "contents changed");
	close(fd);
}

static void expect_secret_untouched(void)
{
	expect_untouched_at(secret);
}

/* Runs the daemon with --log @path; expects exit 2 naming @path, @why. */
static void expect_refused(const char *path, const char *why)
{
	const char *argv[] = { harness_bin(), "-f", "--no-trace", "--log",
			       path,	      mnt,  NULL };
	char *out;
	int status;

	status = harness_run(argv, &out, 10);
	cr_expect_eq(status, 2, "exit %d: %s", status, out);
	cr_expect_not_null(strstr(out, path), "path not named: %s", out);
	cr_expect_not_null(strstr(out, why), "reason '%s' not given: %s", why,
			   out);
	cr_expect(!harness_is_mounted(mnt), "mounted although refused");
	free(out);
}

Test(log_path, symlink_to_a_private_file_is_refused)
{
	write_secret();
	cr_assert_eq(symlink(secret, link_path), 0);
	expect_refused(link_path, "symbolic link");
	expect_secret_untouched();
}

Test(log_path, dangling_symlink_is_refused_and_creates_nothing)
{
	cr_assert_eq(symlink(secret, link_path), 0);
	expect_refused(link_path, "symbolic link");
	cr_expect_eq(access(secret, F_OK), -1, "the link's target was created");
}

Test(log_path, symlink_given_in_a_config_file_is_refused)
{
	char conf[288], line[320];
	const char *argv[] = { harness_bin(), "-f", "--no-trace", "--config",
			       conf,	      mnt,  NULL };
	char *out;
	int fd, status;

	write_secret();
	cr_assert_eq(symlink(secret, link_path), 0);
	snprintf(conf, sizeof(conf), "%s/testfs.conf", root);
	snprintf(line, sizeof(line), "log %s\n", link_path);
	fd = open(conf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
	status = harness_run(argv, &out, 10);
	unlink(conf);
	cr_expect_eq(status, 2, "exit %d: %s", status, out);
	cr_expect_not_null(strstr(out, "symbolic link"), "%s", out);
	free(out);
	expect_secret_untouched();
}

/*
 * The report's case: a user plants /tmp/evil -> a root-owned directory,
 * root runs testfs --log /tmp/evil/victim. The file in the directory is
 * root's own, so only the link in the way can stop the truncation.
 */
Test(log_path, symlink_as_a_directory_component_is_refused)
{
	char path[320];

	write_secret_at(priv_secret);
	cr_assert_eq(symlink(priv, evil), 0);
	snprintf(path, sizeof(path), "%s/victim", evil);
	expect_refused(path, "symbolic link");
	expect_refused(path, evil);
	expect_untouched_at(priv_secret);
}

Test(log_path, symlinked_directory_gets_no_new_file)
{
	char path[320], created[320];

	cr_assert_eq(symlink(priv, evil), 0);
	snprintf(path, sizeof(path), "%s/new.jsonl", evil);
	snprintf(created, sizeof(created), "%s/new.jsonl", priv);
	expect_refused(path, "symbolic link");
	cr_expect_eq(access(created, F_OK), -1, "a file was created");
	unlink(created);
}

/* A relative link deeper in the path, reached through "..". */
Test(log_path, symlink_anywhere_in_the_path_is_refused)
{
	char sub[300], path[400];

	write_secret_at(priv_secret);
	snprintf(sub, sizeof(sub), "%s/sub", root);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(symlink("../private", evil), 0);
	snprintf(path, sizeof(path), "%s/../evil/./victim", sub);
	expect_refused(path, "symbolic link");
	expect_untouched_at(priv_secret);
	rmdir(sub);
}

Test(log_path, fifo_is_refused_without_hanging)
{
	cr_assert_eq(mkfifo(link_path, 0600), 0);
	expect_refused(link_path, "not a regular file");
}

Test(log_path, directory_is_refused)
{
	expect_refused(root, "not a regular file");
}

Test(log_path, file_of_another_user_is_refused)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give a file to another user");
	write_secret();
	/* 65534: nobody on Debian; any uid other than ours will do. */
	cr_assert_eq(chown(secret, 65534, 65534), 0);
	expect_refused(secret, "owned by uid 65534");
	expect_secret_untouched();
}

Test(log_path, new_log_file_is_private)
{
	const char *args[] = { "--file", "a.bin:64K", "--log", link_path,
			       NULL };
	struct tfs_mount m;
	struct stat st;

	harness_require_fuse();
	harness_start(&m, args);
	cr_assert_eq(harness_stop(&m), 0);
	cr_assert_eq(lstat(link_path, &st), 0);
	cr_expect(S_ISREG(st.st_mode));
	cr_expect_eq(st.st_mode & 07777, 0600, "new log has mode %o",
		     st.st_mode & 07777);
}

Test(log_path, own_log_file_is_truncated_and_reused)
{
	const char *args[] = { "--file", "a.bin:64K", "--log", secret, NULL };
	struct tfs_mount m;
	struct stat st;

	write_secret();
	harness_require_fuse();
	harness_start(&m, args);
	cr_assert_eq(harness_stop(&m), 0);
	cr_assert_eq(stat(secret, &st), 0);
	cr_expect_eq(st.st_size, 0, "old contents kept: %lld bytes",
		     (long long)st.st_size);
}
