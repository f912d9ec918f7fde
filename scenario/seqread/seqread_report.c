// SPDX-License-Identifier: MIT
/*
 * seqread's report: the typed result (seqread.h) as sections. Nothing is
 * computed here but the text around the numbers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "seqread.h"

static void explain(struct scenario_ctx *ctx, const struct seqread_result *r)
{
	const struct session *s = r->s;
	const struct run *runs = r->runs, *fast, *slow;
	struct rnode *sec = report_plain_words(ctx->rep);
	uint64_t bytes = s->file_pages * s->page_size;
	size_t i;

	rep_text(sec, "windows",
		 "Whatever the engine and the block size, the kernel read "
		 "the file in readahead windows: the largest read testfs saw "
		 "was %llu pages, and read_ahead_kb allows %u. %s",
		 (unsigned long long)r->biggest, s->ra_pages,
		 r->fuse_io_pages
			 ? "This kernel is " RA_FUSE_IO_PAGES_SINCE
			   " or later: FUSE sets the bdi's io_pages to its "
			   "max_pages, so a read(2) larger than ra_pages is "
			   "read in one window of up to max_pages pages."
			 : "A read(2) larger than ra_pages is read in windows "
			   "of at most ra_pages (or the bdi's io_pages of 128 "
			   "KiB, if larger), not in one window.");
	/* The sequence is named up to 255 characters here. */
	for (i = 0; i < r->nruns; i++)
		if (runs[i].modelled && runs[i].block == 4096 &&
		    runs[i].model_same)
			rep_text(
				sec, "ramp",
				"read(2) of 4 KiB blocks (%u-byte pages): the "
				"window started at 4 pages and grew on each marker hit (4x "
				"while small, then 2x) up to ra_pages, "
				"exactly as current kernels do: %.255s ...",
				s->page_size, runs[i].model_text);
	if (r->nruns < 2)
		return;
	fast = &runs[r->fast];
	slow = &runs[r->slow];
	rep_text(sec, "fastest",
		 "Fastest: %s with %zu KiB blocks, %.0f MB/s; "
		 "slowest: %s with %zu KiB blocks, %.0f MB/s, under "
		 "the %s model.",
		 engine_name[fast->engine], fast->block / 1024,
		 mb_per_s(bytes, fast->ns), engine_name[slow->engine],
		 slow->block / 1024, mb_per_s(bytes, slow->ns), s->model);
}

static void throughput(struct scenario_ctx *ctx, const struct seqread_result *r)
{
	uint64_t bytes = r->s->file_pages * r->s->page_size;
	struct rnode *sec, *table, *obj, *row;
	const struct run *run;
	char key[64];
	size_t i;

	sec = rep_section(ctx->rep, "throughput", "Throughput and windows");
	table = rep_table(sec, "runs", NULL);
	for (i = 0; i < r->nruns; i++) {
		run = &r->runs[i];
		row = rep_row(table);
		rep_str(row, "engine", NULL, "%s", engine_name[run->engine]);
		rep_uint(row, "block_kib", "block KiB", run->block / 1024,
			 NULL);
		rep_uint(row, "iodepth", NULL, run->qd, NULL);
		rep_num(row, "ms", NULL, run->ns / 1e6, 1, "ms");
		rep_num(row, "MB_s", "MB/s", mb_per_s(bytes, run->ns), 1,
			"MB/s");
		rep_uint(row, "requests", "FUSE reads", run->reads.n, NULL);
		rep_uint(row, "pages_fetched", "pages fetched", run->fetched,
			 NULL);
		rep_uint(row, "steady_window", "steady window pages",
			 run->steady, NULL);
	}
	rep_text(sec, "story",
		 "Story 3: a 2024 series fixing readahead quirks gave "
		 "sequential 4 KiB reads +22%% (sync), +14%% (libaio), +18%% "
		 "(posixaio), 1 MiB reads unchanged. Compare runs across "
		 "kernels with the same PARAMs.");
	obj = rep_obj(sec, "windows", "window sequences (first page,pages)");
	for (i = 0; i < r->nruns; i++) {
		run = &r->runs[i];
		snprintf(key, sizeof(key), "%s_%zuk", engine_name[run->engine],
			 run->block / 1024);
		report_requests(rep_obj(obj, key, key), &run->reads, 14);
	}
}

