// SPDX-License-Identifier: MIT
/*
 * The control directory: effective settings, drop-cache, marks, clear,
 * errors, and control reads that never appear in the log.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <stdint.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/pagecache.h"
#include "ctl/control.h"
#include "mount_harness.h"

#define PAGE 4096u

static struct tfs_mount mnt;

static void start(void)
{
	static const char *const args[] = {
		"--file",
		"big.bin:16M",
		"--file",
		"dir/other.bin:1M:random:7",
		"--ra-kb",
		"512",
		"--max-pages",
		"64",
		"--max-background",
		"20",
		"--congestion-threshold",
		"15",
		NULL,
	};

	harness_start(&mnt, args);
}

static void stop(void)
{
	harness_stop_checked(&mnt);
}

TestSuite(ctl, .init = start, .fini = stop, .timeout = 60);

static void read_all(const char *name, size_t len)
{
	char *buf = malloc(len);
	int fd = open(harness_path(&mnt, name), O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

static uint64_t cached_pages(const char *name)
{
	struct pagecache_stat st;
	int fd = open(harness_path(&mnt, name), O_RDONLY);
	int err;

	cr_assert_geq(fd, 0);
	err = pagecache_stat(fd, 0, 0, &st);
	close(fd);
	if (err == -ENOSYS)
		cr_skip_test("cachestat() not available on this kernel");
	cr_assert_eq(err, 0, "cachestat: %s", strerror(-err));
	return st.nr_cache;
}

static void expect_field(const char *json, const char *needle)
{
	cr_assert_not_null(strstr(json, needle), "%s not in %s", needle, json);
}

Test(ctl, config_shows_effective_values)
{
	char *cfg =
		harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	char bdi[64];
	struct stat st;

	expect_field(cfg, "\"ra_kb\":{\"requested\":512,\"effective\":512}");
	expect_field(cfg, "\"max_pages\":{\"requested\":64,\"effective\":64}");
	expect_field(cfg,
		     "\"max_background\":{\"requested\":20,\"effective\":20}");
	expect_field(
		cfg,
		"\"congestion_threshold\":{\"requested\":15,\"effective\":15}");
	expect_field(cfg, "\"page_size\":4096");
	expect_field(cfg, "\"name\":\"dir/other.bin\"");
	expect_field(cfg, "\"pattern\":\"random:7\"");
	cr_assert_eq(stat(mnt.dir, &st), 0);
	snprintf(bdi, sizeof(bdi), "\"bdi\":\"%u:%u\"", major(st.st_dev),
		 minor(st.st_dev));
	expect_field(cfg, bdi);
	free(cfg);
}

Test(ctl, drop_cache_leaves_no_page)
{
	read_all("big.bin", 4 << 20);
	cr_assert_gt(cached_pages("big.bin"), 1000);
	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin"), 0);
	cr_assert_eq(cached_pages("big.bin"), 0);
}

Test(ctl, drop_cache_evicts_mapped_pages)
{
	volatile char sink;
	char *map;
	int fd;
	size_t i;

	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY);
	map = mmap(NULL, 256 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	for (i = 0; i < 256; i++)
		sink = map[i * PAGE];
	(void)sink;
	cr_assert_gt(cached_pages("big.bin"), 0);
	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin"), 0);
	cr_assert_eq(cached_pages("big.bin"), 0,
		     "pages still cached while mapped");
	/* Touching again fetches again: the eviction was real. */
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	sink = map[0];
	munmap(map, 256 * PAGE);
	close(fd);
	harness_assert_log_matches_cache(&mnt, "big.bin", 4096);
}

Test(ctl, drop_cache_all_files)
{
	read_all("big.bin", 1 << 20);
	read_all("dir/other.bin", 1 << 20);
	cr_assert_eq(harness_ctl(&mnt, "drop-cache"), 0);
	cr_assert_eq(cached_pages("big.bin"), 0);
	cr_assert_eq(cached_pages("dir/other.bin"), 0);
}

