/* SPDX-License-Identifier: MIT */
/*
 * The report tree, shared by its builder (report.c) and its renderers
 * (report_json.c, report_text.c, html_page.c). Not for scenarios: they
 * use report_tree.h.
 */
#ifndef SCENARIO_REPORT_I_H
#define SCENARIO_REPORT_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <testfs.h>

#include "report.h"
#include "report_tree.h"

enum rtype {
	R_SECTION,
	R_OBJ,
	R_LIST,
	R_TABLE,
	R_UINT,
	R_INT,
	R_NUM,
	R_BOOL,
	R_STR,
	R_NULL,
	R_TEXT,
	R_LINES,
};

struct rnode {
	enum rtype type;
	char *key;
	char *label;
	char *unit;
	char *str;
	union {
		uint64_t u;
		int64_t i;
		double d;
		bool b;
	} v;
	int decimals;
	/* Shown only in text, or only in JSON. */
	bool text_only;
	bool json_only;
	/* The "In plain words" section: its prose is kept in the facts. */
	bool plain_words;
	struct rnode **kids;
	size_t n;
	size_t cap;
};

/*
 * What the HTML page shows beside the log, kept typed as the scenario
 * fills the tree (html_page.c renders them; nothing reads the tree back).
 */
struct report_facts {
	/* The policy verdict rows, as report_verdict() made them. */
	struct htmlrep_verdict *verdicts;
	size_t nverdicts;
	/* The paragraphs of the "In plain words" section, in order. */
	char **notes;
	size_t nnotes;
	/* The first page age a section showed (report_page_age()). */
	bool have_page_age;
	struct testfs_page_age page_age;
};

struct report {
	struct rnode root;
	struct report_facts facts;
	bool oom;
};

struct strbuf;

/*
 * Appends the value of a number or boolean leaf to @sb: as text (a
 * non-finite number "-", booleans yes/no) or as JSON (@json: null,
 * true/false). Returns false, appending nothing, for other nodes.
 */
bool rnode_scalar(const struct rnode *n, struct strbuf *sb, bool json);

/*
 * Writes @out, the rendered report, to @f; returns 0, -ENOMEM when the
 * report or @out ran out of memory (nothing written), or -EIO.
 */
int report_write(const struct report *r, const struct strbuf *out, FILE *f);

#endif