static void verdicts(struct scenario_ctx *ctx, const struct seqread_result *r)
{
	struct rnode *sec = report_verdicts(ctx->rep), *table, *row;
	const struct run *run;
	size_t i;

	table = rep_table(sec, "policies", NULL);
	for (i = 0; i < r->nruns; i++) {
		char obs[256] = "", name[96];
		size_t k, used = 0;

		run = &r->runs[i];
		snprintf(name, sizeof(name), "current kernels%s, %s bs=%zuk",
			 !run->modelled || run->block / r->s->page_size <=
						   r->s->ra_pages
				 ? ""
			 : r->fuse_io_pages ? " (" RA_FUSE_IO_PAGES_SINCE "+)"
					    : " (before " RA_FUSE_IO_PAGES_SINCE
					      ")",
			 engine_name[run->engine], run->block / 1024);
		if (!run->modelled) {
			report_verdict(table, name,
				       "not modelled (concurrent reads)", "-",
				       "not modelled");
			continue;
		}
		for (k = 0; k < run->reads.n && k < 12; k++)
			used += (size_t)snprintf(
				obs + used, sizeof(obs) - used, "%s(%llu,%llu)",
				k ? " " : "",
				(unsigned long long)run->reads.v[k]->page,
				(unsigned long long)run->reads.v[k]->pages);
		row = report_verdict(table, name, run->model_text, obs,
				     run->model_same ? "matches" : "differs");
		verdict_num(row, "compared_reads", k);
		verdict_num(row, "observed_reads", run->reads.n);
		verdict_num(row, "io_pages", r->io_pages);
		rep_bool(row, "matches", NULL, run->model_same);
		rep_json_only(rep_last(row));
	}
	report_verdict(table, "VMA-limited", "not modelled (no mapping)", "-",
		       "not modelled");
}

/* The page map of the first two runs' first 8 windows at full size. */
static void page_map(struct scenario_ctx *ctx, const struct seqread_result *r)
{
	const struct session *s = r->s;
	struct rnode *sec = rep_section(ctx->rep, "page_map", "Page map");
	char key[64], title[128];
	size_t i, k;

	for (i = 0; i < r->nruns && i < 2; i++) {
		const struct run *run = &r->runs[i];
		struct testfs_extents by_cause[NCAUSES] = {
			TESTFS_EXTENTS_INIT
		};
		uint64_t last = 8ull * s->ra_pages;
		struct testfs_extent *req;
		struct pagemap m;
		unsigned c;

		if (last > s->file_pages - 1)
			last = s->file_pages - 1;
		req = calloc(run->reads.n + 1, sizeof(*req));
		if (!req)
			break;
		for (k = 0; k < run->reads.n; k++) {
			req[k].first = run->reads.v[k]->page;
			req[k].last = req[k].first + run->reads.v[k]->pages - 1;
		}
		log_fetched_by_cause(run->log, s->file, by_cause);
		pagemap_init(&m, 0, last, 80);
		pagemap_fetched_rows(&m, by_cause);
		pagemap_row_requests(&m, "requests", req, run->reads.n,
				     "one FUSE read");
		snprintf(key, sizeof(key), "%s_%zuk", engine_name[run->engine],
			 run->block / 1024);
		snprintf(title, sizeof(title), "%s, block %zu KiB: the start",
			 engine_name[run->engine], run->block / 1024);
		pagemap_emit(&m, sec, key, title);
		for (c = 0; c < NCAUSES; c++)
			testfs_extents_free(&by_cause[c]);
		free(req);
	}
}

void seqread_report(struct scenario_ctx *ctx, const void *result)
{
	const struct seqread_result *r = result;
	struct rnode *sec = rep_section(ctx->rep, "done", "What was done");

	rep_text(sec, "what",
		 "Read the whole file in order from a cold cache (fresh open, "
		 "so fresh readahead state) with each engine and block size; "
		 "io_uring and POSIX AIO keep up to iodepth reads in flight "
		 "at increasing offsets (fio's rw=read with iodepth).");
	explain(ctx, r);
	throughput(ctx, r);
	verdicts(ctx, r);
	/*
	 * Page age of the first run: read(2) lookups are not traced here, so
	 * it says its "never" counts pages read(2) read (never_why).
	 */
	report_page_age(rep_section(ctx->rep, "page_age", "Page age"),
			r->runs[0].log, r->s->file);
	page_map(ctx, r);
}