Test(ctl, mark_and_clear)
{
	char *log;
	struct tfs_log bin;

	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin"), 0);
	read_all("big.bin", PAGE);
	cr_assert_eq(harness_ctl(&mnt, "mark phase one"), 0);
	harness_log(&mnt, &bin);
	cr_assert_geq(bin.count, 2);
	cr_assert_eq(bin.recs[bin.count - 1].kind, LOG_MARK);
	cr_assert_str_eq(bin.recs[bin.count - 1].mark.text, "phase one");
	harness_log_free(&bin);

	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	log = harness_read_file(harness_path(&mnt, ".testfs/log"), NULL);
	cr_assert_str_eq(log, "", "log not empty after clear: %s", log);
	free(log);
	cr_assert_eq(harness_ctl(&mnt, "mark after\n"), 0);
	log = harness_read_file(harness_path(&mnt, ".testfs/log"), NULL);
	/* seq keeps counting across clear. */
	cr_assert_not_null(strstr(log, "\"mark\":\"after\""), "%s", log);
	cr_assert_null(strstr(log, "\"seq\":1,"), "%s", log);
	free(log);
}

Test(ctl, bad_commands_are_rejected_with_a_reason)
{
	static const struct {
		const char *cmd;
		const char *reason;
	} cases[] = {
		{ "frobnicate\n", "unknown command 'frobnicate'" },
		{ "drop-cache nosuch.bin\n", "'nosuch.bin'" },
		{ "drop-cache dir\n", "'dir'" },
		{ "mark\n", "missing TEXT" },
		{ "clear now\n", "takes no argument" },
		{ "mark "
		  "0123456789012345678901234567890123456789012345678901234567890"
		  "1234567890123456789012345678901234567890123456789\n",
		  "limit" },
	};
	char *err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {

		cr_assert_eq(harness_ctl(&mnt, cases[i].cmd), -EINVAL,
			     "'%s' was not rejected with EINVAL", cases[i].cmd);
		err = harness_read_file(harness_path(&mnt, ".testfs/error"),
					NULL);
		cr_assert_not_null(strstr(err, cases[i].reason),
				   "error for '%s' is '%s'", cases[i].cmd, err);
		free(err);
	}
	cr_assert_eq(harness_ctl(&mnt, "clear\n"), 0);
	err = harness_read_file(harness_path(&mnt, ".testfs/error"), NULL);
	cr_assert_str_eq(err, "", "error not cleared by a good command");
	free(err);
}

/*
 * The commands testfs-control(5) documents are the rows of the command
 * table, and the message for an unknown command, generated from the
 * table, names every one of them, as it did when written by hand.
 */
Test(ctl, unknown_command_lists_every_command)
{
	static const char *const documented[] = {
		"clear",	 "drop-cache [NAME]", "mark TEXT",
		"latency MODEL", "rule SPEC",	      "error SPEC",
		"rules clear",	 "pause SPEC",	      "resume",
		"ra-kb N",
	};
	const char *usage;
	size_t i, k, n = 0;
	char *err;

	for (i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
		for (k = 0; (usage = control_command_usage(k)); k++)
			if (!strcmp(usage, documented[i]))
				break;
		cr_expect_not_null(usage, "no command '%s' in the table",
				   documented[i]);
	}
	cr_assert_eq(harness_ctl(&mnt, "frobnicate\n"), -EINVAL);
	err = harness_read_file(harness_path(&mnt, ".testfs/error"), NULL);
	for (k = 0; (usage = control_command_usage(k)); k++, n++)
		cr_expect_not_null(strstr(err, usage), "'%s' missing from '%s'",
				   usage, err);
	cr_expect_eq(n, sizeof(documented) / sizeof(documented[0]),
		     "the table has %zu commands, the page documents %zu", n,
		     sizeof(documented) / sizeof(documented[0]));
	cr_expect_str_eq(
		err,
		"unknown command 'frobnicate' (expected clear, drop-cache [NAME], mark TEXT, latency MODEL, rule SPEC, error SPEC, rules clear, pause SPEC, resume or ra-kb N)\n");
	free(err);
}

