// SPDX-License-Identifier: MIT
/*
 * Instances: starting and stopping the daemon on a private mountpoint.
 */
#include "child.h"
#include "lib_i.h"

#include "mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child's ready pipe: the daemon is told --ready-fd 3. */
#define CHILD_READY_FD 3
/* How long a daemon gets after SIGKILL, and the mount after the daemon. */
#define KILL_WAIT_MS 5000u
#define UNMOUNT_WAIT_MS 5000u

#define MAX_PAGES_LIMIT 256u
#define MAX_BACKGROUND_LIMIT 65535u
#define RA_KB_LIMIT 1048576u
#define LOG_CAPACITY_MIN 16u
#define LOG_CAPACITY_MAX (1ull << 30)

static int wait_exit(pid_t pid, unsigned timeout_ms, int *ws)
{
	uint64_t end = lib_now_ms() + timeout_ms;
	unsigned nap = 1;
	pid_t r;

	for (;;) {
		r = waitpid(pid, ws, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (lib_now_ms() >= end)
			return -ETIMEDOUT;
		lib_sleep_ms(nap);
		if (nap < 16)
			nap *= 2;
	}
}

/*
 * Ends the daemon if it still runs: SIGTERM (or SIGKILL right away when
 * @kill_now) and a wait of fs->timeout_ms, then SIGKILL. Returns its exit
 * status, -EINTR if a signal ended it, or -errno.
 */
static int end_daemon(struct testfs_mount *fs, bool kill_now)
{
	int ws, err = -ETIMEDOUT;

	if (fs->stopped)
		return 0;
	fs->stopped = true;
	if (!kill_now) {
		kill(fs->pid, SIGTERM);
		err = wait_exit(fs->pid, fs->timeout_ms, &ws);
	}
	if (err == -ETIMEDOUT) {
		kill(fs->pid, SIGKILL);
		err = wait_exit(fs->pid, KILL_WAIT_MS, &ws);
		if (!err)
			return -EINTR;
	}
	if (err)
		return err;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -EINTR;
}

/*
 * Makes sure the mount is gone (auto_unmount removes it asynchronously
 * after a killed daemon), then removes the directories.
 */
static int remove_mountpoint(struct testfs_mount *fs)
{
	uint64_t end = lib_now_ms() + UNMOUNT_WAIT_MS;

	while (mountinfo_find(fs->mountpoint, NULL) && lib_now_ms() < end)
		lib_sleep_ms(5);
	if (mountinfo_find(fs->mountpoint, NULL))
		umount2(fs->mountpoint, MNT_DETACH);
	if (rmdir(fs->mountpoint) != 0 && errno != ENOENT)
		return -errno;
	if (fs->root && rmdir(fs->root) != 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static void free_instance(struct testfs_mount *fs)
{
	free(fs->mountpoint);
	free(fs->root);
	free(fs);
}

static int check_config(const struct testfs_config *cfg)
{
	size_t i;

	if (cfg->max_pages > MAX_PAGES_LIMIT)
		return lib_set_reason(-EINVAL, "max_pages %u is above %u",
				      cfg->max_pages, MAX_PAGES_LIMIT);
	if (cfg->ra_kb > RA_KB_LIMIT)
		return lib_set_reason(-EINVAL, "ra_kb %u is above %u",
				      cfg->ra_kb, RA_KB_LIMIT);
	if (cfg->max_background > MAX_BACKGROUND_LIMIT ||
	    cfg->congestion_threshold > MAX_BACKGROUND_LIMIT)
		return lib_set_reason(
			-EINVAL,
			"max_background and congestion_threshold are at most %u",
			MAX_BACKGROUND_LIMIT);
	if (cfg->max_background &&
	    cfg->congestion_threshold > cfg->max_background)
		return lib_set_reason(
			-EINVAL,
			"congestion_threshold %u is above max_background %u",
			cfg->congestion_threshold, cfg->max_background);
	if (cfg->log_capacity && (cfg->log_capacity < LOG_CAPACITY_MIN ||
				  cfg->log_capacity > LOG_CAPACITY_MAX))
		return lib_set_reason(-EINVAL,
				      "log_capacity %llu is not in %u..%llu",
				      (unsigned long long)cfg->log_capacity,
				      LOG_CAPACITY_MIN, LOG_CAPACITY_MAX);
	/*
	 * An empty list cannot mean "no files": the daemon would serve its
	 * default set.
	 */
	if (cfg->files && !cfg->files[0])
		return lib_set_reason(-EINVAL,
				      "files is empty (NULL: the default set)");
	if ((cfg->log_path && !*cfg->log_path) ||
	    (cfg->daemon && !*cfg->daemon) ||
	    (cfg->mount_dir && !*cfg->mount_dir))
		return lib_set_reason(
			-EINVAL,
			"log_path, daemon and mount_dir may be NULL, not empty");
	if (cfg->trace < -1 || cfg->trace > 1)
		return lib_set_reason(-EINVAL, "trace %d is not -1, 0 or 1",
				      cfg->trace);
	for (i = 0; cfg->files && cfg->files[i]; i++)
		if (!*cfg->files[i])
			return lib_set_reason(-EINVAL, "files[%zu] is empty",
					      i);
	return 0;
}

/* The knobs of testfs_config that become "--OPTION NUMBER" when set. */
#define DAEMON_KNOBS 5

/* Numbers of the daemon's command line, formatted before fork(). */
struct daemon_numbers {
	char ready_fd[16];
	char watch_pid[24];
	char knob[DAEMON_KNOBS][24];
};

static size_t count_strings(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Appends "@option V" for each string V of @v (NULL-terminated or NULL). */
static size_t add_each(const char **argv, size_t n, const char *option,
		       const char *const *v)
{
	for (; v && *v; v++) {
		argv[n++] = option;
		argv[n++] = *v;
	}
	return n;
}

static int build_argv(const struct testfs_config *cfg, const char *daemon,
		      const char *mountpoint, struct daemon_numbers *num,
		      char ***out)
{
	size_t nfiles = count_strings(cfg->files);
	size_t nextra = count_strings(cfg->extra_args);
	size_t nrules = count_strings(cfg->rules);
	size_t nerrors = count_strings(cfg->errors);
	const struct {
		const char *option;
		uint64_t value;
	} knobs[DAEMON_KNOBS] = {
		{ "--ra-kb", cfg->ra_kb },
		{ "--max-pages", cfg->max_pages },
		{ "--max-background", cfg->max_background },
		{ "--congestion-threshold", cfg->congestion_threshold },
		{ "--log-capacity", cfg->log_capacity },
	};
	size_t n = 0, i;
	const char **argv;

	/* 8 fixed, 2 per file and rule, 2 per knob (5), --log, --latency,
	 * --[no-]trace, mountpoint, NULL. */
	argv = calloc(26 + 2 * (nfiles + nrules + nerrors) + nextra,
		      sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	snprintf(num->ready_fd, sizeof(num->ready_fd), "%d", CHILD_READY_FD);
	snprintf(num->watch_pid, sizeof(num->watch_pid), "%d", (int)getpid());
	argv[n++] = daemon;
	argv[n++] = "-f";
	argv[n++] = "-q";
	/* The mountpoint goes with the daemon, even if this process dies. */
	argv[n++] = "--rmdir";
	argv[n++] = "--ready-fd";
	argv[n++] = num->ready_fd;
	argv[n++] = "--watch-pid";
	argv[n++] = num->watch_pid;
	n = add_each(argv, n, "--file", cfg->files);
	for (i = 0; i < DAEMON_KNOBS; i++) {
		if (!knobs[i].value)
			continue;
		snprintf(num->knob[i], sizeof(num->knob[i]), "%" PRIu64,
			 knobs[i].value);
		argv[n++] = knobs[i].option;
		argv[n++] = num->knob[i];
	}
	if (cfg->log_path) {
		argv[n++] = "--log";
		argv[n++] = cfg->log_path;
	}
	if (cfg->latency) {
		argv[n++] = "--latency";
		argv[n++] = cfg->latency;
	}
	if (cfg->trace)
		argv[n++] = cfg->trace > 0 ? "--trace" : "--no-trace";
	if (cfg->trace_reads)
		argv[n++] = "--trace-reads";
	n = add_each(argv, n, "--rule", cfg->rules);
	n = add_each(argv, n, "--error", cfg->errors);
	for (i = 0; i < nextra; i++)
		argv[n++] = cfg->extra_args[i];
	argv[n++] = mountpoint;
	argv[n] = NULL;
	*out = (char **)argv;
	return 0;
}

/*
 * Moves @fd to a number above 2, so that setting up the child's stdin and
 * ready pipe cannot overwrite it (the caller may have closed 0-2).
 */
static int move_above_stdio(int fd)
{
	int moved;

	if (fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return moved < 0 ? -errno : moved;
}

static void close_from(unsigned first)
{
	struct rlimit rl;
	unsigned fd, max = 65536;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, first, ~0u, 0) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < max)
		max = (unsigned)rl.rlim_cur;
	for (fd = first; fd < max; fd++)
		close(fd);
}

/* The child after fork(): async-signal-safe calls only. */
static void __attribute__((noreturn))
exec_daemon(char *const *argv, int null_fd, int ready_fd)
{
	/* libfuse installs its handlers only over default dispositions. */
	child_default_signals();
	if (dup2(null_fd, 0) < 0)
		_exit(127);
	if (ready_fd == CHILD_READY_FD) {
		if (fcntl(ready_fd, F_SETFD, 0) < 0)
			_exit(127);
	} else if (dup2(ready_fd, CHILD_READY_FD) < 0) {
		_exit(127);
	}
	close_from(CHILD_READY_FD + 1);
	execv(argv[0], argv);
	_exit(127);
}

/* The longest line the daemon writes to the ready pipe. */
#define READY_LINE_MAX 1100

/*
 * Waits for "ready" on @fd: 0; -EIO if the pipe was closed first (the
 * daemon exited), with the daemon's "error: REASON" line in @why (else
 * ""); -ETIMEDOUT; or -errno.
 */
static int wait_ready(int fd, unsigned timeout_ms, char *why, size_t whylen)
{
	char buf[READY_LINE_MAX + 1];
	int r = child_wait_ready(fd, timeout_ms, buf, sizeof(buf));

	why[0] = '\0';
	if (r == -EIO && strncmp(buf, "error: ", 7) == 0)
		snprintf(why, whylen, "%.*s", (int)strcspn(buf + 7, "\n"),
			 buf + 7);
	return r;
}

/* The private directory "DIR/testfs.XXXXXX": cfg->mount_dir, $TMPDIR, /tmp. */
static int make_dirs(struct testfs_mount *fs, const struct testfs_config *cfg)
{
	const char *tmp = cfg->mount_dir;
	char *templ;
	int err;

	if (!tmp)
		tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&templ, "%s/testfs.XXXXXX", tmp) < 0)
		return -ENOMEM;
	if (!mkdtemp(templ)) {
		err = lib_set_reason(-errno, "cannot create the mountpoint %s",
				     templ);
		free(templ);
		return err;
	}
	/*
	 * The temporary directory is the mountpoint itself, so the daemon
	 * (--rmdir) can remove it even when this process was killed.
	 * mountinfo shows the canonical path; $TMPDIR may be relative.
	 */
	fs->mountpoint = realpath(templ, NULL);
	if (!fs->mountpoint) {
		err = -errno;
		rmdir(templ);
		free(templ);
		return err;
	}
	free(templ);
	fs->root = NULL;
	return 0;
}

static int spawn_daemon(struct testfs_mount *fs, char *const *argv, int *ready)
{
	int pipefd[2], null_fd, err;
	pid_t pid;

	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0)
		return -errno;
	null_fd = move_above_stdio(null_fd);
	if (null_fd < 0)
		return null_fd;
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		err = -errno;
		goto close_null;
	}
	pipefd[0] = move_above_stdio(pipefd[0]);
	pipefd[1] = move_above_stdio(pipefd[1]);
	if (pipefd[0] < 0 || pipefd[1] < 0) {
		err = pipefd[0] < 0 ? pipefd[0] : pipefd[1];
		goto close_pipe;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto close_pipe;
	}
	if (pid == 0)
		exec_daemon(argv, null_fd, pipefd[1]);
	fs->pid = pid;
	close(pipefd[1]);
	close(null_fd);
	*ready = pipefd[0];
	return 0;

close_pipe:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
close_null:
	close(null_fd);
	return err;
}

