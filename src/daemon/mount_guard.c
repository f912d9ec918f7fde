// SPDX-License-Identifier: MIT
#include "mount_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mountinfo.h"
#include "text.h"

/* The fd the guard keeps its end of the socket on. */
#define GUARD_FD 3

/* The daemon's side. */
static int guard_fd = -1;
static pid_t guard_pid = -1;

/* Only the socket, and stderr if asked; stdin/stdout are /dev/null. */
static int guard_fds(int fd, bool keep_stderr)
{
	int null_fd, i;

	if (fd != GUARD_FD) {
		if (dup2(fd, GUARD_FD) < 0)
			return -1;
		close(fd);
	}
	if (close_range(GUARD_FD + 1, ~0U, 0) != 0)
		for (i = GUARD_FD + 1; i < 1024; i++)
			close(i);
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd < 0)
		return 0;
	for (i = 0; i <= 2; i++)
		if (i != null_fd && (i < 2 || !keep_stderr))
			dup2(null_fd, i);
	if (null_fd > GUARD_FD)
		close(null_fd);
	return 0;
}

/*
 * Group signals (a test ending its process group, ^C on a foreground
 * daemon) are the daemon's to act on: the guard ignores them and ends on
 * its own once the daemon has (it never outlives it by more than
 * MOUNT_GUARD_LIMIT_S). SIGKILL still ends it.
 */
static void guard_signals(void)
{
	static const int ignored[] = { SIGINT,	SIGTERM, SIGHUP,  SIGQUIT,
				       SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	sigset_t none;
	size_t i;

	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The last device number sent before end-of-file; false if none came. */
static bool read_dev(int fd, dev_t *dev)
{
	unsigned char buf[sizeof(uint64_t)];
	size_t have = 0;
	bool got = false;
	uint64_t v;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got;
		have += (size_t)n;
		if (have < sizeof(buf))
			continue;
		memcpy(&v, buf, sizeof(v));
		*dev = (dev_t)v;
		got = true;
		have = 0;
	}
}

/* The daemon's mount, not another one mounted at the same path since. */
static bool still_ours(const char *mnt, dev_t dev)
{
	struct mount_entry me;

	return mountinfo_find(mnt, &me) && me.dev == dev &&
	       strcmp(me.fstype, "fuse.testfs") == 0;
}

/*
 * Ends the connection now (fs/fuse/control.c: the connection's directory
 * is named by the device minor and owned by the mount's owner): every
 * request waiting on the dead daemon fails with ENOTCONN at once instead
 * of when io_uring gets to the dead rings. Best effort: fusectl may not
 * be mounted.
 */
static void abort_connection(dev_t dev)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort",
		 minor(dev));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) != 1) {
		/* Nothing else to try: the detach below still runs. */
	}
	close(fd);
}

/*
 * As root: detaches the very mount that has device @dev, through an
 * O_PATH descriptor of its root (no request reaches the file system:
 * O_PATH does not open it, and AT_STATX_DONT_SYNC sends no GETATTR).
 */
static int detach_root(const char *mnt, dev_t dev)
{
	struct statx stx;
	char path[64];
	int fd, res = -1;

	fd = open(mnt, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, 0, &stx) == 0 &&
	    makedev(stx.stx_dev_major, stx.stx_dev_minor) == dev) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		res = umount2(path, MNT_DETACH);
		/* By the path only while the mount on top is still ours. */
		if (res != 0 && still_ours(mnt, dev))
			res = umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW);
	}
	close(fd);
	return res;
}

/* Not root: fusermount3 -u -z, which checks the mount is the user's. */
static int detach_user(const char *mnt)
{
	const char *argv[] = {
		"fusermount3", "-u", "-z", "-q", "--", mnt, NULL
	};
	int ws;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* Kept across exec: a hung fusermount3 ends too. */
		alarm(MOUNT_GUARD_LIMIT_S);
		execvp(argv[0], (char *const *)argv);
		execv("/usr/bin/fusermount3", (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -1;
}

static void __attribute__((noreturn))
guard_main(int fd, const char *mnt, bool keep_stderr)
{
	pid_t daemon = getppid();
	dev_t dev = 0;
	bool gone;

	guard_signals();
	prctl(PR_SET_NAME, "testfs-guard");
	if (guard_fds(fd, keep_stderr) != 0 || chdir("/") != 0)
		_exit(1);
	/* Blocks until the daemon's end closes: its exit, however. */
	if (!read_dev(GUARD_FD, &dev) || !still_ours(mnt, dev))
		_exit(0);
	/* Whatever hangs from here on, the guard ends in time. */
	alarm(MOUNT_GUARD_LIMIT_S);
	abort_connection(dev);
	if (geteuid() == 0)
		detach_root(mnt, dev);
	else
		detach_user(mnt);
	gone = !still_ours(mnt, dev);
	fprintf(stderr,
		"testfs: the daemon (pid %d) ended without unmounting %s: %s\n",
		(int)daemon, esc(mnt),
		gone ? "the mount guard removed the mount"
		     : "the mount guard could not remove it (umount -l)");
	_exit(gone ? 0 : 1);
}

int mount_guard_start(const char *mountpoint, bool keep_stderr)
{
	int sv[2], err;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	/* Nothing buffered is written twice. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		close(sv[0]);
		guard_main(sv[1], mountpoint, keep_stderr);
	}
	close(sv[1]);
	guard_fd = sv[0];
	guard_pid = pid;
	return 0;
}

void mount_guard_arm(dev_t dev)
{
	uint64_t v = (uint64_t)dev;

	if (guard_fd < 0)
		return;
	/* A guard that is gone already is no reason to end the daemon. */
	if (send(guard_fd, &v, sizeof(v), MSG_NOSIGNAL) != (ssize_t)sizeof(v))
		return;
}

void mount_guard_release(void)
{
	if (guard_fd >= 0)
		close(guard_fd);
	guard_fd = -1;
	if (guard_pid <= 0)
		return;
	while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR)
		;
	guard_pid = -1;
}