Test(ctl, control_reads_are_not_logged)
{
	static const char *const files[] = { ".testfs/log", ".testfs/log.bin",
					     ".testfs/config", ".testfs/stats",
					     ".testfs/error" };
	size_t i, k;
	char *log;

	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	for (k = 0; k < 20; k++)
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			free(harness_read_file(harness_path(&mnt, files[i]),
					       NULL));
	log = harness_read_file(harness_path(&mnt, ".testfs/log"), NULL);
	cr_assert_str_eq(log, "", "control reads were logged: %s", log);
	free(log);
}

Test(ctl, access_modes)
{
	int fd;

	fd = open(harness_path(&mnt, "big.bin"), O_WRONLY);
	cr_assert_eq(fd, -1);
	cr_assert(errno == EROFS || errno == EACCES, "errno %d", errno);
	fd = open(harness_path(&mnt, ".testfs/ctl"), O_RDONLY);
	cr_assert_eq(fd, -1);
	fd = open(harness_path(&mnt, ".testfs/stats"), O_WRONLY);
	cr_assert_eq(fd, -1);
	cr_assert_eq(truncate(harness_path(&mnt, "big.bin"), 0), -1);
}

Test(ctl, log_json_and_binary_agree)
{
	struct tfs_log bin;
	char *json, *p;
	size_t lines = 0;

	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin"), 0);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	read_all("big.bin", 2 << 20);
	cr_assert_eq(harness_ctl(&mnt, "mark done"), 0);
	harness_settle(&mnt);
	json = harness_read_file(harness_path(&mnt, ".testfs/log"), NULL);
	harness_log(&mnt, &bin);
	for (p = json; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, bin.count, "%zu JSON lines, %zu binary records",
		     lines, bin.count);
	for (size_t i = 0; i < bin.count; i++) {
		char needle[64];

		snprintf(needle, sizeof(needle), "{\"seq\":%llu,",
			 (unsigned long long)bin.recs[i].seq);
		cr_assert_not_null(strstr(json, needle), "seq %llu missing",
				   (unsigned long long)bin.recs[i].seq);
	}
	harness_log_free(&bin);
	free(json);
}

/* A command may arrive one byte per write(), or without a newline. */
Test(ctl, commands_split_across_writes)
{
	const char *cmd = "mark split\n  mark   spaced\nmark no newline";
	struct tfs_log bin;
	size_t i;
	int fd;

	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	fd = open(harness_path(&mnt, ".testfs/ctl"), O_WRONLY);
	cr_assert_geq(fd, 0);
	for (i = 0; i < strlen(cmd); i++)
		cr_assert_eq(write(fd, cmd + i, 1), 1, "byte %zu: %s", i,
			     strerror(errno));
	/* The last line runs when the file is closed. */
	cr_assert_eq(close(fd), 0);
	harness_log(&mnt, &bin);
	cr_assert_eq(bin.count, 3, "%zu records", bin.count);
	cr_assert_str_eq(bin.recs[0].mark.text, "split");
	cr_assert_str_eq(bin.recs[1].mark.text, "spaced");
	cr_assert_str_eq(bin.recs[2].mark.text, "no newline");
	harness_log_free(&bin);
}

Test(ctl, multi_line_write_says_what_ran)
{
	int fd = open(harness_path(&mnt, ".testfs/ctl"), O_WRONLY);
	const char *cmd = "mark first\nbogus\nmark third\n";
	struct tfs_log bin;
	char *err;

	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, cmd, strlen(cmd)), -1);
	cr_assert_eq(errno, EINVAL);
	close(fd);
	err = harness_read_file(harness_path(&mnt, ".testfs/error"), NULL);
	cr_assert_not_null(strstr(err, "command 2 of 3"), "%s", err);
	cr_assert_not_null(strstr(err, "the 1 before it ran"), "%s", err);
	free(err);
	harness_log(&mnt, &bin);
	cr_assert_eq(bin.count, 1, "%zu records", bin.count);
	cr_assert_str_eq(bin.recs[0].mark.text, "first");
	harness_log_free(&bin);
}

