// SPDX-License-Identifier: MIT
/*
 * testfs-scenario --html FILE: the run as one self-contained HTML page
 * (report/). The page draws the first phase that read the scenario's
 * file (the one its story is about), the VMAs the scenario mapped in it,
 * and, from the finished report, the policy verdicts and the plain
 * words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_i.h"
#include "scenario.h"

int html_begin(struct scenario_ctx *ctx, const char *path)
{
	/* A path that cannot be written fails now, not after the run. */
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fclose(f);
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

static const struct rnode *child(const struct rnode *n, const char *key)
{
	size_t i;

	for (i = 0; n && i < n->n; i++)
		if (n->kids[i]->key && strcmp(n->kids[i]->key, key) == 0)
			return n->kids[i];
	return NULL;
}

static const char *str_of(const struct rnode *row, const char *key)
{
	const struct rnode *n = child(row, key);

	return n && n->type == R_STR && n->str ? n->str : "";
}

/* The report's verdict rows and its plain words, as the page shows them. */
static int from_report(struct htmlrep *h, struct report *rep)
{
	const struct rnode *root = report_root(rep), *sec, *t;
	char words[1024];
	size_t i;
	int err = 0;

	sec = child(root, "verdicts");
	t = child(sec, "policies");
	for (i = 0; t && i < t->n && !err; i++)
		err = htmlrep_add_verdict(h, str_of(t->kids[i], "policy"),
					  str_of(t->kids[i], "expected"),
					  str_of(t->kids[i], "observed"),
					  str_of(t->kids[i], "verdict"));
	sec = child(root, "explanation");
	for (i = 0; sec && i < sec->n && !err; i++)
		if (sec->kids[i]->type == R_TEXT && sec->kids[i]->str)
			err = htmlrep_add_note(h, sec->kids[i]->str);
	if (!err && report_page_age_words(rep, words, sizeof(words)))
		err = htmlrep_add_note(h, words);
	return err;
}

int html_finish(struct scenario_ctx *ctx, const char *path)
{
	char title[128];
	int err;

	snprintf(title, sizeof(title), "testfs-scenario run %s", ctx->sc->name);
	err = htmlrep_set_title(ctx->html, title);
	if (!err)
		err = from_report(ctx->html, ctx->rep);
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
