// SPDX-License-Identifier: MIT
/*
 * testfs-scenario --html FILE: the run as one self-contained HTML page
 * (report/). The page draws the first phase that read the scenario's
 * file (the one its story is about), the VMAs the scenario mapped in it,
 * and, from the finished report, the policy verdicts and the plain
 * words.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "report.h"
#include "report_i.h"
#include "scenario.h"

int html_begin(struct scenario_ctx *ctx, const char *path)
{
	/*
	 * A path that cannot be written fails now, not after the run;
	 * nothing is created yet, and a FIFO's reader sees only the page.
	 */
	int err = outfile_check(path);

	if (err)
		return err;
	ctx->html = malloc(sizeof(*ctx->html));
	if (!ctx->html)
		return -ENOMEM;
	htmlrep_init(ctx->html);
	return 0;
}

int html_phase(struct scenario_ctx *ctx, struct session *s, const char *phase,
	       const struct testfs_log *log)
{
	char sub[512];
	int err;

	if (!ctx->html || ctx->html->nranges ||
	    testfs_log_requests(log, s->file) == 0)
		return 0;
	if (htmlrep_file(ctx->html, s->file, s->file_pages) < 0)
		return -ENOMEM;
	err = htmlrep_add_snapshot(ctx->html, log);
	if (err)
		return err;
	ctx->html->ra_kb = s->ra_kb;
	snprintf(sub, sizeof(sub),
		 "phase \"%s\" · kernel %s · read_ahead_kb %u (%u pages) · "
		 "FUSE max_pages %u · storage model %s · kernel tracing %s",
		 phase, s->kernel, s->ra_kb, s->ra_pages, s->max_pages,
		 s->model[0] ? s->model : "none",
		 s->tracing > 0 ? "on" : "off");
	return htmlrep_set_subtitle(ctx->html, sub);
}

int html_vma(struct scenario_ctx *ctx, const char *file, uint64_t first,
	     uint64_t last, int prot)
{
	if (!ctx->html || !ctx->html->nranges)
		return 0;
	return htmlrep_add_vma(ctx->html, file, first, last, prot);
}

/*
 * A page age as one sentence in @buf (cut to @len), for the plain words:
 * the counts, then each histogram bucket with pages as "FROM-BELOW us N".
 */
static void page_age_words(const struct testfs_page_age *a, char *buf,
			   size_t len)
{
	size_t used;
	unsigned i, shown = 0;

	used = (size_t)snprintf(
		buf, len,
		"Page age (kernel tracing): of %" PRIu64
		" page fetches, %" PRIu64
		" waited on their read at their first access (late), "
		"%" PRIu64 " never, %" PRIu64
		" only mapped by fault-around; the others, by age after the "
		"reply:",
		a->pages, a->late, a->never, a->mapped);
	for (i = 0; i < TESTFS_AGE_BUCKETS && used < len; i++) {
		uint64_t lo = testfs_age_bucket_us(i);

		if (!a->bucket[i])
			continue;
		used += (size_t)snprintf(buf + used, len - used,
					 "%s %" PRIu64 "-", shown++ ? "," : "",
					 lo);
		if (used < len && i + 1 < TESTFS_AGE_BUCKETS)
			used += (size_t)snprintf(buf + used, len - used,
						 "%" PRIu64, lo ? 2 * lo : 1);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 " us %" PRIu64, a->bucket[i]);
	}
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s.",
					 shown ? "" : " none");
	if (used < len && a->reads_untraced)
		snprintf(
			buf + used, len - used,
			" Never: read(2) accesses were not traced: pages only "
			"read(2) touched count as never (the daemon traces "
			"them with --trace-reads, which scenarios leave off).");
}

/* The report's verdict rows and its plain words, as the page shows them. */
static int from_facts(struct htmlrep *h, const struct report_facts *f)
{
	char words[1024];
	size_t i;
	int err = 0;

	for (i = 0; i < f->nverdicts && !err; i++)
		err = htmlrep_add_verdict(
			h, f->verdicts[i].policy, f->verdicts[i].expected,
			f->verdicts[i].observed, f->verdicts[i].verdict);
	for (i = 0; i < f->nnotes && !err; i++)
		err = htmlrep_add_note(h, f->notes[i]);
	if (!err && f->have_page_age) {
		page_age_words(&f->page_age, words, sizeof(words));
		err = htmlrep_add_note(h, words);
	}
	return err;
}

int html_finish(struct scenario_ctx *ctx, const char *path)
{
	char title[128];
	int err;

	snprintf(title, sizeof(title), "testfs-scenario run %s", ctx->sc->name);
	err = htmlrep_set_title(ctx->html, title);
	if (!err)
		err = from_facts(ctx->html, &ctx->rep->facts);
	if (!err)
		err = htmlrep_write_file(ctx->html, path);
	return err;
}

void html_end(struct scenario_ctx *ctx)
{
	if (!ctx->html)
		return;
	htmlrep_free(ctx->html);
	free(ctx->html);
	ctx->html = NULL;
}
