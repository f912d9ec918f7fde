// SPDX-License-Identifier: MIT
/*
 * outfile.h: the tools' output files, written whole or not at all, and
 * never replacing a link, a FIFO or a device with a regular file.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The kernel's limit on links followed in one lookup (path_resolution(7)). */
#define MAX_LINKS 40

/* The folder of @path (PATH_MAX bytes at most) into @dir: ".", "/" or a path.
 */
static void dir_of(char *dir, const char *path)
{
	char *slash;

	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
}

/*
 * Whether the link @path (its lstat in @st) may be followed: not one in
 * a sticky folder anyone may write to (/tmp) that neither we nor the
 * folder's owner own, which fs.protected_symlinks=1 refuses too. Root
 * writing --json /tmp/x.json must not land where another user points.
 */
static bool link_is_safe(const char *path, const struct stat *st)
{
	char dir[PATH_MAX];
	struct stat d;

	if (st->st_uid == geteuid())
		return true;
	dir_of(dir, path);
	if (stat(dir, &d))
		return false;
	return !(d.st_mode & S_ISVTX) || !(d.st_mode & S_IWOTH) ||
	       d.st_uid == st->st_uid;
}

/*
 * The descriptor of this process that @path names (/dev/fd/N,
 * /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N of this
 * process; /dev/stdout and /dev/stderr lead there), or -1. Its link is
 * no path to follow: for a pipe it reads "pipe:[ino]", and a file behind
 * it is already open (the shell's "> out").
 */
static int fd_named(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/",
					    "/proc/thread-self/fd/" };
	char own[64];
	const char *num = NULL;
	char *end;
	unsigned i;
	long n;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !num; i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			num = path + strlen(dirs[i]);
	snprintf(own, sizeof(own), "/proc/%d/fd/", (int)getpid());
	if (!num && !strncmp(path, own, strlen(own)))
		num = path + strlen(own);
	if (!num || *num < '0' || *num > '9')
		return -1;
	errno = 0;
	n = strtol(num, &end, 10);
	if (errno || *end || n > INT_MAX || fcntl((int)n, F_GETFD) < 0)
		return -1;
	return (int)n;
}

/*
 * Follows @path through symbolic links into @out; @st is what is there,
 * st_mode 0 when nothing is (a missing folder on the way shows up when
 * the file is created). Stops at a descriptor of this process: -EBADF
 * with its number in *@fd.
 */
static int resolve(const char *path, char *out, size_t len, struct stat *st,
		   int *fd)
{
	char link[PATH_MAX];
	int hops;

	if (!*path)
		return -ENOENT;
	if (strlen(path) >= len)
		return -ENAMETOOLONG;
	strcpy(out, path);
	for (hops = 0; hops < MAX_LINKS; hops++) {
		char *slash;
		size_t keep;
		ssize_t n;

		*fd = fd_named(out);
		if (*fd >= 0)
			return -EBADF;
		if (lstat(out, st)) {
			if (errno != ENOENT)
				return -errno;
			memset(st, 0, sizeof(*st));
			/* "dir/" names a folder, which is not created. */
			return out[strlen(out) - 1] == '/' ? -EISDIR : 0;
		}
		if (!S_ISLNK(st->st_mode))
			return S_ISDIR(st->st_mode) ? -EISDIR : 0;
		if (!link_is_safe(out, st))
			return -EACCES;
		n = readlink(out, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(link) - 1)
			return -ENAMETOOLONG;
		link[n] = '\0';
		/* A relative target is relative to the link's folder. */
		slash = strrchr(out, '/');
		keep = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
		if (keep + (size_t)n >= len)
			return -ENAMETOOLONG;
		memcpy(out + keep, link, (size_t)n + 1);
	}
	return -ELOOP;
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
	struct outfile *o = cookie;
	size_t done = 0;

	/*
	 * After the first error nothing more goes out, not even a flush.
	 * Errors return 0, never -1: fopencookie(3) says so, and glibc's
	 * fwrite() counts a -1 as one byte more to copy (it read past the
	 * caller's buffer under ASan).
	 */
	if (o->err)
		return 0;
	while (done < size) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!o->err)
				o->err = n < 0 ? -errno : -EIO;
			return 0;
		}
		done += (size_t)n;
	}
	return (ssize_t)size;
}

