// SPDX-License-Identifier: MIT
/*
 * The kernel-correlation part of libtestfs as the scenarios use it: thin
 * wrappers that give every caller the same defaults (empty histograms and
 * usage on failure).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scenario.h"

int corr_tracing(struct testfs *fs, char *why, size_t whylen)
{
	return testfs_tracing(fs, why, whylen);
}

const char *corr_cause_name(enum testfs_cause cause)
{
	return testfs_cause_name(cause);
}

bool corr_log_traced(const struct testfs_log *log)
{
	return testfs_log_traced(log);
}

size_t corr_window_count(const struct testfs_log *log)
{
	return testfs_log_window_count(log);
}

const struct testfs_window *corr_window_at(const struct testfs_log *log,
					   size_t i)
{
	return testfs_log_window_at(log, i);
}

int corr_histograms(const struct testfs_log *log, const char *name,
		    struct testfs_histograms *out)
{
	int err = testfs_log_histograms(log, name, out);

	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}

int corr_usage(const struct testfs_log *log, const char *name,
	       struct testfs_usage *out)
{
	int err = testfs_log_usage(log, name, out, NULL);

	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}

size_t corr_access_count(const struct testfs_log *log)
{
	return testfs_log_access_count(log);
}

const struct testfs_access *corr_access_at(const struct testfs_log *log,
					   size_t i)
{
	return testfs_log_access_at(log, i);
}
