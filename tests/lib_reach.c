// SPDX-License-Identifier: MIT
/*
 * Reaching a mount through libtestfs, against the real daemon and the
 * public API only: where the mountpoint goes (mount_dir, $TMPDIR), which
 * daemon runs, attaching to a running mount, its settings, the records as
 * an array, and touching a mapping that has a PROT_NONE part. Every test
 * works under a private $TMPDIR ($TMPDIR/testfs-test.reach.*), which must be
 * empty at the end.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <testfs.h>

#define A_BIN "a.bin"

static char tmpdir[256];

/*
 * "$TMPDIR/testfs-test.reach." ($TMPDIR as the test run was given it, or
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
	snprintf(prefix, sizeof(prefix), "%s/testfs-test.reach.", base);
	return prefix;
}
/* Instances a test holds: teardown stops them if an assertion failed. */
static struct testfs_mount *held[2];

/* Skips where FUSE cannot work; under CI=true that is a failure. */
static void require_fuse(void)
{
	const char *ci = getenv("CI");
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return;
	}
	if (ci && strcmp(ci, "true") == 0)
		cr_assert_fail("FUSE unavailable under CI=true: /dev/fuse: %s",
			       strerror(errno));
	cr_skip_test("FUSE unavailable: /dev/fuse: %s", strerror(errno));
}

/* Whether a testfs mount sits on @dir (no space in these paths). */
static bool is_mounted(const char *dir)
{
	char line[8192], mnt[4096], type[64];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	cr_assert_not_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %4095s %63s", mnt, type) == 2 &&
			strcmp(mnt, dir) == 0 &&
			strcmp(type, "fuse.testfs") == 0;
	fclose(f);
	return found;
}

/* Entries of @path ("." and ".." aside), or -1. */
static int count_entries(const char *path)
{
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir(path);

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

static void teardown(void)
{
	char path[320];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (held[i])
			testfs_stop(held[i]);
		held[i] = NULL;
	}
	snprintf(path, sizeof(path), "%s/dir", tmpdir);
	rmdir(path);
	rmdir(tmpdir);
}

TestSuite(reach, .init = setup, .fini = teardown, .timeout = 60);

static struct testfs_mount *start(struct testfs_config *cfg)
{
	static const char *const files[] = { A_BIN ":4M", "b.bin:1M", NULL };
	struct testfs_mount *fs = NULL;
	int err;

	require_fuse();
	if (!cfg->files)
		cfg->files = files;
	err = testfs_start(cfg, &fs);
	cr_assert_eq(err, 0, "testfs_start: %s", strerror(-err));
	held[0] = fs;
	return fs;
}

static void stop(void)
{
	struct testfs_mount *fs = held[0];

	held[0] = NULL;
	cr_assert_eq(testfs_stop(fs), 0);
}

