// SPDX-License-Identifier: MIT
/*
 * The text renderer of the report: sections, "label: value unit" lines,
 * tables (or blocks when a table would be wider than REPORT_COLUMNS),
 * wrapped lists and prose, verbatim blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_i.h"
#include "strbuf.h"

static const char *label_of(const struct rnode *n, char *buf, size_t size)
{
	const char *s = n->label ? n->label : n->key ? n->key : "";
	size_t i;

	if (n->label)
		return s;
	snprintf(buf, size, "%s", s);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '_')
			buf[i] = ' ';
	return buf;
}

static bool is_number(const struct rnode *n)
{
	return n->type == R_UINT || n->type == R_INT || n->type == R_NUM;
}

static void value_text(const struct rnode *n, struct strbuf *sb, bool unit)
{
	if (!rnode_scalar(n, sb, false) &&
	    (n->type == R_STR || n->type == R_NULL || n->type == R_TEXT))
		strbuf_adds(sb, n->str ? n->str : "-");
	if (unit && n->unit && n->type != R_NULL)
		strbuf_addf(sb, " %s", n->unit);
}

void text_wrap(struct strbuf *out, const char *s, int col, int indent,
	       int columns)
{
	bool first = true;

	while (*s) {
		int len;

		while (*s == ' ')
			s++;
		len = (int)strcspn(s, " ");
		if (!len)
			break;
		if (!first && col + 1 + len > columns) {
			strbuf_addf(out, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			strbuf_addc(out, ' ');
			col++;
		}
		strbuf_add(out, s, (size_t)len);
		col += len;
		first = false;
		s += len;
	}
	strbuf_addc(out, '\n');
}

/* Appends @s wrapped at REPORT_COLUMNS; @col is where it starts. */
static void wrap(struct strbuf *out, const char *s, int col, int indent)
{
	text_wrap(out, s, col, indent, REPORT_COLUMNS);
}

/* "LABEL: " at @indent; returns the column after it. */
static int label_prefix(const struct rnode *n, struct strbuf *out, int indent)
{
	char lb[128];
	const char *l = label_of(n, lb, sizeof(lb));

	strbuf_addf(out, "%*s%s: ", indent, "", l);
	return indent + (int)strlen(l) + 2;
}

static void text_node(const struct rnode *n, struct strbuf *out, int indent);

/* Rows as blocks: the first column as a heading, the others below it. */
static void text_blocks(const struct rnode *t, struct strbuf *out, int indent)
{
	size_t r, c;

	for (r = 0; r < t->n; r++) {
		const struct rnode *row = t->kids[r];
		struct strbuf sb = STRBUF_INIT;
		char lb[128];

		if (!row->n)
			continue;
		value_text(row->kids[0], &sb, true);
		strbuf_addf(out, "%*s- %s: %s\n", indent, "",
			    label_of(row->kids[0], lb, sizeof(lb)),
			    sb.data ? sb.data : "");
		strbuf_free(&sb);
		for (c = 1; c < row->n; c++)
			text_node(row->kids[c], out, indent + 4);
	}
}

