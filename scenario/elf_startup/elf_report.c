// SPDX-License-Identifier: MIT
/*
 * elf-startup's report: the binary and its segments, what the start-up
 * touched, the pages fetched per segment and outside every segment, the
 * policies' verdicts, the VMA-limited comparison and the page map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_startup.h"

static const char *pl(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void report_binary(struct scenario_ctx *ctx, const struct elf_result *r)
{
	const struct elf_image *img = &r->img;
	struct rnode *sec = rep_section(ctx->rep, "binary", "The binary");
	struct rnode *t, *row, *o;
	size_t i;

	rep_str(sec, "path", NULL, "%s%s", r->path,
		r->is_default ? " (the testfs daemon: the default)" : "");
	rep_str(sec, "served", "served as",
		"%s in a private --backing "
		"directory",
		r->served);
	rep_uint(sec, "bytes", NULL, img->size, NULL);
	rep_uint(sec, "pages", NULL, img->pages, NULL);
	rep_str(sec, "type", NULL, "%s", img->type == 3 ? "ET_DYN" : "ET_EXEC");
	rep_str(sec, "entry", "entry point", "%#llx",
		(unsigned long long)img->entry);
	rep_uint(sec, "loads", "PT_LOAD segments", img->nseg, NULL);
	rep_bool(sec, "holes", "holes between segments (PROT_NONE)",
		 img->has_holes);
	t = rep_table(sec, "segments", "PT_LOAD segments");
	for (i = 0; i < img->nseg; i++) {
		const struct elf_seg *s = &img->seg[i];

		row = rep_row(t);
		rep_uint(row, "segment", NULL, i, NULL);
		rep_str(row, "flags", NULL, "%s", elf_flags_text(s->flags));
		rep_str(row, "vaddr", NULL, "%#llx",
			(unsigned long long)s->vaddr);
		rep_str(row, "offset", NULL, "%#llx",
			(unsigned long long)s->offset);
		rep_uint(row, "filesz", NULL, s->filesz, NULL);
		rep_uint(row, "memsz", NULL, s->memsz, NULL);
		rep_uint(row, "first_page", "first page", s->first_page, NULL);
		rep_uint(row, "pages", NULL, s->npages, NULL);
	}
	if (img->has_dynamic)
		rep_str(sec, "dynamic", "PT_DYNAMIC", "%#llx, %llu bytes",
			(unsigned long long)img->dyn_vaddr,
			(unsigned long long)img->dyn_size);
	else
		rep_null(sec, "dynamic", "PT_DYNAMIC",
			 "none (a static program: no relocations)");
	if (img->has_relro)
		rep_str(sec, "relro", "PT_GNU_RELRO", "%#llx, %llu bytes",
			(unsigned long long)img->relro_vaddr,
			(unsigned long long)img->relro_size);
	else
		rep_null(sec, "relro", "PT_GNU_RELRO", "none");
	o = rep_obj(sec, "relocations", "relocations");
	rep_uint(o, "relr", "DT_RELR targets", img->relr.count, NULL);
	rep_uint(o, "rela", "DT_RELA entries", img->rela.count, NULL);
	rep_uint(o, "jmprel", "DT_JMPREL entries", img->jmprel.count, NULL);
	rep_uint(o, "text_reads", "targets read (segment without PF_W)",
		 r->plan.textrel_reads, NULL);
}

static void report_done(struct scenario_ctx *ctx, const struct elf_result *r)
{
	struct rnode *sec = rep_section(ctx->rep, "done", "What was done");
	struct rnode *t, *row;
	unsigned i;

	rep_text(sec, "what",
		 "From a cold cache, as a start-up does: read(2) the first "
		 "%llu bytes (the ELF header%s); map the %zu PT_LOAD "
		 "segment%s as glibc's _dl_map_segments() does, MAP_PRIVATE: "
		 "one mapping of the whole span from the first segment's "
		 "offset with its protection, %severy further segment "
		 "MAP_FIXED at its place with its own protection, the end of "
		 "the last file page of a segment with .bss zeroed by hand "
		 "(a write) and anonymous pages after it; read the dynamic "
		 "section; for each relocation (DT_RELR, DT_RELA, then "
		 "DT_JMPREL, as glibc applies them) read its entry and write "
		 "its target; mprotect PT_GNU_RELRO read-only and read each "
		 "of its pages; read the entry point's page; read one page "
		 "in %u of each executable segment from its first page "
		 "(text_stride: deterministic, and spread evenly over the "
		 "code, as start-up code is scattered through .text).",
		 (unsigned long long)r->plan.header_bytes,
		 r->plan.phdr_len ? ", then the program headers past it"
				  : " and program headers",
		 r->img.nseg, pl(r->img.nseg),
		 r->img.has_holes ? "the holes between segments PROT_NONE, "
				  : "",
		 r->plan.text_stride);
	t = rep_table(sec, "steps", "steps");
	for (i = 0; i < ELF_NSTEPS; i++) {
		row = rep_row(t);
		rep_str(row, "step", NULL, "%s", elf_step_name(i));
		rep_uint(row, "accesses", NULL, r->run.accesses[i], NULL);
		rep_uint(row, "pages", "file pages",
			 r->run.step_touched[i].pages, NULL);
		rep_uint(row, "new_pages", "first touched", r->step_new[i],
			 NULL);
	}
	rep_uint(sec, "touched_pages", "file pages touched",
		 r->run.touched.pages, NULL);
	rep_uint(sec, "vmas", "file-backed VMAs after the RELRO mprotect",
		 r->run.vmas_seen, "(/proc/self/maps)");
	rep_num(sec, "startup_ms", "start-up time", r->run.ns / 1e6, 2, "ms");
}

static void report_fetched(struct scenario_ctx *ctx, const struct elf_result *r)
{
	struct rnode *sec =
		rep_section(ctx->rep, "fetched", "What the kernel fetched");
	struct rnode *t, *row, *o;
	char ext[512];
	size_t i;

	rep_uint(sec, "requests", "FUSE reads", r->reads.n, NULL);
	rep_uint(sec, "pages_fetched", "pages fetched", r->fetched.pages, NULL);
	testfs_extents_format(&r->fetched, ext, sizeof(ext));
	rep_str(sec, "extents", "fetched extents", "%s", ext);
	t = rep_table(sec, "segments",
		      "per segment (before/after: the gaps "
		      "up to the neighbouring segments, or the file's ends)");
	for (i = 0; i < r->img.nseg; i++) {
		const struct elf_seg *s = &r->img.seg[i];
		const struct elf_seg_counts *c = &r->seg[i];

		row = rep_row(t);
		rep_uint(row, "segment", NULL, i, NULL);
		rep_str(row, "flags", NULL, "%s", elf_flags_text(s->flags));
		rep_str(row, "file_pages", "file pages", "%llu-%llu",
			(unsigned long long)s->first_page,
			(unsigned long long)(s->first_page + s->npages -
					     (s->npages ? 1 : 0)));
		rep_uint(row, "touched", NULL, c->touched, NULL);
		rep_uint(row, "inside", NULL, c->inside, NULL);
		rep_uint(row, "before", NULL, c->before, NULL);
		rep_uint(row, "after", NULL, c->after, NULL);
	}
	rep_uint(sec, "in_segments", "pages fetched in some segment",
		 r->in_segments, NULL);
	rep_uint(sec, "shared", "pages counted in two segments", r->shared,
		 NULL);
	rep_uint(sec, "outside", "pages fetched that no segment maps",
		 r->outside.pages, NULL);
	testfs_extents_format(&r->outside, ext, sizeof(ext));
	rep_str(sec, "outside_extents", "no segment maps", "%s", ext);
	o = rep_obj(sec, "checks", "checks");
	rep_bool(o, "page_cache_equals_log",
		 "page cache (mincore) = pages fetched, none twice",
		 r->consistent == 0);
	if (r->consistent)
		rep_str(o, "page_cache_why", "why not", "%s",
			r->consistent_why ? r->consistent_why
					  : "could not check");
	rep_bool(o, "bytes_equal", "bytes read through the mount = the file",
		 r->bytes_equal == 1);
	rep_uint(o, "touched_not_fetched", "touched pages never fetched",
		 r->not_fetched.pages, NULL);
	report_causes(sec, r->s, r->log, r->by_cause);
	report_usage(sec, r->log, r->s->file);
	report_page_age(sec, r->log, r->s->file);
	report_windows(sec, r->log, r->s->file, 3, 3);
}

static void report_policies(struct scenario_ctx *ctx,
			    const struct elf_result *r)
{
	static const char *const names[RA_NPOLICIES] = {
		[RA_POLICY_VMA_LIMITED] = "VMA-limited (2026 patch)",
		[RA_POLICY_VMA_CONDITIONAL] =
			"conditional VMA limit (follow-up)",
	};
	struct rnode *sec = report_verdicts(ctx->rep), *t, *row;
	char exp[96], obs[96];
	unsigned p;

	rep_text(sec, "how",
		 "Expected pages from the model of mm/readahead.c "
		 "(design-ra-model.md) driven by the same accesses: the "
		 "header read(2), then the first access of each page in the "
		 "VMA it has at that time (a page once mapped faults no "
		 "more). %s",
		 r->exec_clamp
			 ? "This kernel is 6.17 or later: faults on the "
			   "executable segment read from the fault, clamped "
			   "to the VMA, under every policy, and async windows "
			   "end on a multiple of 4 pages."
		 : r->async_round
			 ? "This kernel is 6.16: faults on the executable "
			   "segment read around as any other (the clamp to "
			   "the VMA came in 6.17), and async windows end on a "
			   "multiple of 4 pages."
			 : "This kernel is older than 6.16: faults on the "
			   "executable segment read around as any other, and "
			   "async windows are not rounded to 4 pages.");
	snprintf(obs, sizeof(obs), "%llu pages, %llu outside the segments",
		 (unsigned long long)r->fetched.pages,
		 (unsigned long long)r->outside.pages);
	t = rep_table(sec, "policies", NULL);
	for (p = 0; p < RA_NPOLICIES; p++) {
		const struct elf_policy *v = &r->policy[p];

		snprintf(exp, sizeof(exp),
			 "%llu pages, %llu outside the segments",
			 (unsigned long long)v->pred.pages,
			 (unsigned long long)v->outside);
		row = report_verdict(t,
				     p		     ? names[p]
				     : r->exec_clamp ? "current kernels (6.17+)"
				     : r->async_round
					     ? "current kernels (6.16)"
					     : "current kernels (before 6.16)",
				     exp, obs, v->verdict);
		verdict_num(row, "expected_pages", v->pred.pages);
		verdict_num(row, "expected_outside", v->outside);
		verdict_num(row, "observed_pages", r->fetched.pages);
		verdict_num(row, "observed_outside", r->outside.pages);
		verdict_policy(row, (enum ra_policy)p);
	}
}

static void report_claim(struct scenario_ctx *ctx, const struct elf_result *r)
{
	struct rnode *sec = rep_section(ctx->rep, "vma_limit",
					"Against a VMA-limited kernel");
	uint64_t obs = r->fetched.pages;
	uint64_t cur = r->policy[RA_POLICY_CURRENT].pred.pages;
	uint64_t lim = r->policy[RA_POLICY_VMA_LIMITED].pred.pages;
	uint64_t cond = r->policy[RA_POLICY_VMA_CONDITIONAL].pred.pages;

	rep_uint(sec, "observed_pages", "pages fetched here", obs, NULL);
	rep_uint(sec, "model_current_pages", "model, current kernels", cur,
		 NULL);
	rep_uint(sec, "model_limited_pages", "model, VMA-limited", lim, NULL);
	rep_uint(sec, "model_conditional_pages", "model, conditional limit",
		 cond, NULL);
	rep_num(sec, "fewer_than_observed_pct",
		"VMA-limited fetches fewer than observed by",
		r->fewer_than_observed_pct, 1, "%");
	rep_num(sec, "fewer_than_current_pct",
		"VMA-limited fetches fewer than the current model by",
		r->fewer_than_current_pct, 1, "%");
	rep_text(sec, "claim",
		 "The 2026 patch was motivated by \"~20%% fewer pages pulled "
		 "into the cache\" on Android ELF files. On this binary, "
		 "with read_ahead_kb %u, the start-up fetched %llu page%s; a "
		 "VMA-limited kernel would fetch %llu (the model, same "
		 "accesses): %.1f%% fewer. The difference is what read-around "
		 "pulls in from beyond the VMA of the faulting segment: "
		 "pages of a neighbouring segment (the start-up may never "
		 "touch them) and file data no segment maps (section "
		 "headers, symbol tables, debug information).",
		 r->s->ra_pages * 4, (unsigned long long)obs, pl(obs),
		 (unsigned long long)lim, r->fewer_than_observed_pct);
}

static void report_map(struct scenario_ctx *ctx, const struct elf_result *r)
{
	struct rnode *sec = rep_section(ctx->rep, "page_map", "Page map");
	struct testfs_extent v[ELF_MAX_LOADS];
	struct pagemap m;
	size_t i, n = 0;

	for (i = 0; i < r->img.nseg; i++)
		if (r->img.seg[i].npages) {
			v[n].first = r->img.seg[i].first_page;
			v[n].last = r->img.seg[i].first_page +
				    r->img.seg[i].npages - 1;
			if (n && v[n].first <= v[n - 1].last)
				v[n].first = v[n - 1].last + 1;
			if (v[n].first <= v[n].last)
				n++;
		}
	pagemap_init(&m, 0, r->img.pages ? r->img.pages - 1 : 0, PAGEMAP_COLS);
	pagemap_row_vmas(&m, "segments", v, n, "=-");
	pagemap_row_set(&m, "touched", &r->run.touched, '#', ':');
	pagemap_fetched_rows(&m, r->by_cause);
	pagemap_row_set(&m, "current", &r->policy[0].pred, '*', '.');
	pagemap_row_set(&m, "VMA-limited", &r->policy[1].pred, '*', '.');
	pagemap_row_set(&m, "conditional", &r->policy[2].pred, '*', '.');
	pagemap_legend_ranges(&m, "segment start", "segment end",
			      "inside a segment (= and - alternate)",
			      "what the policy would fetch (model)");
	pagemap_emit(&m, sec, "whole_file", "The whole file");
}

void elf_report(struct scenario_ctx *ctx, const void *result)
{
	const struct elf_result *r = result;

	report_binary(ctx, r);
	report_done(ctx, r);
	report_fetched(ctx, r);
	report_policies(ctx, r);
	report_claim(ctx, r);
	report_map(ctx, r);
}
