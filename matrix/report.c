// SPDX-License-Identifier: MIT
/*
 * What testfs-matrix writes: the --json document, the KTAP document (one
 * subtest per kernel) and the side-by-side table of what differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"
#include "jsonv.h"
#include "arch.h"
#include "matrix.h"
#include "outfile.h"

#include <errno.h>

static const char *const status_name[] = { "ok", "failed", "skipped" };

void touch_collect(struct run *r, const struct capture *c)
{
	const struct frame *out = capture_frame(c, "result");
	const struct frame *cfg = capture_frame(c, "config");
	unsigned long long pages = 0, reqs = 0, before = 0, after = 0;
	struct strbuf sb = STRBUF_INIT;
	const char *s, *why;
	char whyline[512] = "";
	struct jv *conf;

	if (!out)
		return;
	s = strstr(out->data, " pages in ");
	if (s) {
		while (s > out->data && s[-1] >= '0' && s[-1] <= '9')
			s--;
		sscanf(s, "%llu pages in %llu requests", &pages, &reqs);
	}
	s = strstr(out->data, " before the range");
	if (s) {
		while (s > out->data && s[-1] >= '0' && s[-1] <= '9')
			s--;
		sscanf(s, "%llu before the range, %llu after it", &before,
		       &after);
	}
	why = strstr(out->data, "why");
	if (why)
		sscanf(why, "%511[^\n]", whyline);
	strbuf_addf(&sb,
		    "{\"pages\":%llu,\"requests\":%llu,\"before\":%llu,"
		    "\"after\":%llu,\"why\":",
		    pages, reqs, before, after);
	json_add_cstring(&sb, whyline);
	strbuf_adds(&sb, ",\"output\":");
	json_add_string(&sb, out->data, out->len);
	conf = cfg ? jv_parse(cfg->data, cfg->len) : NULL;
	if (conf) {
		strbuf_adds(&sb, ",\"config\":");
		strbuf_add(&sb, cfg->data, cfg->len);
	}
	jv_free(conf);
	strbuf_adds(&sb, "}");
	r->result = strbuf_detach(&sb, &r->result_len);
}

/* The KTAP of one kernel for a command other than suite. */
static void ktap_plain(struct strbuf *sb, const struct run *r, size_t i)
{
	char line[160];
	const char *s;

	if (r->status == RUN_SKIPPED) {
		strbuf_addf(sb, "ok %zu %s # SKIP %s\n", i, r->k.spec,
			    r->reason);
		return;
	}
	if (r->status == RUN_FAILED) {
		strbuf_addf(sb, "# %s: %s\n", r->k.spec, r->reason);
		for (s = r->console_tail; s && *s;) {
			size_t n = strcspn(s, "\n");

			snprintf(line, sizeof(line), "%.*s", (int)n, s);
			strbuf_addf(sb, "# %s\n", line);
			s += n + (s[n] == '\n');
		}
	}
	strbuf_addf(sb, "%s %zu %s\n", r->status == RUN_OK ? "ok" : "not ok", i,
		    r->k.spec);
}

char *ktap_document(const struct run *runs, size_t n, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addf(&sb, "KTAP version 1\n# testfs-matrix %s\n1..%zu\n", what,
		    n);
	for (i = 0; i < n; i++) {
		const struct run *r = &runs[i];
		char arch[64];

		arch_describe(&r->k, arch, sizeof(arch));
		if (arch[0])
			strbuf_addf(&sb, "# %s: %s\n", r->k.spec, arch);
		if (r->ktap && r->status != RUN_SKIPPED) {
			strbuf_adds(&sb, r->ktap);
			strbuf_addf(&sb, "%s %zu %s\n",
				    r->status == RUN_OK ? "ok" : "not ok",
				    i + 1, r->k.spec);
		} else {
			ktap_plain(&sb, r, i + 1);
		}
	}
	return strbuf_detach(&sb, NULL);
}

static void add_str_or_null(struct strbuf *sb, const char *s)
{
	if (s)
		json_add_cstring(sb, s);
	else
		strbuf_adds(sb, "null");
}

