/* SPDX-License-Identifier: MIT */
/*
 * elf-startup's run (elf_startup.c) and its report (elf_report.c).
 */
#ifndef SCENARIO_ELF_STARTUP_H
#define SCENARIO_ELF_STARTUP_H

#include "elf_image.h"
#include "elf_load.h"
#include "scenario.h"

struct elf_result {
	const char *path;
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
	 * The kernel is 6.16 or later: exec read-around is clamped to the
	 * VMA, async windows are rounded to 4 pages (ra_model.h).
	 */
	bool exec_clamp;
	struct testfs_extents pred[RA_NPOLICIES];
	bool same_reads[RA_NPOLICIES];
};

/* Adds every section after "settings" to @ctx->rep. */
void elf_report(struct scenario_ctx *ctx, struct elf_result *r);

#endif
