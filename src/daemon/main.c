// SPDX-License-Identifier: MIT
/*
 * testfs: a FUSE file system that serves synthetic files and records every
 * page range the kernel reads from them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "mountinfo.h"
#include "text.h"
#include "testfs_core.h"
#include "rules.h"
#include "backing.h"
#include "mount_guard.h"
#include "options.h"
#include "serve.h"
#include "start_reason.h"
#include "startup.h"

#ifndef TESTFS_VERSION
#define TESTFS_VERSION "unknown"
#endif

/* Every node's atime/mtime/ctime: 2024-01-01T00:00:00Z, never changing. */
#define TESTFS_FIXED_TIME 1704067200

enum exit_status {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
};

static const char *name_of_ino(void *ctx, uint64_t ino)
{
	struct node *n = fileset_get(ctx, ino);

	return n ? n->path : "";
}

/*
 * --backing DIR: every backing file stays open while served, so the soft
 * descriptor limit goes up to the hard one first. DIR is made absolute
 * for .testfs/config (the daemon changes directory later).
 */
static int add_backing(struct testfs *t, struct options *o)
{
	struct backing_scan r;
	struct rlimit rl;
	char why[1024], *abs;
	int err;

	if (!o->backing)
		return EXIT_OK;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	err = backing_scan(&t->files, o->backing, &r, why, sizeof(why));
	if (err == -ENOMEM || err == -EMFILE || err == -ENFILE) {
		fprintf(stderr, "testfs: --backing '%s': %s\n", esc(o->backing),
			esc(why));
		return EXIT_RUNTIME;
	}
	if (err) {
		fprintf(stderr, "testfs: --backing '%s': %s\n", esc(o->backing),
			esc(why));
		return EXIT_USAGE;
	}
	if (r.skipped)
		fprintf(stderr,
			"testfs: warning: --backing '%s': skipped %llu entr%s (only regular files and directories are served): %s\n",
			esc(o->backing), (unsigned long long)r.skipped,
			r.skipped == 1 ? "y" : "ies", r.skipped_names);
	abs = realpath(o->backing, NULL);
	if (abs) {
		free(o->backing);
		o->backing = abs;
	}
	return EXIT_OK;
}

static int build_files(struct testfs *t, struct options *o)
{
	const char *why;
	size_t i;
	int err;

	err = fileset_init(&t->files);
	if (err) {
		fprintf(stderr, "testfs: out of memory\n");
		return EXIT_RUNTIME;
	}
	for (i = 0; i < o->nfiles; i++) {
		err = fileset_add_file(&t->files, o->files[i].name,
				       o->files[i].size, &o->files[i].pattern,
				       &why);
		if (err == -ENOMEM) {
			fprintf(stderr, "testfs: out of memory\n");
			return EXIT_RUNTIME;
		}
		if (err) {
			fprintf(stderr, "testfs: --file '%s': %s\n",
				esc(o->files[i].name), why);
			return EXIT_USAGE;
		}
	}
	return add_backing(t, o);
}

/* Arguments that name things of this process's environment. */
static int check_handles(const struct options *o)
{
	if (o->ready_fd >= 0 && fcntl(o->ready_fd, F_GETFD) < 0) {
		fprintf(stderr,
			"testfs: --ready-fd %d: not an open file descriptor\nTry 'testfs --help'.\n",
			o->ready_fd);
		return EXIT_USAGE;
	}
	if (o->watch_pid > 0 && kill((pid_t)o->watch_pid, 0) != 0 &&
	    errno == ESRCH) {
		fprintf(stderr,
			"testfs: --watch-pid %lld: no such process\nTry 'testfs --help'.\n",
			(long long)o->watch_pid);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The daemon changes directory: paths are made absolute first. */
static int resolve_paths(struct testfs *t, struct options *o)
{
	char cwd[PATH_MAX], *abs;
	struct stat st;

	t->mountpoint = realpath(o->mountpoint, NULL);
	if (!t->mountpoint) {
		fprintf(stderr, "testfs: mountpoint '%s': %s\n",
			esc(o->mountpoint), strerror(errno));
		return EXIT_RUNTIME;
	}
	if (stat(t->mountpoint, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "testfs: mountpoint '%s': not a directory\n",
			esc(o->mountpoint));
		return EXIT_RUNTIME;
	}
	if (mountinfo_is_testfs(t->mountpoint)) {
		fprintf(stderr,
			"testfs: mountpoint '%s': already a testfs mount (unmount it first: fusermount3 -u %s)\n",
			esc(o->mountpoint), esc(t->mountpoint));
		return EXIT_RUNTIME;
	}
	if (o->log_path && o->log_path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)) ||
		    asprintf(&abs, "%s/%s", cwd, o->log_path) < 0) {
			fprintf(stderr, "testfs: --log '%s': cannot resolve\n",
				esc(o->log_path));
			return EXIT_RUNTIME;
		}
		free(o->log_path);
		o->log_path = abs;
	}
	return EXIT_OK;
}

/*
 * The log file is opened before mounting: a path that must be refused is
 * bad input (exit 2), and nothing is mounted for it.
 */
static int open_log(const struct options *o, int *fd)
{
	char why[2048];

	*fd = -1;
	if (!o->log_path)
		return EXIT_OK;
	*fd = log_writer_open(o->log_path, why, sizeof(why));
	if (*fd >= 0)
		return EXIT_OK;
	fprintf(stderr, "testfs: --log '%s': %s\n", esc(o->log_path), why);
	/* A refusal is bad input; a failing open (no such directory, a
	 * read-only file system) is a runtime failure, as before. */
	return *fd == -ELOOP || *fd == -EINVAL || *fd == -EPERM ? EXIT_USAGE
								: EXIT_RUNTIME;
}

