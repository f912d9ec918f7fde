// SPDX-License-Identifier: MIT
#include "bench_common.h"

#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char bench_failure[512];

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t bench_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

void bench_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

uint64_t bench_sched_ns(pid_t pid, uint64_t *slices)
{
	unsigned long long run, wait, n;
	char path[320], line[128];
	uint64_t total = 0;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	if (slices)
		*slices = 0;
	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
			 (int)pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%llu %llu %llu", &run, &wait, &n) == 3) {
			total += run;
			if (slices)
				*slices += n;
		}
		fclose(f);
	}
	closedir(dir);
	return total;
}

int bench_fail(int err, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(bench_failure, sizeof(bench_failure), "%s: %s", what,
		 strerror(err < 0 ? -err : err));
	return err < 0 ? err : -err;
}

int64_t bench_read_all(int fd, char *buf, size_t block)
{
	int64_t total = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, block);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	return n < 0 ? -errno : total;
}

long bench_read_long(const char *path)
{
	char buf[32];

	if (read_small_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

bool bench_reap(pid_t pid, unsigned ms, int *status)
{
	uint64_t end = bench_now_ns() + (uint64_t)ms * 1000000ull;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		if (bench_now_ns() >= end)
			return false;
		bench_sleep_ms(10);
	}
}

int bench_wait_ready(int fd, unsigned ms)
{
	char buf[64];

	return child_wait_ready(fd, ms, buf, sizeof(buf));
}

bool bench_is_mounted(const char *path)
{
	char line[4096], mnt[PATH_MAX];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    strcmp(mnt, path) == 0)
			found = true;
	fclose(f);
	return found;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n, double *min, double *max)
{
	if (!n)
		return 0.0;
	qsort(v, n, sizeof(double), cmp_double);
	if (min)
		*min = v[0];
	if (max)
		*max = v[n - 1];
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int64_t bench_status_bytes(pid_t pid, const char *field)
{
	size_t flen = strlen(field);
	char path[64], line[256];
	int64_t ret = -ENOENT;
	long long kb;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, flen) == 0 && line[flen] == ':' &&
		    sscanf(line + flen + 1, "%lld", &kb) == 1) {
			ret = (int64_t)kb * 1024;
			break;
		}
	}
	fclose(f);
	return ret;
}

char *bench_find_binary(const char *env, const char *sibling)
{
	char self[PATH_MAX], *slash, *out;
	const char *v = getenv(env);
	ssize_t n;

	if (v && *v)
		return realpath(v, NULL);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (asprintf(&out, "%s/%s", self, sibling) < 0)
		return NULL;
	if (access(out, X_OK) != 0) {
		free(out);
		return NULL;
	}
	v = out;
	out = realpath(v, NULL);
	free((char *)v);
	return out;
}

int bench_not_an_option(const char *arg, void (*usage)(FILE *))
{
	bool help = strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;

	usage(help ? stdout : stderr);
	return help ? 0 : 1;
}

void bench_progress(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
