// SPDX-License-Identifier: MIT
/*
 * Writes the page: a fixed HTML frame, the model as one JSON object in a
 * <script type="application/json"> element, and the page's own CSS and
 * JS (page.css, page-*.js, compiled in), which draw the SVG pictures when
 * the page is opened. Nothing refers to another file or to the network,
 * so the page can be mailed, attached to a bug, or opened from disk.
 *
 * Sizes stay small because the data is one compact array per record and
 * the drawing happens in the browser: a 16k-page sequential read is a
 * few hundred records, not 16k elements.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "outfile.h"
#include "strbuf.h"

/* Generated from page.css and page-*.js (embed.c). */
extern const char htmlrep_page_css[];
extern const char htmlrep_page_boot_js[];
extern const char htmlrep_page_js[];
extern const char htmlrep_page_matrix_js[];

/*
 * A JSON string that is safe inside <script>: '<' is written as \u003c,
 * so no "</script>" or "<!--" can end the element early.
 */
static void add_jstr(struct strbuf *sb, const char *s)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t i;

	json_add_cstring(&tmp, s ? s : "");
	if (tmp.oom) {
		sb->oom = true;
		return;
	}
	for (i = 0; i < tmp.len; i++) {
		if (tmp.data[i] == '<')
			strbuf_adds(sb, "\\u003c");
		else
			strbuf_addc(sb, tmp.data[i]);
	}
	strbuf_free(&tmp);
}

static void add_html(struct strbuf *sb, const char *s)
{
	static const char *const entity[256] = {
		['<'] = "&lt;",
		['>'] = "&gt;",
		['&'] = "&amp;",
		['"'] = "&quot;",
	};

	for (; s && *s; s++) {
		if (entity[(unsigned char)*s])
			strbuf_adds(sb, entity[(unsigned char)*s]);
		else
			strbuf_addc(sb, *s);
	}
}

/* A page number, or -1 for "none". */
static void add_page(struct strbuf *sb, uint64_t page)
{
	if (page == HTMLREP_NO_PAGE)
		strbuf_adds(sb, ",-1");
	else
		strbuf_addf(sb, ",%" PRIu64, page);
}

static uint64_t time_origin(const struct htmlrep *r)
{
	uint64_t t0 = UINT64_MAX;
	size_t i;

	for (i = 0; i < r->nranges; i++)
		if (r->ranges[i].t_ns < t0)
			t0 = r->ranges[i].t_ns;
	for (i = 0; i < r->naccesses; i++)
		if (r->accesses[i].t_ns < t0)
			t0 = r->accesses[i].t_ns;
	for (i = 0; i < r->nmarks; i++)
		if (r->marks[i].t_ns < t0)
			t0 = r->marks[i].t_ns;
	return t0 == UINT64_MAX ? 0 : t0;
}

/* Nanoseconds since @t0; a time before it (clock glitch) is 0. */
static uint64_t rel(uint64_t t, uint64_t t0)
{
	return t > t0 ? t - t0 : 0;
}

static void add_ranges(struct strbuf *sb, const struct htmlrep *r, uint64_t t0)
{
	size_t i;

	/*
	 * [seq, file, first, pages, cause, window, trigger, marker, t, done,
	 *  delay, err, late, ra_start, ra_size, ra_async, ra_pages, by_read];
	 * page-model.js names the columns in the same order (R_*).
	 */
	strbuf_adds(sb, ",\"ranges\":[");
	for (i = 0; i < r->nranges; i++) {
		const struct htmlrep_range *g = &r->ranges[i];

		strbuf_addf(sb, "%s[%" PRIu64 ",%zu,%" PRIu64 ",%" PRIu64 ",",
			    i ? "," : "", g->seq, g->file, g->first, g->pages);
		add_jstr(sb, g->cause);
		strbuf_addf(sb, ",%" PRIu32, g->window);
		add_page(sb, g->trigger);
		add_page(sb, g->marker);
		strbuf_addf(sb,
			    ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId32
			    ",%d",
			    rel(g->t_ns, t0), rel(g->done_ns, t0), g->delay_ns,
			    g->err, g->late ? 1 : 0);
		add_page(sb, g->window ? g->ra_start : HTMLREP_NO_PAGE);
		strbuf_addf(sb, ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%d]",
			    g->ra_size, g->ra_async, g->ra_pages,
			    g->by_read ? 1 : 0);
	}
	strbuf_adds(sb, "]");
}

