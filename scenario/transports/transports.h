/* SPDX-License-Identifier: MIT */
/*
 * The transports scenario: the runs (transports.c) and the report
 * (transports_report.c) share what each workload did over each
 * transport.
 */
#ifndef SCENARIO_TRANSPORTS_H
#define SCENARIO_TRANSPORTS_H

#include "scenario.h"

#define MAX_ROUNDS 9

enum workload { W_SEQ4K, W_SEQ1M, W_MMAP, W_SPLIT, NWORKLOADS };

static const char *const workload_name[NWORKLOADS] = { "seq4k", "seq1m", "mmap",
						       "split" };

enum transport { T_DEV, T_URING, NTRANSPORTS };

static const char *const transport_name[NTRANSPORTS] = { "dev", "uring" };

/* What one workload did over one transport in one round. */
struct sample {
	bool done;
	uint64_t ns;	  /* the workload's own time */
	uint64_t bytes;	  /* bytes read or pages touched x page size */
	uint64_t lat_med; /* reply latency (done_ns - t_ns), median */
	uint64_t lat_max;
};

/* The first round's requests, for the comparison. */
struct requests {
	struct testfs_log *log;
	struct read_list reads;
	uint64_t fetched;
	uint64_t max_inflight;	  /* reads the server held at once */
	uint64_t max_inflight_bg; /* of them async readahead */
	uint64_t causes[NCAUSES]; /* reads by cause */
	uint64_t windows;	  /* distinct kernel windows */
	uint64_t served_uring;	  /* FUSE_READs that came over the ring */
	uint64_t served_dev;	  /* ... and over /dev/fuse */
	bool counted;		  /* the daemon reports the two above */
};

struct cell {
	struct sample s[MAX_ROUNDS];
	struct requests req;
};

struct transports {
	struct cell cell[NTRANSPORTS][NWORKLOADS];
	bool wanted[NWORKLOADS];
	/* Why a transport did not run ("" when it ran). */
	char skipped[NTRANSPORTS][320];
	uint64_t file_pages;
	unsigned ra_pages, max_pages, max_background, congestion_threshold;
	char kernel[128], model[256];
	unsigned rounds;
};

/* Fills ctx->rep from the rounds in @tp. */
void transports_report(struct scenario_ctx *ctx, const void *result);

#endif
