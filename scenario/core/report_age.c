// SPDX-License-Identifier: MIT
/*
 * The page-age part of a report: how long the fetched pages waited in
 * the page cache before the program first came to them
 * (testfs_log_page_age()), as counts and a histogram table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_i.h"
#include "scenario.h"

void report_page_age(struct rnode *parent, const struct testfs_log *log,
		     const char *name)
{
	struct testfs_page_age a;
	struct rnode *obj, *table, *row;
	unsigned i;

	if (!testfs_log_traced(log) || testfs_log_page_age(log, name, &a))
		return;
	obj = rep_obj(parent, "page_age",
		      "age of the fetched pages at their first access "
		      "(tracing)");
	rep_uint(obj, "fetches", "page fetches", a.pages, "pages");
	rep_uint(obj, "late", "first access waited on the read (late)", a.late,
		 "pages");
	rep_uint(obj, "never", "never accessed", a.never, "pages");
	rep_uint(obj, "mapped", "mapped by fault-around, access not seen",
		 a.mapped, "pages");
	rep_uint(obj, "resolution_us", "resolution", a.resolution_ns / 1000,
		 "us");
	table = rep_table(obj, "histogram", "ages after the reply");
	for (i = 0; i < TESTFS_AGE_BUCKETS; i++) {
		uint64_t lo = testfs_age_bucket_us(i);

		if (!a.bucket[i])
			continue;
		row = rep_row(table);
		rep_uint(row, "from_us", "from (us)", lo, NULL);
		if (i + 1 < TESTFS_AGE_BUCKETS)
			rep_uint(row, "below_us", "below (us)", lo ? 2 * lo : 1,
				 NULL);
		else
			rep_null(row, "below_us", "below (us)", "-");
		rep_uint(row, "pages", NULL, a.bucket[i], NULL);
	}
}

static const struct rnode *kid(const struct rnode *n, const char *key)
{
	size_t i;

	for (i = 0; n && i < n->n; i++)
		if (n->kids[i]->key && strcmp(n->kids[i]->key, key) == 0)
			return n->kids[i];
	return NULL;
}

static uint64_t uint_of(const struct rnode *n, const char *key)
{
	const struct rnode *k = kid(n, key);

	return k && k->type == R_UINT ? k->v.u : 0;
}

int report_page_age_words(struct report *rep, char *buf, size_t len)
{
	const struct rnode *root = report_root(rep), *age = NULL, *t;
	size_t i, used;

	for (i = 0; i < root->n && !age; i++)
		age = kid(root->kids[i], "page_age");
	if (!age || !len)
		return 0;
	used = (size_t)snprintf(
		buf, len,
		"Page age (kernel tracing): of %" PRIu64
		" page fetches, %" PRIu64
		" waited on their read at their first access (late), "
		"%" PRIu64 " never, %" PRIu64
		" only mapped by fault-around; the others, by age after the "
		"reply:",
		uint_of(age, "fetches"), uint_of(age, "late"),
		uint_of(age, "never"), uint_of(age, "mapped"));
	t = kid(age, "histogram");
	for (i = 0; t && i < t->n && used < len; i++) {
		const struct rnode *below = kid(t->kids[i], "below_us");

		used += (size_t)snprintf(buf + used, len - used,
					 "%s %" PRIu64 "-", i ? "," : "",
					 uint_of(t->kids[i], "from_us"));
		if (used < len && below && below->type == R_UINT)
			used += (size_t)snprintf(buf + used, len - used,
						 "%" PRIu64, below->v.u);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 " us %" PRIu64,
						 uint_of(t->kids[i], "pages"));
	}
	if (used < len)
		snprintf(buf + used, len - used, "%s.",
			 t && t->n ? "" : " none");
	return 1;
}
