// SPDX-License-Identifier: MIT
/*
 * libtestfs instances and snapshots against the real daemon, through the
 * public API only. Every test starts its instances under a private
 * $TMPDIR ($TMPDIR/testfs-test.lib.*), which it checks is empty at the end:
 * the library removed its mountpoints and left no mount behind.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <testfs.h>

#include "mountinfo.h"

#define A_BIN "a.bin"
#define B_BIN "d/b.bin"

static char tmpdir[256];

/*
 * "$TMPDIR/testfs-test.lib." ($TMPDIR as the test run was given it, or
 * /tmp): scripts/test.sh checks for leftover mounts under its $TMPDIR.
 */
static const char *tmp_prefix(void)
{
	static char prefix[200];
	const char *base = getenv("TMPDIR");

	if (prefix[0])
		return prefix;
	if (!base || base[0] != '/' || strlen(base) > 150)
		base = "/tmp";
	snprintf(prefix, sizeof(prefix), "%s/testfs-test.lib.", base);
	return prefix;
}
/* The instance a test holds: teardown stops it if an assertion failed. */
static struct testfs_mount *held;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Skips where FUSE cannot work; under CI=true that is a failure. */
static void require_fuse(void)
{
	const char *ci = getenv("CI");
	const char *why = NULL;
	struct stat st;
	int fd;

	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		why = errno == ENOENT ? "/dev/fuse missing"
				      : "/dev/fuse not usable by this user";
	else
		close(fd);
	if (!why && access("/usr/bin/fusermount3", X_OK) != 0 &&
	    access("/bin/fusermount3", X_OK) != 0)
		why = "fusermount3 not installed (package fuse3)";
	if (!why && geteuid() != 0 &&
	    (stat("/usr/bin/fusermount3", &st) != 0 || !(st.st_mode & S_ISUID)))
		why = "fusermount3 not setuid and not root";
	if (!why)
		return;
	if (ci && strcmp(ci, "true") == 0)
		cr_assert_fail("FUSE unavailable under CI=true: %s", why);
	cr_skip_test("FUSE unavailable: %s", why);
}

struct mount_count {
	const char *prefix;
	int n;
};

static int count_one(const char *mnt, const struct mount_entry *e, void *arg)
{
	struct mount_count *c = arg;

	if (strcmp(e->fstype, "fuse.testfs") == 0 &&
	    strncmp(mnt, c->prefix, strlen(c->prefix)) == 0)
		c->n++;
	return 0;
}

/* Testfs mounts whose mountpoint starts with @prefix. */
static int count_mounts(const char *prefix)
{
	struct mount_count c = { .prefix = prefix };

	mountinfo_each(count_one, &c);
	return c.n;
}

static bool is_mounted(const char *dir)
{
	return mountinfo_find(dir, NULL);
}

static int count_fds(void)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	cr_assert_not_null(dir);
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n - 1; /* the DIR's own */
}

/* Entries of the private $TMPDIR: what the library left behind. */
static int count_entries(const char *path)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	closedir(dir);
	return n;
}

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%sXXXXXX", tmp_prefix());
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
	cr_assert_eq(setenv("TMPDIR", tmpdir, 1), 0);
}

/* Removes the mountpoints left in $TMPDIR, and $TMPDIR, if empty. */
static void remove_dirs(void)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	dir = opendir(tmpdir);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "testfs.", 7) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/mnt", tmpdir, d->d_name);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/%s", tmpdir, d->d_name);
		rmdir(path);
	}
	closedir(dir);
	rmdir(tmpdir);
}