char *json_document(const struct matrix *m, const struct run *runs, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int a;

	strbuf_adds(&sb, "{\"command\":[");
	for (a = 0; a < m->argc; a++) {
		if (a)
			strbuf_adds(&sb, ",");
		json_add_cstring(&sb, m->argv[a]);
	}
	strbuf_adds(&sb, "],\"runs\":[");
	for (i = 0; i < n; i++) {
		const struct run *r = &runs[i];
		struct jv *check;
		char *ktap;

		strbuf_adds(&sb, i ? ",\n{\"spec\":" : "\n{\"spec\":");
		json_add_cstring(&sb, r->k.spec);
		strbuf_adds(&sb, ",\"release\":");
		add_str_or_null(&sb, r->k.release[0] ? r->k.release : NULL);
		strbuf_adds(&sb, ",\"arch\":");
		add_str_or_null(&sb, r->k.arch[0] ? r->k.arch : NULL);
		if (r->k.page_size)
			strbuf_addf(&sb, ",\"page_size\":%u", r->k.page_size);
		else
			strbuf_adds(&sb, ",\"page_size\":null");
		strbuf_addf(&sb, ",\"status\":\"%s\",\"reason\":",
			    status_name[r->status]);
		json_add_cstring(&sb, r->reason);
		strbuf_addf(&sb, ",\"seconds\":%.1f,\"accel\":", r->seconds);
		add_str_or_null(&sb, r->accel[0] ? r->accel : NULL);
		/* Only whole JSON goes in: a cut result would spoil it all. */
		check = r->caps ? jv_parse(r->caps, strlen(r->caps)) : NULL;
		strbuf_adds(&sb, ",\"kernel\":");
		if (check)
			strbuf_adds(&sb, r->caps);
		else
			strbuf_adds(&sb, "null");
		jv_free(check);
		check = r->result ? jv_parse(r->result, r->result_len) : NULL;
		strbuf_adds(&sb, ",\"result\":");
		if (check)
			strbuf_add(&sb, r->result, r->result_len);
		else
			strbuf_adds(&sb, "null");
		jv_free(check);
		/*
		 * This kernel's KTAP as a whole document, as --ktap would
		 * write it had this kernel run alone: the subtest, and the
		 * result line that closes it (a KTAP parser wants both).
		 */
		strbuf_adds(&sb, ",\"ktap\":");
		ktap = r->ktap ? ktap_document(r, 1, m->argv[0]) : NULL;
		add_str_or_null(&sb, ktap);
		free(ktap);
		strbuf_adds(&sb, ",\"console_tail\":");
		add_str_or_null(&sb, r->console_tail);
		strbuf_adds(&sb, "}");
	}
	strbuf_adds(&sb, "\n]}\n");
	return strbuf_detach(&sb, NULL);
}

/* ---- the table ---- */

#define COL 24

/* A short rendering of @v into @buf. */
static void show(const struct jv *v, char *buf, size_t len)
{
	size_t i, off = 0;

	if (!v) {
		snprintf(buf, len, "-");
		return;
	}
	switch (v->type) {
	case JV_NULL:
		snprintf(buf, len, "null");
		break;
	case JV_BOOL:
		snprintf(buf, len, "%s", v->b ? "yes" : "no");
		break;
	case JV_NUM:
		snprintf(buf, len, "%g", v->num);
		break;
	case JV_STR:
		snprintf(buf, len, "%s", v->str);
		break;
	case JV_OBJ:
		buf[0] = '\0';
		for (i = 0; i < v->n && off < len; i++) {
			char one[64];

			show(v->vals[i], one, sizeof(one));
			off += (size_t)snprintf(buf + off, len - off, "%s%s %s",
						i ? ", " : "", v->keys[i], one);
		}
		if (!v->n)
			snprintf(buf, len, "none");
		break;
	case JV_ARR:
		snprintf(buf, len, "[%zu]", v->n);
		break;
	}
}

/*
 * The next line of a cell, from *@off: up to COL characters, cut after
 * the last whole word that fits (inside a word only when one word is
 * longer than a column). *@off moves past it and the blanks after it.
 */
static void cell_piece(const char *s, size_t *off, char piece[COL + 1])
{
	const char *p = s + *off;
	size_t cut = strlen(p);

	if (cut > COL) {
		for (cut = COL; cut > 0 && p[cut] != ' '; cut--)
			;
		if (!cut)
			cut = COL;
	}
	memcpy(piece, p, cut);
	piece[cut] = '\0';
	p += cut;
	while (*p == ' ')
		p++;
	*off = (size_t)(p - s);
}

/* One row of the table; a cell wider than its column goes on below. */
static void row(const char *label, char cells[][COL * 4], size_t n, bool mark)
{
	char piece[COL + 1];
	size_t off[16] = { 0 }, i;
	bool more = true, first = true;

	while (more) {
		more = false;
		if (first)
			printf("%c %-30.30s", mark ? '*' : ' ', label);
		else
			printf("  %-30s", "");
		for (i = 0; i < n && i < 16; i++) {
			cell_piece(cells[i], &off[i], piece);
			printf(" %-*s", COL, piece);
			more |= cells[i][off[i]] != '\0';
		}
		printf("\n");
		first = false;
	}
}

