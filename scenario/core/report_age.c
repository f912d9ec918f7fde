// SPDX-License-Identifier: MIT
/*
 * The page-age part of a report: how long the fetched pages waited in
 * the page cache before the program first came to them
 * (testfs_log_page_age()), as counts and a histogram table.
 */
#include "scenario.h"

void report_page_age(struct rnode *parent, const struct testfs_log *log,
		     const char *name)
{
	struct testfs_page_age a = TESTFS_PAGE_AGE_INIT;
	struct rnode *obj, *table, *row;
	unsigned i;

	if (!testfs_log_traced(log) || testfs_log_page_age(log, name, &a))
		return;
	report_keep_page_age(&a);
	obj = rep_obj(parent, "page_age",
		      "age of the fetched pages at their first access "
		      "(tracing)");
	rep_uint(obj, "fetches", "page fetches", a.pages, "pages");
	rep_uint(obj, "late", "first access waited on the read (late)", a.late,
		 "pages");
	rep_uint(obj, "never",
		 a.reads_untraced ? "never accessed (or read(2), not traced)"
				  : "never accessed",
		 a.never, "pages");
	if (a.reads_untraced)
		rep_str(obj, "never_why", "why never",
			"read(2) accesses were not traced: pages only read(2) "
			"touched count as never (the daemon traces them with "
			"--trace-reads, which scenarios leave off)");
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
