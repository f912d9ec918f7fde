// SPDX-License-Identifier: MIT
/*
 * throughput's servers and mounts: testfs (libtestfs), the minimal
 * server, the detached tmpfs, read_ahead_kb; and the watchdog that
 * stops and unmounts them all on a signal or an exceeded time limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "throughput.h"

/* --daemon-arg: more testfs arguments (e.g. --no-trace), NULL-ended. */
const char *daemon_args[MAX_DAEMON_ARGS + 1];
int ndaemon_args;

/* ------------------------------------------------------------------ */
/* Clean-up on every path                                              */
/* ------------------------------------------------------------------ */

/*
 * What the watchdog must undo if the run ends early: a server to stop
 * and a mountpoint to unmount and remove. Filled before the mount exists
 * and cleared after it is gone.
 */
enum slot_id { SLOT_TESTFS, SLOT_MINIMAL, SLOT_TMPFS, NSLOTS };

struct slot {
	_Atomic int active;
	_Atomic pid_t pid; /* 0: no server (tmpfs) */
	char path[PATH_MAX];
};

static struct slot slots[NSLOTS];

/* Absolute CLOCK_MONOTONIC deadline of the current step, 0: none. */
static _Atomic uint64_t deadline_ns;

_Atomic int stopping;

void set_deadline(unsigned seconds)
{
	atomic_store(&deadline_ns,
		     seconds ? bench_now_ns() + seconds * NS_PER_S : 0);
}

/*
 * Stops every server still registered (SIGTERM, SIGKILL after the stop
 * limit), then unmounts (lazily, in case a dead server's mount is still
 * there) and removes every registered mountpoint.
 */
void cleanup_slots(void)
{
	pid_t pid;
	int i;

	for (i = 0; i < NSLOTS; i++) {
		pid = atomic_load(&slots[i].pid);
		if (atomic_load(&slots[i].active) && pid > 0)
			kill(pid, SIGTERM);
	}
	for (i = 0; i < NSLOTS; i++) {
		pid = atomic_load(&slots[i].pid);
		if (!atomic_load(&slots[i].active) || pid <= 0)
			continue;
		if (!bench_reap(pid, STOP_LIMIT_MS, NULL)) {
			kill(pid, SIGKILL);
			bench_reap(pid, STOP_LIMIT_MS, NULL);
		}
	}
	for (i = 0; i < NSLOTS; i++) {
		if (!atomic_load(&slots[i].active))
			continue;
		umount2(slots[i].path, MNT_DETACH);
		rmdir(slots[i].path);
		atomic_store(&slots[i].active, 0);
	}
}

/*
 * The watchdog: the only thread that takes SIGINT, SIGTERM and SIGHUP
 * (the others block them), and the keeper of the time limits. A reader
 * blocked on a hung FUSE server is released when the server is killed
 * (its connection is aborted).
 */
void *watchdog_main(void *arg)
{
	const sigset_t *sigs = arg;
	struct timespec tick = { 0, 100000000L };
	uint64_t deadline;
	siginfo_t si;
	int sig;

	for (;;) {
		sig = sigtimedwait(sigs, &si, &tick);
		deadline = atomic_load(&deadline_ns);
		if (sig > 0) {
			fprintf(stderr,
				"throughput: %s: stopping the servers and "
				"unmounting\n",
				strsignal(sig));
		} else if (deadline && bench_now_ns() > deadline) {
			fprintf(stderr,
				"throughput: time limit exceeded: stopping "
				"the servers and unmounting\n");
		} else {
			continue;
		}
		atomic_store(&stopping, 1);
		cleanup_slots();
		fflush(stdout);
		_exit(sig > 0 ? 128 + sig : 1);
	}
	return NULL;
}

void wait_if_stopping(void)
{
	if (atomic_load(&stopping))
		for (;;)
			pause();
}

static void slot_open(enum slot_id id, const char *path)
{
	snprintf(slots[id].path, sizeof(slots[id].path), "%s", path);
	atomic_store(&slots[id].pid, 0);
	atomic_store(&slots[id].active, 1);
}