/*
 * After the ready pipe closed: waits for the daemon's exit (SIGKILL after
 * the time limit) and leaves the reason of the failed start-up, the
 * daemon's own line @why if it wrote one. Returns -EIO.
 */
static int explain_exit(struct testfs_mount *fs, const char *daemon,
			const char *why)
{
	char how[64];
	int ws;

	fs->stopped = true;
	if (wait_exit(fs->pid, fs->timeout_ms, &ws) != 0) {
		kill(fs->pid, SIGKILL);
		if (wait_exit(fs->pid, KILL_WAIT_MS, &ws) != 0)
			ws = -1;
	}
	if (ws == -1)
		snprintf(how, sizeof(how), "closed its ready pipe");
	else if (WIFSIGNALED(ws))
		snprintf(how, sizeof(how), "was killed by signal %d (%s)",
			 WTERMSIG(ws), strsignal(WTERMSIG(ws)));
	else if (WEXITSTATUS(ws) == 127 && !*why)
		snprintf(how, sizeof(how),
			 "exited with status 127 (it could not be run)");
	else
		snprintf(how, sizeof(how), "exited with status %d",
			 WEXITSTATUS(ws));
	return lib_set_reason(-EIO,
			      "the daemon %s %s before the mount was ready%s%s",
			      daemon, how, *why ? ": " : "", why);
}