static void add_accesses(struct strbuf *sb, const struct htmlrep *r,
			 uint64_t t0)
{
	size_t i;

	/* [seq, file, type, first, pages, t, end, events, late] */
	strbuf_adds(sb, ",\"accesses\":[");
	for (i = 0; i < r->naccesses; i++) {
		const struct htmlrep_access *a = &r->accesses[i];

		strbuf_addf(sb, "%s[%" PRIu64 ",%zu,", i ? "," : "", a->seq,
			    a->file);
		add_jstr(sb, a->type);
		strbuf_addf(sb,
			    ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			    ",%" PRIu32 ",%" PRIu32 "]",
			    a->first, a->pages, rel(a->t_ns, t0),
			    rel(a->end_ns, t0), a->events, a->late);
	}
	strbuf_adds(sb, "]");
}

static void add_data(struct strbuf *sb, const struct htmlrep *r)
{
	uint64_t t0 = time_origin(r);
	size_t i;

	strbuf_adds(sb, "{\"title\":");
	add_jstr(sb, r->title ? r->title : "testfs: what readahead did");
	strbuf_adds(sb, ",\"subtitle\":");
	add_jstr(sb, r->subtitle);
	strbuf_addf(sb,
		    ",\"lost\":%" PRIu64
		    ",\"raKb\":%u,\"pageSize\":%u,\"notes\":[",
		    r->lost, r->ra_kb, r->page_size ? r->page_size : 4096);
	for (i = 0; i < r->nnotes; i++) {
		strbuf_adds(sb, i ? "," : "");
		add_jstr(sb, r->notes[i]);
	}
	strbuf_adds(sb, "],\"files\":[");
	for (i = 0; i < r->nfiles; i++) {
		strbuf_adds(sb, i ? ",[" : "[");
		add_jstr(sb, r->files[i].name);
		strbuf_addf(sb, ",%" PRIu64 "]", r->files[i].pages);
	}
	/* [file, first, last, prot bits] */
	strbuf_adds(sb, "],\"vmas\":[");
	for (i = 0; i < r->nvmas; i++)
		strbuf_addf(sb, "%s[%zu,%" PRIu64 ",%" PRIu64 ",%d]",
			    i ? "," : "", r->vmas[i].file, r->vmas[i].first,
			    r->vmas[i].last, r->vmas[i].prot);
	strbuf_adds(sb, "]");
	add_ranges(sb, r, t0);
	add_accesses(sb, r, t0);
	strbuf_adds(sb, ",\"marks\":[");
	for (i = 0; i < r->nmarks; i++) {
		strbuf_addf(sb, "%s[%" PRIu64 ",%" PRIu64 ",", i ? "," : "",
			    r->marks[i].seq, rel(r->marks[i].t_ns, t0));
		add_jstr(sb, r->marks[i].text);
		strbuf_adds(sb, "]");
	}
	strbuf_adds(sb, "],\"verdicts\":[");
	for (i = 0; i < r->nverdicts; i++) {
		strbuf_adds(sb, i ? ",[" : "[");
		add_jstr(sb, r->verdicts[i].policy);
		strbuf_adds(sb, ",");
		add_jstr(sb, r->verdicts[i].expected);
		strbuf_adds(sb, ",");
		add_jstr(sb, r->verdicts[i].observed);
		strbuf_adds(sb, ",");
		add_jstr(sb, r->verdicts[i].verdict);
		strbuf_adds(sb, "]");
	}
	/* [title, label, [counts...]] */
	strbuf_adds(sb, "],\"hists\":[");
	for (i = 0; i < r->nhists; i++) {
		size_t k;

		strbuf_adds(sb, i ? ",[" : "[");
		add_jstr(sb, r->hists[i].title);
		strbuf_adds(sb, ",");
		add_jstr(sb, r->hists[i].label);
		strbuf_adds(sb, ",[");
		for (k = 0; k < r->hists[i].n; k++)
			strbuf_addf(sb, "%s%" PRIu64, k ? "," : "",
				    r->hists[i].counts[k]);
		strbuf_adds(sb, "]]");
	}
	strbuf_adds(sb, "]}");
}

