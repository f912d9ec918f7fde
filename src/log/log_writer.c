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

#include "array.h"
#include "path_walk.h"
#include "strbuf.h"
#include "text.h"
#include "thread.h"
#include "log_json.h"

/* How often the thread drains the ring without being asked. */
#define WRITER_PERIOD_MS 100

/* One line rendered into the buffer: what a failed write took with it. */
struct writer_line {
	size_t end;	    /* offset just past its newline */
	uint64_t first_seq; /* its record's seq, or a loss line's first */
	bool loss;
};

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
	/* Of those, records a failed write kept out of the file, the part
	 * of them log_writer_flush() has reported, and the last such
	 * write's errno. */
	uint64_t unwritten;
	uint64_t unwritten_told;
	int loss_err;
	/* A loss seen but not written yet (see writer_put_loss()). */
	uint64_t pending_first;
	uint64_t pending_lost;
	/* The loss line that ends the file, if one does (its bytes). */
	size_t tail_loss_len;
	uint64_t tail_loss_first;
	/* The last write failed (its errno); 0 once one succeeds. */
	int failing;
	int error;
	struct strbuf buf;
	/* The lines in buf, and the records among them. */
	struct writer_line *lines;
	size_t nlines, lines_cap;
	uint64_t buf_records;
	uint64_t buf_first; /* the first seq buf covers; 0: empty */
	/*
	 * The end of a line the file holds only in part (a failed write
	 * that could not be cut back): written before anything else.
	 */
	struct strbuf owed;
};

static void writer_note_line(struct log_writer *w, uint64_t first_seq,
			     bool loss)
{
	if (!array_grow((void **)&w->lines, &w->lines_cap, w->nlines,
			sizeof(*w->lines))) {
		w->buf.oom = true; /* the drain fails whole */
		return;
	}
	w->lines[w->nlines].end = w->buf.len;
	w->lines[w->nlines].first_seq = first_seq;
	w->lines[w->nlines].loss = loss;
	w->nlines++;
}

/*
 * A loss is written once it is known to be whole: before the next record
 * written, or at the end. A run of overwritten records that two drains see
 * in two parts is then still one line. A loss the file caused (a failed
 * write) is written by the next drain that can write (drain_locked()).
 */
static void writer_put_loss(struct log_writer *w)
{
	if (!w->pending_lost)
		return;
	if (!w->buf_first)
		w->buf_first = w->pending_first;
	log_json_lost(&w->buf, w->pending_first, w->pending_lost);
	writer_note_line(w, w->pending_first, true);
	w->pending_lost = 0;
}

