// SPDX-License-Identifier: MIT
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fuse_uring_abi.h"
#include "loop_uring.h"
#include "pagecache.h"
#include "startup.h"

#define ENABLE_URING "/sys/module/fuse/parameters/enable_uring"

static ssize_t tr_read(int fd, void *buf, size_t len, void *userdata)
{
	struct testfs *t = userdata;
	const struct fuse_in_header *in = buf;
	const struct fuse_init_in *init;
	ssize_t res = read(fd, buf, len);

	if (res < (ssize_t)sizeof(*in))
		return res;
	atomic_fetch_add_explicit(&t->stats.dev_requests, 1,
				  memory_order_relaxed);
	if (in->opcode == FUSE_READ)
		atomic_fetch_add_explicit(&t->stats.dev_reads, 1,
					  memory_order_relaxed);
	if (in->opcode != FUSE_INIT || !t->transport.ring)
		return res;
	/* What the kernel offers: FUSE_OVER_IO_URING is in flags2. */
	init = (const void *)(in + 1);
	t->transport.init_unique = in->unique;
	t->transport.init_offered =
		(size_t)res >= sizeof(*in) + sizeof(*init) &&
		init->flags & FUSE_INIT_EXT &&
		init->flags2 & (uint32_t)(FUSE_OVER_IO_URING >> 32);
	return res;
}

/* libfuse's INIT reply, with FUSE_OVER_IO_URING if the kernel offered. */
static ssize_t init_reply(struct testfs *t, int fd, struct iovec *iov,
			  int count)
{
	const struct fuse_out_header *out = iov[0].iov_base;
	struct fuse_init_out arg;
	struct iovec mine[2];
	bool use = t->transport.init_offered && !out->error && count == 2 &&
		   iov[1].iov_len >= offsetof(struct fuse_init_out, flags2) +
					     sizeof(arg.flags2) &&
		   iov[1].iov_len <= sizeof(arg);
	ssize_t res;

	t->transport.init_unique = 0;
	if (use) {
		memcpy(&arg, iov[1].iov_base, iov[1].iov_len);
		use = arg.flags & FUSE_INIT_EXT;
		arg.flags2 |= (uint32_t)(FUSE_OVER_IO_URING >> 32);
	}
	if (!use) {
		res = writev(fd, iov, count);
		uring_transport_go(t->transport.ring, fd, false);
		return res;
	}
	mine[0] = iov[0];
	mine[1] = (struct iovec){ &arg, iov[1].iov_len };
	res = writev(fd, mine, 2);
	/* The kernel is initialised when the write returns: REGISTER may
	 * come now (fuse_uring_cmd() answers -EAGAIN before). */
	uring_transport_go(t->transport.ring, fd, res >= 0);
	return res;
}

static ssize_t tr_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	struct testfs *t = userdata;
	const struct fuse_out_header *out = iov[0].iov_base;
	ssize_t len = 0;
	int i;

	if (t->transport.ring) {
		if (uring_transport_reply(t->transport.ring, iov, count)) {
			for (i = 0; i < count; i++)
				len += (ssize_t)iov[i].iov_len;
			return len;
		}
		if (t->transport.init_unique &&
		    out->unique == t->transport.init_unique)
			return init_reply(t, fd, iov, count);
	}
	return writev(fd, iov, count);
}

/* enable_uring on, or why not: true if the ring may be tried. */
static bool enable_uring(struct testfs *t)
{
	char *note = t->transport.note;
	size_t len = sizeof(t->transport.note);
	char c = 0;
	int fd = open(ENABLE_URING, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(
			note, len,
			"this kernel has no FUSE over io_uring (%s: %s; it needs Linux 6.14 or later built with CONFIG_FUSE_IO_URING)",
			ENABLE_URING, strerror(errno));
		return false;
	}
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	if (c == 'Y' || c == '1')
		return true;
	if (geteuid() != 0) {
		snprintf(
			note, len,
			"%s is N; as root: echo Y > %s (or run testfs as root, which sets it)",
			ENABLE_URING, ENABLE_URING);
		return false;
	}
	fd = open(ENABLE_URING, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "Y", 1) != 1) {
		snprintf(note, len, "%s is N and cannot be set: %s",
			 ENABLE_URING, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	snprintf(note, len, "%s was N: testfs set it to Y", ENABLE_URING);
	startup_warn("--transport uring: %s", note);
	return true;
}

void transport_prepare(struct testfs *t)
{
	char why[256];
	size_t payload;

	if (t->opts->transport != OPT_TRANSPORT_URING || !enable_uring(t))
		return;
	/* The kernel's minimum: max(FUSE_MIN_READ_BUFFER, max_write,
	 * max_pages * PAGE_SIZE) (fuse_uring_create()); libfuse 3.14 asks
	 * for max_write = 256 pages, testfs for max_pages <= 256. */
	payload = PAGECACHE_READ_PAGES * (size_t)t->page_size;
	if (payload < FUSE_MIN_READ_BUFFER)
		payload = FUSE_MIN_READ_BUFFER;
	if (uring_transport_prepare(t, payload, &t->transport.ring, why,
				    sizeof(why)) < 0)
		snprintf(t->transport.note, sizeof(t->transport.note), "%s",
			 why);
	else
		t->transport.reply_space = uring_transport_payload;
}

int transport_install(struct testfs *t)
{
	static const struct fuse_custom_io io = {
		.read = tr_read,
		.writev = tr_writev,
	};

	return fuse_session_custom_io(t->se, &io, fuse_session_fd(t->se));
}

void transport_settle(struct testfs *t)
{
	struct uring_transport *u = t->transport.ring;
	struct uring_shape shape;
	char why[256];
	bool ok;

	if (!u) {
		if (t->opts->transport == OPT_TRANSPORT_URING)
			startup_warn("--transport uring: serving /dev/fuse: %s",
				     t->transport.note);
		return;
	}
	ok = uring_transport_settle(u, &shape, why, sizeof(why));
	pthread_mutex_lock(&t->ctl_lock);
	t->transport.uring = ok;
	t->transport.queues = shape.queues;
	t->transport.threads = shape.threads;
	t->transport.entries = shape.entries;
	if (!ok)
		snprintf(t->transport.note, sizeof(t->transport.note), "%s",
			 why);
	else if (why[0]) /* after what enable_uring() said, if anything */
		snprintf(t->transport.note + strlen(t->transport.note),
			 sizeof(t->transport.note) - strlen(t->transport.note),
			 "%s%s", t->transport.note[0] ? "; " : "", why);
	pthread_mutex_unlock(&t->ctl_lock);
	if (!ok)
		startup_warn("--transport uring: serving /dev/fuse: %s", why);
	else if (why[0])
		startup_warn("--transport uring: %s", why);
}

void transport_quiesce(struct testfs *t)
{
	uring_transport_quiesce(t->transport.ring);
}

void transport_stop(struct testfs *t)
{
	uring_transport_stop(t->transport.ring);
	t->transport.ring = NULL;
}
