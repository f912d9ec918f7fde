/* SPDX-License-Identifier: MIT */
/*
 * seqread's typed result: each run's measurements and what follows from
 * them, computed once by seqread.c; seqread_report.c renders it.
 */
#ifndef SCENARIO_SEQREAD_H
#define SCENARIO_SEQREAD_H

#include "scenario.h"

enum engine { ENGINE_READ, ENGINE_URING, ENGINE_AIO, NENGINES };

static const char *const engine_name[] = { "read", "io_uring", "posix_aio" };

struct run {
	enum engine engine;
	size_t block;
	unsigned qd;
	uint64_t ns;
	struct testfs_log *log;
	struct read_list reads;
	uint64_t fetched;
	/* The most common request size: the steady window. */
	uint64_t steady;
	/*
	 * read(2) only (modelled): the first 12 requests of the current
	 * kernels' readahead, as text, and whether the run's equal them.
	 */
	bool modelled;
	bool model_same;
	char model_text[512];
};

struct seqread_result {
	const struct session *s;
	/* Two block sizes per engine. */
	struct run runs[NENGINES * 2];
	size_t nruns;
	/* The largest request of all runs, in pages. */
	uint64_t biggest;
	/*
	 * The model's io_pages (ractl_max_pages()) and whether it is FUSE's
	 * max_pages (RA_FUSE_IO_PAGES_SINCE or later) rather than 128 KiB.
	 */
	uint32_t io_pages;
	bool fuse_io_pages;
	/* The fastest and the slowest run. */
	size_t fast;
	size_t slow;
};

/* seqread_report.c: the result as the report's sections. */
void seqread_report(struct scenario_ctx *ctx, const void *result);

#endif
