/* SPDX-License-Identifier: MIT */
/*
 * vma-boundary's typed result: what the touch phase observed, the
 * policies' predictions and what follows from them, computed once by
 * vma_boundary.c; vma_boundary_report.c renders it.
 */
#ifndef SCENARIO_VMA_BOUNDARY_H
#define SCENARIO_VMA_BOUNDARY_H

#include "scenario.h"

/* What a readahead policy would have fetched for this VMA. */
struct vma_policy {
	struct testfs_extents pred;
	/* Pages predicted before and after the VMA. */
	uint64_t before;
	uint64_t after;
	/* The prediction is the pages fetched; its windows are the reads. */
	bool same_pages;
	bool same_reads;
	/* "matches", "same pages, other reads", ... */
	const char *verdict;
};

/* How the first read sat against the VMA start. */
struct vma_start {
	const struct testfs_record *r0;
	/* Its last page; half a window (where read-around starts). */
	uint64_t last, half;
	/* Read-around clamped at page 0; cut at the end of the file. */
	bool clamped_at_zero, cut_at_eof;
};

/* How readahead went on at the VMA end. */
struct vma_end {
	/* The read running across the VMA end, and those wholly past it
	 * (the first, the last, how many). */
	const struct testfs_record *cross, *first_past, *last_past;
	uint64_t past;
	/* Async and read-around reads (without tracing: all but the first
	 * are taken as async). */
	uint64_t async, arounds;
	bool traced;
};

struct vma_result {
	const struct session *s;
	/* PROT_EXEC mapping; the fio matrix ran. */
	bool exec;
	bool throughput;

	/* The VMA and what the touch phase saw. */
	uint64_t first;
	uint64_t last;
	uint64_t ns;
	uint64_t before;
	uint64_t after;
	uint64_t inside;
	struct testfs_cachestat cs;
	int cs_err;
	struct testfs_extents fetched;
	struct testfs_extents touched;
	/* Pages that faulted (kernel tracing; empty without). */
	struct testfs_extents faults;
	struct testfs_extents by_cause[NCAUSES];
	struct read_list reads;
	struct testfs_log *log;
	struct fio_matrix fio;

	/* The analysis. */
	struct vma_policy policy[RA_NPOLICIES];
	struct vma_start start;
	struct vma_end end;
	/* Pages cached for the file (cachestat, else pages fetched). */
	uint64_t cached;
};

/* vma_boundary_report.c: the result as the report's sections. */
void vma_boundary_report(struct scenario_ctx *ctx, const void *result);

#endif
