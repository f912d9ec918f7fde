// SPDX-License-Identifier: MIT
#include "fifo_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fifo_reader {
	pthread_t thread;
	int fd;
	atomic_bool stop;
	char *data;
	size_t len;
	size_t cap;
};

static void *reader_main(void *arg)
{
	struct fifo_reader *r = arg;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	char buf[65536];

	for (;;) {
		ssize_t n = read(r->fd, buf, sizeof(buf));

		if (n > 0) {
			if (r->len + (size_t)n + 1 > r->cap) {
				size_t cap = (r->len + (size_t)n + 1) * 2;
				char *p = realloc(r->data, cap);

				if (!p)
					abort();
				r->data = p;
				r->cap = cap;
			}
			memcpy(r->data + r->len, buf, (size_t)n);
			r->len += (size_t)n;
			continue;
		}
		/* Drained: stop once the writer is known to be gone. */
		if (atomic_load(&r->stop))
			break;
		/* No writer yet, or one that closed: poll says "hang up"
		 * at once then, so wait a little by hand as well. */
		if (poll(&pfd, 1, 50) > 0 && !(pfd.revents & POLLIN))
			usleep(5000);
	}
	return NULL;
}

struct fifo_reader *fifo_reader_start(const char *path)
{
	struct fifo_reader *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return NULL;
	if (mkfifo(path, 0600))
		goto fail;
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0)
		goto fail;
	err = pthread_create(&r->thread, NULL, reader_main, r);
	if (err) {
		close(r->fd);
		errno = err;
		goto fail;
	}
	return r;
fail:
	free(r);
	return NULL;
}

char *fifo_reader_end(struct fifo_reader *r, size_t *len)
{
	char *data;

	atomic_store(&r->stop, true);
	pthread_join(r->thread, NULL);
	close(r->fd);
	data = r->data ? r->data : calloc(1, 1);
	if (data)
		data[r->len] = '\0';
	if (len)
		*len = r->len;
	free(r);
	return data;
}
