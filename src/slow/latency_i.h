/* SPDX-License-Identifier: MIT */
/*
 * Inside the latency models: the model structure shared by latency.c (the
 * spec grammar and the simple models) and devices.c (the queueing device
 * models).
 */
#ifndef TESTFS_SLOW_LATENCY_I_H
#define TESTFS_SLOW_LATENCY_I_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latency.h"
#include "prng.h"

#define DEVICE_NAMES "hdd, sata-ssd, nvme, ufs4 or nfs"

enum latency_kind {
	LATENCY_NONE,
	LATENCY_FIXED,
	LATENCY_UNIFORM,
	LATENCY_NORMAL,
	LATENCY_LOGNORMAL,
	LATENCY_BW,
	LATENCY_DEVICE,
};

struct device_model;

struct latency_model {
	enum latency_kind kind;
	/*
	 * fixed: a = DUR; uniform: a = MIN, b = MAX; normal: a = MEAN, b = SD;
	 * lognormal: a = MEDIAN, b = SIGMA in millionths; bw: a = RATE,
	 * b = when its channel is free (all durations and times in ns,
	 * rates in bytes per second).
	 */
	uint64_t a, b;
	uint64_t seed;
	struct prng rng;
	struct device_model *dev;
};

/*
 * Writes "latency '@spec': " and the detail to @err (when not NULL). Here
 * rather than in latency.c, so that devices.c, which latency.c calls,
 * does not call back into it.
 */
static inline void __attribute__((format(printf, 4, 5)))
latency_error(char *err, size_t errlen, const char *spec, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "latency '%s': ", spec);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/*
 * Parses device model @name with its "key=value,..." @args (NULL when
 * there are none); @spec is the whole spec, for messages. Returns 0,
 * -ENOENT when @name is not a device model (nothing written to @err),
 * -EINVAL with a message, or -ENOMEM.
 */
int device_parse(const char *spec, const char *name, const char *args,
		 struct device_model **out, char *err, size_t errlen);
uint64_t device_delay(struct device_model *d, uint64_t now_ns, uint64_t off,
		      uint64_t len);
void device_format(const struct device_model *d, struct strbuf *sb);
void device_free(struct device_model *d);

#endif
