// SPDX-License-Identifier: MIT
/*
 * --backing DIR: the scan that adds the tree to the file set, and reads
 * through one io_uring per request thread with one registered buffer.
 * The request thread waits for its own read: a backing read is the
 * "device" of the model, and the latency rules delay the reply after it.
 */
#include "backing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pagecache.h"
#include "text.h"

/*
 * O_DIRECT alignment of offsets, lengths and memory: 4096 covers every
 * logical block size up to a page, so one value fits any device here.
 */
#define DIO_ALIGN 4096u
/* Largest read served (pagecache_read_max()); an unaligned read widens
 * by less than one block at each end. */
#define BUF_SIZE (pagecache_read_max() + 2 * DIO_ALIGN)

static _Atomic uint64_t n_uring, n_sync, n_fallbacks;
static atomic_bool any_registered;

struct scan_ctx {
	struct fileset *fs;
	struct backing_scan *r;
	char *err;
	size_t errlen;
};

static void note_skipped(struct backing_scan *r, const char *path,
			 const char *what)
{
	size_t len = strlen(r->skipped_names);
	size_t room = sizeof(r->skipped_names) - len;
	int n;

	r->skipped++;
	if (room <= 5)
		return;
	/* Printed on stderr: escaped here (text.h), once. */
	n = snprintf(r->skipped_names + len, room, "%s%s (%s)", len ? ", " : "",
		     esc(path), what);
	/* Cut at the end: say so rather than end mid-name. */
	if (n < 0 || (size_t)n >= room)
		strcpy(r->skipped_names + sizeof(r->skipped_names) - 5, "...");
}

static const char *kind_name(mode_t mode)
{
	if (S_ISLNK(mode))
		return "symbolic link, not followed";
	if (S_ISFIFO(mode))
		return "FIFO";
	if (S_ISSOCK(mode))
		return "socket";
	if (S_ISCHR(mode))
		return "character device";
	if (S_ISBLK(mode))
		return "block device";
	return "not a regular file";
}