Test(reach, mount_dir_and_tmpdir)
{
	struct testfs_config cfg = { 0 };
	char dir[320], mnt[PATH_MAX];
	struct testfs_mount *fs;

	/* Default: $TMPDIR (this test's private directory). */
	fs = start(&cfg);
	cr_assert_eq(strncmp(testfs_mountpoint(fs), tmpdir, strlen(tmpdir)), 0,
		     "%s is not under $TMPDIR %s", testfs_mountpoint(fs),
		     tmpdir);
	stop();
	cr_assert_eq(count_entries(tmpdir), 0);

	/* mount_dir wins over $TMPDIR; a relative one is made absolute. */
	snprintf(dir, sizeof(dir), "%s/dir", tmpdir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(chdir(tmpdir), 0);
	cfg.mount_dir = "dir";
	fs = start(&cfg);
	snprintf(mnt, sizeof(mnt), "%s/testfs.", dir);
	cr_assert_eq(strncmp(testfs_mountpoint(fs), mnt, strlen(mnt)), 0,
		     "%s is not in %s", testfs_mountpoint(fs), dir);
	cr_assert(is_mounted(testfs_mountpoint(fs)));
	snprintf(mnt, sizeof(mnt), "%s", testfs_mountpoint(fs));
	stop();
	cr_assert_not(is_mounted(mnt));
	cr_assert_eq(count_entries(dir), 0, "%s is not empty", dir);
	cr_assert_eq(chdir("/"), 0);

	cfg.mount_dir = "";
	cr_assert_eq(testfs_start(&cfg, &fs), -EINVAL);
	cfg.mount_dir = "/nonexistent/testfs-dir";
	cr_assert_eq(testfs_start(&cfg, &fs), -ENOENT);
	cr_assert_null(fs);
}

Test(reach, daemon_order)
{
	const char *env = getenv("TESTFS_BIN");
	struct testfs_config cfg = { 0 };
	char want[PATH_MAX], got[PATH_MAX];
	char *bin;

	/*
	 * meson sets TESTFS_BIN to this build's daemon; this program runs
	 * from the same build tree, so without TESTFS_BIN the library must
	 * pick that very daemon, whether or not one is installed.
	 */
	cr_assert_not_null(env, "TESTFS_BIN is not set");
	cr_assert_not_null(realpath(env, want));
	bin = strdup(env);
	cr_assert_eq(unsetenv("TESTFS_BIN"), 0);
	cr_assert_eq(testfs_find_daemon(NULL, got, sizeof(got)), 0);
	cr_assert_str_eq(got, want);

	/* TESTFS_BIN overrides, and the configuration overrides that. */
	cr_assert_eq(setenv("TESTFS_BIN", "/nonexistent/testfs", 1), 0);
	cr_assert_eq(testfs_find_daemon(NULL, got, sizeof(got)), -ENOENT);
	cfg.daemon = want;
	cr_assert_eq(testfs_find_daemon(&cfg, got, sizeof(got)), 0);
	cr_assert_str_eq(got, want);
	cr_assert_eq(setenv("TESTFS_BIN", bin, 1), 0);
	free(bin);

	cr_assert_eq(testfs_find_daemon(NULL, got, 4), -ENAMETOOLONG);
	cr_assert_eq(testfs_find_daemon(NULL, NULL, 4), -EINVAL);
	cfg.daemon = "";
	cr_assert_eq(testfs_find_daemon(&cfg, got, sizeof(got)), -EINVAL);
}

/* A number from a sysfs file, or -1. */
static long sysfs_number(const char *path)
{
	char buf[32];
	long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

Test(reach, settings)
{
	struct testfs_config cfg = {
		.max_background = 20,
		.congestion_threshold = 15,
		.latency = "fixed:2ms",
	};
	struct testfs_settings set = TESTFS_SETTINGS_INIT;
	char path[320], why[256];
	struct utsname u;
	struct testfs_mount *fs;
	struct stat st;

	fs = start(&cfg);
	cr_assert_eq(testfs_settings(fs, &set), 0);
	cr_assert_str_eq(set.version, TESTFS_VERSION);
	cr_assert_eq(uname(&u), 0);
	cr_assert_str_eq(set.kernel, u.release);
	cr_assert_eq(set.files, 2);
	cr_assert_str_eq(set.latency, "fixed:2ms");
	cr_assert_eq(set.log_capacity, 1u << 20, "the daemon's default");
	/* The knobs as the kernel shows them, read apart from the daemon. */
	cr_assert_eq(stat(testfs_mountpoint(fs), &st), 0);
	snprintf(path, sizeof(path), "%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	cr_assert_str_eq(set.bdi, path);
	snprintf(path, sizeof(path), "/sys/class/bdi/%s/read_ahead_kb",
		 set.bdi);
	cr_assert_eq((long)set.ra_kb, sysfs_number(path));
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/",
		 (major(st.st_dev) << 20) | minor(st.st_dev));
	if (access(path, R_OK) == 0) {
		strcat(path, "max_background");
		cr_assert_eq((long)set.max_background, sysfs_number(path));
		strcpy(strrchr(path, '/') + 1, "congestion_threshold");
		cr_assert_eq((long)set.congestion_threshold,
			     sysfs_number(path));
	}
	cr_assert_eq(set.max_background, 20);
	cr_assert_eq(set.congestion_threshold, 15);
	cr_assert_geq(set.max_pages, 1);
	cr_assert_leq(set.max_pages, 256);
	/* No --transport: requests come over /dev/fuse, with no note. */
	cr_assert_str_eq(set.transport, "dev");
	cr_assert_str_eq(set.transport_note, "");
	/* The same tracing state as testfs_tracing(), with its reason. */
	cr_assert_eq(set.tracing, testfs_tracing(fs, why, sizeof(why)));
	if (set.tracing == 1)
		cr_assert_str_eq(set.trace_why, "");
	else
		cr_assert_str_eq(set.trace_why, why);
	cr_assert_eq(testfs_settings(NULL, &set), -EINVAL);
	cr_assert_eq(testfs_settings(fs, NULL), -EINVAL);
	stop();
	cr_assert_eq(count_entries(tmpdir), 0);
}

Test(reach, attach)
{
	struct testfs_config cfg = { 0 };
	struct testfs_settings set = TESTFS_SETTINGS_INIT;
	struct testfs_mount *fs, *att = NULL;
	struct testfs_log *log;
	char path[PATH_MAX], mnt[PATH_MAX];
	size_t i, n;

	fs = start(&cfg);
	snprintf(mnt, sizeof(mnt), "%s", testfs_mountpoint(fs));
	cr_assert_not(testfs_attached(fs));

	/* By a file on the mount: the mountpoint above it is found. */
	cr_assert_eq(testfs_path(fs, A_BIN, path, sizeof(path)), 0);
	cr_assert_eq(testfs_attach(path, &att), 0);
	held[1] = att;
	cr_assert(testfs_attached(att));
	cr_assert_str_eq(testfs_mountpoint(att), mnt);
	/* The config names the daemon: the one this process started. */
	cr_assert_eq(testfs_pid(att), testfs_pid(fs));
	cr_assert_eq(testfs_settings(att, &set), 0);
	cr_assert_eq(set.files, 2);
	cr_assert_eq(set.pid, testfs_pid(fs));

	/* Both handles reach the same daemon and log. */
	cr_assert_eq(testfs_clear(att), 0);
	cr_assert_eq(testfs_mark(att, "from the attached handle"), 0);
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	n = testfs_log_count(log);
	for (i = 0; i < n; i++)
		if (testfs_log_at(log, i)->kind == TESTFS_RECORD_MARK)
			break;
	cr_assert_lt(i, n, "the mark is not in the log");
	cr_assert_str_eq(testfs_log_at(log, i)->mark,
			 "from the attached handle");
	testfs_log_free(log);

	/* Stopping an attached handle leaves the daemon running. */
	held[1] = NULL;
	cr_assert_eq(testfs_stop(att), 0);
	cr_assert(is_mounted(mnt));
	cr_assert_eq(testfs_file_size(fs, A_BIN), 4 << 20);
	testfs_detach(NULL);

	/* Not a testfs mount, nothing there, no path. */
	cr_assert_eq(testfs_attach(tmpdir, &att), -ENODEV);
	cr_assert_null(att);
	cr_assert_eq(testfs_attach("/", &att), -ENODEV);
	cr_assert_eq(testfs_attach("/nonexistent/x", &att), -ENOENT);
	cr_assert_eq(testfs_attach("", &att), -EINVAL);
	cr_assert_eq(testfs_attach(NULL, &att), -EINVAL);
	cr_assert_eq(testfs_attach(mnt, NULL), -EINVAL);
	stop();
	cr_assert_not(is_mounted(mnt));
	/* The mount is gone: attaching to where it was fails. */
	cr_assert_eq(testfs_attach(mnt, &att), -ENOENT);
	cr_assert_eq(count_entries(tmpdir), 0);
}

Test(reach, records_array)
{
	struct testfs_config cfg = { 0 };
	const struct testfs_record *r;
	struct testfs_log *log;
	struct testfs_mount *fs;
	char buf[4096];
	size_t n, i;
	int fd;

	fs = start(&cfg);
	fd = testfs_open(fs, A_BIN, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_eq(testfs_clear(fs), 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(pread(fd, buf, sizeof(buf), (off_t)(i * 3) * 4096),
			     (ssize_t)sizeof(buf));
	close(fd);
	cr_assert_eq(testfs_mark(fs, "end"), 0);
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	r = testfs_log_records(log, &n);
	cr_assert_eq(n, testfs_log_count(log));
	cr_assert_eq(n, 6, "5 single-page reads (FADV_RANDOM) and a mark");
	for (i = 0; i < n; i++)
		cr_assert_eq(&r[i], testfs_log_at(log, i));
	for (i = 0; i < 5; i++) {
		cr_assert_eq(r[i].kind, TESTFS_RECORD_READ);
		cr_assert_eq(r[i].page, i * 3);
	}
	cr_assert_eq(r[5].kind, TESTFS_RECORD_MARK);
	testfs_log_free(log);
	cr_assert_null(testfs_log_records(NULL, &n));
	cr_assert_eq(n, 0);
	stop();
}

Test(reach, touch_skips_prot_none)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_extents never = TESTFS_EXTENTS_INIT;
	struct testfs_config cfg = { 0 };
	struct testfs_log *log;
	struct testfs_map m;
	struct testfs_mount *fs;
	char text[128];

	fs = start(&cfg);
	cr_assert_eq(testfs_map(fs, A_BIN, 64, 16, PROT_READ, MAP_PRIVATE, &m),
		     0);
	/* VMAs of 4 pages: readable, none, readable, none. */
	cr_assert_eq(testfs_split(&m, 4, PROT_READ, PROT_NONE), 4);
	cr_assert_eq(testfs_cold(fs, A_BIN), 0);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_REVERSE, 0, &touched), 8);
	testfs_extents_format(&touched, text, sizeof(text));
	cr_assert_str_eq(text, "[64, 67] [72, 75]");
	testfs_extents_free(&touched);
	/* Map pages 0, 3, 6 (none), 9, 12 (none), 15 (none). */
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_STRIDE, 3, &touched), 3);
	testfs_extents_format(&touched, text, sizeof(text));
	cr_assert_str_eq(text, "[64, 64] [67, 67] [73, 73]");
	/* Whatever was touched came from the daemon (cold cache before). */
	cr_assert_eq(testfs_log_snapshot(fs, &log), 0);
	cr_assert_eq(testfs_log_never_fetched(log, A_BIN, &touched, &never), 0);
	cr_assert_eq(never.pages, 0);
	testfs_log_free(log);
	testfs_extents_free(&touched);
	cr_assert_eq(testfs_unmap(&m), 0);

	/* Nothing readable: an error, not a crash. */
	cr_assert_eq(testfs_map(fs, A_BIN, 0, 4, PROT_NONE, MAP_SHARED, &m), 0);
	cr_assert_eq(testfs_touch(&m, TESTFS_ORDER_FORWARD, 0, &touched),
		     -EACCES);
	cr_assert_eq(touched.n, 0);
	cr_assert_eq(testfs_unmap(&m), 0);
	stop();
}
