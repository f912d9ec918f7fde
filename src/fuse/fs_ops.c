// SPDX-License-Identifier: MIT
/*
 * The FUSE front end: lowlevel request handlers for the synthetic files and
 * the control directory. Data reads are the hot path: they generate the
 * pattern into a per-thread buffer (allocated once, at the thread's first
 * read) or straight into a ring entry's payload (--transport uring), a
 * zero file replies from one buffer of zeros, written once; they log the
 * request and reply; the only lock they take is the log's reorder
 * stage's (log/log_order.h), briefly, as the request arrives and as its
 * record is published. Once a
 * latency or error rule exists (slow_active), every read also takes the
 * rule set's lock to decide; a delayed read takes the delay queue's lock
 * for a buffer (malloc'ed when its pool is empty) and to queue the reply
 * (the heap grows with realloc).
 */
#include "fs_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "control.h"
#include "delay_queue.h"
#include "pagecache.h"
#include "rules.h"
#include "backing.h"

/* Data files and directories never change while mounted. */
#define STABLE_TIMEOUT 86400.0

static struct testfs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void fs_fill_attr(struct testfs *t, const struct node *n,
			 struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_uid = t->uid;
	st->st_gid = t->gid;
	st->st_atime = st->st_mtime = st->st_ctime = t->mtime;
	st->st_blksize = t->page_size;
	switch (n->kind) {
	case NODE_DIR:
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		break;
	case NODE_FILE:
		st->st_mode = S_IFREG | (n->backing_fd >= 0 ? n->mode : 0444);
		st->st_nlink = 1;
		st->st_size = (off_t)n->size;
		st->st_blocks = (blkcnt_t)((n->size + 511) / 512);
		break;
	case NODE_CONTROL:
		st->st_mode =
			S_IFREG | (n->control == CONTROL_CTL ? 0200 : 0444);
		st->st_nlink = 1;
		break;
	}
}

static double attr_timeout(const struct node *n)
{
	return n->kind == NODE_CONTROL ? 0.0 : STABLE_TIMEOUT;
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct testfs *t = fs_of(req);
	struct fuse_entry_param e;
	struct node *dir, *n;

	dir = fileset_get(&t->files, parent);
	if (!dir || dir->kind != NODE_DIR)
		return (void)fuse_reply_err(req, ENOTDIR);
	n = fileset_lookup(&t->files, parent, name);
	if (!n)
		return (void)fuse_reply_err(req, ENOENT);
	memset(&e, 0, sizeof(e));
	e.ino = n->ino;
	e.generation = 1;
	e.attr_timeout = attr_timeout(n);
	e.entry_timeout = STABLE_TIMEOUT;
	fs_fill_attr(t, n, &e.attr);
	fuse_reply_entry(req, &e);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	struct node *n = fileset_get(&t->files, ino);
	struct stat st;

	(void)fi;
	if (!n)
		return (void)fuse_reply_err(req, ENOENT);
	fs_fill_attr(t, n, &st);
	fuse_reply_attr(req, &st, attr_timeout(n));
}

static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	struct node *n = fileset_get(&t->files, ino);

	(void)attr;
	(void)fi;
	/* "echo cmd > ctl" truncates first: accept a size-0 truncate there. */
	if (n && n->kind == NODE_CONTROL && n->control == CONTROL_CTL &&
	    to_set == FUSE_SET_ATTR_SIZE)
		return fs_getattr(req, ino, NULL);
	fuse_reply_err(req, EROFS);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	struct node *n = fileset_get(&t->files, ino);
	struct control_snapshot *snap;
	int acc = fi->flags & O_ACCMODE;
	int err;

	if (!n)
		return (void)fuse_reply_err(req, ENOENT);
	if (n->kind == NODE_DIR)
		return (void)fuse_reply_err(req, EISDIR);
	/*
	 * O_TRUNC reaches here even with O_RDONLY (atomic_o_trunc), and
	 * accepting it would make the kernel empty the file's page cache.
	 * ctl is the exception: "echo cmd > ctl" truncates nothing.
	 */
	if ((fi->flags & O_TRUNC) &&
	    !(n->kind == NODE_CONTROL && n->control == CONTROL_CTL))
		return (void)fuse_reply_err(req, EROFS);
	if (n->kind == NODE_FILE) {
		if (acc != O_RDONLY)
			return (void)fuse_reply_err(req, EROFS);
		/* Opening must not drop what the page cache holds. */
		fi->keep_cache = 1;
		/* Nothing to flush on a read-only file: spare the round trip.
		 */
		fi->noflush = 1;
		return (void)fuse_reply_open(req, fi);
	}
	/* Control files bypass the page cache: every read is fresh. */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	if (n->control == CONTROL_CTL) {
		struct control_session *cs;

		if (acc != O_WRONLY)
			return (void)fuse_reply_err(req, EACCES);
		cs = control_session_new(t);
		if (!cs)
			return (void)fuse_reply_err(req, ENOMEM);
		fi->fh = (uint64_t)(uintptr_t)cs;
		if (fuse_reply_open(req, fi) == -ENOENT)
			control_session_free(t, cs);
		return;
	}
	if (acc != O_RDONLY)
		return (void)fuse_reply_err(req, EACCES);
	err = control_snapshot(t, n, &snap);
	if (err)
		return (void)fuse_reply_err(req, -err);
	fi->fh = (uint64_t)(uintptr_t)snap;
	if (fuse_reply_open(req, fi) == -ENOENT)
		control_snapshot_free(t, snap); /* the open was interrupted */
}

