/* SPDX-License-Identifier: MIT */
/*
 * mprotect-split's typed result: the observations at each VMA and what
 * follows from them, computed once by mprotect_split.c;
 * mprotect_split_report.c renders it.
 */
#ifndef SCENARIO_MPROTECT_SPLIT_H
#define SCENARIO_MPROTECT_SPLIT_H

#include "scenario.h"

enum arrival { READY, IN_FLIGHT, ON_DEMAND, NOT_READ };

struct vma_obs {
	uint64_t first;
	uint64_t last;
	uint64_t check_ns; /* mincore(), before the barrier */
	uint64_t touch_ns; /* after it */
	bool resident;
	long maj_first;
	long maj_vma;
	enum arrival arrival;
	/* The read reached testfs only after the touch. */
	bool late_arrival;
	uint64_t wait_ns;
};

struct split_result {
	const struct session *s;
	struct testfs_log *log;
	struct read_list reads;
	struct vma_obs *v;
	size_t nvma;
	/* Boundaries: nvma - 1 (VMAs 2..N start at one). */
	size_t nb;
	uint64_t ns;

	/* Boundaries per arrival, and over them: uptodate, late, waited. */
	uint64_t count[4];
	uint64_t resident;
	uint64_t late;
	uint64_t wait_ns;
	/* Major faults over all touches. */
	uint64_t maj;

	struct testfs_extents fetched;
	struct testfs_extents by_cause[NCAUSES];
	/* Pages fetched outside the file, and inside each VMA. */
	uint64_t outside;
	uint64_t *inside;

	/* Per policy: boundaries missing when touched, read-around faults. */
	uint64_t miss[RA_NPOLICIES];
	uint64_t faults[RA_NPOLICIES];
	/* The median read's delay under the storage model. */
	uint64_t med;
};

/* mprotect_split_report.c: the result as the report's sections. */
void mprotect_split_report(struct scenario_ctx *ctx, const void *result);

#endif
