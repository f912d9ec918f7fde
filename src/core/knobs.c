// SPDX-License-Identifier: MIT
#include "knobs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "child.h"

#define FUSECTL_DIR "/sys/fs/fuse/connections"

static int read_int(const char *path, int64_t *out)
{
	char buf[64];
	int n = read_small_file(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	*out = strtoll(buf, NULL, 10);
	return 0;
}

static int write_int(const char *path, int64_t v)
{
	char buf[32];
	int fd, len;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%lld\n", (long long)v);
	n = write(fd, buf, (size_t)len);
	close(fd);
	if (n < 0)
		return -errno;
	return n == len ? 0 : -EIO;
}

/* The kernel names the connection by its dev_t in kernel encoding. */
static void fusectl_path(const struct testfs *t, const char *file, char *buf,
			 size_t len)
{
	unsigned kdev = (t->knobs.dev_major << 20) | t->knobs.dev_minor;

	snprintf(buf, len, FUSECTL_DIR "/%u/%s", kdev, file);
}

static void ensure_fusectl(void)
{
	struct stat st;
	char probe[64];

	snprintf(probe, sizeof(probe), FUSECTL_DIR);
	if (stat(probe, &st) != 0)
		return;
	/* An empty directory means fusectl is not mounted there yet. */
	if (st.st_nlink <= 2 && geteuid() == 0)
		mount("fusectl", FUSECTL_DIR, "fusectl", 0, NULL);
}

void knobs_refresh(struct testfs *t)
{
	char path[128];
	int64_t v;

	if (!t->knobs.bdi[0])
		return;
	snprintf(path, sizeof(path), "/sys/class/bdi/%s/read_ahead_kb",
		 t->knobs.bdi);
	t->knobs.ra_kb = read_int(path, &v) == 0 ? v : -1;
	fusectl_path(t, "max_background", path, sizeof(path));
	t->knobs.max_background = read_int(path, &v) == 0 ? v : -1;
	fusectl_path(t, "congestion_threshold", path, sizeof(path));
	t->knobs.congestion_threshold = read_int(path, &v) == 0 ? v : -1;
}

int knobs_set_ra_kb(struct testfs *t, int64_t kb, char *why, size_t whylen)
{
	char path[128];
	int64_t v;
	int err;

	if (!t->knobs.bdi[0]) {
		snprintf(why, whylen, "the mount's bdi is not known yet");
		return -EAGAIN;
	}
	snprintf(path, sizeof(path), "/sys/class/bdi/%s/read_ahead_kb",
		 t->knobs.bdi);
	err = write_int(path, kb);
	if (err) {
		snprintf(why, whylen, "cannot write %s: %s%s", path,
			 strerror(-err),
			 geteuid() ? " (testfs runs as a user: needs root)"
				   : "");
		return err;
	}
	t->knobs.ra_kb_set = true;
	t->knobs.ra_kb_requested = kb;
	t->knobs.ra_kb = read_int(path, &v) == 0 ? v : -1;
	return 0;
}

void knobs_apply(struct testfs *t, dev_t st_dev, char *warn, size_t warnlen)
{
	const struct options *o = t->opts;
	char path[128];
	int64_t limit;
	size_t used = 0;
	int err;

	warn[0] = '\0';
	t->knobs.dev_major = major(st_dev);
	t->knobs.dev_minor = minor(st_dev);
	snprintf(t->knobs.bdi, sizeof(t->knobs.bdi), "%u:%u",
		 t->knobs.dev_major, t->knobs.dev_minor);
	if (o->ra_kb != OPT_UNSET) {
		snprintf(path, sizeof(path), "/sys/class/bdi/%s/read_ahead_kb",
			 t->knobs.bdi);
		err = write_int(path, o->ra_kb);
		if (err) {
			used += (size_t)snprintf(
				warn + used, warnlen - used,
				"--ra-kb %lld: cannot write %s: %s%s",
				(long long)o->ra_kb, path, strerror(-err),
				geteuid() ? " (needs root)" : "");
		}
	}
	limit = 256;
	if (read_int("/proc/sys/fs/fuse/max_pages_limit", &limit) != 0)
		limit = 256;
	t->knobs.max_pages_limit = limit;
	t->knobs.max_pages = o->max_pages != OPT_UNSET ? o->max_pages : 256;
	if (t->knobs.max_pages > limit)
		t->knobs.max_pages = limit;
	ensure_fusectl();
	knobs_refresh(t);
	if (t->knobs.max_background < 0) {
		snprintf(
			t->knobs.note, sizeof(t->knobs.note),
			"max_background and congestion_threshold not read back: " FUSECTL_DIR
			" unavailable");
		if (used < warnlen)
			snprintf(warn + used, warnlen - used, "%s%s",
				 used ? "; " : "", t->knobs.note);
	}
}
