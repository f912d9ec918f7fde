// SPDX-License-Identifier: MIT
/*
 * One testfs instance per run: start it with the scenario's knobs, read
 * back what the kernel made of them (testfs_settings()), phases (cold
 * cache, marks, snapshot) and the settings section of the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json_reader.h"
#include "scenario.h"

extern char **environ;

static void ask_tracing(struct session *s)
{
	s->trace_why[0] = '\0';
	s->tracing = testfs_tracing(s->fs, s->trace_why, sizeof(s->trace_why));
	if (s->tracing < 0 && !s->trace_why[0])
		snprintf(s->trace_why, sizeof(s->trace_why),
			 "testfs_tracing: %s", strerror(-s->tracing));
}

/* ------------------------------------------------------------------ */
/* The time limit                                                      */
/* ------------------------------------------------------------------ */

/* The running instance, for the SIGALRM handler (0: none). */
static volatile pid_t alarm_daemon;
static char alarm_mnt[4096];
static char alarm_msg[160];
static size_t alarm_len;

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * SIGALRM: async-signal-safe calls only. Says so, stops the daemon
 * (SIGTERM, SIGKILL after 3 s; it unmounts), detaches the mount if it is
 * still there (root), removes the mountpoint and exits 1.
 */
static void on_alarm(int sig)
{
	pid_t pid = alarm_daemon;
	int i, ws;

	(void)sig;
	if (write(STDERR_FILENO, alarm_msg, alarm_len) < 0) {
		/* Nothing else to do. */
	}
	if (pid > 0) {
		kill(pid, SIGTERM);
		for (i = 0; i < 300 && waitpid(pid, &ws, WNOHANG) == 0; i++)
			nap_ms(10);
		if (i == 300) {
			kill(pid, SIGKILL);
			waitpid(pid, &ws, 0);
		}
		umount2(alarm_mnt, MNT_DETACH);
		rmdir(alarm_mnt);
	}
	_exit(1);
}

void session_arm_timeout(unsigned seconds)
{
	struct sigaction sa;
	int n;

	/* On a terminal, over the progress line. */
	n = snprintf(alarm_msg, sizeof(alarm_msg),
		     "%stestfs-scenario: timed out after %u s (timeout=%u); "
		     "stopped testfs, nothing reported\n",
		     isatty(STDERR_FILENO) ? "\r\033[K" : "", seconds, seconds);
	alarm_len = n > 0 && (size_t)n < sizeof(alarm_msg) ? (size_t)n : 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

/* ------------------------------------------------------------------ */
/* The daemon named by TESTFS_BIN                                       */
/* ------------------------------------------------------------------ */

/*
 * "TESTFS_BIN --version" must print "testfs ...": the first line of its
 * output into @out; 0, or -errno. Waits at most 5 s.
 */
static int probe_version(const char *bin, char *out, size_t size, int *status)
{
	char *const argv[] = { (char *)bin, (char *)"--version", NULL };
	posix_spawn_file_actions_t fa;
	int pfd[2], err, ws = 0;
	size_t used = 0;
	pid_t pid;

	out[0] = '\0';
	*status = -1;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	err = posix_spawnp(&pid, bin, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err) {
		close(pfd[0]);
		return -err;
	}
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 5000) <= 0)
			break;
		n = read(pfd[0], out + used, size - 1 - used);
		if (n <= 0)
			break;
		used += (size_t)n;
		if (used == size - 1)
			break;
	}
	out[used] = '\0';
	out[strcspn(out, "\n")] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &ws, WNOHANG) == 0) {
		nap_ms(100);
		if (waitpid(pid, &ws, WNOHANG) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &ws, 0);
		}
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	return 0;
}

