// SPDX-License-Identifier: MIT
#include "fuse_reads.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define EVENT "events/fuse/fuse_request_send"

static int put(const struct fuse_reads *fr, const char *file, const char *s)
{
	char path[192];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", fr->dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n != (ssize_t)strlen(s))
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

int fuse_reads_open(struct fuse_reads *fr)
{
	int err;

	snprintf(fr->dir, sizeof(fr->dir), TRACEFS "/instances/bench-reads-%d",
		 (int)getpid());
	if (mkdir(fr->dir, 0700)) {
		err = -errno;
		fr->dir[0] = '\0';
		return err;
	}
	/* 16 readers of 4 KiB can make some 20000 requests in one run. */
	err = put(fr, "buffer_size_kb", "4096");
	if (!err)
		err = put(fr, EVENT "/filter", "opcode == 15");
	if (!err)
		err = put(fr, EVENT "/enable", "1");
	if (err)
		fuse_reads_close(fr);
	return err;
}

/* The kernel prints dev_t as (major << 20) | minor. */
static unsigned kernel_dev(dev_t d)
{
	return (major(d) << 20) | minor(d);
}

int fuse_reads_take(struct fuse_reads *fr, const dev_t *devs, unsigned n,
		    uint64_t *counts)
{
	unsigned long long in_buffer = 0, written = 0;
	char path[192], line[512];
	unsigned i, conn;
	const char *p;
	FILE *f;
	int err = 0;

	for (i = 0; i < n; i++)
		counts[i] = 0;
	if (!fr->dir[0])
		return -EBADF;
	snprintf(path, sizeof(path), "%s/trace", fr->dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written:");
			if (p)
				sscanf(strchr(p, ':') + 1, " %llu/%llu",
				       &in_buffer, &written);
			continue;
		}
		p = strstr(line, "connection ");
		if (!p || sscanf(p, "connection %u", &conn) != 1)
			continue;
		for (i = 0; i < n; i++)
			if (kernel_dev(devs[i]) == conn)
				counts[i]++;
	}
	fclose(f);
	if (in_buffer != written)
		err = -EOVERFLOW;
	/* Opening "trace" for writing with O_TRUNC empties the buffer. */
	if (put(fr, "trace", "") && !err)
		err = -EIO;
	return err;
}

void fuse_reads_close(struct fuse_reads *fr)
{
	if (!fr->dir[0])
		return;
	put(fr, EVENT "/enable", "0");
	put(fr, EVENT "/filter", "0");
	rmdir(fr->dir);
	fr->dir[0] = '\0';
}
