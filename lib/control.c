// SPDX-License-Identifier: MIT
/*
 * The commands of MOUNT/.testfs/ctl, and waiting for the kernel's
 * requests in flight to be answered.
 */
#include "lib_i.h"

#include "control_dir.h"
#include "log_record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Copies MOUNT/.testfs/error, without its newline, into @why. */
static void read_error(struct testfs_mount *fs, char *why, size_t whylen)
{
	char path[PATH_MAX];
	size_t used = 0;
	ssize_t n;
	int fd;

	if (testfs_path(fs, CONTROL_PATH_ERROR, path, sizeof(path)) != 0)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (used < whylen - 1) {
		n = read(fd, why + used, whylen - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	why[used] = '\0';
	why[strcspn(why, "\n")] = '\0';
}

int testfs_ctl(struct testfs_mount *fs, const char *command, char *why,
	       size_t whylen)
{
	char path[PATH_MAX];
	size_t len;
	char *line;
	ssize_t n;
	int fd, err = 0;

	if (why && whylen)
		why[0] = '\0';
	if (!fs || !command)
		return -EINVAL;
	len = strlen(command);
	/* One write(), so that the daemon takes the command as one batch. */
	line = malloc(len + 2);
	if (!line)
		return -ENOMEM;
	memcpy(line, command, len);
	if (!len || command[len - 1] != '\n')
		line[len++] = '\n';
	err = testfs_path(fs, CONTROL_PATH_CTL, path, sizeof(path));
	if (err)
		goto free_line;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto free_line;
	}
	n = write(fd, line, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (err && why && whylen) {
		read_error(fs, why, whylen);
		if (!why[0])
			snprintf(why, whylen, "%s", strerror(-err));
	}
free_line:
	free(line);
	return err;
}

int testfs_clear(struct testfs_mount *fs)
{
	return testfs_ctl(fs, "clear", NULL, 0);
}

int testfs_mark(struct testfs_mount *fs, const char *text)
{
	char cmd[sizeof("mark ") + LOG_MARK_MAX];

	if (!text || strpbrk(text, "\r\n") || strlen(text) > LOG_MARK_MAX)
		return -EINVAL;
	snprintf(cmd, sizeof(cmd), "mark %s", text);
	return testfs_ctl(fs, cmd, NULL, 0);
}

int testfs_drop_cache(struct testfs_mount *fs, const char *name)
{
	char *cmd;
	int err;

	if (!name)
		return testfs_ctl(fs, "drop-cache", NULL, 0);
	if (!*name || strpbrk(name, "\r\n"))
		return -EINVAL;
	if (asprintf(&cmd, "drop-cache %s", name) < 0)
		return -ENOMEM;
	err = testfs_ctl(fs, cmd, NULL, 0);
	free(cmd);
	return err;
}

int testfs_cold(struct testfs_mount *fs, const char *name)
{
	int err = testfs_drop_cache(fs, name);

	return err ? err : testfs_clear(fs);
}

int testfs_settle(struct testfs_mount *fs, unsigned timeout_ms)
{
	char path[96], buf[32];
	uint64_t end;
	ssize_t n;
	int fd;

	if (!fs)
		return -EINVAL;
	end = lib_now_ms() + (timeout_ms ? timeout_ms : LIB_SETTLE_TIMEOUT_MS);
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/waiting",
		 fs->conn_id);
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		/* No fusectl mounted, or the connection is gone. */
		if (fd < 0 && errno == ENOENT)
			return 0;
		if (fd < 0)
			return -errno;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			if (strtoul(buf, NULL, 10) == 0)
				return 0;
		}
		if (lib_now_ms() >= end)
			return -ETIMEDOUT;
		lib_sleep_ms(1);
	}
}

/* "VERB ARG" through ctl, refusing a line break in ARG. */
static int send_spec(struct testfs_mount *fs, const char *verb, const char *arg)
{
	char *cmd;
	int err;

	if (!fs || !arg || !*arg || strpbrk(arg, "\r\n"))
		return -EINVAL;
	if (asprintf(&cmd, "%s %s", verb, arg) < 0)
		return -ENOMEM;
	err = testfs_ctl(fs, cmd, NULL, 0);
	free(cmd);
	return err;
}

int testfs_set_latency(struct testfs_mount *fs, const char *model)
{
	return send_spec(fs, "latency", model);
}

int testfs_add_rule(struct testfs_mount *fs, const char *spec)
{
	return send_spec(fs, "rule", spec);
}

int testfs_add_error(struct testfs_mount *fs, const char *spec)
{
	return send_spec(fs, "error", spec);
}

int testfs_clear_rules(struct testfs_mount *fs)
{
	return fs ? testfs_ctl(fs, "rules clear", NULL, 0) : -EINVAL;
}