/* Checks TESTFS_BIN, if set: 0, or scenario_fail() naming the problem. */
static int check_testfs_bin(struct scenario_ctx *ctx)
{
	const char *bin = getenv("TESTFS_BIN");
	char line[128];
	struct stat st;
	int err, status;

	if (!bin || !*bin)
		return 0;
	if (strchr(bin, '/')) {
		if (stat(bin, &st) != 0)
			return scenario_fail(ctx, 0, "TESTFS_BIN=%s: %s", bin,
					     strerror(errno));
		if (S_ISDIR(st.st_mode))
			return scenario_fail(ctx, 0,
					     "TESTFS_BIN=%s is a directory, "
					     "not the testfs daemon",
					     bin);
		if (!S_ISREG(st.st_mode))
			return scenario_fail(ctx, 0,
					     "TESTFS_BIN=%s is not a regular "
					     "file",
					     bin);
		if (!(st.st_mode & 0111) || access(bin, X_OK) != 0)
			return scenario_fail(ctx, 0,
					     "TESTFS_BIN=%s is not executable "
					     "(mode %04o)",
					     bin, (unsigned)st.st_mode & 07777);
	}
	err = probe_version(bin, line, sizeof(line), &status);
	if (err)
		return scenario_fail(ctx, 0, "TESTFS_BIN=%s: cannot run it: %s",
				     bin, strerror(-err));
	if (strncmp(line, "testfs ", 7) != 0)
		return scenario_fail(ctx, 0,
				     "TESTFS_BIN=%s is not the testfs daemon: "
				     "'%s --version' %s%s%s (exit status %d)",
				     bin, bin, line[0] ? "printed '" : "",
				     line[0] ? line : "printed nothing",
				     line[0] ? "'" : "", status);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Members of the control files                                        */
/* ------------------------------------------------------------------ */

/* Reads MOUNT/.testfs/@name into a NUL-terminated buffer (free it). */
static int read_control(struct session *s, const char *name, char **out)
{
	char path[4200], rel[64];
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fd, err = 0;

	snprintf(rel, sizeof(rel), ".testfs/%s", name);
	err = testfs_path(s->fs, rel, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (cap - len < 4097) {
			char *p = realloc(buf, cap + 65536);

			if (!p) {
				err = -ENOMEM;
				break;
			}
			buf = p;
			cap += 65536;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int session_control_number(struct session *s, const char *name, const char *key,
			   uint64_t *out)
{
	struct json_reader in;
	struct json_iter it;
	char *text;
	int err, found = -ENOENT;

	err = read_control(s, name, &text);
	if (err)
		return err;
	json_reader_init(&in, text, strlen(text), 0);
	json_read_object(&in, &it);
	while (json_read_next(&it))
		if (json_key_is(&it, key) && json_read_peek(&in) == JSON_NUMBER)
			found = json_read_u64(&in, out);
		else
			json_read_skip(&in);
	err = json_read_error(&in);
	free(text);
	return err ? err : found;
}

/* session_start(), or with @backing: --backing @backing, no --file. */
static int start(struct scenario_ctx *ctx, struct session **out,
		 const char *file, uint64_t size, unsigned ra_kb,
		 const char *model, const char *backing)
{
	struct session *s = &ctx->session;
	static char spec[256];
	static const char *files[2], *extra[5];
	struct testfs_config cfg = { 0 };
	const char *log = param_s(ctx, "log"), *trace, *transport;
	size_t nextra = 0;
	struct testfs_settings set = TESTFS_SETTINGS_INIT;
	sigset_t alrm, old;
	int err;

	if (s->fs)
		return scenario_fail(ctx, -EBUSY,
				     "a testfs instance is running already");
	memset(s, 0, sizeof(*s));
	*out = s;
	s->file = file;
	s->file_pages = size / TESTFS_PAGE_SIZE;
	s->ra_kb = ra_kb;
	snprintf(spec, sizeof(spec), "%s:%llu", file, (unsigned long long)size);
	files[0] = spec;
	files[1] = NULL;
	cfg.files = files;
	if (backing) {
		/* The file's last page counts, however short. */
		s->file_pages =
			(size + TESTFS_PAGE_SIZE - 1) / TESTFS_PAGE_SIZE;
		snprintf(spec, sizeof(spec), "%s/%s", backing, file);
		extra[nextra++] = "--backing";
		extra[nextra++] = backing;
		cfg.files = NULL;
	}
	transport = ctx->transport ? ctx->transport : param_s(ctx, "transport");
	snprintf(s->transport_asked, sizeof(s->transport_asked), "%s",
		 *transport ? transport : "dev");
	if (!strcmp(s->transport_asked, "uring")) {
		extra[nextra++] = "--transport";
		extra[nextra++] = "uring";
	}
	extra[nextra] = NULL;
	if (nextra)
		cfg.extra_args = extra;
	cfg.ra_kb = ra_kb;
	if (model && strcmp(model, "none") != 0)
		cfg.latency = model;
	if (log && *log)
		cfg.log_path = log;
	trace = param_s(ctx, "trace");
	cfg.trace = strcmp(trace, "on") == 0	? 1
		    : strcmp(trace, "off") == 0 ? -1
						: 0;
	snprintf(s->model, sizeof(s->model), "%s",
		 model && *model ? model : "none");

	err = check_testfs_bin(ctx);
	if (err)
		return err;
	{
		char sz[32];

		progress("starting testfs (%s, %s, read_ahead_kb %u, "
			 "model %.28s%s)",
			 file, size_text(size, sz, sizeof(sz)), ra_kb,
			 model && *model ? model : "none",
			 model && strlen(model) > 28 ? "..." : "");
	}
	/*
	 * A time limit that ends during the start must still find the
	 * daemon to stop: SIGALRM waits until its pid is known.
	 */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, &old);
	err = testfs_start(&cfg, &s->fs);
	if (!err) {
		snprintf(alarm_mnt, sizeof(alarm_mnt), "%s",
			 testfs_mountpoint(s->fs));
		alarm_daemon = testfs_pid(s->fs);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (err == -ENOENT)
		return scenario_fail(ctx, 0,
				     "no testfs daemon found (set TESTFS_BIN "
				     "to the daemon, e.g. build/src/testfs)");
	if (err == -EIO)
		return scenario_fail(ctx, 0,
				     "the testfs daemon exited at start: FUSE "
				     "is not usable here (/dev/fuse, "
				     "fusermount3) or it refused its "
				     "arguments; run %s by hand to see why",
				     backing ? "testfs --backing DIR MOUNTPOINT"
					     : "testfs --file NAME:SIZE "
					       "MOUNTPOINT");
	if (err)
		return scenario_fail(ctx, err,
				     "testfs_start (file %s, read_ahead_kb %u, "
				     "latency %s)",
				     spec, ra_kb, s->model);

	/* What the kernel took, and the model as the daemon spells it. */
	if (testfs_settings(s->fs, &set) == 0) {
		s->ra_pages = set.ra_kb / 4;
		s->max_pages = set.max_pages;
		s->max_background = set.max_background;
		s->congestion_threshold = set.congestion_threshold;
		snprintf(s->kernel, sizeof(s->kernel), "%s", set.kernel);
		snprintf(s->model, sizeof(s->model), "%s", set.latency);
		snprintf(s->transport, sizeof(s->transport), "%s",
			 set.transport);
		snprintf(s->transport_note, sizeof(s->transport_note), "%s",
			 set.transport_note);
	}
	if (!s->transport[0])
		snprintf(s->transport, sizeof(s->transport), "dev");
	if (!s->kernel[0]) {
		struct utsname u;

		if (!uname(&u))
			snprintf(s->kernel, sizeof(s->kernel), "%s", u.release);
	}
	report_verdict_kernel(s->kernel);
	if (!s->ra_pages)
		s->ra_pages = ra_kb / 4;
	if (!s->max_pages)
		s->max_pages = 256;
	ask_tracing(s);
	return 0;
}

int session_start(struct scenario_ctx *ctx, struct session **s,
		  const char *file, uint64_t size, unsigned ra_kb,
		  const char *model)
{
	return start(ctx, s, file, size, ra_kb, model, NULL);
}

int session_start_params(struct scenario_ctx *ctx, struct session **s,
			 const char *file)
{
	int err = session_start(ctx, s, file, param_u(ctx, "size"),
				(unsigned)param_u(ctx, "ra"),
				param_s(ctx, "model"));

	if (!err)
		session_report_settings(*s, ctx->rep);
	return err;
}

int session_start_backing(struct scenario_ctx *ctx, struct session **s,
			  const char *dir, const char *file, uint64_t size,
			  unsigned ra_kb, const char *model)
{
	return start(ctx, s, file, size, ra_kb, model, dir);
}

static int first_daemon_status;

int session_daemon_status(void)
{
	return first_daemon_status;
}

int session_stop(struct session *s)
{
	int ret;

	if (!s || !s->fs)
		return 0;
	ask_tracing(s);
	if (s->settings) {
		if (s->tracing > 0)
			rep_str(s->settings, "tracing", "kernel tracing", "on");
		else
			rep_str(s->settings, "tracing", "kernel tracing",
				"off (%s)",
				s->trace_why[0] ? s->trace_why
						: "unknown reason");
	}
	progress("stopping testfs");
	alarm_daemon = 0;
	ret = testfs_stop(s->fs);
	s->fs = NULL;
	s->status = ret;
	if (ret && !first_daemon_status)
		first_daemon_status = ret;
	return ret;
}

void session_end(struct scenario_ctx *ctx, bool ran)
{
	struct session *s = &ctx->session;

	session_stop(s);
	if (ran && s->status)
		rep_int(rep_section(ctx->rep, "daemon", "Daemon"),
			"exit_status", "testfs exit status", s->status, NULL);
}

int session_phase(struct scenario_ctx *ctx, struct session *s,
		  const char *phase)
{
	char mark[96];
	int err;

	err = testfs_cold(s->fs, s->file);
	if (err)
		return scenario_fail(ctx, err, "%s: drop-cache %s", phase,
				     s->file);
	snprintf(mark, sizeof(mark), "%s begin", phase);
	err = testfs_mark(s->fs, mark);
	if (err)
		return scenario_fail(ctx, err, "%s: mark", phase);
	return 0;
}

int session_snapshot(struct scenario_ctx *ctx, struct session *s,
		     const char *phase, struct testfs_log **log)
{
	char mark[96];
	int err;

	/* Async readahead may still be on its way: wait before the mark. */
	err = testfs_settle(s->fs, 0);
	if (!err) {
		snprintf(mark, sizeof(mark), "%s end", phase);
		err = testfs_mark(s->fs, mark);
	}
	if (!err)
		err = testfs_log_snapshot(s->fs, log);
	if (err)
		return scenario_fail(ctx, err, "%s: log snapshot", phase);
	ask_tracing(s);
	err = html_phase(ctx, s, phase, *log);
	if (err)
		return scenario_fail(ctx, err, "%s: the HTML page", phase);
	if (testfs_log_lost(*log)) {
		testfs_log_free(*log);
		*log = NULL;
		return scenario_fail(ctx, -EOVERFLOW,
				     "%s: the log lost records", phase);
	}
	return 0;
}

void session_report_settings(struct session *s, struct report *r)
{
	struct rnode *sec = rep_section(r, "settings", "Settings");
	char sz[48];

	rep_str(sec, "kernel", NULL, "%s", s->kernel);
	rep_str(sec, "file", NULL, "%s", s->file);
	size_text(s->file_pages * TESTFS_PAGE_SIZE, sz + 7, sizeof(sz) - 8);
	memcpy(sz, "pages (", 7);
	strcat(sz, ")");
	rep_uint(sec, "file_pages", NULL, s->file_pages, sz);
	rep_uint(sec, "read_ahead_kb", NULL, s->ra_pages * 4ull, NULL);
	rep_uint(sec, "ra_pages", NULL, s->ra_pages, "pages");
	if (s->ra_pages * 4 != s->ra_kb)
		rep_text(sec, "ra_note",
			 "read_ahead_kb %u was asked for and %u is in effect "
			 "(raising it needs root)",
			 s->ra_kb, s->ra_pages * 4);
	rep_uint(sec, "max_pages", "FUSE max_pages", s->max_pages,
		 "pages per request");
	rep_uint(sec, "max_background", "FUSE max_background",
		 s->max_background, NULL);
	rep_uint(sec, "congestion_threshold", "FUSE congestion_threshold",
		 s->congestion_threshold, NULL);
	rep_str(sec, "storage_model", NULL, "%s", s->model);
	rep_str(sec, "transport", NULL, "%s", s->transport);
	if (strcmp(s->transport, s->transport_asked))
		rep_text(sec, "transport_note",
			 "transport %s was asked for and %s is in use: %s",
			 s->transport_asked, s->transport,
			 s->transport_note[0] ? s->transport_note
					      : "the daemon gave no reason");
	s->settings = sec;
}
