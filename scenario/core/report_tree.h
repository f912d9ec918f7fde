/* SPDX-License-Identifier: MIT */
/*
 * A scenario's report as a small tree, rendered either as text (sections,
 * "label: value unit" lines, tables, wrapped prose, verbatim blocks, at
 * most 100 columns) or as one JSON object with the same content (keys,
 * numbers, strings, arrays). Scenarios fill the tree; they never print.
 */
#ifndef SCENARIO_REPORT_TREE_H
#define SCENARIO_REPORT_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define REPORT_COLUMNS 100

struct report;
struct rnode;
struct testfs_page_age;

struct report *report_new(const char *title);
void report_free(struct report *r);
struct rnode *report_root(struct report *r);

/* A top-level section: "== TITLE ==" in text, key in JSON. */
struct rnode *rep_section(struct report *r, const char *key, const char *title);
/*
 * The "In plain words" section ("explanation"): its prose (rep_text())
 * is also what the HTML page shows in words.
 */
struct rnode *report_plain_words(struct report *r);
/* A nested object: "LABEL:" and its children indented. */
struct rnode *rep_obj(struct rnode *parent, const char *key, const char *label);
/* An array of scalars: one line "LABEL: a b c ...", wrapped. */
struct rnode *rep_list(struct rnode *parent, const char *key,
		       const char *label);
/* An array of objects: a table with a column per key of its rows. */
struct rnode *rep_table(struct rnode *parent, const char *key,
			const char *label);
/* A row of a table (an object without a label). */
struct rnode *rep_row(struct rnode *table);

/*
 * Leaves. @key names the JSON member (NULL inside lists); @label is the
 * text label (NULL: the key with '_' as ' '); @unit follows the value in
 * text only, so keys should carry it ("elapsed_ms").
 */
void rep_uint(struct rnode *p, const char *key, const char *label, uint64_t v,
	      const char *unit);
void rep_int(struct rnode *p, const char *key, const char *label, int64_t v,
	     const char *unit);
void rep_num(struct rnode *p, const char *key, const char *label, double v,
	     int decimals, const char *unit);
void rep_bool(struct rnode *p, const char *key, const char *label, bool v);
void rep_str(struct rnode *p, const char *key, const char *label,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* JSON null; text "LABEL: WHY". */
void rep_null(struct rnode *p, const char *key, const char *label,
	      const char *why);
/* Prose: a JSON string; in text a paragraph wrapped at 100 columns. */
void rep_text(struct rnode *p, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A verbatim block (the page map): JSON array of strings. */
struct rnode *rep_lines(struct rnode *p, const char *key);
void rep_line(struct rnode *lines, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Marks @n as shown only in the text report, or only in JSON. */
void rep_text_only(struct rnode *n);
void rep_json_only(struct rnode *n);
/* The last child added to @p (to mark it). */
struct rnode *rep_last(struct rnode *p);

/*
 * Typed facts the HTML page shows, kept as the report is filled: a
 * policy verdict row (report_verdict() keeps each) and the first page
 * age shown (report_page_age()).
 */
void report_keep_verdict(const char *policy, const char *expected,
			 const char *observed, const char *verdict);
void report_keep_page_age(const struct testfs_page_age *a);

struct strbuf;

/*
 * Appends the words of @s to @out, wrapped at @columns: the first line
 * goes on from column @col, the others are indented by @indent; a
 * newline ends it.
 */
void text_wrap(struct strbuf *out, const char *s, int col, int indent,
	       int columns);

/* Writes the report; returns 0 or -errno (out of memory, write error). */
int report_print_text(struct report *r, FILE *f);
int report_print_json(struct report *r, FILE *f);

#endif
