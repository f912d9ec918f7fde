// SPDX-License-Identifier: MIT
/*
 * Set queries on a log snapshot. They sweep over the reads' page ranges
 * (sorted by first page) and never allocate per page: a file can have 2^50
 * pages.
 */
#include "lib_i.h"

#include <errno.h>
#include <stdlib.h>

/*
 * Starts a query into @out (emptied first): the read ranges of @name, as
 * lib_read_ranges() gives them, in *@r.
 */
static int64_t query_start(const struct testfs_log *log, const char *name,
			   struct testfs_extents *out, struct testfs_extent **r)
{
	if (!log || !name || !out)
		return -EINVAL;
	testfs_extents_free(out);
	return lib_read_ranges(log, name, r);
}

/* Ends a query: frees the ranges, and empties @out on error. */
static int query_end(struct testfs_extent *r, struct testfs_extents *out,
		     int err)
{
	free(r);
	if (err)
		testfs_extents_free(out);
	return err;
}

/*
 * The pages of @name's reads into @out: all of them, or with @again only
 * those fetched a second time. Every earlier range starts at or before
 * r[i].first, so the one reaching furthest covers [r[i].first, reach]:
 * the part of r[i] up to reach is fetched again.
 */
static int sweep(const struct testfs_log *log, const char *name,
		 struct testfs_extents *out, bool again)
{
	struct testfs_extent *r = NULL;
	uint64_t reach = 0;
	bool any = false;
	int64_t n, i;
	int err = 0;

	n = query_start(log, name, out, &r);
	if (n < 0)
		return (int)n;
	for (i = 0; i < n && !err; i++) {
		if (r[i].first > r[i].last)
			continue;
		if (!again)
			err = testfs_extents_add(out, r[i].first, r[i].last);
		else if (any && r[i].first <= reach)
			err = testfs_extents_add(out, r[i].first,
						 r[i].last < reach ? r[i].last
								   : reach);
		if (!any || r[i].last > reach)
			reach = r[i].last;
		any = true;
	}
	return query_end(r, out, err);
}

int testfs_log_fetched(const struct testfs_log *log, const char *name,
		       struct testfs_extents *out)
{
	return sweep(log, name, out, false);
}

int testfs_log_refetched(const struct testfs_log *log, const char *name,
			 struct testfs_extents *out)
{
	return sweep(log, name, out, true);
}

int64_t testfs_log_outside(const struct testfs_log *log, const char *name,
			   uint64_t first, uint64_t last, uint64_t *before,
			   uint64_t *after)
{
	struct testfs_extents f = TESTFS_EXTENTS_INIT;
	uint64_t nb = 0, na = 0;
	size_t i;
	int err;

	if (!log || !name || first > last)
		return -EINVAL;
	err = testfs_log_fetched(log, name, &f);
	if (err)
		return err;
	for (i = 0; i < f.n; i++) {
		const struct testfs_extent *x = &f.v[i];

		if (x->first < first)
			nb += (x->last < first ? x->last : first - 1) -
			      x->first + 1;
		if (x->last > last)
			na += x->last -
			      (x->first > last ? x->first : last + 1) + 1;
	}
	testfs_extents_free(&f);
	if (before)
		*before = nb;
	if (after)
		*after = na;
	if (nb + na > INT64_MAX)
		return INT64_MAX;
	return (int64_t)(nb + na);
}

int testfs_log_never_fetched(const struct testfs_log *log, const char *name,
			     const struct testfs_extents *accessed,
			     struct testfs_extents *out)
{
	struct testfs_extents f = TESTFS_EXTENTS_INIT;
	int err;

	if (!log || !name || !accessed || !out)
		return -EINVAL;
	err = testfs_log_fetched(log, name, &f);
	if (!err)
		err = testfs_extents_subtract(accessed, &f, out);
	testfs_extents_free(&f);
	return err;
}
