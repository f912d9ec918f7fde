// SPDX-License-Identifier: MIT
/*
 * Start-up and shutdown: the daemon returns only when the mount is ready,
 * every way of stopping it unmounts and flushes the log, and no way of
 * dying leaves a mount behind.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mount_harness.h"

#define FUSE_SUPER_MAGIC 0x65735546
#define ENABLE_URING "/sys/module/fuse/parameters/enable_uring"

TestSuite(lifecycle, .timeout = 60);

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * A hang guard only: the unmount is awaited by its event. After SIGKILL
 * the auto_unmount helper unmounts once it sees the daemon's end of its
 * socket close, which on a loaded machine has taken over 5 s.
 */
#define UNMOUNT_GUARD_MS 40000

static bool wait_unmounted(const char *dir)
{
	return harness_wait_unmounted(dir, UNMOUNT_GUARD_MS);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void read_some(struct tfs_mount *m)
{
	char buf[4096];
	int fd = open(harness_path(m, "a.bin"), O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	close(fd);
}

static void log_path(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/testfs-lifecycle-%d.jsonl", (int)getpid());
}

/*
 * Waits (10 s hang guard) for the daemon to end by itself; returns its
 * exit status, 128 if a signal ended it, -1 if it did not end (it is then
 * stopped by force).
 */
static int wait_daemon_exit(struct tfs_mount *m)
{
	unsigned waited;
	int status = -1, ws;

	for (waited = 0; waited < 10000; waited += 10) {
		if (waitpid(m->pid, &ws, WNOHANG) == m->pid) {
			status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128;
			break;
		}
		sleep_ms(10);
	}
	m->stopped = status != -1;
	m->status = status;
	harness_stop(m);
	return status;
}

Test(lifecycle, sigterm_unmounts_and_flushes_log)
{
	char path[128];
	const char *args[] = { "--file", "a.bin:1M", "--log", path, NULL };
	struct tfs_mount m;
	char *text;

	log_path(path, sizeof(path));
	harness_start(&m, args);
	read_some(&m);
	cr_assert_eq(harness_stop(&m), 0, "exit status after SIGTERM");
	cr_assert(!harness_is_mounted(m.dir));
	text = harness_read_file(path, NULL);
	cr_assert_geq(count_lines(text), 1, "log file is empty");
	cr_assert_not_null(strstr(text, "\"file\":\"a.bin\""));
	free(text);
	unlink(path);
}

Test(lifecycle, fusermount_u_ends_the_daemon)
{
	char path[128];
	const char *args[] = { "--file", "a.bin:1M", "--log", path, NULL };
	const char *um[] = { "/usr/bin/fusermount3", "-u", NULL, NULL };
	struct tfs_mount m;
	char *out, *text;
	int status;

	log_path(path, sizeof(path));
	harness_start(&m, args);
	read_some(&m);
	um[2] = m.dir;
	cr_assert_eq(harness_run(um, &out, 10), 0, "fusermount3 -u: %s", out);
	free(out);
	status = wait_daemon_exit(&m);
	cr_assert_eq(status, 0, "daemon exit status %d after fusermount3 -u",
		     status);
	text = harness_read_file(path, NULL);
	cr_assert_geq(count_lines(text), 1, "log not flushed at unmount");
	free(text);
	unlink(path);
}

/*
 * A background job of a non-interactive shell starts with SIGINT ignored
 * (POSIX: "cmd &" without job control); testfs stops on SIGINT anyway,
 * as on SIGTERM: unmounted, log flushed, exit 0.
 */
Test(lifecycle, sigint_ends_the_daemon_even_when_inherited_ignored)
{
	char path[128];
	const char *args[] = { "--file", "a.bin:1M", "--log", path, NULL };
	struct tfs_mount m;
	char *text;
	int status;

	log_path(path, sizeof(path));
	cr_assert_neq(signal(SIGINT, SIG_IGN), SIG_ERR);
	harness_start(&m, args);
	signal(SIGINT, SIG_DFL);
	read_some(&m);
	cr_assert_eq(kill(m.pid, SIGINT), 0);
	status = wait_daemon_exit(&m);
	cr_assert_eq(status, 0,
		     "daemon exit status %d after SIGINT (-1: "
		     "still running 10 s later)",
		     status);
	cr_assert(!harness_is_mounted(m.dir));
	text = harness_read_file(path, NULL);
	cr_assert_not_null(strstr(text, "\"file\":\"a.bin\""),
			   "log not flushed: %s", text);
	free(text);
	unlink(path);
}

Test(lifecycle, sigkill_leaves_no_mount)
{
	const char *args[] = { "--file", "a.bin:1M", NULL };
	struct tfs_mount m;
	int ws;

	harness_start(&m, args);
	read_some(&m);
	kill(m.pid, SIGKILL);
	waitpid(m.pid, &ws, 0);
	m.stopped = true;
	cr_assert(wait_unmounted(m.dir),
		  "mount still present %d s after SIGKILL",
		  UNMOUNT_GUARD_MS / 1000);
	harness_stop(&m);
}

/*
 * Over the ring the waiting ring commands keep /dev/fuse open until
 * io_uring has torn the dead daemon's rings down, too late for
 * fusermount3's auto_unmount: the mount guard (src/daemon/mount_guard.h)
 * removes the mount instead.
 */
Test(lifecycle, sigkill_over_uring_leaves_no_mount)
{
	const char *args[] = { "--transport", "uring", "--file", "a.bin:1M",
			       NULL };
	struct tfs_mount m;
	bool ring, gone;
	char *cfg;
	int ws;

	harness_start(&m, args);
	cfg = harness_read_file(harness_path(&m, ".testfs/config"), NULL);
	ring = cfg && strstr(cfg, "\"transport\":\"uring\"");
	free(cfg);
	if (!ring) {
		harness_stop(&m);
		if (access(ENABLE_URING, F_OK) != 0)
			cr_skip_test(
				"this kernel has no FUSE over io_uring (no %s): testfs serves /dev/fuse, covered by sigkill_leaves_no_mount",
				ENABLE_URING);
		cr_assert(
			geteuid() != 0,
			"the kernel has FUSE over io_uring, testfs did not take it");
		cr_skip_test("%s is N and only root may set it", ENABLE_URING);
	}
	read_some(&m);
	kill(m.pid, SIGKILL);
	waitpid(m.pid, &ws, 0);
	m.stopped = true;
	gone = wait_unmounted(m.dir);
	/* No mount is left, whatever the verdict. */
	if (!gone)
		umount2(m.dir, MNT_DETACH);
	harness_stop(&m);
	cr_assert(gone,
		  "--transport uring: mount still present %d s after SIGKILL",
		  UNMOUNT_GUARD_MS / 1000);
}

/* A test process that dies mid-way: its daemon unmounts (--watch-pid). */
Test(lifecycle, killed_client_leaves_no_mount)
{
	int pipefd[2], ws;
	char dir[288] = "";
	pid_t child;

	cr_assert_eq(pipe(pipefd), 0);
	child = fork();
	cr_assert_neq(child, -1);
	if (child == 0) {
		const char *args[] = { "--file", "a.bin:1M", NULL };
		struct tfs_mount m;

		close(pipefd[0]);
		harness_start(&m, args);
		if (write(pipefd[1], m.dir, strlen(m.dir) + 1) < 0)
			_exit(1);
		pause(); /* killed below */
		_exit(0);
	}
	close(pipefd[1]);
	cr_assert_gt(read(pipefd[0], dir, sizeof(dir) - 1), 0,
		     "child did not mount");
	close(pipefd[0]);
	cr_assert(harness_is_mounted(dir));
	kill(child, SIGKILL);
	waitpid(child, &ws, 0);
	cr_assert(wait_unmounted(dir),
		  "%s still mounted %d s after its client was killed", dir,
		  UNMOUNT_GUARD_MS / 1000);
	rmdir(dir);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

/* Without -f, testfs returns only once the mount answers. */
Test(lifecycle, background_mode_returns_when_ready)
{
	char root[256], dir[288], file[320], buf[64];
	const char *argv[] = { harness_bin(), "--file", "a.bin:1M", dir, NULL };
	const char *um[] = { "/usr/bin/fusermount3", "-u", dir, NULL };
	struct statfs sfs;
	char *out;
	int fd, status;

	harness_require_fuse();
	snprintf(root, sizeof(root), "%sXXXXXX", harness_prefix());
	cr_assert_not_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/mnt", root);
	cr_assert_eq(mkdir(dir, 0755), 0);
	status = harness_run(argv, &out, 20);
	cr_assert_eq(status, 0, "testfs exited %d: %s", status, out);
	cr_assert_not_null(strstr(out, "read_ahead_kb"),
			   "no ready line with the effective values: %s", out);
	free(out);
	/* No sleep, no retry: the mount must be usable right now. */
	cr_assert_eq(statfs(dir, &sfs), 0);
	cr_assert_eq((unsigned long)sfs.f_type, FUSE_SUPER_MAGIC);
	snprintf(file, sizeof(file), "%s/a.bin", dir);
	fd = open(file, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	cr_assert_eq(memcmp(buf, "testfs page 0 file a.bin", 24), 0);
	close(fd);
	cr_assert_eq(harness_run(um, &out, 10), 0, "fusermount3 -u: %s", out);
	free(out);
	cr_assert(wait_unmounted(dir));
	rmdir(dir);
	rmdir(root);
}

Test(lifecycle, background_mode_reports_mount_failure)
{
	const char *argv[] = { harness_bin(), "/nonexistent/testfs-mnt", NULL };
	char *out;
	int status;

	status = harness_run(argv, &out, 20);
	cr_assert_eq(status, 1, "exit %d: %s", status, out);
	cr_assert_not_null(strstr(out, "/nonexistent/testfs-mnt"),
			   "message does not name the mountpoint: %s", out);
	free(out);
}

Test(lifecycle, log_file_unwritable_is_a_runtime_error)
{
	char root[256], dir[288];
	const char *argv[] = { harness_bin(), "-f",
			       "--log",	      "/nonexistent/dir/log.jsonl",
			       dir,	      NULL };
	char *out;
	int status;

	harness_require_fuse();
	snprintf(root, sizeof(root), "%sXXXXXX", harness_prefix());
	cr_assert_not_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/mnt", root);
	cr_assert_eq(mkdir(dir, 0755), 0);
	status = harness_run(argv, &out, 20);
	cr_assert_eq(status, 1, "exit %d: %s", status, out);
	cr_assert_not_null(strstr(out, "/nonexistent/dir/log.jsonl"), "%s",
			   out);
	cr_assert(!harness_is_mounted(dir));
	free(out);
	rmdir(dir);
	rmdir(root);
}

Test(lifecycle, log_overflow_is_counted_and_reported)
{
	const char *args[] = { "--file", "a.bin:1M", "--log-capacity", "16",
			       NULL };
	struct tfs_mount m;
	struct tfs_log log;
	char buf[4096], *json, *stats;
	int fd, i;

	harness_start(&m, args);
	fd = open(harness_path(&m, "a.bin"), O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	for (i = 0; i < 100; i++)
		cr_assert_eq(pread(fd, buf, sizeof(buf), i * 4096), 4096);
	close(fd);
	harness_log(&m, &log);
	cr_assert_eq(log.count, 16, "%zu records kept", log.count);
	cr_assert_eq(log.lost, 84, "%llu lost", (unsigned long long)log.lost);
	harness_log_free(&log);
	json = harness_read_file(harness_path(&m, ".testfs/log"), NULL);
	cr_assert_not_null(strstr(json, "{\"lost\":84,\"first_seq\":1,"), "%s",
			   json);
	stats = harness_read_file(harness_path(&m, ".testfs/stats"), NULL);
	cr_assert_not_null(strstr(stats, "\"lost\":84"), "%s", stats);
	free(json);
	free(stats);
	harness_stop(&m);
}

Test(lifecycle, refuses_to_stack_on_a_testfs_mount)
{
	const char *args[] = { "--file", "a.bin:1M", NULL };
	const char *argv[] = { harness_bin(), "-q", NULL, NULL };
	struct tfs_mount m;
	char *out;
	int status;

	harness_start(&m, args);
	argv[2] = m.dir;
	status = harness_run(argv, &out, 20);
	cr_expect_eq(status, 1, "exit %d: %s", status, out);
	cr_expect_not_null(strstr(out, "already a testfs mount"), "%s", out);
	free(out);
	cr_assert_eq(harness_stop(&m), 0);
	cr_assert(!harness_is_mounted(m.dir));
}