/* O_DIRECT reads bypass the page cache; the log says so. */
Test(ctl, direct_reads_are_flagged)
{
	void *buf;
	char *json;
	int fd;

	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin"), 0);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	cr_assert_eq(posix_memalign(&buf, PAGE, 16 * PAGE), 0);
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_DIRECT);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, buf, 16 * PAGE, 64 * PAGE), 16 * PAGE);
	close(fd);
	json = harness_read_file(harness_path(&mnt, ".testfs/log"), NULL);
	cr_assert_not_null(strstr(json, "\"direct\":true"), "%s", json);
	free(json);
	/* The log's page-cache reads still equal what is cached. */
	harness_assert_log_matches_cache(&mnt, "big.bin", 4096);
	free(buf);
}

/*
 * The JSON log is rendered as it is read: a long log arrives whole and in
 * order, and a reader that seeks back gets the same bytes again.
 */
Test(ctl, long_log_streams_in_order)
{
	char *cmds = malloc(20000 * 16), *p = cmds, *json, *line;
	size_t len, n = 0, i;
	char first[256], again[256];
	uint64_t prev = 0, seq;
	int fd;

	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	for (i = 0; i < 20000; i++)
		p += sprintf(p, "mark m%zu\n", i);
	fd = open(harness_path(&mnt, ".testfs/ctl"), O_WRONLY);
	cr_assert_eq(write(fd, cmds, (size_t)(p - cmds)), p - cmds);
	close(fd);
	json = harness_read_file(harness_path(&mnt, ".testfs/log"), &len);
	for (line = json; *line; line = strchr(line, '\n') + 1) {
		cr_assert_eq(sscanf(line, "{\"seq\":%lu,", &seq), 1, "%.80s",
			     line);
		cr_assert_gt(seq, prev, "seq %lu after %lu", seq, prev);
		prev = seq;
		n++;
	}
	cr_assert_eq(n, 20000, "%zu lines", n);
	fd = open(harness_path(&mnt, ".testfs/log"), O_RDONLY);
	cr_assert_eq(pread(fd, first, sizeof(first), 0), sizeof(first));
	cr_assert_eq(pread(fd, again, sizeof(again), 100000), sizeof(again));
	cr_assert_eq(pread(fd, again, sizeof(again), 0), sizeof(again));
	cr_assert_eq(memcmp(first, again, sizeof(first)), 0);
	close(fd);
	free(json);
	free(cmds);
}

/*
 * ctl opened after a clear (the marks in the log are the test's own), and
 * the result of each write() to it (0 or errno).
 */
static int ctl_open(void)
{
	int fd;

	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	fd = open(harness_path(&mnt, ".testfs/ctl"), O_WRONLY);

	cr_assert_geq(fd, 0, "open ctl: %s", strerror(errno));
	return fd;
}

static int ctl_write(int fd, const char *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return errno;
	cr_assert_eq((size_t)n, len, "short write: %zd of %zu", n, len);
	return 0;
}

static int ctl_writes(int fd, const char *s)
{
	return ctl_write(fd, s, strlen(s));
}

/* @n bytes of @c. */
static char *filler(char c, size_t n)
{
	char *p = malloc(n);

	cr_assert_not_null(p);
	memset(p, c, n);
	return p;
}

/* The marks in the log since the last clear, one per line. */
static char *marks(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct tfs_log bin;
	size_t i;

	harness_log(&mnt, &bin);
	for (i = 0; i < bin.count; i++)
		if (bin.recs[i].kind == LOG_MARK)
			strbuf_addf(&sb, "%s\n", bin.recs[i].mark.text);
	harness_log_free(&bin);
	return sb.data ? strbuf_detach(&sb, NULL) : strdup("");
}

static void expect_error(const char *needle)
{
	char *err =
		harness_read_file(harness_path(&mnt, ".testfs/error"), NULL);

	cr_expect_not_null(strstr(err, needle), "error is '%s'", err);
	free(err);
}