static void text_table(const struct rnode *t, struct strbuf *out, int indent)
{
	const struct rnode *head;
	size_t ncol, c, r;
	int *width, total;
	char lb[128];

	if (!t->n)
		return;
	head = t->kids[0];
	ncol = head->n;
	width = calloc(ncol ? ncol : 1, sizeof(*width));
	if (!width)
		return;
	for (c = 0; c < ncol; c++)
		width[c] = (int)strlen(label_of(head->kids[c], lb, sizeof(lb)));
	/* label_of() may return @lb: nothing else uses it below. */
	for (r = 0; r < t->n; r++) {
		for (c = 0; c < ncol && c < t->kids[r]->n; c++) {
			struct strbuf sb = STRBUF_INIT;

			value_text(t->kids[r]->kids[c], &sb, false);
			if ((int)sb.len > width[c])
				width[c] = (int)sb.len;
			strbuf_free(&sb);
		}
	}
	total = indent;
	for (c = 0; c < ncol; c++)
		total += width[c] + 2;
	if (total - 2 > REPORT_COLUMNS) {
		free(width);
		text_blocks(t, out, indent);
		return;
	}
	strbuf_addf(out, "%*s", indent, "");
	for (c = 0; c < ncol; c++) {
		const struct rnode *k = head->kids[c];

		const char *l = label_of(k, lb, sizeof(lb));

		if (is_number(k) || c + 1 < ncol)
			strbuf_addf(out, is_number(k) ? "%*s" : "%-*s",
				    width[c], l);
		else
			strbuf_adds(out, l);
		strbuf_adds(out, c + 1 < ncol ? "  " : "\n");
	}
	for (r = 0; r < t->n; r++) {
		strbuf_addf(out, "%*s", indent, "");
		for (c = 0; c < ncol && c < t->kids[r]->n; c++) {
			const struct rnode *k = t->kids[r]->kids[c];
			struct strbuf sb = STRBUF_INIT;
			const char *v;

			value_text(k, &sb, false);
			v = sb.data ? sb.data : "";
			if (is_number(k))
				strbuf_addf(out, "%*s", width[c], v);
			else if (c + 1 < ncol)
				strbuf_addf(out, "%-*s", width[c], v);
			else
				strbuf_adds(out, v);
			strbuf_free(&sb);
			strbuf_adds(out, c + 1 < ncol ? "  " : "");
		}
		strbuf_addc(out, '\n');
	}
	free(width);
}

static void text_node(const struct rnode *n, struct strbuf *out, int indent)
{
	char lb[128];
	size_t i;

	if (n->json_only)
		return;
	switch (n->type) {
	case R_SECTION:
		strbuf_addf(out, "\n== %s ==\n", label_of(n, lb, sizeof(lb)));
		for (i = 0; i < n->n; i++) {
			/* Paragraphs in a row get a blank line between. */
			if (i && n->kids[i]->type == R_TEXT &&
			    n->kids[i - 1]->type == R_TEXT)
				strbuf_addc(out, '\n');
			text_node(n->kids[i], out, 0);
		}
		break;
	case R_OBJ:
		strbuf_addf(out, "%*s%s:\n", indent, "",
			    label_of(n, lb, sizeof(lb)));
		for (i = 0; i < n->n; i++)
			text_node(n->kids[i], out, indent + 2);
		break;
	case R_LIST: {
		struct strbuf sb = STRBUF_INIT;
		int col = label_prefix(n, out, indent);

		for (i = 0; i < n->n; i++) {
			value_text(n->kids[i], &sb, false);
			strbuf_addc(&sb, ' ');
		}
		if (!n->n)
			strbuf_adds(&sb, "(none)");
		wrap(out, sb.data ? sb.data : "", col, indent + 4);
		strbuf_free(&sb);
		break;
	}
	case R_TABLE:
		if (n->label || n->key)
			strbuf_addf(out, "%*s%s:\n", indent, "",
				    label_of(n, lb, sizeof(lb)));
		if (!n->n)
			strbuf_addf(out, "%*s(none)\n", indent + 2, "");
		text_table(n, out, indent + 2);
		break;
	case R_TEXT:
		strbuf_addf(out, "%*s", indent, "");
		wrap(out, n->str ? n->str : "", indent, indent);
		break;
	case R_LINES:
		for (i = 0; i < n->n; i++)
			strbuf_addf(out, "%*s%s\n", indent, "",
				    n->kids[i]->str ? n->kids[i]->str : "");
		break;
	default: {
		struct strbuf sb = STRBUF_INIT;
		int col = label_prefix(n, out, indent);

		value_text(n, &sb, true);
		wrap(out, sb.data ? sb.data : "", col, indent + 4);
		strbuf_free(&sb);
		break;
	}
	}
}

int report_print_text(struct report *r, FILE *f)
{
	struct strbuf out = STRBUF_INIT;
	size_t i;
	int err;

	if (r->root.label)
		strbuf_addf(&out, "%s\n", r->root.label);
	for (i = 0; i < r->root.n; i++)
		text_node(r->root.kids[i], &out, 0);
	err = report_write(r, &out, f);
	strbuf_free(&out);
	return err;
}