/*
 * The start and stop limit when the config gives none: $TESTFS_TIMEOUT_MS
 * (1 to 3600000; an emulated guest on a loaded host starts the daemon
 * with tracing in more than 10 s), else LIB_DEFAULT_TIMEOUT_MS.
 */
static unsigned default_timeout(void)
{
	const char *e = getenv("TESTFS_TIMEOUT_MS");
	char *end;
	unsigned long v;

	if (!e || !*e)
		return LIB_DEFAULT_TIMEOUT_MS;
	errno = 0;
	v = strtoul(e, &end, 10);
	if (errno || *end || !v || v > 3600000ul || *e == '-')
		return LIB_DEFAULT_TIMEOUT_MS;
	return (unsigned)v;
}

int testfs_start(const struct testfs_config *cfg, struct testfs_mount **out)
{
	static const struct testfs_config defaults;
	struct daemon_numbers num;
	struct testfs_mount *fs;
	struct stat st;
	char *daemon = NULL, **argv = NULL;
	char why[READY_LINE_MAX];
	int ready = -1, err;

	lib_clear_reason();
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!cfg)
		cfg = &defaults;
	err = check_config(cfg);
	if (err)
		return err;
	err = lib_find_daemon(cfg->daemon, &daemon);
	if (err == -ENOENT && cfg->daemon)
		return lib_set_reason(err, "daemon '%s' not found",
				      cfg->daemon);
	if (err == -ENOENT)
		return lib_set_reason(
			err,
			"no testfs daemon found ($TESTFS_BIN, this build's, the installed one, $PATH)");
	if (err)
		return err;
	fs = calloc(1, sizeof(*fs));
	if (!fs) {
		err = -ENOMEM;
		goto free_daemon;
	}
	fs->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : default_timeout();
	err = make_dirs(fs, cfg);
	if (err)
		goto free_fs;
	err = build_argv(cfg, daemon, fs->mountpoint, &num, &argv);
	if (err)
		goto remove_dirs;
	err = spawn_daemon(fs, argv, &ready);
	if (err)
		goto free_argv;
	err = wait_ready(ready, fs->timeout_ms, why, sizeof(why));
	close(ready);
	if (!err && stat(fs->mountpoint, &st) != 0)
		err = -errno;
	if (err)
		goto stop_daemon;
	fs->conn_id = (major(st.st_dev) << 20) | minor(st.st_dev);
	free(argv);
	free(daemon);
	*out = fs;
	return 0;

stop_daemon:
	if (err == -EIO) {
		explain_exit(fs, daemon, why);
	} else {
		if (err == -ETIMEDOUT)
			lib_set_reason(
				err,
				"the daemon %s did not say ready within %u ms",
				daemon, fs->timeout_ms);
		end_daemon(fs, true);
	}
free_argv:
	free(argv);
remove_dirs:
	remove_mountpoint(fs);
free_fs:
	free_instance(fs);
free_daemon:
	free(daemon);
	return err;
}

int testfs_stop(struct testfs_mount *fs)
{
	int status, err;

	if (!fs)
		return -EINVAL;
	if (fs->attached) {
		testfs_detach(fs);
		return 0;
	}
	/*
	 * Requests still on their way (the RELEASE of a file just closed)
	 * are answered before the daemon is asked to stop.
	 */
	if (!fs->stopped)
		testfs_settle(fs, fs->timeout_ms < LIB_SETTLE_TIMEOUT_MS
					  ? fs->timeout_ms
					  : LIB_SETTLE_TIMEOUT_MS);
	status = end_daemon(fs, false);
	err = remove_mountpoint(fs);
	free_instance(fs);
	return status >= 0 && err ? err : status;
}