static void fs_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct node *n = fileset_get(&fs_of(req)->files, ino);
	void *handle = (void *)(uintptr_t)fi->fh;

	if (n && n->kind == NODE_CONTROL && n->control == CONTROL_CTL)
		control_session_free(fs_of(req), handle);
	else if (n && n->kind == NODE_CONTROL)
		control_snapshot_free(fs_of(req), handle);
	fuse_reply_err(req, 0);
}

static void fs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	struct node *n = fileset_get(&t->files, ino);

	if (n && n->kind == NODE_CONTROL && n->control == CONTROL_CTL)
		return control_flush(
			t, req, (struct control_session *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/*
 * Each request thread's reply buffer. A key, not a __thread pointer:
 * with --threads the threads end at unmount and the key's destructor
 * frees their buffers (on the main thread, serve() ends the loop).
 */
static pthread_key_t read_buf_key;
static pthread_once_t read_buf_once = PTHREAD_ONCE_INIT;

static void read_buf_key_init(void)
{
	if (pthread_key_create(&read_buf_key, free) != 0)
		abort();
}

static char *read_buffer(void)
{
	char *buf;

	pthread_once(&read_buf_once, read_buf_key_init);
	buf = pthread_getspecific(read_buf_key);
	if (!buf) {
		buf = aligned_alloc(4096, pagecache_read_max());
		if (buf && pthread_setspecific(read_buf_key, buf) != 0) {
			free(buf);
			buf = NULL;
		}
	}
	return buf;
}

/*
 * The bytes of every zero file: one buffer, written once at the first
 * read of one (so its pages are its own, not the kernel's shared zero
 * page) and never again. A zero file's reply points into it.
 */
static char *zero_buf;
static pthread_once_t zero_once = PTHREAD_ONCE_INIT;

static void zero_buf_init(void)
{
	zero_buf = aligned_alloc(4096, pagecache_read_max());
	if (zero_buf)
		memset(zero_buf, 0, pagecache_read_max());
}

static const char *zero_bytes(void)
{
	pthread_once(&zero_once, zero_buf_init);
	return zero_buf;
}

static void read_control(fuse_req_t req, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	struct control_snapshot *snap =
		(struct control_snapshot *)(uintptr_t)fi->fh;
	char *copy = read_buffer();
	const char *data;
	size_t len;

	if (!snap || off < 0)
		return (void)fuse_reply_buf(req, NULL, 0);
	if (!copy)
		return (void)fuse_reply_err(req, ENOMEM);
	if (size > pagecache_read_max())
		size = pagecache_read_max();
	control_snapshot_read(fs_of(req), snap, (uint64_t)off, size, copy,
			      &data, &len);
	fuse_reply_buf(req, data, len);
}

static __thread struct fs_claim claim;

void fs_claim_take(struct testfs *t, const struct fuse_in_header *in,
		   const void *arg, size_t arglen, struct fs_claim *c)
{
	const struct fuse_read_in *rd = arg;
	uint64_t now = clock_now_ns();
	struct node *n = NULL;

	c->taken = false;
	c->ticket = NULL;
	c->unique = in->unique;
	if (arglen >= sizeof(*rd) && in->opcode == FUSE_READ)
		n = fileset_get(&t->files, in->nodeid);
	if (!n || n->kind != NODE_FILE) {
		if (c->unique && t->order)
			log_order_arrive(t->order, c->unique, false, now);
		return;
	}
	c->arrived = now;
	if (t->order)
		c->ticket = log_order_arrive(t->order, c->unique, true, now);
	c->ino = in->nodeid;
	c->off = rd->offset;
	c->size = rd->size;
	c->pid = in->pid;
	c->v = (struct rule_verdict){ 0, 0, -1, -1, false, 0 };
	if (atomic_load_explicit(&t->slow_active, memory_order_relaxed))
		rules_decide(t->rules, n->path, c->off,
			     c->size < pagecache_read_max()
				     ? c->size
				     : pagecache_read_max(),
			     c->arrived, &c->v);
	c->taken = true;
}

void fs_claim_use(const struct fs_claim *c)
{
	claim = *c;
	testfs_request_unique = c->unique;
}

void fs_claim(struct testfs *t, const struct fuse_buf *buf)
{
	struct fs_claim c = { .taken = false };

	const struct fuse_in_header *in = buf->mem;

	/* A spliced request is not in memory: its handler reserves. */
	if (!(buf->flags & FUSE_BUF_IS_FD) && buf->size >= sizeof(*in))
		fs_claim_take(t, in, in + 1, buf->size - sizeof(*in), &c);
	fs_claim_use(&c);
}

/* The record of a read: its ticket's, or a ring slot of its own. */
static struct log_record *claim_record(struct testfs *t, struct log_entry *e,
				       struct log_ticket *tk, uint64_t unique,
				       uint64_t ino, uint64_t off,
				       uint32_t size, uint32_t pid,
				       uint64_t arrived)
{
	struct log_record *rec;

	log_entry_open(e, t->order, tk, &t->log);
	rec = e->rec;
	rec->t_ns = arrived;
	rec->kind = LOG_READ;
	rec->flags = 0;
	rec->reserved = 0;
	memset(&rec->read, 0, sizeof(rec->read));
	rec->read.ino = ino;
	rec->read.off = off;
	rec->read.len = size;
	rec->read.pid = pid;
	rec->read.unique = unique;
	return rec;
}

void fs_claim_settle(struct testfs *t)
{
	struct log_record *rec;
	struct log_entry e;

	testfs_request_unique = 0;
	if (!claim.taken)
		return;
	/* Never reached the handler: logged as a read that failed. */
	rec = claim_record(t, &e, claim.ticket, claim.unique, claim.ino,
			   claim.off, claim.size, claim.pid, claim.arrived);
	claim.taken = false;
	rec->read.err = ECANCELED;
	rec->read.done_ns = clock_now_ns();
	log_entry_publish(&e);
}

/*
 * The reply's data: up to @size bytes of @n at @off, 0 past the end. A
 * synthetic file's pattern is generated into @buf, or straight into the
 * reply's place when the transport has one (t->transport.reply_space: a
 * ring entry's payload); a zero file's reply is the zero buffer itself. A
 * backing file is read into the thread's registered buffer, *data pointing
 * there. With @copy (the reply outlives this call: delayed or held)
 * the bytes are always in @buf. Returns the byte count or a negative
 * errno.
 */
static int64_t fill_data(struct testfs *t, struct node *n, uint64_t off,
			 size_t size, char *buf, bool copy, const char **data)
{
	const char *zeros;
	uint64_t len = 0;
	char *space;
	int64_t got;

	*data = buf;
	if (n->backing_fd >= 0) {
		got = backing_read(n, off, size, data);
		if (got > 0 && copy) {
			memcpy(buf, *data, (size_t)got);
			*data = buf;
		}
		return got;
	}
	if (off >= n->size)
		return 0;
	len = n->size - off;
	if (len > size)
		len = size;
	if (!copy && n->source.kind == TESTFS_PATTERN_ZERO &&
	    (zeros = zero_bytes()) != NULL) {
		*data = zeros;
		return (int64_t)len;
	}
	if (!copy && t->transport.reply_space &&
	    (space = t->transport.reply_space((size_t)len)) != NULL)
		*data = buf = space;
	pattern_generate(&n->source, off, buf, len);
	return (int64_t)len;
}

/*
 * Data reads. The record is reserved when the request arrives (its seq is
 * the arrival order) and published just before the reply, so a client
 * woken by the reply finds it in the log. Delayed replies leave through
 * the delay queue; the request loop never sleeps.
 */
static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	uint64_t arrived, len = 0;
	struct node *n = fileset_get(&t->files, ino);
	struct rule_verdict v = { 0, 0, -1, -1, false, 0 };
	struct delayed_reply dr;
	struct log_record *rec;
	struct log_entry e;
	const char *data = NULL;
	bool queued, claimed;
	int64_t got = 0;
	char *buf;

	if (!n || n->kind == NODE_DIR)
		return (void)fuse_reply_err(req, n ? EISDIR : ENOENT);
	if (n->kind == NODE_CONTROL)
		return read_control(req, size, off, fi);
	if (size > pagecache_read_max())
		size = pagecache_read_max();
	claimed = claim.taken && claim.ino == ino && claim.off == (uint64_t)off;
	/* A claimed read arrived when its request was taken: its clock
	 * was read then, and is not read again here. */
	if (claimed) {
		arrived = claim.arrived;
		v = claim.v;
	} else {
		arrived = clock_now_ns();
		if (atomic_load_explicit(&t->slow_active, memory_order_relaxed))
			rules_decide(t->rules, n->path, (uint64_t)off, size,
				     arrived, &v);
	}
	/* A held or delayed reply outlives this call: a buffer of its own. */
	queued = v.delay_ns || v.hold;
	buf = queued ? delay_queue_buffer(t->delays) : read_buffer();
	if (!buf)
		return (void)fuse_reply_err(req, ENOMEM);
	if (!v.err)
		got = fill_data(t, n, (uint64_t)off, size, buf, queued, &data);
	/* A backing file that cannot be read answers with its error. */
	if (got < 0)
		v.err = (int)-got;
	else
		len = (uint64_t)got;
	if ((uint64_t)off + size > n->size)
		atomic_fetch_add_explicit(&t->stats.reads_past_eof, 1,
					  memory_order_relaxed);
	/* Read before writing: the flag's cache line stays shared. */
	if (!atomic_load_explicit(&n->was_read, memory_order_relaxed))
		atomic_store_explicit(&n->was_read, true, memory_order_relaxed);
	rec = claim_record(t, &e, claimed ? claim.ticket : NULL,
			   claimed ? claim.unique : 0, ino, (uint64_t)off,
			   (uint32_t)size, (uint32_t)fuse_req_ctx(req)->pid,
			   arrived);
	claim.taken = false;
	/* O_DIRECT reads bypass the page cache: say so, or the log and
	 * mincore() would seem to disagree. */
	rec->flags = fi->flags & O_DIRECT ? LOG_FLAG_DIRECT : 0;
	rec->read.delay_ns = v.delay_ns;
	rec->read.err = v.err;
	atomic_fetch_add_explicit(&t->stats.reads, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->stats.read_bytes, len,
				  memory_order_relaxed);
	if (queued) {
		/* A held read's record says how long it was held (done_ns),
		 * not a model's delay. */
		if (v.hold)
			rec->read.delay_ns = 0;
		dr = (struct delayed_reply){
			req,
			buf,
			len,
			v.err,
			v.hold ? (v.hold_ns ? arrived + v.hold_ns : UINT64_MAX)
			       : arrived + v.delay_ns,
			e,
			v.hold,
		};
		if (delay_queue_push(t->delays, &dr) == 0)
			return;
		/* No memory to queue it: answer now rather than never. */
		rec->read.delay_ns = 0;
	}
	rec->read.done_ns = clock_now_ns();
	log_entry_publish(&e);
	if (v.err)
		fuse_reply_err(req, v.err);
	else
		fuse_reply_buf(req, data, len);
	if (queued)
		delay_queue_put_buffer(t->delays, buf);
}

static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	struct node *n = fileset_get(&t->files, ino);

	(void)off;
	if (!n || n->kind != NODE_CONTROL || n->control != CONTROL_CTL)
		return (void)fuse_reply_err(req, EROFS);
	control_write(t, req, (struct control_session *)(uintptr_t)fi->fh, buf,
		      size);
}