/* Prints @path's row if its values differ (or always, with @always). */
static bool field_row(struct jv **res, size_t n, const char *label,
		      const char *path, bool always)
{
	char cells[16][COL * 4];
	bool differ = false, any = false;
	size_t i;

	for (i = 0; i < n && i < 16; i++) {
		const struct jv *v = res[i] ? jv_get(res[i], path) : NULL;

		any |= v != NULL;
		show(v, cells[i], sizeof(cells[i]));
		if (i && strcmp(cells[i], cells[0]))
			differ = true;
	}
	if (any && (differ || always))
		row(label, cells, n < 16 ? n : 16, differ);
	return any && differ;
}

/* Whether test names @a and @b ("BIN:...") belong to one binary. */
static bool same_binary(const char *a, const char *b)
{
	size_t n = strcspn(a, ":");

	return n == strcspn(b, ":") && strncmp(a, b, n) == 0;
}

static void suite_rows(const struct run *runs, size_t n)
{
	size_t i, j, k, shown = 0;
	static const char *const word[] = { "ok", "NOT OK", "skip" };

	for (i = 0; i < n; i++) {
		for (j = 0; j < runs[i].ntests; j++) {
			const char *name = runs[i].tests[j].name;
			char cells[16][COL * 4];
			bool differ = false, seen_before = false;

			for (k = 0; k < i && !seen_before; k++) {
				size_t t;

				for (t = 0; t < runs[k].ntests; t++)
					if (!strcmp(runs[k].tests[t].name,
						    name))
						seen_before = true;
			}
			if (seen_before)
				continue;
			for (k = 0; k < n && k < 16; k++) {
				const struct test_result *t = NULL;
				size_t q;

				for (q = 0; q < runs[k].ntests; q++)
					if (!strcmp(runs[k].tests[q].name,
						    name))
						t = &runs[k].tests[q];
				/* Its binary skipped as a whole: "BIN:*". */
				for (q = 0; !t && q < runs[k].ntests; q++)
					if (runs[k].tests[q].result == T_SKIP &&
					    same_binary(runs[k].tests[q].name,
							name))
						t = &runs[k].tests[q];
				snprintf(cells[k], sizeof(cells[k]), "%s",
					 !t ? "-"
					 : t->result == T_OK && t->diag
						 ? "ok (policy differs)"
						 : word[t->result]);
				if (k && strcmp(cells[k], cells[0]))
					differ = true;
			}
			if (differ) {
				row(name, cells, n < 16 ? n : 16, true);
				shown++;
			}
		}
	}
	if (!shown)
		printf("  every test has the same result on every kernel\n");
}

