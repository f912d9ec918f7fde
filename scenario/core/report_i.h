/* SPDX-License-Identifier: MIT */
/*
 * The report tree, shared by its builder and JSON renderer (report.c)
 * and its text renderer (report_text.c). Not for scenarios: they use
 * report.h.
 */
#ifndef SCENARIO_REPORT_I_H
#define SCENARIO_REPORT_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <testfs.h>

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

/* A policy verdict row, as report_verdict() made it. */
struct report_verdict_row {
	char *policy;
	char *expected;
	char *observed;
	char *verdict;
};

/*
 * What the HTML page shows beside the log, kept typed as the scenario
 * fills the tree (html_page.c renders them; nothing reads the tree back).
 */
struct report_facts {
	struct report_verdict_row *verdicts;
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

#endif
