// SPDX-License-Identifier: MIT
/*
 * minimal_server: the cost floor of FUSE, a baseline for bench/throughput.
 *
 *   minimal_server [-f] --size SIZE [--threads N] [--fill static|memset]
 *                  [--ready-fd N] MOUNTPOINT
 *
 * A libfuse3 lowlevel server that serves one read-only file, zero.bin, of
 * SIZE bytes (binary suffixes K M G T) from a static buffer of zeros, and
 * nothing else: no log, no pattern, no statistics. It is what any FUSE
 * server pays at least for a read, so testfs is measured against it.
 *
 * It is set up for the page cache the way testfs is: files are opened
 * with keep_cache, attributes and entries are cached for a day, and
 * libfuse's auto_inval_data is off, so the cache changes only when the
 * kernel or the benchmark says so. Requests are served by one thread
 * (fuse_session_loop), replies are plain fuse_reply_buf() copies, with
 * libfuse's defaults for everything else (max_pages 256, no splice), as
 * for testfs.
 *
 * With --threads N (N > 1) requests are served by libfuse's own
 * multi-threaded loop, fuse_session_loop_mt(), with at most N threads,
 * all kept (max_idle_threads N: none is ended and started again) and no
 * cloned descriptors, as testfs reads the session's one descriptor too.
 * That loop is the least a multi-threaded libfuse server does: its
 * threads wait in read(2) of /dev/fuse side by side and each answers the
 * request it got, in whatever order. This server keeps no log, so unlike
 * testfs (src/daemon/loop_mt.c) it needs no order among its threads; it
 * is the floor a multi-threaded testfs is measured against. libfuse
 * starts one thread and adds one whenever no thread is left waiting,
 * up to N.
 *
 * The buffer is written once at start-up: left untouched, every page of
 * it would be the kernel's shared zero page, and each reply would copy
 * the same cached 4 KiB over and over, which no real server can do.
 *
 * --fill says how a reply's bytes come to be. static (the default): they
 * are the static buffer, written once, so a read costs no work on the
 * data at all, as the smallest real server replies from a buffer it
 * already has: the floor of FUSE itself, and the baseline of
 * bench/throughput and bench/concurrency (testfs's zero file replies the
 * same way, from one buffer written once). memset: every read writes its
 * bytes with memset() into the request thread's own buffer first, the
 * cheapest way a server can produce data per request; bench/concurrency
 * --fill-line shows it as a second line, never as the baseline.
 *
 * With --ready-fd N it writes "ready\n" to N once the mount answers
 * (a helper thread opens the root directory, which waits for the INIT
 * exchange), so a harness can raise read_ahead_kb before opening the
 * file. It mounts with auto_unmount (a killed server leaves no mount),
 * and unmounts on SIGTERM, SIGINT and SIGHUP. Exit status: 0, 1 on a
 * runtime failure, 2 on a bad command line.
 */
/* 3.12: fuse_loop_cfg_set_max_threads() for --threads. */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_NAME "zero.bin"
#define FILE_INO 2
#define STABLE_TIMEOUT 86400.0
/* The largest FUSE_READ: 256 pages (FUSE_MAX_MAX_PAGES). */
#define READ_MAX (256u * 4096u)
#define THREADS_MAX 256u

static char zeros[READ_MAX] __attribute__((aligned(4096)));
static uint64_t file_size;
static bool fill_memset;

/* --fill memset: each request thread's buffer, freed when it ends. */
static pthread_key_t fill_key;

static char *fill_buffer(void)
{
	char *buf = pthread_getspecific(fill_key);

	if (!buf) {
		buf = aligned_alloc(4096, READ_MAX);
		if (buf && pthread_setspecific(fill_key, buf) != 0) {
			free(buf);
			buf = NULL;
		}
	}
	return buf;
}

static void fill_attr(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (ino == FILE_INO) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)file_size;
		st->st_blocks = (blkcnt_t)((file_size + 511) / 512);
	} else {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	}
	st->st_blksize = 4096;
}

static void mn_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