static void slot_close(enum slot_id id)
{
	atomic_store(&slots[id].active, 0);
	atomic_store(&slots[id].pid, 0);
}

/* ------------------------------------------------------------------ */
/* Kernel knobs and probes                                             */
/* ------------------------------------------------------------------ */

static int bdi_ra_path(const char *mountpoint, char *buf, size_t size)
{
	struct stat st;

	if (stat(mountpoint, &st) != 0)
		return -errno;
	snprintf(buf, size, "/sys/class/bdi/%u:%u/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	return 0;
}

long read_ra_kb(const char *mountpoint)
{
	char path[128];

	if (bdi_ra_path(mountpoint, path, sizeof(path)))
		return -1;
	return bench_read_long(path);
}

long testfs_ra_kb(const struct testfs_mount *fs)
{
	struct testfs_settings set;

	return testfs_settings(fs, &set) == 0 && set.ra_kb ? (long)set.ra_kb
							   : -1;
}

static int write_ra_kb(const char *mountpoint, unsigned kb)
{
	char path[128], buf[32];
	int fd, len, err;
	ssize_t n;

	err = bdi_ra_path(mountpoint, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%u\n", kb);
	n = write(fd, buf, (size_t)len);
	err = n < 0 ? -errno : n == len ? 0 : -EIO;
	close(fd);
	return err;
}

/* ------------------------------------------------------------------ */
/* The three mounts                                                    */
/* ------------------------------------------------------------------ */

static const char *const testfs_files[] = {
	"stamp.bin:" FILE_SIZE_ARG ":stamp",
	"zero.bin:" FILE_SIZE_ARG ":zero",
	NULL,
};

int start_testfs(struct mounts *m, unsigned ra_kb)
{
	struct testfs_config cfg = {
		.files = testfs_files,
		.ra_kb = ra_kb,
		.daemon = m->testfs_bin,
		.extra_args = ndaemon_args ? daemon_args : NULL,
		.timeout_ms = START_LIMIT_MS,
	};
	int err;

	/* The watchdog cannot know the pid before testfs_start() returns;
	 * --watch-pid and auto_unmount cover that window. */
	err = testfs_start(&cfg, &m->testfs);
	if (err == -ENOENT)
		return bench_fail(err, "no testfs daemon (set TESTFS_BIN)");
	if (err == -EIO)
		return bench_fail(
			err, "testfs exited at start (no usable FUSE, or it "
			     "refused its arguments)");
	if (err)
		return bench_fail(err, "testfs_start(--ra-kb %u)", ra_kb);
	slot_open(SLOT_TESTFS, testfs_mountpoint(m->testfs));
	atomic_store(&slots[SLOT_TESTFS].pid, testfs_pid(m->testfs));
	return 0;
}

int stop_testfs(struct mounts *m)
{
	char path[PATH_MAX];
	int ret;

	if (!m->testfs)
		return 0;
	snprintf(path, sizeof(path), "%s", testfs_mountpoint(m->testfs));
	ret = testfs_stop(m->testfs);
	m->testfs = NULL;
	slot_close(SLOT_TESTFS);
	if (bench_is_mounted(path))
		return bench_fail(-EBUSY, "testfs mount %s left behind", path);
	return ret == 0 ? 0 : bench_fail(ret < 0 ? ret : -EIO, "testfs_stop");
}

/* The child: default signals, SIGTERM when the parent dies, exec. */
static void __attribute__((noreturn))
exec_minimal(const char *bin, const char *mountpoint, int ready_fd,
	     pid_t parent)
{
	char fdarg[16];

	child_default_signals();
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(127);
	if (fcntl(ready_fd, F_SETFD, 0) < 0)
		_exit(127);
	snprintf(fdarg, sizeof(fdarg), "%d", ready_fd);
	execl(bin, bin, "-f", "--size", FILE_SIZE_ARG, "--ready-fd", fdarg,
	      mountpoint, (char *)NULL);
	_exit(127);
}

int start_minimal(struct mounts *m, unsigned ra_kb)
{
	char templ[] = "/tmp/minimal-bench.XXXXXX";
	pid_t parent = getpid(), pid;
	int pipefd[2], err;

	if (!mkdtemp(templ))
		return bench_fail(-errno, "mkdtemp(%s)", templ);
	snprintf(m->minimal, sizeof(m->minimal), "%s", templ);
	slot_open(SLOT_MINIMAL, m->minimal);
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		err = bench_fail(-errno, "pipe2");
		goto out_rmdir;
	}
	pid = fork();
	if (pid < 0) {
		err = bench_fail(-errno, "fork");
		close(pipefd[0]);
		close(pipefd[1]);
		goto out_rmdir;
	}
	if (pid == 0)
		exec_minimal(m->minimal_bin, m->minimal, pipefd[1], parent);
	close(pipefd[1]);
	m->minimal_pid = pid;
	atomic_store(&slots[SLOT_MINIMAL].pid, pid);
	err = bench_wait_ready(pipefd[0], START_LIMIT_MS);
	close(pipefd[0]);
	if (err)
		return bench_fail(err, "%s did not get ready (no usable FUSE?)",
				  m->minimal_bin);
	err = write_ra_kb(m->minimal, ra_kb);
	if (err)
		return bench_fail(err, "read_ahead_kb of %s", m->minimal);
	return 0;

out_rmdir:
	rmdir(m->minimal);
	slot_close(SLOT_MINIMAL);
	return err;
}

int stop_minimal(struct mounts *m)
{
	int status = -1, err = 0;
	pid_t pid = m->minimal_pid;

	if (!atomic_load(&slots[SLOT_MINIMAL].active))
		return 0;
	if (pid > 0) {
		kill(pid, SIGTERM);
		if (!bench_reap(pid, STOP_LIMIT_MS, &status)) {
			err = bench_fail(-ETIMEDOUT,
					 "minimal server did not stop");
			kill(pid, SIGKILL);
			bench_reap(pid, STOP_LIMIT_MS, NULL);
		} else if (status != -1 &&
			   !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			err = bench_fail(-EIO, "minimal server: exit status %d",
					 status);
		}
	}
	m->minimal_pid = 0;
	if (bench_is_mounted(m->minimal)) {
		umount2(m->minimal, MNT_DETACH);
		if (!err)
			err = bench_fail(-EBUSY, "minimal mount %s left behind",
					 m->minimal);
	}
	rmdir(m->minimal);
	slot_close(SLOT_MINIMAL);
	return err;
}

/*
 * A private tmpfs with the 512 MiB file, then detached at once: the file
 * stays reachable through m->tmpfs_fd (runs open /proc/self/fd/N afresh),
 * and the kernel frees the file system when this process exits, however
 * it ends, even by SIGKILL. The mount is visible for the time it takes to
 * write the file.
 */
int mount_tmpfs(struct mounts *m)
{
	char templ[] = "/tmp/testfs-bench-tmpfs.XXXXXX", path[128];
	uint64_t done = 0;
	int fd = -1, err = 0;
	char *buf = NULL;
	ssize_t n;

	m->tmpfs_fd = -1;
	if (!mkdtemp(templ))
		return bench_fail(-errno, "mkdtemp(%s)", templ);
	slot_open(SLOT_TMPFS, templ);
	if (mount("testfs-bench-tmpfs", templ, "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=600m,mode=0700")) {
		err = bench_fail(-errno, "mount tmpfs on %s", templ);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/zero.bin", templ);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	buf = calloc(1, MIB);
	if (fd < 0 || !buf) {
		err = bench_fail(fd < 0 ? -errno : -ENOMEM, "creating %s",
				 path);
		goto out;
	}
	while (done < FILE_BYTES) {
		n = write(fd, buf, MIB);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = bench_fail(n < 0 ? -errno : -EIO, "writing %s",
					 path);
			goto out;
		}
		done += (uint64_t)n;
	}
	m->tmpfs_fd = fd;
	fd = -1;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	if (umount2(templ, MNT_DETACH) != 0 && errno != EINVAL && !err)
		err = bench_fail(-errno, "detaching the tmpfs at %s", templ);
	rmdir(templ);
	slot_close(SLOT_TMPFS);
	return err;
}