static void writer_visit(void *arg, const struct log_record *rec)
{
	struct log_writer *w = arg;
	const char *name = NULL;

	writer_put_loss(w);

	if (rec->kind == LOG_READ)
		name = w->name_of(w->name_ctx, rec->read.ino);
	else if (rec->kind == LOG_ACCESS || rec->kind == LOG_FOLIO)
		name = w->name_of(w->name_ctx, rec->access.ino);
	if (!w->buf_first)
		w->buf_first = rec->seq;
	log_json_record(&w->buf, rec, name, w->page_size);
	writer_note_line(w, rec->seq, false);
	w->buf_records++;
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

/* Writes @len bytes; *@done says how many reached the file. */
static int write_all(int fd, const char *p, size_t len, size_t *done)
{
	*done = 0;
	while (*done < len) {
		ssize_t n = write(fd, p + *done, len - *done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		*done += (size_t)n;
	}
	return 0;
}

/* Removes the last @extra bytes of the file; returns whether it could. */
static bool cut_back(struct log_writer *w, size_t extra)
{
	struct stat st;

	return fstat(w->fd, &st) == 0 && (uint64_t)st.st_size >= extra &&
	       ftruncate(w->fd, st.st_size - (off_t)extra) == 0;
}

/* Completes the line the file holds in part; returns 0 or the error. */
static int write_owed(struct log_writer *w)
{
	size_t done;
	int err;

	if (!w->owed.len)
		return 0;
	err = write_all(w->fd, w->owed.data, w->owed.len, &done);
	memmove(w->owed.data, w->owed.data + done, w->owed.len - done);
	w->owed.len -= done;
	return err;
}

/*
 * The write of buf failed after @done bytes. The file keeps the lines that
 * reached it whole and loses the part of the next one (or, if it cannot be
 * cut back, owes the rest of it); the lines after that are lost: their
 * records are counted and become a loss line, written with the next
 * successful write. Positions up to the cursor are then all accounted for.
 * Loss lines that end the file are cut back too and join the new loss, so
 * a disk that stays full does not leave one loss line per attempt.
 */
static void writer_failed(struct log_writer *w, size_t done, int err)
{
	uint64_t first = w->buf_first, records = w->buf_records;
	size_t whole = 0, k, keep, tail, i;

	if (!w->buf.oom)
		while (whole < w->nlines && w->lines[whole].end <= done)
			whole++;
	else
		done = 0;
	for (k = whole; k && w->lines[k - 1].loss; k--)
		;
	keep = k ? w->lines[k - 1].end : 0;
	tail = k ? 0 : w->tail_loss_len;
	if ((done > keep || tail) && !cut_back(w, done - keep + tail)) {
		/* Nothing whole can go: owe the rest of a line cut short. */
		k = whole;
		tail = 0;
		keep = k ? w->lines[k - 1].end : 0;
		if (done > keep) {
			strbuf_add(&w->owed, w->buf.data + done,
				   w->lines[k].end - done);
			k++;
		}
	}
	if (!w->buf.oom) {
		for (i = 0; i < k; i++)
			records -= !w->lines[i].loss;
		first = k < w->nlines ? w->lines[k].first_seq : 0;
	}
	if (tail)
		first = w->tail_loss_first;
	w->tail_loss_len = 0;
	if (first) {
		w->lost += records;
		w->unwritten += records;
		if (records)
			w->loss_err = err;
		w->pending_first = first;
		w->pending_lost = w->cursor + 1 - first;
	}
	w->failing = err;
	if (!w->error)
		w->error = err;
}

/* After a successful write: whether the file now ends in a loss line. */
static void note_tail(struct log_writer *w)
{
	const struct writer_line *last;

	if (!w->nlines) {
		w->tail_loss_len = 0; /* only an owed record's end */
		return;
	}
	last = &w->lines[w->nlines - 1];
	w->tail_loss_len = 0;
	if (last->loss) {
		w->tail_loss_len =
			last->end - (w->nlines > 1 ? last[-1].end : 0);
		w->tail_loss_first = last->first_seq;
	}
}

/* Called with w->lock held; @last: no record follows, end any loss. */
static int drain_locked(struct log_writer *w, bool last)
{
	uint64_t to = log_ring_head(w->ring);
	size_t done = 0;
	int err;

	strbuf_reset(&w->buf);
	w->nlines = 0;
	w->buf_records = 0;
	w->buf_first = 0;
	/* Only records in their final form (attributed) are written. */
	if (w->sync) {
		uint64_t done_pos = w->sync(w->sync_ctx);

		if (done_pos < to)
			to = done_pos;
	}
	w->cursor = log_ring_walk_range(w->ring, w->cursor, to, UINT64_MAX,
					writer_visit, writer_lost, w);
	/*
	 * A loss the file itself caused is written as soon as a write
	 * works again, whether a record follows or not.
	 */
	if (last || w->failing)
		writer_put_loss(w);
	if (!w->nlines && !w->owed.len && !w->buf.oom)
		return 0;
	err = write_owed(w);
	if (!err && w->buf.oom)
		err = -ENOMEM;
	else if (!err)
		err = write_all(w->fd, w->buf.data ? w->buf.data : "",
				w->buf.len, &done);
	if (err) {
		writer_failed(w, done, err);
	} else {
		w->failing = 0;
		note_tail(w);
	}
	if (w->buf.cap > (1u << 24)) {
		strbuf_free(&w->buf);
		free(w->lines);
		w->lines = NULL;
		w->lines_cap = 0;
	}
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
	/* Records the thread's drains lost since the last flush count too. */
	if (!err && w->unwritten != w->unwritten_told)
		err = w->loss_err;
	w->unwritten_told = w->unwritten;
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
	return locked_read(&w->lock, w->lost);
}

int log_writer_stop(struct log_writer *w, uint64_t *unwritten)
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
	if (unwritten)
		*unwritten = w->unwritten;
	strbuf_free(&w->buf);
	strbuf_free(&w->owed);
	free(w->lines);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return err;
}