/* Also after a failed assertion, which ends the test early. */
static void teardown(void)
{
	char path[320];

	if (held)
		testfs_stop(held);
	held = NULL;
	snprintf(path, sizeof(path), "%s.sh", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s.jsonl", tmpdir);
	unlink(path);
	remove_dirs();
}

/* testfs_stop() of the held instance. */
static int stop_held(void)
{
	struct testfs_mount *fs = held;

	held = NULL;
	return testfs_stop(fs);
}

/* The library left nothing in $TMPDIR: no mount, no directory. */
static void assert_tmpdir_clean(void)
{
	cr_assert_eq(count_mounts(tmpdir), 0, "a mount under %s survived",
		     tmpdir);
	cr_assert_eq(count_entries(tmpdir), 0, "%s is not empty", tmpdir);
}

TestSuite(lib, .init = setup, .fini = teardown, .timeout = 60);

static struct testfs_mount *start_files(const char *const *files)
{
	struct testfs_config cfg = { 0 };
	struct testfs_mount *fs = NULL;
	int err;

	require_fuse();
	cfg.files = files;
	err = testfs_start(&cfg, &fs);
	cr_assert_eq(err, 0, "testfs_start: %s", strerror(-err));
	cr_assert_not_null(fs);
	held = fs;
	return fs;
}

/* Reads page @page of @name alone: FADV_RANDOM turns readahead off. */
static void read_page(struct testfs_mount *fs, const char *name, uint64_t page,
		      const char *pattern)
{
	char buf[4096];
	int fd;

	fd = testfs_open(fs, name, O_RDONLY);
	cr_assert_geq(fd, 0, "open %s: %s", name, strerror(-fd));
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_eq(pread(fd, buf, sizeof(buf), (off_t)page * 4096),
		     (ssize_t)sizeof(buf), "pread %s: %s", name,
		     strerror(errno));
	cr_assert_eq(testfs_verify(pattern, name, page * 4096, buf, sizeof(buf),
				   NULL),
		     0, "page %llu of %s has the wrong contents",
		     (unsigned long long)page, name);
	close(fd);
}

Test(lib, lifecycle)
{
	static const char *const files[] = { A_BIN ":1M", B_BIN ":64K:zero",
					     NULL };
	const struct testfs_record *r;
	struct testfs_log *log;
	char path[PATH_MAX], why[256], small[8];
	const char *mnt;
	struct stat st;
	int fds, fd, err;
	struct testfs_mount *fs;

	require_fuse();
	fds = count_fds();
	fs = start_files(files);

	mnt = testfs_mountpoint(fs);
	cr_assert_eq(mnt[0], '/', "mountpoint %s is not absolute", mnt);
	cr_assert_eq(strncmp(mnt, tmpdir, strlen(tmpdir)), 0);
	cr_assert_eq(stat(mnt, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert(is_mounted(mnt), "%s is not mounted", mnt);
	cr_assert_gt(testfs_pid(fs), 0);

	cr_assert_eq(testfs_path(fs, A_BIN, path, sizeof(path)), 0);
	cr_assert_str_eq(path + strlen(mnt), "/" A_BIN);
	cr_assert_eq(testfs_path(fs, A_BIN, small, sizeof(small)),
		     -ENAMETOOLONG);
	fd = testfs_open(fs, B_BIN, O_RDONLY);
	cr_assert_geq(fd, 0, "open: %s", strerror(-fd));
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC, "O_CLOEXEC not added");
	close(fd);
	cr_assert_eq(testfs_open(fs, "missing.bin", O_RDONLY), -ENOENT);
	cr_assert_eq(testfs_file_size(fs, A_BIN), 1 << 20);
	cr_assert_eq(testfs_file_size(fs, B_BIN), 64 << 10);
	cr_assert_eq(testfs_file_size(fs, "missing.bin"), -ENOENT);

	/* One page read alone: one record, with its page range and name. */
	read_page(fs, A_BIN, 2, "stamp");
	read_page(fs, B_BIN, 1, "zero");
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_lost(log), 0);
	cr_assert_eq(testfs_log_requests(log, A_BIN), 1);
	cr_assert_eq(testfs_log_requests(log, B_BIN), 1);
	cr_assert_eq(testfs_log_requests(log, NULL), 2);
	cr_assert_eq(testfs_log_requests(log, "missing.bin"), 0);
	cr_assert_eq(testfs_log_max_request(log, A_BIN), 1);
	cr_assert_eq(testfs_log_count(log), 2);
	cr_assert_null(testfs_log_at(log, 2));
	r = testfs_log_at(log, 0);
	cr_assert_not_null(r);
	cr_assert_eq(r->kind, TESTFS_RECORD_READ);
	cr_assert_str_eq(r->file, A_BIN);
	cr_assert_null(r->mark);
	cr_assert_eq(r->off, 8192);
	cr_assert_eq(r->len, 4096);
	cr_assert_eq(r->page, 2);
	cr_assert_eq(r->pages, 1);
	cr_assert_gt(r->seq, 0);
	cr_assert_leq(r->t_ns, r->done_ns);
	cr_assert_eq(r->err, 0);
	r = testfs_log_at(log, 1);
	cr_assert_str_eq(r->file, B_BIN);
	cr_assert_neq(r->ino, testfs_log_at(log, 0)->ino);
	testfs_log_free(log);

	/* A mark is a record with its text. */
	cr_assert_eq(testfs_mark(fs, "phase 2: \"quoted\" \\ text"), 0);
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_count(log), 3);
	r = testfs_log_at(log, 2);
	cr_assert_eq(r->kind, TESTFS_RECORD_MARK);
	cr_assert_null(r->file);
	cr_assert_str_eq(r->mark, "phase 2: \"quoted\" \\ text");
	cr_assert_gt(r->seq, testfs_log_at(log, 1)->seq);
	cr_assert_eq(testfs_log_requests(log, NULL), 2);
	testfs_log_free(log);

	cr_assert_eq(testfs_clear(fs), 0);
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_count(log), 0);
	cr_assert_eq(testfs_log_lost(log), 0);
	cr_assert_eq(testfs_log_max_request(log, A_BIN), 0);
	testfs_log_free(log);

	err = testfs_ctl(fs, "frobnicate", why, sizeof(why));
	cr_assert_eq(err, -EINVAL, "bad command: %d", err);
	cr_assert_not_null(strstr(why, "unknown command"), "why: '%s'", why);
	cr_assert_eq(testfs_ctl(fs, "clear\n", why, sizeof(why)), 0);
	cr_assert_str_eq(why, "");

	cr_assert_eq(testfs_drop_cache(fs, NULL), 0);
	cr_assert_eq(testfs_drop_cache(fs, A_BIN), 0);
	cr_assert_eq(testfs_drop_cache(fs, "missing.bin"), -EINVAL);
	cr_assert_eq(testfs_cold(fs, B_BIN), 0);
	cr_assert_eq(testfs_settle(fs, 0), 0);
	cr_assert_eq(testfs_settle(fs, 1), 0);

	cr_assert_eq(stop_held(), 0);
	cr_assert_eq(stat(path, &st), -1);
	cr_assert_eq(count_fds(), fds, "file descriptors leaked");
	assert_tmpdir_clean();
}

