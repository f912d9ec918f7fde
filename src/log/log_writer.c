// SPDX-License-Identifier: MIT
#include "log_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../common/path_walk.h"
#include "../common/strbuf.h"
#include "../common/text.h"
#include "../common/thread.h"
#include "log_json.h"

/* How often the thread drains the ring without being asked. */
#define WRITER_PERIOD_MS 100

struct log_writer {
	struct log_ring *ring;
	uint32_t page_size;
	log_name_fn name_of;
	void *name_ctx;
	/* Called before each drain (under lock): brings records up to date. */
	uint64_t (*sync)(void *ctx);
	void *sync_ctx;
	int fd;
	/* Serialises draining; the read path never takes it. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	uint64_t cursor;
	uint64_t lost;
	/* A loss seen but not written yet (see writer_put_loss()). */
	uint64_t pending_first;
	uint64_t pending_lost;
	int error;
	struct strbuf buf;
};

/*
 * A loss is written once it is known to be whole: before the next record
 * written, or at the end. A run of overwritten records that two drains see
 * in two parts is then still one line.
 */
static void writer_put_loss(struct log_writer *w)
{
	if (!w->pending_lost)
		return;
	log_json_lost(&w->buf, w->pending_first, w->pending_lost);
	w->pending_lost = 0;
}

static void writer_visit(void *arg, const struct log_record *rec)
{
	struct log_writer *w = arg;
	const char *name = NULL;

	writer_put_loss(w);

	if (rec->kind == LOG_READ)
		name = w->name_of(w->name_ctx, rec->read.ino);
	else if (rec->kind == LOG_ACCESS)
		name = w->name_of(w->name_ctx, rec->access.ino);
	log_json_record(&w->buf, rec, name, w->page_size);
}

static void writer_lost(void *arg, uint64_t first_seq, uint64_t count)
{
	struct log_writer *w = arg;

	w->lost += count;
	if (w->pending_lost &&
	    w->pending_first + w->pending_lost == first_seq) {
		w->pending_lost += count;
		return;
	}
	writer_put_loss(w);
	w->pending_first = first_seq;
	w->pending_lost = count;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Called with w->lock held; @last: no record follows, end any loss. */
static int drain_locked(struct log_writer *w, bool last)
{
	int err;

	uint64_t to = log_ring_head(w->ring);

	strbuf_reset(&w->buf);
	/* Only records in their final form (attributed) are written. */
	if (w->sync) {
		uint64_t done = w->sync(w->sync_ctx);

		if (done < to)
			to = done;
	}
	w->cursor = log_ring_walk_range(w->ring, w->cursor, to, UINT64_MAX,
					writer_visit, writer_lost, w);
	if (last)
		writer_put_loss(w);
	if (w->buf.oom)
		err = -ENOMEM;
	else
		err = write_all(w->fd, w->buf.data ? w->buf.data : "",
				w->buf.len);
	if (err && !w->error)
		w->error = err;
	if (w->buf.cap > (1u << 24))
		strbuf_free(&w->buf);
	return err;
}

static void *writer_main(void *arg)
{
	struct log_writer *w = arg;
	struct timespec ts;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += WRITER_PERIOD_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->wake, &w->lock, &ts);
		drain_locked(w, false);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * The log is written with the daemon's privileges, often root's, to a path
 * another user may control (a planted link in /tmp): never follow a link,
 * neither as the last component nor as a directory on the way (the path is
 * walked one directory at a time, path_walk.h), never open a device or a
 * FIFO (O_NONBLOCK: a FIFO without a reader fails instead of blocking),
 * and never truncate a file somebody else owns.
 */
int log_writer_open(const char *path, char *why, size_t whylen)
{
	struct stat before, st;
	char link[PATH_MAX];
	const char *leaf;
	size_t bad_len;
	bool existed;
	int dirfd, fd, err;

	dirfd = path_open_dir_nofollow(path, &leaf, &bad_len);
	if (dirfd == -ELOOP) {
		snprintf(link, sizeof(link), "%.*s", (int)bad_len, path);
		snprintf(
			why, whylen,
			"refused: '%s' is a symbolic link (testfs follows no link anywhere in its log's path; name the directory it points to)",
			esc(link));
		return -ELOOP;
	}
	if (dirfd < 0) {
		snprintf(why, whylen, "%s", strerror(-dirfd));
		return dirfd;
	}
	existed = fstatat(dirfd, leaf, &before, AT_SYMLINK_NOFOLLOW) == 0;
	if (existed && S_ISLNK(before.st_mode))
		goto refuse_link;
	if (existed && !S_ISREG(before.st_mode))
		goto refuse_type;
	fd = openat(dirfd, leaf,
		    O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
			    O_NOCTTY | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		err = errno;
		if (err == ELOOP)
			goto refuse_link;
		if (err == ENXIO || err == EISDIR)
			goto refuse_type;
		close(dirfd);
		snprintf(why, whylen, "%s", strerror(err));
		return -err;
	}
	close(dirfd);
	/* Whatever the path named at fstatat() time, judge what was opened. */
	if (fstat(fd, &st) != 0) {
		err = errno;
		close(fd);
		snprintf(why, whylen, "%s", strerror(err));
		return -err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		goto refuse_type_closed;
	}
	if (st.st_uid != getuid()) {
		close(fd);
		snprintf(
			why, whylen,
			"refused: owned by uid %u, not by the caller (uid %u); remove it or choose another path",
			(unsigned)st.st_uid, (unsigned)getuid());
		return -EPERM;
	}
	if (fcntl(fd, F_SETFL, O_APPEND) != 0 || ftruncate(fd, 0) != 0) {
		err = errno;
		close(fd);
		snprintf(why, whylen, "%s", strerror(err));
		return -err;
	}
	return fd;
refuse_link:
	close(dirfd);
	snprintf(
		why, whylen,
		"refused: a symbolic link (testfs does not follow links for its log)");
	return -ELOOP;
refuse_type:
	close(dirfd);
refuse_type_closed:
	snprintf(
		why, whylen,
		"refused: not a regular file (a new file is created with mode 0600, an existing regular file of the caller is truncated)");
	return -EINVAL;
}

int log_writer_start(struct log_writer **out, struct log_ring *ring, int fd,
		     uint32_t page_size, log_name_fn name_of, void *name_ctx)
{
	struct log_writer *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->ring = ring;
	w->page_size = page_size;
	w->name_of = name_of;
	w->name_ctx = name_ctx;
	w->cursor = log_ring_head(ring);
	pthread_mutex_init(&w->lock, NULL);
	cond_init_monotonic(&w->wake);
	err = -thread_start_quiet(&w->thread, writer_main, w, false);
	if (err)
		goto out_destroy;
	*out = w;
	return 0;
out_destroy:
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return err;
}

int log_writer_flush(struct log_writer *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	err = drain_locked(w, false);
	pthread_mutex_unlock(&w->lock);
	return err;
}

void log_writer_set_sync(struct log_writer *w, uint64_t (*sync)(void *ctx),
			 void *ctx)
{
	pthread_mutex_lock(&w->lock);
	w->sync = sync;
	w->sync_ctx = ctx;
	pthread_mutex_unlock(&w->lock);
}

uint64_t log_writer_lost(struct log_writer *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->lock);
	n = w->lost;
	pthread_mutex_unlock(&w->lock);
	return n;
}

int log_writer_stop(struct log_writer *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	drain_locked(w, true);
	if (fsync(w->fd) && !w->error && errno != EINVAL)
		w->error = -errno;
	if (close(w->fd) && !w->error)
		w->error = -errno;
	err = w->error;
	strbuf_free(&w->buf);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return err;
}
