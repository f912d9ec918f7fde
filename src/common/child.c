// SPDX-License-Identifier: MIT
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

void child_default_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE };
	struct sigaction dfl;
	sigset_t none;
	size_t i;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int child_wait_ready(int fd, unsigned timeout_ms, char *buf, size_t size)
{
	uint64_t end = clock_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	size_t used = 0;
	ssize_t n;
	int r;

	buf[0] = '\0';
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = clock_now_ns();

		if (now >= end)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((end - now) / 1000000ull) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		n = read(fd, buf + used, size - 1 - used);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		used += (size_t)n;
		buf[used] = '\0';
		if (strstr(buf, "ready\n"))
			return 0;
		if (used == size - 1)
			return -EIO;
	}
}

int read_small_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? n : -EIO;
	buf[n] = '\0';
	return (int)n;
}