/*
 * "mark " and more than 64 KiB without a newline, in several writes: the
 * write that reaches 65536 bytes fails, and the rest of that line, up to
 * its newline, never runs as a command of its own (it used to: "mark
 * INJECTED" landed in the log).
 */
Test(ctl, tail_of_a_long_line_never_runs)
{
	char *a = filler('A', 40000), *m;
	int fd;

	fd = ctl_open();
	cr_assert_eq(ctl_writes(fd, "mark "), 0);
	cr_assert_eq(ctl_write(fd, a, 40000), 0);
	cr_assert_eq(ctl_write(fd, a, 40000), EINVAL);
	expect_error("a line reached 65536 bytes without a newline");
	cr_assert_eq(ctl_write(fd, a, 100), EINVAL);
	cr_assert_eq(ctl_writes(fd, "mark INJECTED\n"), EINVAL);
	expect_error("the rest of a refused line");
	cr_assert_eq(ctl_writes(fd, "mark after\n"), 0);
	cr_assert_eq(close(fd), 0);
	m = marks();
	cr_assert_str_eq(m, "after\n");
	free(m);
	free(a);
}

/* The same when the write that reaches the limit also ends the line. */
Test(ctl, long_line_refused_whatever_the_writes)
{
	char *a = filler('A', 70000), *m;
	int fd;

	fd = ctl_open();
	cr_assert_eq(ctl_writes(fd, "mark "), 0);
	memcpy(a + 69980, "\nmark INJECTED\n", 15);
	cr_assert_eq(ctl_write(fd, a, 69995), EINVAL);
	cr_assert_eq(ctl_writes(fd, "mark after\n"), 0);
	/* close() ends a refused line: nothing of it runs. */
	memcpy(a, "mark X", 6);
	cr_assert_eq(ctl_write(fd, a, 65536), EINVAL);
	cr_assert_eq(close(fd), 0);
	m = marks();
	cr_assert_str_eq(m, "after\n");
	free(m);
	free(a);
}

/*
 * testfs-control(5): a line that reaches 65536 bytes without a newline is
 * refused, comments included; 65535 bytes and a newline are taken.
 */
Test(ctl, long_comment_lines_are_refused)
{
	char *c = filler('#', 65537);
	int fd = ctl_open();

	c[65535] = '\n';
	cr_assert_eq(ctl_write(fd, c, 65536), 0, "65535 bytes and a newline");
	c[65535] = '#';
	c[65536] = '\n';
	cr_assert_eq(ctl_write(fd, c, 65537), EINVAL,
		     "65536 bytes and a newline");
	expect_error("a line reached 65536 bytes without a newline");
	cr_assert_eq(ctl_write(fd, c, 40000), 0);
	cr_assert_eq(ctl_write(fd, c, 25536), EINVAL, "the same in two writes");
	cr_assert_eq(ctl_writes(fd, "\n"), EINVAL);
	cr_assert_eq(ctl_writes(fd, "mark ok\n"), 0);
	cr_assert_eq(close(fd), 0);
	free(c);
}

/* A write refused for a NUL byte takes the line it was in with it. */
Test(ctl, tail_after_a_nul_byte_never_runs)
{
	char *m;
	int fd;

	fd = ctl_open();
	cr_assert_eq(ctl_writes(fd, "mark A"), 0);
	cr_assert_eq(ctl_write(fd, "B\0C", 3), EINVAL);
	expect_error("NUL byte");
	cr_assert_eq(ctl_writes(fd, "mark INJECTED\n"), EINVAL);
	cr_assert_eq(ctl_writes(fd, "mark after\n"), 0);
	cr_assert_eq(close(fd), 0);
	m = marks();
	cr_assert_str_eq(m, "after\n");
	free(m);
}

/* The largest read of @name in @log, in pages. */
static uint32_t largest_read(const struct tfs_log *log, const char *name)
{
	uint64_t ino = harness_ino(harness_path(&mnt, name));
	uint32_t most = 0;
	size_t i;

	for (i = 0; i < log->count; i++) {
		const struct log_record *r = &log->recs[i];

		if (r->kind == LOG_READ && r->read.ino == ino &&
		    r->read.len / PAGE > most)
			most = r->read.len / PAGE;
	}
	return most;
}

