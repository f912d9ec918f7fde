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
	struct rnode **kids;
	size_t n;
	size_t cap;
};

struct report {
	struct rnode root;
	bool oom;
};

#endif
