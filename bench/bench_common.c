// SPDX-License-Identifier: MIT
#include "bench_common.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
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

void bench_progress(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
