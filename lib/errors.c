// SPDX-License-Identifier: MIT
/*
 * The reason behind an errno: a call that fails for a reason the errno
 * cannot carry (the daemon's own message when testfs_start() fails)
 * leaves it here, per thread, for testfs_strerror().
 */
#include "lib_i.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define REASON_MAX 1024

static __thread int reason_err;
static __thread char reason[REASON_MAX];
static __thread char text[REASON_MAX + 128];

void lib_clear_reason(void)
{
	reason_err = 0;
	reason[0] = '\0';
}

int lib_set_reason(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	reason_err = err;
	return err;
}

const char *testfs_strerror(int err)
{
	if (err > 0)
		err = -err;
	if (err && err == reason_err && reason[0])
		snprintf(text, sizeof(text), "%s: %s", strerror(-err), reason);
	else
		snprintf(text, sizeof(text), "%s", strerror(-err));
	return text;
}