static void mn_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, FILE_NAME) != 0)
		return (void)fuse_reply_err(req, ENOENT);
	memset(&e, 0, sizeof(e));
	e.ino = FILE_INO;
	e.generation = 1;
	e.attr_timeout = STABLE_TIMEOUT;
	e.entry_timeout = STABLE_TIMEOUT;
	fill_attr(FILE_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void mn_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID && ino != FILE_INO)
		return (void)fuse_reply_err(req, ENOENT);
	fill_attr(ino, &st);
	fuse_reply_attr(req, &st, STABLE_TIMEOUT);
}

static void mn_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != FILE_INO)
		return (void)fuse_reply_err(req, EISDIR);
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return (void)fuse_reply_err(req, EROFS);
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

static void mn_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	const char *data = zeros;
	uint64_t len = 0;
	char *buf;

	(void)fi;
	if (ino != FILE_INO)
		return (void)fuse_reply_err(req, EISDIR);
	if (off >= 0 && (uint64_t)off < file_size) {
		len = file_size - (uint64_t)off;
		if (len > size)
			len = size;
		if (len > READ_MAX)
			len = READ_MAX;
	}
	if (fill_memset && len) {
		buf = fill_buffer();
		if (!buf)
			return (void)fuse_reply_err(req, ENOMEM);
		memset(buf, 0, len);
		data = buf;
	}
	fuse_reply_buf(req, data, len);
}

static const struct fuse_lowlevel_ops mn_ops = {
	.init = mn_init,
	.lookup = mn_lookup,
	.getattr = mn_getattr,
	.open = mn_open,
	.read = mn_read,
};

struct ready {
	struct fuse_session *se;
	const char *mountpoint;
	pthread_t loop;
	int fd;
	bool failed;
};

/* Opening the root waits for INIT; then the mount is usable. */
static void *ready_main(void *arg)
{
	struct ready *r = arg;
	int fd;

	fd = open(r->mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "minimal_server: %s: mount not usable: %s\n",
			r->mountpoint, strerror(errno));
		r->failed = true;
		fuse_session_exit(r->se);
		pthread_kill(r->loop, SIGTERM);
		return NULL;
	}
	close(fd);
	if (write(r->fd, "ready\n", 6) != 6)
		fprintf(stderr, "minimal_server: --ready-fd %d: %s\n", r->fd,
			strerror(errno));
	close(r->fd);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: minimal_server [-f] --size SIZE [--threads N] "
		"[--ready-fd N] MOUNTPOINT\n"
		"Serves " FILE_NAME " of SIZE bytes (suffixes K M G T, "
		"binary) of zeros: the cost\n"
		"floor of FUSE for bench/throughput and bench/concurrency."
		"\n"
		"  -f, --foreground  stay in the foreground\n"
		"  --threads N       serve on up to N threads (1..%u; "
		"default 1):\n"
		"                    libfuse's fuse_session_loop_mt() "
		"when N > 1\n"
		"  --ready-fd N      write \"ready\" to descriptor N "
		"once the mount answers\n",
		THREADS_MAX);
}

