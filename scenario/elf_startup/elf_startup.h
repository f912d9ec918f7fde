/* SPDX-License-Identifier: MIT */
/*
 * elf-startup's typed result: the run (elf_startup.c) fills what it
 * observed, elf_analyse.c computes from it what the report shows,
 * elf_report.c renders it.
 */
#ifndef SCENARIO_ELF_STARTUP_H
#define SCENARIO_ELF_STARTUP_H

#include "elf_image.h"
#include "elf_load.h"
#include "scenario.h"

/* Of the pages fetched: those of a segment, and of the gaps around it. */
struct elf_seg_counts {
	uint64_t touched;
	uint64_t inside;
	/* Up to the neighbouring segments, or to the file's ends. */
	uint64_t before;
	uint64_t after;
};

/* What a readahead policy would have fetched, against the observed. */
struct elf_policy {
	struct testfs_extents pred;
	/* Of it, pages no segment maps. */
	uint64_t outside;
	/* The model's windows, split at max_pages, are the reads seen. */
	bool same_reads;
	/* "matches", "same pages, other reads" or "differs". */
	const char *verdict;
};

struct elf_result {
	/* The binary= path, and the private --backing directory. */
	char path[4096];
	char dir[4200];
	char file[256];
	/* How the file got into the served directory: link or copy. */
	const char *served;
	bool is_default;
	struct elf_image img;
	struct elf_plan plan;
	struct session *s;
	struct elf_run run;
	struct testfs_log *log;
	struct testfs_extents fetched;
	struct testfs_extents by_cause[NCAUSES];
	struct read_list reads;
	/* Touched pages the log never saw fetched. */
	struct testfs_extents not_fetched;
	/* testfs_check_consistent(): 0 holds, 1 not (why), < 0 error. */
	int consistent;
	char *consistent_why;
	/* The file read through the mount equals the original: 1, 0, < 0. */
	int bytes_equal;
	/*
	 * The kernel clamps exec read-around to the VMA (6.17 or later:
	 * measured, Debian 6.16.12 still reads 16 pages before and 48
	 * after an exec VMA, 6.17.13 none; docs/kernels.md) and rounds
	 * async windows to 4 pages (6.16 or later, ra_model.h).
	 */
	bool exec_clamp;
	bool async_round;

	/* The analysis (elf_analyse.c). */
	/* Pages each step touched first (no earlier step touched them). */
	uint64_t step_new[ELF_NSTEPS];
	struct elf_seg_counts seg[ELF_MAX_LOADS];
	/* Pages fetched that no segment maps; in some segment; counted in
	 * two segments (their sum of inside minus in_segments). */
	struct testfs_extents outside;
	uint64_t in_segments;
	uint64_t shared;
	struct elf_policy policy[RA_NPOLICIES];
	/* How many fewer pages a VMA-limited kernel fetches (percent). */
	double fewer_than_observed_pct;
	double fewer_than_current_pct;
};

/* elf_analyse.c: the model's predictions and the counts of the report. */
int elf_analyse(struct scenario_ctx *ctx, void *result);

/* elf_report.c: every section after "settings". */
void elf_report(struct scenario_ctx *ctx, const void *result);

#endif