static int start_log(struct testfs *t, const struct options *o, int log_fd)
{
	int err;

	err = log_ring_init(&t->log, o->log_capacity);
	if (err) {
		startup_fail(EXIT_RUNTIME,
			     "cannot reserve the log (%llu records): %s",
			     (unsigned long long)o->log_capacity,
			     strerror(-err));
		return EXIT_RUNTIME;
	}
	/* Without it the requests take the first lap's page faults. */
	err = log_ring_touch_start(&t->log);
	if (err)
		startup_warn("the log's pages will be touched as records "
			     "arrive: %s",
			     strerror(-err));
	err = log_order_init(&t->order, &t->log, (unsigned)o->threads);
	if (err) {
		if (log_fd >= 0)
			close(log_fd);
		startup_fail(EXIT_RUNTIME, "cannot set up the log: %s",
			     strerror(-err));
		return EXIT_RUNTIME;
	}
	if (log_fd < 0)
		return EXIT_OK;
	err = log_writer_start(&t->writer, &t->log, log_fd, t->page_size,
			       name_of_ino, &t->files);
	if (err) {
		close(log_fd);
		startup_fail(EXIT_RUNTIME, "--log '%s': %s", o->log_path,
			     strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static int stop_log(struct testfs *t, const struct options *o)
{
	uint64_t unwritten = 0;
	int err = 0;

	/* Nothing takes requests any more: every read goes in. */
	if (t->order)
		log_order_flush(t->order);
	if (t->writer)
		err = log_writer_stop(t->writer, &unwritten);
	t->writer = NULL;
	log_order_destroy(t->order);
	t->order = NULL;
	log_ring_destroy(&t->log);
	if (err)
		startup_warn(
			"--log '%s': %s; %llu records could not be written to it (a loss line stands for them where a later write worked)",
			o->log_path, strerror(-err),
			(unsigned long long)unwritten);
	return err;
}

/*
 * --transport uring: the mount guard (daemon/mount_guard.h), forked here
 * while the daemon has no thread yet, nor /dev/fuse, nor a ring. Not with
 * --no-auto-unmount, which asks for a killed daemon's mount to stay.
 */
static void start_guard(struct testfs *t, const struct options *o)
{
	int err;

	if (o->transport != OPT_TRANSPORT_URING || !o->auto_unmount)
		return;
	err = mount_guard_start(t->mountpoint, o->foreground);
	if (err)
		startup_warn(
			"--transport uring: cannot start the mount guard (a killed daemon may leave its mount): %s",
			strerror(-err));
}

/*
 * A start-up that failed tells --ready-fd why, unless the mount was ready
 * (the descriptor is closed then) or the descriptor is not open.
 */
static void tell_ready_fd(const struct options *o, int status)
{
	if (status == EXIT_OK || o->ready_fd < 0 ||
	    (startup_done() && !startup_failed()))
		return;
	if (fcntl(o->ready_fd, F_GETFD) < 0)
		return;
	start_reason_send(o->ready_fd);
}

int main(int argc, char **argv)
{
	static struct testfs t;
	struct options o;
	char err[1024];
	int status, log_fd = -1;

	start_reason_capture();
	options_init(&o);
	if (options_parse(&o, argc, argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "testfs: %s\nTry 'testfs --help'.\n", esc(err));
		tell_ready_fd(&o, EXIT_USAGE);
		options_free(&o);
		return EXIT_USAGE;
	}
	if (o.help) {
		options_usage(stdout);
		options_free(&o);
		return EXIT_OK;
	}
	if (o.version) {
		printf("testfs %s (libfuse %s)\n", TESTFS_VERSION,
		       fuse_pkgversion());
		options_free(&o);
		return EXIT_OK;
	}

	t.opts = &o;
	t.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	t.uid = getuid();
	t.gid = getgid();
	t.mtime = TESTFS_FIXED_TIME;
	testfs_init(&t);
	/* The rules the options built become the daemon's (ctl adds more). */
	t.rules = o.rules;
	o.rules = NULL;
	if (!t.rules && rules_new(&t.rules)) {
		fprintf(stderr, "testfs: out of memory\n");
		options_free(&o);
		return EXIT_RUNTIME;
	}
	atomic_init(&t.slow_active, o.slow_given);
	status = check_handles(&o);
	if (status == EXIT_OK)
		status = build_files(&t, &o);
	if (status == EXIT_OK)
		status = resolve_paths(&t, &o);
	if (status == EXIT_OK)
		status = open_log(&o, &log_fd);
	if (status != EXIT_OK)
		goto out_free;

	startup_begin(o.foreground);
	start_guard(&t, &o);
	t.started_ns = clock_now_ns();
	status = start_log(&t, &o, log_fd);
	if (status == EXIT_OK) {
		status = serve(&t);
		mount_guard_release();
		/* Only an empty directory goes, and only once unmounted. */
		if (o.rmdir_after && !mountinfo_is_testfs(t.mountpoint))
			rmdir(t.mountpoint);
	}
	if (stop_log(&t, &o) != 0 && status == EXIT_OK)
		status = EXIT_RUNTIME;
out_free:
	tell_ready_fd(&o, status);
	mount_guard_release();
	fileset_destroy(&t.files);
	rules_free(t.rules);
	free(t.mountpoint);
	testfs_destroy(&t);
	options_free(&o);
	return status;
}