/* SIZE with an optional binary suffix; 0 or -EINVAL. */
static int parse_size(const char *s, uint64_t *out)
{
	static const char suffixes[] = "KMGT";
	unsigned long long v;
	const char *p;
	char *end;
	int shift;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	shift = 0;
	if (*end) {
		p = strchr(suffixes, *end);
		if (!p || !*p)
			return -EINVAL;
		shift = 10 * (int)(p - suffixes + 1);
		end++;
		if (strcmp(end, "") != 0 && strcmp(end, "iB") != 0 &&
		    strcmp(end, "B") != 0)
			return -EINVAL;
	}
	if (!v || v > (UINT64_C(1) << 62) >> shift)
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_threads(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > THREADS_MAX)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* libfuse's multi-threaded loop with at most @threads threads, all kept. */
static int loop_threads(struct fuse_session *se, unsigned threads)
{
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	int ret;

	if (!cfg) {
		fprintf(stderr, "minimal_server: out of memory\n");
		return -ENOMEM;
	}
	fuse_loop_cfg_set_clone_fd(cfg, 0);
	fuse_loop_cfg_set_max_threads(cfg, threads);
	fuse_loop_cfg_set_idle_threads(cfg, threads);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

static int parse_fd(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 65535 ||
	    fcntl((int)v, F_GETFD) < 0)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	const char *mp_arg = NULL;
	char *mountpoint;
	struct ready ready = { .fd = -1 };
	int foreground = 0, ready_fd = -1, status = 1, i, ret;
	unsigned threads = 1;
	bool have_size = false, readying = false;
	struct fuse_session *se;
	pthread_t ready_th;
	sigset_t all, old;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-f") == 0 ||
		    strcmp(argv[i], "--foreground") == 0) {
			foreground = 1;
		} else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
			if (parse_size(argv[++i], &file_size)) {
				fprintf(stderr,
					"minimal_server: --size '%s': "
					"expected bytes with an optional "
					"suffix K M G T, 1 to 2^62\n",
					argv[i]);
				return 2;
			}
			have_size = true;
		} else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			if (parse_threads(argv[++i], &threads)) {
				fprintf(stderr,
					"minimal_server: --threads '%s': "
					"expected a number from 1 to %u\n",
					argv[i], THREADS_MAX);
				return 2;
			}
		} else if (strcmp(argv[i], "--fill") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "memset") == 0) {
				fill_memset = true;
			} else if (strcmp(argv[i], "static") != 0) {
				fprintf(stderr,
					"minimal_server: --fill '%s': "
					"expected static or memset\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--ready-fd") == 0 && i + 1 < argc) {
			if (parse_fd(argv[++i], &ready_fd)) {
				fprintf(stderr,
					"minimal_server: --ready-fd '%s': not "
					"an open file descriptor\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "-h") == 0 ||
			   strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] != '-' && !mp_arg) {
			mp_arg = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!mp_arg || !have_size) {
		usage(stderr);
		return 2;
	}
	/* Not inherited by fusermount3 (auto_unmount), which outlives us. */
	if (ready_fd >= 0)
		fcntl(ready_fd, F_SETFD, FD_CLOEXEC);
	/* fuse_daemonize() changes to "/": keep an absolute path. */
	mountpoint = realpath(mp_arg, NULL);
	if (!mountpoint) {
		fprintf(stderr, "minimal_server: %s: %s\n", mp_arg,
			strerror(errno));
		return 1;
	}
	if (pthread_key_create(&fill_key, free) != 0) {
		fprintf(stderr, "minimal_server: no thread key\n");
		return 1;
	}
	/* Real pages, not the shared zero page (see the top). */
	for (i = 0; i < (int)sizeof(zeros); i += 4096)
		((volatile char *)zeros)[i] = 0;

	if (fuse_opt_add_arg(&args, "minimal_server") ||
	    fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, "fsname=minimal,subtype=minimal,"
				    "auto_unmount")) {
		fprintf(stderr, "minimal_server: out of memory\n");
		fuse_opt_free_args(&args);
		goto out_free;
	}
	se = fuse_session_new(&args, &mn_ops, sizeof(mn_ops), NULL);
	fuse_opt_free_args(&args);
	if (!se) {
		fprintf(stderr, "minimal_server: cannot create the session\n");
		goto out_free;
	}
	if (fuse_set_signal_handlers(se) != 0) {
		fprintf(stderr, "minimal_server: cannot install handlers\n");
		goto out_destroy;
	}
	if (fuse_session_mount(se, mountpoint) != 0) {
		fprintf(stderr, "minimal_server: cannot mount at %s\n",
			mountpoint);
		goto out_handlers;
	}
	if (fuse_daemonize(foreground) != 0)
		goto out_unmount;
	if (ready_fd >= 0) {
		ready = (struct ready){ se, mountpoint, pthread_self(),
					ready_fd, false };
		/* Signals go to the request loop, whose read() they end. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		ret = pthread_create(&ready_th, NULL, ready_main, &ready);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret) {
			fprintf(stderr, "minimal_server: thread: %s\n",
				strerror(ret));
			goto out_unmount;
		}
		readying = true;
	}
	ret = threads > 1 ? loop_threads(se, threads) : fuse_session_loop(se);
	/* libfuse reports the signal that ended the loop as a positive value */
	status = ret < 0 ? 1 : 0;
out_unmount:
	fuse_session_unmount(se);
	if (readying) {
		pthread_join(ready_th, NULL);
		if (ready.failed)
			status = 1;
	}
out_handlers:
	fuse_remove_signal_handlers(se);
out_destroy:
	fuse_session_destroy(se);
out_free:
	free(mountpoint);
	return status;
}