/*
 * Nothing in the tree ever changes: requests that would change it answer
 * EROFS, as a read-only mount does, rather than ENOSYS (which the kernel
 * remembers and turns into other errors, such as EOPNOTSUPP for xattrs).
 */
static void fs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	(void)parent, (void)name, (void)mode, (void)fi;
	fuse_reply_err(req, EROFS);
}

static void fs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	(void)parent, (void)name, (void)mode, (void)rdev;
	fuse_reply_err(req, EROFS);
}

static void fs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	(void)parent, (void)name, (void)mode;
	fuse_reply_err(req, EROFS);
}

static void fs_remove(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent, (void)name;
	fuse_reply_err(req, EROFS);
}

static void fs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	(void)link, (void)parent, (void)name;
	fuse_reply_err(req, EROFS);
}

static void fs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *newname)
{
	(void)ino, (void)newparent, (void)newname;
	fuse_reply_err(req, EROFS);
}

static void fs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	(void)parent, (void)name, (void)newparent, (void)newname, (void)flags;
	fuse_reply_err(req, EROFS);
}

static void fs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	(void)ino, (void)name, (void)value, (void)size, (void)flags;
	fuse_reply_err(req, EROFS);
}

static void fs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino, (void)name;
	fuse_reply_err(req, EROFS);
}