char *htmlrep_data(const struct htmlrep *r)
{
	struct strbuf sb = STRBUF_INIT;

	add_data(&sb, r);
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

bool htmlrep_data_safe(const char *data)
{
	return data && data[0] == '{' && !strchr(data, '<');
}

static void page_head(struct strbuf *sb, const char *title)
{
	strbuf_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
			"<meta charset=\"utf-8\">\n<title>");
	add_html(sb, title);
	strbuf_adds(sb, "</title>\n<style>\n");
	strbuf_adds(sb, htmlrep_page_css);
	strbuf_adds(sb, "</style>\n</head>\n<body>\n"
			"<noscript><p>This page draws its pictures with "
			"JavaScript; the data is in the element "
			"#data.</p></noscript>\n"
			"<div id=\"page\"></div>\n"
			"<div id=\"status\" data-state=\"loading\"></div>\n"
			"<script type=\"application/json\" id=\"data\">");
}

/*
 * After the data: the script. page-*.js are the body of testfsPage(D,
 * root, M), called once for a run, or once per kernel by
 * page-matrix.js; nothing is kept in the global scope.
 */
static int page_tail(struct strbuf *sb, const char *run, FILE *f)
{
	int err = 0;

	strbuf_adds(sb, "</script>\n<script>\n(function () {\n"
			"'use strict';\n");
	strbuf_adds(sb, htmlrep_page_boot_js);
	strbuf_adds(sb, "function testfsPage(D, root, M) {\n");
	strbuf_adds(sb, htmlrep_page_js);
	strbuf_adds(sb, "}\n");
	strbuf_adds(sb, run);
	strbuf_adds(sb, "})();\n</script>\n</body>\n</html>\n");
	if (sb->oom) {
		strbuf_free(sb);
		return -ENOMEM;
	}
	errno = 0;
	if (fwrite(sb->data, 1, sb->len, f) != sb->len || fflush(f))
		err = errno ? -errno : -EIO;
	strbuf_free(sb);
	return err;
}

int htmlrep_write(const struct htmlrep *r, FILE *f)
{
	struct strbuf sb = STRBUF_INIT;

	page_head(&sb, r->title ? r->title : "testfs: what readahead did");
	add_data(&sb, r);
	return page_tail(&sb,
			 "testfsPage(JSON.parse(document.getElementById("
			 "'data').textContent), document.getElementById("
			 "'page'), null);\n",
			 f);
}

int htmlrep_write_matrix(FILE *f, const char *title, const char *subtitle,
			 const struct htmlrep_kernel *k, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	page_head(&sb, title);
	strbuf_adds(&sb, "{\"title\":");
	add_jstr(&sb, title);
	strbuf_adds(&sb, ",\"subtitle\":");
	add_jstr(&sb, subtitle);
	strbuf_adds(&sb, ",\"kernels\":[");
	for (i = 0; i < n; i++) {
		strbuf_adds(&sb, i ? ",{\"label\":" : "{\"label\":");
		add_jstr(&sb, k[i].label);
		strbuf_adds(&sb, ",\"release\":");
		add_jstr(&sb, k[i].release);
		strbuf_adds(&sb, ",\"status\":");
		add_jstr(&sb, k[i].status);
		strbuf_adds(&sb, ",\"reason\":");
		add_jstr(&sb, k[i].reason);
		strbuf_adds(&sb, ",\"data\":");
		/* Checked again: it goes into <script> as it is. */
		strbuf_adds(&sb,
			    htmlrep_data_safe(k[i].data) ? k[i].data : "null");
		strbuf_adds(&sb, "}");
	}
	strbuf_adds(&sb, "]}");
	return page_tail(&sb, htmlrep_page_matrix_js, f);
}

int htmlrep_write_file(const struct htmlrep *r, const char *path)
{
	struct outfile o;
	int err = outfile_open(&o, path);

	if (err)
		return err;
	err = htmlrep_write(r, o.f);
	/* Not renamed over @path, nor flushed into a FIFO, when cut short. */
	if (err && !o.err)
		o.err = err;
	return outfile_close(&o);
}