/* Reads the first @npages pages of @name 4 KiB at a time, as dd bs=4k. */
static void read_pages_4k(const char *name, size_t npages)
{
	char buf[PAGE];
	int fd = open(harness_path(&mnt, name), O_RDONLY);
	size_t i;

	cr_assert_geq(fd, 0);
	for (i = 0; i < npages; i++)
		cr_assert_eq(read(fd, buf, PAGE), (ssize_t)PAGE);
	close(fd);
}

/*
 * ra-kb changes read_ahead_kb of the running mount: .testfs/config and
 * the bdi say so, and a file opened after it reads in windows of that
 * size. The mount starts at 512 KiB with max_pages 64: its largest read
 * is 64 pages (a 128-page window split by max_pages); at 128 KiB the
 * window, and so the largest read, is 32 pages (the ramp 4, 8, 16, 32,
 * 32 ... of 4 KiB reads, docs/tutorial.md experiment 1).
 */
Test(ctl, ra_kb_changes_the_running_mount)
{
	struct tfs_log log;
	char path[96], *cfg, *sys;
	struct stat st;

	read_pages_4k("big.bin", 512);
	harness_log(&mnt, &log);
	cr_assert_eq(largest_read(&log, "big.bin"), 64);
	harness_log_free(&log);

	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin\n"), 0);
	cr_assert_eq(harness_ctl(&mnt, "clear\nra-kb 128\n"), 0);
	cfg = harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	expect_field(cfg, "\"ra_kb\":{\"requested\":128,\"effective\":128}");
	free(cfg);
	cr_assert_eq(stat(mnt.dir, &st), 0);
	snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	sys = harness_read_file(path, NULL);
	cr_assert_str_eq(sys, "128\n");
	free(sys);
	read_pages_4k("big.bin", 512);
	harness_log(&mnt, &log);
	cr_assert_eq(largest_read(&log, "big.bin"), 32);
	harness_log_free(&log);
}

/* A command and the exact .testfs/error it must leave (EINVAL). */
struct refusal {
	const char *cmd, *error;
};

static void expect_refused(const struct refusal *cases, size_t n)
{
	char *err;
	size_t i;

	for (i = 0; i < n; i++) {
		cr_assert_eq(harness_ctl(&mnt, cases[i].cmd), -EINVAL, "%s",
			     cases[i].cmd);
		err = harness_read_file(harness_path(&mnt, ".testfs/error"),
					NULL);
		cr_expect_str_eq(err, cases[i].error);
		free(err);
	}
}

/* A bad N is refused, says why, and changes nothing. */
Test(ctl, ra_kb_refuses_a_bad_value)
{
	static const struct refusal cases[] = {
		{ "ra-kb\n",
		  "ra-kb: missing N (usage: ra-kb N, in KiB, 0 to 1048576)\n" },
		{ "ra-kb 1048577\n",
		  "ra-kb '1048577': value out of range (expected KiB, 0 to "
		  "1048576)\n" },
		{ "ra-kb -4\n",
		  "ra-kb '-4': negative values are not allowed (expected KiB, "
		  "0 to 1048576)\n" },
		{ "ra-kb 1M\n", "ra-kb '1M': trailing characters after the "
				"number (expected KiB, 0 to 1048576)\n" },
	};
	char *cfg;

	expect_refused(cases, sizeof(cases) / sizeof(cases[0]));
	cfg = harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	expect_field(cfg, "\"ra_kb\":{\"requested\":512,\"effective\":512}");
	free(cfg);
}

/*
 * A daemon that is not root cannot write the bdi's read_ahead_kb: the
 * command fails with EACCES and says why. The daemon, the command and
 * the unmount run as nobody (a mount without allow_other answers its
 * owner only).
 */