static void fs_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	struct node *n = fileset_get(&t->files, ino);

	if (!n)
		return (void)fuse_reply_err(req, ENOENT);
	if (n->kind != NODE_DIR)
		return (void)fuse_reply_err(req, ENOTDIR);
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

/*
 * Directory offsets: 1 is ".", 2 is "..", 2 + k the k-th child. Each entry
 * carries the offset of the next one.
 */
static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct testfs *t = fs_of(req);
	struct node *dir = fileset_get(&t->files, ino), *c;
	size_t used = 0, ent;
	uint64_t k, child;
	struct stat st;
	char *buf;

	(void)fi;
	if (!dir || dir->kind != NODE_DIR)
		return (void)fuse_reply_err(req, ENOTDIR);
	buf = malloc(size);
	if (!buf)
		return (void)fuse_reply_err(req, ENOMEM);
	memset(&st, 0, sizeof(st));
	for (k = (uint64_t)off; k < 2; k++) {
		st.st_ino = k == 0 ? dir->ino : (dir->parent ? dir->parent : 1);
		st.st_mode = S_IFDIR;
		ent = fuse_add_direntry(req, buf + used, size - used,
					k == 0 ? "." : "..", &st,
					(off_t)(k + 1));
		if (ent > size - used)
			goto out_reply;
		used += ent;
	}
	child = dir->first_child;
	for (k = 2; child && k < (uint64_t)off; k++)
		child = fileset_get(&t->files, child)->next_sibling;
	for (; child; child = c->next_sibling, k++) {
		c = fileset_get(&t->files, child);
		fs_fill_attr(t, c, &st);
		ent = fuse_add_direntry(req, buf + used, size - used, c->name,
					&st, (off_t)(k + 1));
		if (ent > size - used)
			break;
		used += ent;
	}