Test(lib, mark_limits)
{
	static const char *const files[] = { A_BIN ":4K", NULL };
	struct testfs_log *log;
	char text[105];
	struct testfs_mount *fs;

	fs = start_files(files);
	memset(text, 'm', sizeof(text) - 1);
	text[104] = '\0';
	cr_assert_eq(testfs_mark(fs, text), -EINVAL);
	text[103] = '\0';
	cr_assert_eq(testfs_mark(fs, text), 0);
	cr_assert_eq(testfs_mark(fs, "two\nlines"), -EINVAL);
	cr_assert_eq(testfs_mark(fs, NULL), -EINVAL);
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_count(log), 1);
	cr_assert_str_eq(testfs_log_at(log, 0)->mark, text);
	testfs_log_free(log);
	cr_assert_eq(stop_held(), 0);
	assert_tmpdir_clean();
}

/* O_DIRECT reads count as requests but fetch nothing into the cache. */
Test(lib, direct_reads)
{
	static const char *const files[] = { A_BIN ":1M", NULL };
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	struct testfs_mount *fs;
	char text[64];
	void *buf;
	int fd;

	fs = start_files(files);
	fd = testfs_open(fs, A_BIN, O_RDONLY | O_DIRECT);
	if (fd == -EINVAL) {
		stop_held();
		cr_skip_test("O_DIRECT opens of FUSE files not supported");
	}
	cr_assert_geq(fd, 0, "open O_DIRECT: %s", strerror(-fd));
	buf = aligned_alloc(4096, 8192);
	cr_assert_not_null(buf);
	cr_assert_eq(pread(fd, buf, 8192, 5 * 4096), 8192, "pread: %s",
		     strerror(errno));
	cr_assert_eq(testfs_verify("stamp", A_BIN, 5 * 4096, buf, 8192, NULL),
		     0);
	close(fd);
	free(buf);
	read_page(fs, A_BIN, 0, "stamp");
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_requests(log, A_BIN), 2);
	cr_assert_eq(testfs_log_max_request(log, A_BIN), 2);
	cr_assert_eq(testfs_log_fetched(log, A_BIN, &fetched), 0);
	testfs_extents_format(&fetched, text, sizeof(text));
	cr_assert_eq(fetched.pages, 1, "fetched %s", text);
	cr_assert(testfs_extents_contains(&fetched, 0), "fetched %s", text);
	testfs_extents_free(&fetched);
	testfs_log_free(log);
	cr_assert_eq(stop_held(), 0);
	assert_tmpdir_clean();
}