/* tmpfs and ramfs hold file data in the page cache: nothing to bypass. */
static bool data_lives_in_cache(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 &&
	       (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
}

/*
 * Opens regular file @name of @dirfd for reading: O_DIRECT when the file
 * system takes it. O_NONBLOCK only while opening (a FIFO swapped in since
 * the fstatat must not block the scan): io_uring would turn it into
 * -EAGAIN on every read that must wait.
 */
static int open_file(int dirfd, const char *name, bool *direct, struct stat *st)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd;

	*direct = true;
	fd = openat(dirfd, name, flags | O_DIRECT);
	if (fd < 0 && errno == EINVAL) {
		*direct = false;
		fd = openat(dirfd, name, flags);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (*direct && data_lives_in_cache(fd))
		*direct = false;
	flags = O_RDONLY | (*direct ? O_DIRECT : 0);
	if (fcntl(fd, F_SETFL, flags) != 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in @d but "." and "..", sorted so inode numbers repeat. */
static char **list_dir(DIR *d, size_t *count)
{
	char **v = NULL, **p;
	size_t n = 0, cap = 0;
	struct dirent *de;

	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			p = realloc(v, cap * sizeof(*v));
			if (!p)
				goto out_nomem;
			v = p;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto out_nomem;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*count = n;
	return v ? v : calloc(1, sizeof(*v));
out_nomem:
	while (n)
		free(v[--n]);
	free(v);
	return NULL;
}

static int walk(struct scan_ctx *c, int dirfd, const char *rel);

static int add_entry(struct scan_ctx *c, int dirfd, const char *name,
		     const char *path)
{
	struct stat st;
	const char *why;
	bool direct;
	int fd, err;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		note_skipped(c->r, path, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		note_skipped(c->r, path, kind_name(st.st_mode));
		return 0;
	}
	if (fileset_check_path(path, &why)) {
		note_skipped(c->r, path, why);
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		fd = openat(dirfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			note_skipped(c->r, path, strerror(errno));
			return 0;
		}
		err = fileset_add_dir(c->fs, path, &why);
		if (!err) {
			c->r->dirs++;
			return walk(c, fd, path);
		}
		close(fd);
	} else {
		fd = open_file(dirfd, name, &direct, &st);
		if (fd < 0) {
			note_skipped(c->r, path,
				     fd == -EINVAL ? "changed while scanned"
						   : strerror(-fd));
			return 0;
		}
		err = fileset_add_backing(c->fs, path, (uint64_t)st.st_size,
					  (uint16_t)st.st_mode, fd, direct,
					  &why);
		if (!err) {
			c->r->files++;
			c->r->direct += direct;
			return 0;
		}
	}
	snprintf(c->err, c->errlen, "'%s': %s", path, why);
	return err;
}

/* Adds what directory @dirfd (closed here) holds, under @rel. */
static int walk(struct scan_ctx *c, int dirfd, const char *rel)
{
	DIR *d = fdopendir(dirfd);
	char **names, *path;
	size_t n = 0, i;
	int err = 0;

	if (!d) {
		close(dirfd);
		note_skipped(c->r, rel, strerror(errno));
		return 0;
	}
	names = list_dir(d, &n);
	if (!names) {
		closedir(d);
		snprintf(c->err, c->errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!err) {
			if (asprintf(&path, "%s%s%s", rel, *rel ? "/" : "",
				     names[i]) < 0) {
				snprintf(c->err, c->errlen, "out of memory");
				err = -ENOMEM;
			} else {
				err = add_entry(c, dirfd, names[i], path);
				free(path);
			}
		}
		free(names[i]);
	}
	free(names);
	closedir(d);
	return err;
}

/* io_uring may be off (kernel.io_uring_disabled, seccomp): say so now. */
static int probe_uring(char *err, size_t errlen)
{
	struct io_uring ring;
	int ret = io_uring_queue_init(2, &ring, 0);

	if (ret < 0) {
		snprintf(
			err, errlen,
			"io_uring is not available (%s; see sysctl kernel.io_uring_disabled)",
			strerror(-ret));
		return ret;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

int backing_scan(struct fileset *fs, const char *dir, struct backing_scan *r,
		 char *err, size_t errlen)
{
	struct scan_ctx c = { fs, r, err, errlen };
	struct stat st;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s",
			 ret == -ENOTDIR ? "not a directory" : strerror(-ret));
		return ret;
	}
	/* Readable as a directory, not just openable: list it once. */
	if (fstat(fd, &st) != 0 || access(dir, R_OK | X_OK) != 0) {
		ret = -errno;
		close(fd);
		snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	ret = probe_uring(err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	return walk(&c, fd, "");
}

struct uring_ctx {
	struct io_uring ring;
	char *buf;
	bool ring_ok;
	bool fixed;
};

/*
 * This thread's ring and buffer, set up at its first backing read (after
 * the daemon has forked: a ring is not shared with a child). The buffer
 * is zeroed once: io_uring fills it behind valgrind's back.
 */
static struct uring_ctx *thread_ctx(void)
{
	static __thread struct uring_ctx c;
	struct iovec iov;

	if (c.buf)
		return &c;
	c.buf = aligned_alloc(DIO_ALIGN, BUF_SIZE);
	if (!c.buf)
		return NULL;
	memset(c.buf, 0, BUF_SIZE);
	if (io_uring_queue_init(4, &c.ring, 0) == 0) {
		c.ring_ok = true;
		iov.iov_base = c.buf;
		iov.iov_len = BUF_SIZE;
		/* Pinned memory: may exceed RLIMIT_MEMLOCK without root. */
		c.fixed = io_uring_register_buffers(&c.ring, &iov, 1) == 0;
		if (c.fixed)
			atomic_store(&any_registered, true);
	}
	return &c;
}

/* One read of @len bytes at @off into @dst (inside the buffer). */
static int64_t read_once(struct uring_ctx *c, int fd, char *dst, size_t len,
			 uint64_t off)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int64_t res;
	int ret;

	if (!c->ring_ok || !(sqe = io_uring_get_sqe(&c->ring))) {
		atomic_fetch_add_explicit(&n_sync, 1, memory_order_relaxed);
		res = pread(fd, dst, len, (off_t)off);
		return res < 0 ? -errno : res;
	}
	if (c->fixed)
		io_uring_prep_read_fixed(sqe, fd, dst, (unsigned)len, off, 0);
	else
		io_uring_prep_read(sqe, fd, dst, (unsigned)len, off);
	ret = io_uring_submit(&c->ring);
	if (ret < 0)
		return ret;
	/* A signal (the one that stops serving) must not lose the read. */
	while ((ret = io_uring_wait_cqe(&c->ring, &cqe)) == -EINTR)
		;
	if (ret < 0)
		return ret;
	res = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	atomic_fetch_add_explicit(&n_uring, 1, memory_order_relaxed);
	return res;
}

/*
 * The file system took O_DIRECT at open but refuses it for this read
 * (an alignment it needs beyond DIO_ALIGN): the file turns buffered.
 */
static bool stop_direct(struct node *n)
{
	if (fcntl(n->backing_fd, F_SETFL, O_RDONLY) != 0)
		return false;
	if (atomic_exchange(&n->direct, false))
		atomic_fetch_add(&n_fallbacks, 1);
	return true;
}

int64_t backing_read(struct node *n, uint64_t off, size_t size,
		     const char **data)
{
	struct uring_ctx *c = thread_ctx();
	uint64_t end, aoff, aend, pos, valid;
	int64_t r;
	bool direct;

	if (!c)
		return -ENOMEM;
	*data = c->buf;
	if (off >= n->size)
		return 0;
	if (size > pagecache_read_max())
		size = pagecache_read_max();
	end = n->size - off < size ? n->size : off + size;
again:
	direct = atomic_load_explicit(&n->direct, memory_order_relaxed);
	aoff = direct ? off & ~(uint64_t)(DIO_ALIGN - 1) : off;
	aend = direct ? (end + DIO_ALIGN - 1) & ~(uint64_t)(DIO_ALIGN - 1)
		      : end;
	for (pos = aoff; pos < aend;) {
		r = read_once(c, n->backing_fd, c->buf + (pos - aoff),
			      (size_t)(aend - pos), pos);
		if (r == -EINVAL && direct && stop_direct(n))
			goto again;
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r < 0)
			return r;
		if (r == 0)
			break;
		pos += (uint64_t)r;
		/* A direct read ends short only at the backing file's end. */
		if (direct && (r % DIO_ALIGN))
			break;
	}
	/* The backing file is now shorter than served: zeros. */
	valid = pos < off ? off : pos < end ? pos : end;
	if (valid < end)
		memset(c->buf + (valid - aoff), 0, (size_t)(end - valid));
	*data = c->buf + (off - aoff);
	return (int64_t)(end - off);
}

void backing_counters(struct backing_counters *c)
{
	c->uring_reads = atomic_load(&n_uring);
	c->sync_reads = atomic_load(&n_sync);
	c->direct_fallbacks = atomic_load(&n_fallbacks);
	c->registered = atomic_load(&any_registered);
}
