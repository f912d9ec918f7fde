// SPDX-License-Identifier: MIT
/*
 * What Ctrl-C (SIGINT), SIGTERM or SIGHUP leaves behind: nothing. The
 * guest or host runner in flight is killed with its process group;
 * kernel/build.sh gets SIGTERM first, so that it stops its make and
 * removes its own temporary files, and SIGKILL after a grace period; the
 * matrix's scratch folder (/tmp/testfs-matrix.*) is removed; then the
 * process dies of the signal, so its caller sees it. The handler makes
 * only async-signal-safe calls: the folder is removed with openat(),
 * getdents64() and unlinkat(), never leaving its file system (a mount
 * inside it is left alone).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "matrix.h"

/* How long build.sh has to stop its make: 10 s, in 50 ms steps. */
#define BUILD_GRACE_STEPS 200
/* The scratch folder is two levels deep (host/, its files). */
#define MAX_DEPTH 8

static struct matrix *volatile signal_matrix;
static volatile sig_atomic_t build_pgid;

void matrix_build_child(pid_t pgid)
{
	build_pgid = pgid;
}

/* Removes @name in @dfd and everything under it on the device @dev. */
static void remove_at(int dfd, const char *name, dev_t dev, int depth)
{
	char buf[2048];
	struct dirent64 *d;
	struct stat st;
	ssize_t n, off;
	int fd, pass, removed;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || st.st_dev != dev)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dfd, name, 0);
		return;
	}
	fd = depth > 0 ? openat(dfd, name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		       : -1;
	/* Entries removed while reading may hide others: read again */
	for (pass = 0, removed = 1; fd >= 0 && removed && pass < 4; pass++) {
		removed = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0)
			for (off = 0; off < n; off += d->d_reclen) {
				d = (struct dirent64 *)(buf + off);
				if (!strcmp(d->d_name, ".") ||
				    !strcmp(d->d_name, ".."))
					continue;
				remove_at(fd, d->d_name, dev, depth - 1);
				removed = 1;
			}
	}
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void on_signal(int sig)
{
	const struct timespec step = { 0, 50 * 1000 * 1000 };
	struct matrix *m = signal_matrix;
	pid_t pg = (pid_t)build_pgid;
	struct stat st;
	int i;

	capture_kill_current();
	if (pg > 0) {
		kill(-pg, SIGTERM);
		for (i = 0;
		     i < BUILD_GRACE_STEPS && waitpid(pg, NULL, WNOHANG) == 0;
		     i++)
			nanosleep(&step, NULL);
		kill(-pg, SIGKILL);
	}
	if (m && m->workdir[0] && !lstat(m->workdir, &st))
		remove_at(AT_FDCWD, m->workdir, st.st_dev, MAX_DEPTH);
	signal(sig, SIG_DFL);
	raise(sig);
}

void matrix_catch_signals(struct matrix *m)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	signal_matrix = m;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* One cleanup at a time: a second Ctrl-C waits for the first */
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}
