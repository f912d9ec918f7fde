// SPDX-License-Identifier: MIT
/*
 * File names are bytes. "bad\xff\xfeutf8" (not UTF-8) and "badÿþutf8"
 * (U+00FF U+00FE in UTF-8) are two different files of a --backing tree;
 * they were both written as "badÿþutf8" to any standard JSON reader
 * (invalid bytes came out as \u00ff\u00fe, the same characters). Now each
 * invalid byte is a lone low surrogate \udcXX in .testfs/log,
 * .testfs/config and the --log file, and libtestfs gives back the exact
 * bytes of each name.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <testfs.h>

#define RAW_NAME "bad\xff\xfeutf8"
#define UTF8_NAME "bad\xc3\xbf\xc3\xbeutf8"
/* How each appears inside a JSON string. */
#define RAW_JSON "\"bad\\udcff\\udcfeutf8\""
#define UTF8_JSON "\"" UTF8_NAME "\""

static char root[256], tree[300], log_path[300];
static struct testfs_mount *fs;

static void write_file(const char *name, size_t len, char fill)
{
	char path[400], buf[8192];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tree, name);
	memset(buf, fill, sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void setup(void)
{
	const char *base = getenv("TMPDIR");

	if (!base || base[0] != '/' || strlen(base) > 150)
		base = "/tmp";
	snprintf(root, sizeof(root), "%s/testfs-test.regress_name_bytes.XXXXXX",
		 base);
	cr_assert_not_null(mkdtemp(root));
	snprintf(tree, sizeof(tree), "%s/tree", root);
	snprintf(log_path, sizeof(log_path), "%s/log.jsonl", root);
	cr_assert_eq(mkdir(tree, 0755), 0);
	write_file(RAW_NAME, 4096, 'r');
	write_file(UTF8_NAME, 8192, 'u');
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void teardown(void)
{
	if (fs)
		testfs_stop(fs);
	fs = NULL;
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(name_bytes, .init = setup, .fini = teardown, .timeout = 60);

static void read_all(const char *name, char fill, size_t len)
{
	char buf[8192];
	int fd = testfs_open(fs, name, O_RDONLY);

	cr_assert_geq(fd, 0, "open through the mount: %s", strerror(-fd));
	cr_assert_eq(read(fd, buf, sizeof(buf)), (ssize_t)len);
	cr_assert_eq(buf[0], fill, "served the other file's bytes");
	close(fd);
}

static char *slurp(const char *path)
{
	char *buf = malloc(1 << 20);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_not_null(buf);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	n = read(fd, buf, (1 << 20) - 1);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	close(fd);
	return buf;
}

/* Both names, each written its own way, and no Latin-1 reading. */
static void expect_distinct(const char *what, const char *text)
{
	cr_expect_not_null(strstr(text, RAW_JSON), "%s lacks %s: %s", what,
			   RAW_JSON, text);
	cr_expect_not_null(strstr(text, UTF8_JSON), "%s lacks %s: %s", what,
			   UTF8_JSON, text);
	cr_expect_null(strstr(text, "\\u00ff"), "%s has \\u00ff: %s", what,
		       text);
}

Test(name_bytes, invalid_utf8_names_stay_distinct)
{
	const char *extra[] = { "--backing", tree, "--log", log_path, NULL };
	struct testfs_config cfg = { .extra_args = extra, .trace = -1 };
	const struct testfs_record *r;
	struct testfs_log *log;
	char path[512], *text;
	uint64_t raw_ino = 0, utf8_ino = 0;
	size_t n, i;
	int err;

	err = testfs_start(&cfg, &fs);
	if (err == -EIO || err == -ENOENT)
		cr_skip_test("no usable FUSE or daemon: %s", strerror(-err));
	cr_assert_eq(err, 0, "testfs_start: %s", strerror(-err));
	read_all(RAW_NAME, 'r', 4096);
	read_all(UTF8_NAME, 'u', 8192);

	snprintf(path, sizeof(path), "%s/.testfs/config",
		 testfs_mountpoint(fs));
	text = slurp(path);
	expect_distinct(".testfs/config", text);
	free(text);
	snprintf(path, sizeof(path), "%s/.testfs/log", testfs_mountpoint(fs));
	text = slurp(path);
	expect_distinct(".testfs/log", text);
	free(text);

	/* libtestfs maps \udcXX back to the byte: exact names. */
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	r = testfs_log_records(log, &n);
	for (i = 0; i < n; i++) {
		if (r[i].kind != TESTFS_RECORD_READ || !r[i].file)
			continue;
		if (strcmp(r[i].file, RAW_NAME) == 0)
			raw_ino = r[i].ino;
		else if (strcmp(r[i].file, UTF8_NAME) == 0)
			utf8_ino = r[i].ino;
		else
			cr_expect_fail("record of an unknown name '%s'",
				       r[i].file);
	}
	cr_expect_neq(raw_ino, 0, "no read named with the raw bytes");
	cr_expect_neq(utf8_ino, 0, "no read named with the UTF-8 name");
	cr_expect_neq(raw_ino, utf8_ino, "both names have one inode");
	cr_expect_gt(testfs_log_requests(log, RAW_NAME), 0);
	cr_expect_gt(testfs_log_requests(log, UTF8_NAME), 0);
	testfs_log_free(log);

	cr_assert_eq(testfs_stop(fs), 0);
	fs = NULL;
	text = slurp(log_path);
	expect_distinct("the --log file", text);
	free(text);
}