/* Every knob reaches the daemon's command line. */
Test(lib, all_knobs)
{
	static const char *const files[] = { A_BIN ":1M", NULL };
	struct testfs_config cfg = { 0 };
	struct testfs_log *log;
	char logpath[320], config[16384], mark[16], buf[65536];
	struct testfs_mount *fs;
	struct stat st;
	ssize_t n;
	int fd, i;

	require_fuse();
	snprintf(logpath, sizeof(logpath), "%s.jsonl", tmpdir);
	cfg.files = files;
	cfg.ra_kb = 512;
	cfg.max_pages = 32;
	cfg.max_background = 20;
	cfg.congestion_threshold = 15;
	cfg.log_capacity = 64;
	cfg.log_path = logpath;
	cfg.timeout_ms = 5000;
	cr_assert_eq(testfs_start(&cfg, &fs), 0);
	held = fs;

	fd = testfs_open(fs, ".testfs/config", O_RDONLY);
	cr_assert_geq(fd, 0);
	n = read(fd, config, sizeof(config) - 1);
	close(fd);
	cr_assert_gt(n, 0);
	config[n] = '\0';
	cr_assert_not_null(strstr(config, "\"ra_kb\":{\"requested\":512,"));
	cr_assert_not_null(strstr(config, "\"max_pages\":{\"requested\":32,"));
	cr_assert_not_null(
		strstr(config, "\"max_background\":{\"requested\":20,"));
	cr_assert_not_null(
		strstr(config, "\"congestion_threshold\":{\"requested\":15,"));
	cr_assert_not_null(strstr(config, "\"log_capacity\":64,"));
	cr_assert_not_null(strstr(config, logpath));

	fd = testfs_open(fs, A_BIN, O_RDONLY);
	cr_assert_geq(fd, 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	cr_assert_eq(n, 0);
	close(fd);
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_gt(testfs_log_max_request(log, A_BIN), 0);
	cr_assert_leq(testfs_log_max_request(log, A_BIN), 32);
	testfs_log_free(log);

	/* More records than the ring holds: the snapshot says so. */
	for (i = 0; i < 100; i++) {
		snprintf(mark, sizeof(mark), "m%d", i);
		cr_assert_eq(testfs_mark(fs, mark), 0);
	}
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_count(log), 64);
	cr_assert_gt(testfs_log_lost(log), 0);
	cr_assert_str_eq(testfs_log_at(log, 63)->mark, "m99");
	testfs_log_free(log);

	cr_assert_eq(stop_held(), 0);
	cr_assert_eq(stat(logpath, &st), 0);
	cr_assert_gt(st.st_size, 0);
	unlink(logpath);
	assert_tmpdir_clean();
}

Test(lib, no_daemon)
{
	struct testfs_config cfg = { 0 };
	struct testfs_mount *fs = (struct testfs_mount *)1;

	cfg.daemon = "/nonexistent/testfs";
	cr_assert_eq(testfs_start(&cfg, &fs), -ENOENT);
	cr_assert_null(fs);
	assert_tmpdir_clean();
}

Test(lib, bad_config)
{
	struct testfs_config cfg = { 0 };
	static const char *const none[] = { NULL };
	struct testfs_mount *fs;

	cfg.max_pages = 257;
	cr_assert_eq(testfs_start(&cfg, &fs), -EINVAL);
	cr_assert_str_eq(testfs_strerror(-EINVAL),
			 "Invalid argument: max_pages 257 is above 256");
	cfg.max_pages = 0;
	cfg.max_background = 4;
	cfg.congestion_threshold = 5;
	cr_assert_eq(testfs_start(&cfg, &fs), -EINVAL);
	cfg.max_background = 0;
	cfg.congestion_threshold = 0;
	cfg.log_capacity = 8;
	cr_assert_eq(testfs_start(&cfg, &fs), -EINVAL);
	cfg.log_capacity = 0;
	cfg.files = none;
	cr_assert_eq(testfs_start(&cfg, &fs), -EINVAL);
	cr_assert_eq(testfs_start(NULL, NULL), -EINVAL);
	assert_tmpdir_clean();
}

