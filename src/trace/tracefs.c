// SPDX-License-Identifier: MIT
#include "tracefs.h"

#include "child.h"
#include "mountinfo.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS_MAGIC 0x74726163
#define DEBUGFS_TRACING "/sys/kernel/debug/tracing"

bool tracefs_is_tracefs(const char *dir)
{
	struct statfs st;

	return statfs(dir, &st) == 0 && st.f_type == TRACEFS_MAGIC;
}

struct found {
	char *dir;
	size_t len;
};

static int first_tracefs(const char *mnt, const struct mount_entry *e,
			 void *arg)
{
	struct found *f = arg;

	if (strcmp(e->fstype, "tracefs") != 0 || !tracefs_is_tracefs(mnt))
		return 0;
	snprintf(f->dir, f->len, "%s", mnt);
	return 1;
}

/* The first tracefs mount in /proc/self/mountinfo, if any. */
static bool find_mounted(char *dir, size_t len)
{
	struct found f = { .dir = dir, .len = len };

	return mountinfo_each(first_tracefs, &f) > 0;
}

int tracefs_find(const char *want, char *dir, size_t dirlen, char *why,
		 size_t whylen)
{
	int err;

	if (want) {
		if (!tracefs_is_tracefs(want)) {
			snprintf(why, whylen, "%s is not a tracefs mount",
				 want);
			return -ENODEV;
		}
		snprintf(dir, dirlen, "%s", want);
		return 0;
	}
	if (tracefs_is_tracefs(TRACEFS_DEFAULT)) {
		snprintf(dir, dirlen, "%s", TRACEFS_DEFAULT);
		return 0;
	}
	if (find_mounted(dir, dirlen))
		return 0;
	/* Touching it automounts tracefs under debugfs on older setups. */
	if (tracefs_is_tracefs(DEBUGFS_TRACING)) {
		snprintf(dir, dirlen, "%s", DEBUGFS_TRACING);
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(why, whylen, "%s %s needs root",
			 "tracefs is not mounted and mounting it on",
			 TRACEFS_DEFAULT);
		return -EPERM;
	}
	if (mount("nodev", TRACEFS_DEFAULT, "tracefs", 0, NULL) != 0) {
		err = errno;
		snprintf(why, whylen, "cannot mount tracefs on %s: %s%s",
			 TRACEFS_DEFAULT, strerror(err),
			 err == ENODEV ? " (kernel without tracing)" : "");
		return -err;
	}
	snprintf(dir, dirlen, "%s", TRACEFS_DEFAULT);
	return 0;
}

char *tracefs_read(const char *dir, const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	char path[PATH_MAX];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	err = strbuf_read_fd(&sb, fd);
	close(fd);
	if (err) {
		strbuf_free(&sb);
		errno = -err;
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

int tracefs_write(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

void tracefs_instance_name(pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, TRACEFS_INSTANCE_PREFIX "%ld", (long)pid);
}

/* The pid in "testfs-<pid>", or -1 for any other name. */
static long instance_pid(const char *name)
{
	size_t plen = strlen(TRACEFS_INSTANCE_PREFIX);
	const char *p = name + plen;
	char *end;
	long pid;

	if (strncmp(name, TRACEFS_INSTANCE_PREFIX, plen) != 0 || *p < '1' ||
	    *p > '9')
		return -1;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || *end || pid <= 0 || pid > INT_MAX)
		return -1;
	return pid;
}

/*
 * Process @pid's /proc/PID/stat into @buf; a pointer to the ") " that ends
 * its name (field 2, which may hold anything), or NULL.
 */
static char *read_proc_stat(long pid, char *buf, size_t size)
{
	char path[64], *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_small_file(path, buf, size) < 0)
		return NULL;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p : NULL;
}

/* Whether process @pid has ended but is not reaped yet (a zombie). */
static bool process_is_zombie(long pid)
{
	char buf[512], *p;

	/* Field 3, the state, follows the name. */
	p = read_proc_stat(pid, buf, sizeof(buf));
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* When process @pid started, in seconds since the epoch; -1 if unknown. */
static long long process_start(long pid)
{
	unsigned long long start = 0, btime = 0;
	long ticks = sysconf(_SC_CLK_TCK);
	char buf[1024], *p;
	FILE *f;
	int i;

	/* Field 22, starttime. */
	p = read_proc_stat(pid, buf, sizeof(buf));
	if (!p)
		return -1;
	for (i = 2; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return -1;
	f = fopen("/proc/stat", "re");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	if (!btime || ticks <= 0)
		return -1;
	return (long long)(btime + start / (unsigned long long)ticks);
}

bool tracefs_instance_is_stale(const char *tracefs, const char *name,
			       pid_t *pid_out)
{
	char path[PATH_MAX];
	struct stat st;
	long long started;
	long pid = instance_pid(name);

	if (pid < 0)
		return false;
	if (pid_out)
		*pid_out = (pid_t)pid;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return true;
	/* A SIGKILLed daemon can stay a zombie for a while: it is gone. */
	if (process_is_zombie(pid))
		return true;
	/*
	 * The pid exists (maybe it is ours): stale only if that process is
	 * younger than the instance (the pid was reused). Both clocks have a
	 * resolution of about a second, hence the slack.
	 */
	snprintf(path, sizeof(path), "%s/instances/%s", tracefs, name);
	if (stat(path, &st) != 0)
		return false;
	started = process_start(pid);
	return started >= 0 && started > (long long)st.st_ctime + 2;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int tracefs_instance_remove(const char *tracefs, const char *name)
{
	char inst[PATH_MAX];
	int tries;

	if (snprintf(inst, sizeof(inst), "%s/instances/%s", tracefs, name) >=
	    (int)sizeof(inst))
		return -ENAMETOOLONG;
	if (access(inst, F_OK) != 0)
		return -errno;
	/* Events off first, so nothing fires while the instance goes. */
	tracefs_write(inst, "tracing_on", "0");
	tracefs_write(inst, "events/enable", "0");
	for (tries = 0;; tries++) {
		if (rmdir(inst) == 0)
			return 0;
		/* EBUSY while a reader still has one of its files open. */
		if (errno != EBUSY || tries == 100)
			return -errno;
		sleep_ms(10);
	}
}

int tracefs_remove_stale(const char *tracefs, char *report, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t used = 0;
	int removed = 0;
	DIR *d;

	if (report && len)
		report[0] = '\0';
	snprintf(path, sizeof(path), "%s/instances", tracefs);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		int ret;

		if (!tracefs_instance_is_stale(tracefs, de->d_name, NULL))
			continue;
		ret = tracefs_instance_remove(tracefs, de->d_name);
		if (ret == -ENOENT)
			continue; /* another tracer was quicker */
		if (ret == 0)
			removed++;
		if (report && used < len) {
			int n;

			if (ret == 0)
				n = snprintf(report + used, len - used,
					     "%sremoved %s", used ? ", " : "",
					     de->d_name);
			else
				n = snprintf(report + used, len - used,
					     "%scould not remove %s: %s",
					     used ? ", " : "", de->d_name,
					     strerror(-ret));
			used += n > 0 ? (size_t)n : 0;
		}
	}
	closedir(d);
	return removed;
}
