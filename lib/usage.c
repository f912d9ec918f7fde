// SPDX-License-Identifier: MIT
/*
 * A snapshot's usage, histograms and page age: its reads and accesses
 * handed to the analysis layer (src/analysis/analysis.h), the one
 * computation behind the daemon's MOUNT/.testfs/stats too. Nothing here
 * counts: it feeds the layer and copies its figures out.
 */
#include "lib_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

_Static_assert(TESTFS_HIST_BUCKETS == AN_BUCKETS, "one bucket scheme");

int lib_analyse(const struct testfs_log *log, const char *name,
		struct an_log *l)
{
	struct an_read rd;
	size_t i;

	*l = (struct an_log)AN_LOG_INIT;
	for (i = 0; i < log->count; i++) {
		if (!lib_is_read_of(&log->recs[i], name))
			continue;
		lib_an_read(&log->recs[i], &rd);
		rd.trigger_unknown = log->no_causes;
		an_add_read(l, &rd);
	}
	for (i = 0; i < log->naccess; i++) {
		const struct testfs_access *a = &log->access[i];

		if (!a->file || (name && strcmp(a->file, name) != 0))
			continue;
		an_add_access(l, &(struct an_access){
					 .first = a->first,
					 .last = a->last,
					 .t_ns = a->t_ns,
					 .end_ns = a->end_ns,
					 .type = (unsigned)a->type,
					 .late = a->late,
				 });
	}
	for (i = 0; i < log->nfolios; i++) {
		const struct lib_folio *f = &log->folios[i];

		if (!f->file || (name && strcmp(f->file, name) != 0))
			continue;
		an_add_folio(l, &(struct an_folio){
					.first = f->first,
					.last = f->last,
					.t_ns = f->t_ns,
					.order = f->order,
				});
	}
	an_end(l);
	if (l->oom) {
		an_free(l);
		return -ENOMEM;
	}
	return 0;
}

/* The wasted ranges into @out, or -ENOMEM (@out emptied then). */
static int copy_ranges(const struct an_range *v, size_t n,
		       struct testfs_extents *out)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = testfs_extents_add(out, v[i].first, v[i].last);
	if (err)
		testfs_extents_free(out);
	return err;
}

/* @u's figures into @out as the library states them (testfs.h). */
static void usage_out(const struct testfs_log *log, const struct an_usage *u,
		      struct testfs_usage *out)
{
	out->fetched = u->fetched;
	/* Without accesses nothing can be called wasted. */
	if (!log->traced)
		return;
	out->accessed = u->accessed;
	out->mapped = u->mapped;
	out->wasted_known = an_wasted_known(log->traced, log->reads_traced,
					    u->read_triggered);
	out->wasted = out->wasted_known ? u->wasted : 0;
	out->late_accesses = u->late_accesses;
	out->late_reads = u->late_reads;
}

int testfs_log_usage(const struct testfs_log *log, const char *name,
		     struct testfs_usage *out, struct testfs_extents *wasted)
{
	struct an_usage u = { 0 };
	struct an_range *w = NULL;
	struct an_log l;
	size_t nw = 0;
	int err;

	if (!log || !name || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (wasted)
		testfs_extents_free(wasted);
	if (!lib_knows_file(log, name))
		return -ENOENT;
	err = lib_analyse(log, name, &l);
	if (err)
		return err;
	/* One file under one key: none when it fetched nothing, was not
	 * accessed. */
	if (l.nf)
		err = an_usage(&l, 0, &u, wasted ? &w : NULL, &nw);
	an_free(&l);
	if (!err) {
		usage_out(log, &u, out);
		if (wasted && out->wasted_known)
			err = copy_ranges(w, nw, wasted);
		if (err)
			memset(out, 0, sizeof(*out));
	}
	free(w);
	return err;
}

int testfs_log_histograms(const struct testfs_log *log, const char *name,
			  struct testfs_histograms *out)
{
	struct an_hist h;
	struct an_log l;
	int err;

	if (!log || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	err = lib_analyse(log, name, &l);
	if (!err)
		err = an_histograms(&l, &h);
	an_free(&l);
	if (err)
		return err;
	memcpy(out->request_pages, h.request_pages, sizeof(h.request_pages));
	memcpy(out->order_asked, h.order_asked, sizeof(h.order_asked));
	out->order_asked_unknown = h.order_asked_unknown;
	memcpy(out->order_allocated, h.order_alloc, sizeof(h.order_alloc));
	out->order_allocated_unknown = h.order_alloc_unknown;
	return 0;
}