Test(lib, bad_args)
{
	static const char *const files[] = { A_BIN ":4K", NULL };
	static const char *const extra[] = { "--max-pages", "999", NULL };
	struct testfs_config cfg = { 0 };
	struct testfs_mount *fs;
	uint64_t t0;

	require_fuse();
	cfg.files = files;
	cfg.extra_args = extra;
	t0 = now_ms();
	cr_assert_eq(testfs_start(&cfg, &fs), -EIO);
	cr_assert_lt(now_ms() - t0, 3000, "took %llu ms",
		     (unsigned long long)(now_ms() - t0));
	/* The daemon's reason, its exit status and the daemon run. */
	cr_assert_not_null(
		strstr(testfs_strerror(-EIO),
		       " exited with status 2 before the mount was ready: --max-pages '999': value out of range (expected an integer in 1..256)"),
		"%s", testfs_strerror(-EIO));
	cr_assert_eq(strncmp(testfs_strerror(-EIO),
			     "Input/output error: the daemon /", 32),
		     0, "%s", testfs_strerror(-EIO));
	/* Another errno, or a positive one, is the plain strerror() ... */
	cr_assert_str_eq(testfs_strerror(-EINVAL), "Invalid argument");
	cr_assert_str_eq(testfs_strerror(EIO), testfs_strerror(-EIO));
	/* ... and the next start forgets the reason. */
	cr_assert_eq(testfs_start(NULL, NULL), -EINVAL);
	cr_assert_str_eq(testfs_strerror(-EIO), "Input/output error");
	assert_tmpdir_clean();
}

/* A daemon that never says ready, or exits first, as a shell script. */
static void write_script(char *path, size_t size, const char *body)
{
	FILE *f;

	snprintf(path, size, "%s.sh", tmpdir);
	f = fopen(path, "we");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
}

Test(lib, start_timeout)
{
	struct testfs_config cfg = { 0 };
	char script[320];
	struct testfs_mount *fs;
	uint64_t t0;
	int err;

	write_script(script, sizeof(script), "exec sleep 30");
	cfg.daemon = script;
	cfg.timeout_ms = 300;
	t0 = now_ms();
	err = testfs_start(&cfg, &fs);
	unlink(script);
	cr_assert_eq(err, -ETIMEDOUT, "start: %d", err);
	cr_assert_not_null(strstr(testfs_strerror(err),
				  " did not say ready within 300 ms"),
			   "%s", testfs_strerror(err));
	cr_assert_lt(now_ms() - t0, 3000);
	assert_tmpdir_clean();
}

Test(lib, daemon_exits_early)
{
	struct testfs_config cfg = { 0 };
	char script[320];
	struct testfs_mount *fs;
	int err;

	write_script(script, sizeof(script), "echo 'no FUSE here' >&2; exit 3");
	cfg.daemon = script;
	err = testfs_start(&cfg, &fs);
	unlink(script);
	cr_assert_eq(err, -EIO, "start: %d", err);
	/* A daemon that says nothing on the ready pipe: its exit status. */
	cr_assert_not_null(
		strstr(testfs_strerror(err),
		       " exited with status 3 before the mount was ready"),
		"%s", testfs_strerror(err));
	assert_tmpdir_clean();
}

/* A daemon killed behind the library's back: stop still cleans up. */
Test(lib, stop_after_daemon_died)
{
	static const char *const files[] = { A_BIN ":4K", NULL };
	struct testfs_mount *fs;

	fs = start_files(files);
	cr_assert_eq(kill(testfs_pid(fs), SIGKILL), 0);
	sleep_ms(50);
	cr_assert_eq(stop_held(), -EINTR);
	assert_tmpdir_clean();
}

/* The daemon gets none of the caller's descriptors. */
Test(lib, no_inherited_fds)
{
	static const char *const files[] = { A_BIN ":4K", NULL };
	char link[PATH_MAX], target[PATH_MAX], fdpath[64];
	struct dirent *d;
	struct testfs_mount *fs;
	DIR *dir;
	ssize_t n;
	int probe;

	probe = memfd_create("lib-instance-probe", 0);
	cr_assert_geq(probe, 0);
	fs = start_files(files);
	snprintf(fdpath, sizeof(fdpath), "/proc/%d/fd", (int)testfs_pid(fs));
	dir = opendir(fdpath);
	cr_assert_not_null(dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", fdpath, d->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		cr_assert_null(strstr(target, "lib-instance-probe"),
			       "the daemon inherited fd %s", d->d_name);
	}
	closedir(dir);
	close(probe);
	cr_assert_eq(stop_held(), 0);
	assert_tmpdir_clean();
}