/* The temporary file next to @o->path: ".NAME.PID.N.tmp", never reused. */
static int open_tmp(struct outfile *o, const struct stat *old)
{
	const char *slash = strrchr(o->path, '/');
	int dirlen = slash ? (int)(slash - o->path) + 1 : 0;
	struct timespec ts;
	unsigned i;
	int fd = -1;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (i = 0; i < 100 && fd < 0; i++) {
		int n = snprintf(o->tmp, sizeof(o->tmp),
				 "%.*s.%.200s.%d.%lx.tmp", dirlen, o->path,
				 o->path + dirlen, (int)getpid(),
				 (unsigned long)ts.tv_nsec + i * 7919ul);

		if (n < 0 || (size_t)n >= sizeof(o->tmp))
			return -ENAMETOOLONG;
		/* O_EXCL: never through a link someone put there. */
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0666);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	if (S_ISREG(old->st_mode)) {
		/*
		 * The old file's owner (only root may give a file away) and
		 * mode; a failure leaves the defaults, not worth failing for.
		 */
		if (geteuid() == 0 && fchown(fd, old->st_uid, old->st_gid))
			errno = 0;
		if (fchmod(fd, old->st_mode & 0777))
			errno = 0;
	}
	return fd;
}

/* 0 if descriptor @fd was opened for writing, or -EBADF. */
static int writable_fd(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY ? 0 : -EBADF;
}

int outfile_open(struct outfile *o, const char *path)
{
	static const cookie_io_functions_t io = { .write = cookie_write };
	struct stat st;
	int err, fd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	err = resolve(path, o->path, sizeof(o->path), &st, &fd);
	if (err == -EBADF && fd >= 0) {
		/* What this process printed there so far goes first. */
		if (fd == STDOUT_FILENO)
			fflush(stdout);
		if (fd == STDERR_FILENO)
			fflush(stderr);
		err = writable_fd(fd);
		o->fd = err ? err : fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (o->fd < 0 && !err)
			o->fd = -errno;
	} else if (err) {
		return err;
	} else if (st.st_mode == 0 || S_ISREG(st.st_mode)) {
		o->fd = open_tmp(o, &st);
	} else {
		o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0)
			o->fd = -errno;
	}
	if (o->fd < 0) {
		err = o->fd;
		o->tmp[0] = '\0';
		return err;
	}
	o->f = fopencookie(o, "w", io);
	if (!o->f) {
		outfile_abort(o);
		return -ENOMEM;
	}
	return 0;
}

int outfile_close(struct outfile *o)
{
	int err = 0;

	if (o->f && fflush(o->f) && !o->err)
		o->err = -EIO;
	if (o->f && fclose(o->f) && !o->err)
		o->err = -EIO;
	o->f = NULL;
	err = o->err;
	if (!err && o->tmp[0] && fsync(o->fd))
		err = -errno;
	if (o->fd >= 0 && close(o->fd) && !err)
		err = -errno;
	o->fd = -1;
	if (!err && o->tmp[0] && rename(o->tmp, o->path))
		err = -errno;
	if (err && o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
	return err;
}

void outfile_abort(struct outfile *o)
{
	if (!o->err)
		o->err = -ECANCELED;
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

int outfile_write(const char *path, const void *data, size_t len)
{
	struct outfile o;
	int err = outfile_open(&o, path);

	if (err)
		return err;
	if (len && fwrite(data, 1, len, o.f) != len && !o.err)
		o.err = -EIO;
	return outfile_close(&o);
}

int outfile_check(const char *path)
{
	char real[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	int fd, err = resolve(path, real, sizeof(real), &st, &fd);

	if (err == -EBADF && fd >= 0)
		return writable_fd(fd);
	if (err)
		return err;
	if (st.st_mode && !S_ISREG(st.st_mode))
		return access(real, W_OK) ? -errno : 0;
	/* A new file goes in the folder: it must be there, and writable. */
	dir_of(dir, real);
	return access(dir, W_OK | X_OK) ? -errno : 0;
}