/* The table's rows of a result, by label */
static const struct {
	const char *label, *path;
} fields[] = {
	{ "requests", "fetched.requests" },
	{ "pages fetched", "fetched.pages_fetched" },
	{ "pages before", "fetched.before" },
	{ "pages after", "fetched.after" },
	{ "causes", "fetched.causes" },
	{ "boundaries ready", "fetched.boundaries.ready" },
	{ "boundaries in flight", "fetched.boundaries.in_flight" },
	{ "boundaries missing", "fetched.boundaries.missing" },
	{ "touch pages", "pages" },
	{ "touch requests", "requests" },
	{ "touch before", "before" },
	{ "touch after", "after" },
	{ "why", "why" },
	{ "suite ok", "ok" },
	{ "suite not ok", "not_ok" },
	{ "suite skipped", "skipped" },
	{ "policy differences", "policy_differences" },
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

bool result_field_known(const char *name)
{
	size_t j;

	for (j = 0; j < NFIELDS; j++)
		if (!strcmp(name, fields[j].label))
			return true;
	return !strcmp(name, "verdicts") || !strncmp(name, "verdict: ", 9) ||
	       (strchr(name, '.') && !strchr(name, ' '));
}

void result_field_labels(char *buf, size_t len)
{
	size_t j, used = 0;

	buf[0] = '\0';
	for (j = 0; j < NFIELDS && used < len; j++)
		used += (size_t)snprintf(buf + used, len - used, "%s'%s'",
					 j ? ", " : "", fields[j].label);
}

int result_fields(const struct jv *res, const char *name,
		  void (*fn)(const char *label, const char *value, void *arg),
		  void *arg)
{
	char path[64], label[128], value[COL * 4];
	const char *pol, *p = name;
	int found = 0;
	size_t j;

	for (j = 0; j < NFIELDS; j++)
		if (!strcmp(name, fields[j].label))
			p = fields[j].path;
	if (!strcmp(name, "verdicts") || !strncmp(name, "verdict: ", 9)) {
		for (j = 0; j < 8; j++) {
			snprintf(path, sizeof(path),
				 "verdicts.policies.%zu.policy", j);
			pol = jv_str(res, path);
			if (!pol)
				break;
			snprintf(label, sizeof(label), "verdict: %s", pol);
			if (strcmp(name, "verdicts") && strcmp(name, label))
				continue;
			snprintf(path, sizeof(path),
				 "verdicts.policies.%zu.verdict", j);
			show(jv_get(res, path), value, sizeof(value));
			fn(label, value, arg);
			found++;
		}
		return found;
	}
	if (!jv_get(res, p))
		return 0;
	show(jv_get(res, p), value, sizeof(value));
	fn(name, value, arg);
	return 1;
}

void print_table(const struct matrix *m, const struct run *runs, size_t n)
{
	char cells[16][COL * 4];
	struct jv *res[16] = { 0 }, *caps[16] = { 0 };
	size_t i, j, nn = n < 16 ? n : 16;
	bool differ = false;

	printf("\n");
	for (i = 0; i < nn; i++)
		snprintf(cells[i], sizeof(cells[i]), "%s", runs[i].k.spec);
	row("kernel", cells, nn, false);
	for (i = 0; i < nn; i++)
		snprintf(cells[i], sizeof(cells[i]), "%s",
			 runs[i].k.release[0] ? runs[i].k.release : "?");
	row("release", cells, nn, false);
	for (i = 0; i < nn; i++) {
		arch_describe(&runs[i].k, cells[i], sizeof(cells[i]));
		if (!cells[i][0])
			snprintf(cells[i], sizeof(cells[i]), "?");
	}
	row("arch, page size", cells, nn, false);
	for (i = 0; i < nn; i++)
		snprintf(cells[i], sizeof(cells[i]), "%s %.1f s",
			 status_name[runs[i].status], runs[i].seconds);
	row("status", cells, nn, false);
	for (i = 0; i < nn; i++)
		res[i] = runs[i].result
				 ? jv_parse(runs[i].result, runs[i].result_len)
				 : NULL;
	/*
	 * What the kernel offers, from the guest itself: the scenario's own
	 * "causes available" says whether tracing was on, and a 6.12 traces
	 * faults but proves no cause (every read is unknown there).
	 */
	for (i = 0; i < nn; i++)
		caps[i] = runs[i].caps
				  ? jv_parse(runs[i].caps, strlen(runs[i].caps))
				  : NULL;
	differ |= field_row(caps, nn, "FUSE", "fuse", true);
	differ |= field_row(caps, nn, "causes proven (readahead:*)",
			    "readahead_events", true);
	differ |= field_row(caps, nn, "filemap events", "filemap_events", true);
	differ |= field_row(caps, nn, "cachestat", "cachestat", true);
	for (j = 0; j < NFIELDS; j++)
		differ |= field_row(res, nn, fields[j].label, fields[j].path,
				    true);
	/* Verdicts, by policy name (row i of the first run that has it). */
	for (j = 0; j < 8; j++) {
		char path[64], label[64];
		const char *pol = NULL;

		for (i = 0; i < nn && !pol; i++) {
			snprintf(path, sizeof(path),
				 "verdicts.policies.%zu.policy", j);
			pol = res[i] ? jv_str(res[i], path) : NULL;
		}
		if (!pol)
			break;
		snprintf(label, sizeof(label), "verdict: %s", pol);
		snprintf(path, sizeof(path), "verdicts.policies.%zu.verdict",
			 j);
		differ |= field_row(res, nn, label, path, true);
	}
	if (strcmp(m->argv[0], "suite") == 0) {
		printf("tests whose result differs between kernels:\n");
		suite_rows(runs, nn);
	} else if (!differ) {
		printf("  (no difference in these fields)\n");
	}
	printf("('*': differs between kernels)\n");
	for (i = 0; i < nn; i++) {
		jv_free(res[i]);
		jv_free(caps[i]);
	}
}

static int write_out(const char *path, const char *text, const char *what)
{
	int err = outfile_write(path, text, strlen(text));

	if (err)
		fprintf(stderr, "testfs-matrix: %s %s: %s\n", what, path,
			strerror(-err));
	return err;
}

int matrix_finish(const struct matrix *m, const struct run *runs, size_t n,
		  const char *json, const char *ktap)
{
	int status = 0;
	char *doc;

	print_table(m, runs, n);
	if (json) {
		doc = json_document(m, runs, n);
		if (!doc || write_out(json, doc, "--json"))
			status = 1;
		free(doc);
	}
	if (ktap) {
		doc = ktap_document(runs, n, m->argv[0]);
		if (!doc || write_out(ktap, doc, "--ktap"))
			status = 1;
		free(doc);
	}
	return status;
}