/*
 * A test process killed with its instance running: --watch-pid makes the
 * daemon unmount by itself.
 */
Test(lib, killed_owner_unmounts)
{
	static const char *const files[] = { A_BIN ":4K", NULL };
	char mnt[PATH_MAX];
	int pipefd[2], status;
	uint64_t end;
	ssize_t n;
	pid_t pid;

	require_fuse();
	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct testfs_config cfg = { .files = files };
		struct testfs_mount *fs;
		const char *m;

		close(pipefd[0]);
		if (testfs_start(&cfg, &fs) != 0)
			_exit(1);
		m = testfs_mountpoint(fs);
		if (write(pipefd[1], m, strlen(m)) != (ssize_t)strlen(m))
			_exit(1);
		close(pipefd[1]);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	n = read(pipefd[0], mnt, sizeof(mnt) - 1);
	close(pipefd[0]);
	if (n <= 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		cr_assert_fail("the child could not start an instance");
	}
	mnt[n] = '\0';
	cr_assert(is_mounted(mnt), "%s is not mounted", mnt);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	end = now_ms() + 5000;
	while (is_mounted(mnt) && now_ms() < end)
		sleep_ms(10);
	cr_assert(!is_mounted(mnt), "%s still mounted 5 s after its owner died",
		  mnt);
	/* The daemon removes its temporary mountpoint too (--rmdir). */
	end = now_ms() + 5000;
	while (access(mnt, F_OK) == 0 && now_ms() < end)
		sleep_ms(10);
	cr_assert_neq(access(mnt, F_OK), 0, "%s left behind", mnt);
	assert_tmpdir_clean();
}

/*
 * Names the daemon escapes in its JSON: quotes, backslashes, control
 * characters, invalid UTF-8 (as \u00XX, meaning the raw byte) and valid
 * UTF-8 (as is).
 */
Test(lib, odd_names)
{
	static const char *const names[] = {
		"we\"ird\\name\n.bin",
		"tab\there\x01.bin",
		"caf\xe9-latin1.bin",
		"caf\xc3\xa9-utf8.bin",
	};
	static const char *const files[] = {
		"we\"ird\\name\n.bin:4K",
		"tab\there\x01.bin:4K",
		"caf\xe9-latin1.bin:4K",
		"caf\xc3\xa9-utf8.bin:4K",
		NULL,
	};
	const size_t count = sizeof(names) / sizeof(names[0]);
	const struct testfs_record *r;
	struct testfs_log *log;
	struct testfs_mount *fs;
	size_t i;

	fs = start_files(files);
	for (i = 0; i < count; i++)
		read_page(fs, names[i], 0, "stamp");
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_count(log), count);
	for (i = 0; i < count; i++) {
		r = testfs_log_at(log, i);
		cr_assert_str_eq(r->file, names[i], "record %zu", i);
		cr_assert_eq(testfs_log_requests(log, names[i]), 1);
	}
	testfs_log_free(log);
	cr_assert_eq(stop_held(), 0);
	assert_tmpdir_clean();
}

/* A snapshot of many records reads log.bin in several chunks. */
Test(lib, many_records)
{
	static const char *const files[] = { A_BIN ":16M", NULL };
	const size_t pages = 4096;
	struct testfs_log *log;
	struct testfs_mount *fs;
	char buf[4096];
	size_t i;
	int fd;

	fs = start_files(files);
	fd = testfs_open(fs, A_BIN, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	for (i = 0; i < pages; i++)
		cr_assert_eq(pread(fd, buf, sizeof(buf),
				   (off_t)((i * 7) % pages) * 4096),
			     (ssize_t)sizeof(buf));
	close(fd);
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_requests(log, A_BIN), pages);
	cr_assert_eq(testfs_log_count(log), pages);
	for (i = 0; i < pages; i++)
		cr_assert_eq(testfs_log_at(log, i)->page, (i * 7) % pages);
	testfs_log_free(log);
	cr_assert_eq(stop_held(), 0);
	assert_tmpdir_clean();
}

/* After every test, no mount of this binary may remain. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	uint64_t end = now_ms() + 5000;
	int left;

	(void)stats;
	while ((left = count_mounts(tmp_prefix())) && now_ms() < end)
		sleep_ms(20);
	if (left) {
		fprintf(stderr,
			"FAIL: %d testfs mount(s) under %s* left behind\n",
			left, tmp_prefix());
		fflush(stderr);
		_exit(1);
	}
}