Test(ctl_user, ra_kb_needs_root, .timeout = 60)
{
	char dir[] = "/tmp/testfs-test.mount_ctl.XXXXXX", script[1024];
	char want[256], *out = NULL, *bdi;
	const char *argv[] = { "/usr/bin/setpriv",
			       "--reuid=65534",
			       "--regid=65534",
			       "--clear-groups",
			       "/bin/sh",
			       "-c",
			       script,
			       NULL };
	unsigned maj, min;
	int status;

	if (geteuid() != 0 || access(argv[0], X_OK) != 0)
		cr_skip_test("needs root (to become nobody) and setpriv");
	harness_require_fuse();
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chown(dir, 65534, 65534), 0);
	snprintf(script, sizeof(script),
		 "%s --watch-pid $$ --file a.bin:1M %s >%s.out 2>&1 || "
		 "{ cat %s.out; exit 1; }; cat %s.out; "
		 "echo 'ra-kb 512' >%s/.testfs/ctl; echo \"status $?\"; "
		 "cat %s/.testfs/error; fusermount3 -u %s",
		 harness_bin(), dir, dir, dir, dir, dir, dir, dir);
	status = harness_run(argv, &out, 40);
	if (harness_is_mounted(dir))
		umount2(dir, MNT_DETACH);
	rmdir(dir);
	unlink(strcat(strcpy(script, dir), ".out"));
	cr_assert_eq(status, 0, "%s", out);
	bdi = strstr(out, "(bdi ");
	cr_assert_not_null(bdi, "%s", out);
	cr_assert_eq(sscanf(bdi, "(bdi %u:%u)", &maj, &min), 2, "%s", out);
	cr_expect_not_null(strstr(out, "status 1\n"), "%s", out);
	snprintf(
		want, sizeof(want),
		"\nra-kb 512: cannot write /sys/class/bdi/%u:%u/read_ahead_kb: "
		"Permission denied (testfs runs as a user: needs root)\n",
		maj, min);
	cr_expect_not_null(strstr(out, want), "want%s\ngot\n%s", want, out);
	free(out);
}

/*
 * A write refused before any command runs (a NUL byte) counts as a
 * command and as rejected, so ctl_rejected never exceeds ctl_commands.
 */
Test(ctl, rejected_writes_count_as_commands)
{
	char *stats;
	int fd = open(harness_path(&mnt, ".testfs/ctl"), O_WRONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "mark a\0b\n", 9), -1);
	cr_assert_eq(errno, EINVAL);
	close(fd);
	cr_assert_eq(harness_ctl(&mnt, "bogus\n"), -EINVAL);
	stats = harness_read_file(harness_path(&mnt, ".testfs/stats"), NULL);
	expect_field(stats, "\"ctl_commands\":2,\"ctl_rejected\":2");
	free(stats);
}

/* The command names its argument; the message does not say it again. */
Test(ctl, slow_messages_name_the_spec_once)
{
	static const struct refusal cases[] = {
		{ "latency warp9\n",
		  "latency 'warp9': unknown model 'warp9' (expected none, "
		  "fixed:DUR, uniform:MIN-MAX, normal:MEAN,SD, "
		  "lognormal:MEDIAN,SIGMA, bw:RATE, hdd, sata-ssd, nvme, ufs4 "
		  "or nfs)\n" },
		{ "rule latency=1ms,file=big.bin\n",
		  "rule 'latency=1ms,file=big.bin': latency= must be the last "
		  "key (its MODEL runs to the end of the spec): write "
		  "'file=big.bin,latency=1ms'\n" },
		{ "error errno=EIO,pages=x\n",
		  "error 'errno=EIO,pages=x': bad pages 'x' (expected a decimal "
		  "number; expected A-B with A <= B, or one page number)\n" },
		{ "pause for=2h\n",
		  "pause 'for=2h': bad for '2h' (expected a number with ns, us, "
		  "ms or s; for= is above 0 and at most 3600s, e.g. 500ms)\n" },
	};
	expect_refused(cases, sizeof(cases) / sizeof(cases[0]));
}