out_reply:
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void fs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct testfs *t = fs_of(req);
	struct statvfs sv;

	(void)ino;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = t->page_size;
	sv.f_frsize = t->page_size;
	sv.f_files = t->files.count;
	sv.f_namemax = FILESET_NAME_MAX;
	fuse_reply_statfs(req, &sv);
}

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct testfs *t = userdata;
	const struct options *o = t->opts;

	/* Size or mtime changes must never drop the cache behind a test. */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	/* The kernel derives max_pages from max_write. */
	if (o->max_pages != OPT_UNSET) {
		conn->max_write = (unsigned)o->max_pages * t->page_size;
		/* Must equal the max_read mount option serve() passed. */
		conn->max_read = conn->max_write;
	}
	if (o->max_background != OPT_UNSET)
		conn->max_background = (unsigned)o->max_background;
	if (o->congestion_threshold != OPT_UNSET) {
		if (o->max_background == OPT_UNSET)
			conn->max_background = KERNEL_DEFAULT_MAX_BACKGROUND;
		conn->congestion_threshold = (unsigned)o->congestion_threshold;
	}
}

const struct fuse_lowlevel_ops testfs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.setattr = fs_setattr,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.flush = fs_flush,
	.release = fs_release,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.statfs = fs_statfs,
	.create = fs_create,
	.mknod = fs_mknod,
	.mkdir = fs_mkdir,
	.unlink = fs_remove,
	.rmdir = fs_remove,
	.symlink = fs_symlink,
	.link = fs_link,
	.rename = fs_rename,
	.setxattr = fs_setxattr,
	.removexattr = fs_removexattr,
};
