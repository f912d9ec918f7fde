// SPDX-License-Identifier: MIT
/*
 * The report tree: the document a scenario's render step builds from its
 * typed result (sections, objects, tables, lists, leaves with a JSON key
 * and a text label), and the typed facts the HTML page shows. Its
 * renderers: report_json.c, report_text.c, html_page.c.
 */
#include "report_tree.h"
#include "report_i.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static struct report *the_report;

static char *dup_or_null(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d && the_report)
		the_report->oom = true;
	return d;
}

static void node_free(struct rnode *n)
{
	size_t i;

	for (i = 0; i < n->n; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->key);
	free(n->label);
	free(n->unit);
	free(n->str);
}

struct report *report_new(const char *title)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	the_report = r;
	r->root.type = R_OBJ;
	r->root.label = dup_or_null(title);
	return r;
}

static void facts_free(struct report_facts *f)
{
	size_t i;

	htmlrep_verdicts_free(f->verdicts, f->nverdicts);
	for (i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
}

void report_free(struct report *r)
{
	if (!r)
		return;
	node_free(&r->root);
	facts_free(&r->facts);
	if (the_report == r)
		the_report = NULL;
	free(r);
}

struct rnode *report_root(struct report *r)
{
	return &r->root;
}

/*
 * Out of memory: the node is still returned (a static sink) so callers
 * never check, and the report says it failed when printed.
 */
static struct rnode sink;

static struct rnode *add(struct rnode *p, enum rtype type, const char *key,
			 const char *label, const char *unit)
{
	struct rnode *n;

	if (!p || p == &sink)
		return &sink;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct rnode **k = realloc(p->kids, cap * sizeof(*k));

		if (!k)
			goto oom;
		p->kids = k;
		p->cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		goto oom;
	n->type = type;
	n->key = dup_or_null(key);
	n->label = dup_or_null(label);
	n->unit = dup_or_null(unit);
	p->kids[p->n++] = n;
	return n;
oom:
	if (the_report)
		the_report->oom = true;
	return &sink;
}

struct rnode *rep_section(struct report *r, const char *key, const char *title)
{
	return add(&r->root, R_SECTION, key, title, NULL);
}

struct rnode *rep_obj(struct rnode *parent, const char *key, const char *label)
{
	return add(parent, R_OBJ, key, label, NULL);
}

struct rnode *rep_list(struct rnode *parent, const char *key, const char *label)
{
	return add(parent, R_LIST, key, label, NULL);
}

struct rnode *rep_table(struct rnode *parent, const char *key,
			const char *label)
{
	return add(parent, R_TABLE, key, label, NULL);
}

struct rnode *rep_row(struct rnode *table)
{
	return add(table, R_OBJ, NULL, NULL, NULL);
}

void rep_uint(struct rnode *p, const char *key, const char *label, uint64_t v,
	      const char *unit)
{
	add(p, R_UINT, key, label, unit)->v.u = v;
}

void rep_int(struct rnode *p, const char *key, const char *label, int64_t v,
	     const char *unit)
{
	add(p, R_INT, key, label, unit)->v.i = v;
}

void rep_num(struct rnode *p, const char *key, const char *label, double v,
	     int decimals, const char *unit)
{
	struct rnode *n = add(p, R_NUM, key, label, unit);

	n->v.d = v;
	n->decimals = decimals;
}

void rep_bool(struct rnode *p, const char *key, const char *label, bool v)
{
	add(p, R_BOOL, key, label, NULL)->v.b = v;
}

static char *vformat(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* A leaf of @type whose string is @fmt formatted. */
static struct rnode *add_vf(struct rnode *p, enum rtype type, const char *key,
			    const char *label, const char *fmt, va_list ap)
{
	struct rnode *n = add(p, type, key, label, NULL);

	if (n != &sink)
		n->str = vformat(fmt, ap);
	return n;
}

void rep_str(struct rnode *p, const char *key, const char *label,
	     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_vf(p, R_STR, key, label, fmt, ap);
	va_end(ap);
}

void rep_null(struct rnode *p, const char *key, const char *label,
	      const char *why)
{
	struct rnode *n = add(p, R_NULL, key, label, NULL);

	if (n != &sink)
		n->str = dup_or_null(why);
}

/* Appends a copy of @s to the notes of the facts. */
static void keep_note(const char *s)
{
	struct report_facts *f = &the_report->facts;
	char **v = realloc(f->notes, (f->nnotes + 1) * sizeof(*v));

	if (v)
		f->notes = v;
	if (!v || !(v[f->nnotes] = strdup(s)))
		the_report->oom = true;
	else
		f->nnotes++;
}

void rep_text(struct rnode *p, const char *key, const char *fmt, ...)
{
	struct rnode *n;
	va_list ap;

	va_start(ap, fmt);
	n = add_vf(p, R_TEXT, key, NULL, fmt, ap);
	va_end(ap);
	if (n != &sink && n->str && p->plain_words && the_report)
		keep_note(n->str);
}

struct rnode *report_plain_words(struct report *r)
{
	struct rnode *sec = rep_section(r, "explanation", "In plain words");

	if (sec != &sink)
		sec->plain_words = true;
	return sec;
}

void report_keep_verdict(const char *policy, const char *expected,
			 const char *observed, const char *verdict)
{
	struct report_facts *f;
	struct htmlrep_verdict *v, *row;

	if (!the_report)
		return;
	f = &the_report->facts;
	v = realloc(f->verdicts, (f->nverdicts + 1) * sizeof(*v));
	if (!v) {
		the_report->oom = true;
		return;
	}
	f->verdicts = v;
	row = &v[f->nverdicts++];
	row->policy = dup_or_null(policy);
	row->expected = dup_or_null(expected);
	row->observed = dup_or_null(observed);
	row->verdict = dup_or_null(verdict);
}

void report_keep_page_age(const struct testfs_page_age *a)
{
	if (!the_report || the_report->facts.have_page_age)
		return;
	the_report->facts.page_age = *a;
	the_report->facts.have_page_age = true;
}

void rep_text_only(struct rnode *n)
{
	n->text_only = true;
}

void rep_json_only(struct rnode *n)
{
	n->json_only = true;
}

struct rnode *rep_last(struct rnode *p)
{
	return p->n ? p->kids[p->n - 1] : &sink;
}

struct rnode *rep_lines(struct rnode *p, const char *key)
{
	return add(p, R_LINES, key, NULL, NULL);
}

void rep_line(struct rnode *lines, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_vf(lines, R_STR, NULL, NULL, fmt, ap);
	va_end(ap);
}

bool rnode_scalar(const struct rnode *n, struct strbuf *sb, bool json)
{
	switch (n->type) {
	case R_UINT:
		strbuf_addf(sb, "%llu", (unsigned long long)n->v.u);
		return true;
	case R_INT:
		strbuf_addf(sb, "%lld", (long long)n->v.i);
		return true;
	case R_NUM:
		if (isfinite(n->v.d))
			strbuf_addf(sb, "%.*f", n->decimals, n->v.d);
		else
			strbuf_adds(sb, json ? "null" : "-");
		return true;
	case R_BOOL:
		strbuf_adds(sb, n->v.b ? (json ? "true" : "yes")
				       : (json ? "false" : "no"));
		return true;
	default:
		return false;
	}
}

/* Writes @out to @f unless the report or @out ran out of memory. */
int report_write(const struct report *r, const struct strbuf *out, FILE *f)
{
	if (out->oom || r->oom)
		return -ENOMEM;
	if (fwrite(out->data, 1, out->len, f) != out->len || fflush(f))
		return -EIO;
	return 0;
}
