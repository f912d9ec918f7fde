// SPDX-License-Identifier: MIT
/*
 * What a snapshot holds: its records (one by one or as an array), its
 * accesses, and the per-record helpers the set queries, windows and
 * checks build on.
 */
#include "lib_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "log_record.h"

size_t testfs_log_count(const struct testfs_log *log)
{
	return log ? log->count : 0;
}

const struct testfs_record *testfs_log_at(const struct testfs_log *log,
					  size_t i)
{
	return log && i < log->count ? &log->recs[i] : NULL;
}

const struct testfs_record *testfs_log_records(const struct testfs_log *log,
					       size_t *count)
{
	if (count)
		*count = log ? log->count : 0;
	return log && log->count ? log->recs : NULL;
}

size_t testfs_record_stride(void)
{
	return sizeof(struct testfs_record);
}

uint32_t testfs_log_page_size(const struct testfs_log *log)
{
	return lib_log_page_size(log);
}

uint64_t testfs_log_lost(const struct testfs_log *log)
{
	return log ? log->lost : 0;
}

bool testfs_log_traced(const struct testfs_log *log)
{
	return log && log->traced;
}

size_t testfs_log_access_count(const struct testfs_log *log)
{
	return log ? log->naccess : 0;
}

const struct testfs_access *testfs_log_access_at(const struct testfs_log *log,
						 size_t i)
{
	return log && i < log->naccess ? &log->access[i] : NULL;
}

/* The daemon's cause numbers are the library's. */
_Static_assert((int)TESTFS_CAUSE_SYNC == (int)LOG_CAUSE_SYNC &&
		       (int)TESTFS_CAUSE_ASYNC == (int)LOG_CAUSE_ASYNC &&
		       (int)TESTFS_CAUSE_READAROUND ==
			       (int)LOG_CAUSE_READAROUND &&
		       (int)TESTFS_CAUSE_FORCED == (int)LOG_CAUSE_FORCED &&
		       (int)TESTFS_CAUSE_SINGLE == (int)LOG_CAUSE_SINGLE &&
		       (int)TESTFS_CAUSE_DIRECT == (int)LOG_CAUSE_DIRECT,
	       "enum testfs_cause mirrors enum log_cause");

const char *testfs_cause_name(enum testfs_cause cause)
{
	return log_cause_name((unsigned)cause);
}

bool lib_is_read_of(const struct testfs_record *r, const char *name)
{
	return r->kind == TESTFS_RECORD_READ && r->file &&
	       (!name || strcmp(r->file, name) == 0);
}

size_t testfs_log_requests(const struct testfs_log *log, const char *name)
{
	size_t i, n = 0;

	for (i = 0; log && i < log->count; i++)
		n += lib_is_read_of(&log->recs[i], name);
	return n;
}

uint64_t testfs_log_max_request(const struct testfs_log *log, const char *name)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; log && i < log->count; i++)
		if (lib_is_read_of(&log->recs[i], name) &&
		    log->recs[i].pages > max)
			max = log->recs[i].pages;
	return max;
}

uint64_t lib_log_ino(const struct testfs_log *log, const char *name)
{
	size_t i;

	if (!name)
		return 0;
	for (i = 0; log && i < log->count; i++)
		if (lib_is_read_of(&log->recs[i], name))
			return log->recs[i].ino;
	return 0;
}

static int cmp_extent(const void *a, const void *b)
{
	const struct testfs_extent *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->last < y->last ? -1 : x->last > y->last;
}

void lib_an_read(const struct testfs_record *r, struct an_read *out)
{
	*out = (struct an_read){
		.first = r->page,
		.pages = r->len ? r->pages : 0,
		.t_ns = r->t_ns,
		.done_ns = r->done_ns,
		.window = r->window,
		.order = r->folio_order,
		.alloc_order = r->alloc_order,
		.failed = r->err != 0,
		.direct = r->direct,
		.late = r->late,
		.by_read = r->by_read,
		/* The snapshot left an unknown cause's attribution empty
		 * (snapshot.c): what a record holds counts. */
		.attributed = true,
	};
}

/* The analysis layer's rule: an_read_fetches() (src/analysis/). */
bool lib_is_cached_read(const struct testfs_log *log, size_t i,
			const char *name)
{
	const struct testfs_record *r = &log->recs[i];
	struct an_read rd;

	if (!lib_is_read_of(r, name))
		return false;
	lib_an_read(r, &rd);
	return an_read_fetches(&rd);
}

int64_t lib_read_ranges(const struct testfs_log *log, const char *name,
			struct testfs_extent **out)
{
	struct testfs_extent *v;
	size_t i, n = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!log || !name)
		return -EINVAL;
	for (i = 0; i < log->count; i++)
		n += lib_is_cached_read(log, i, name);
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < log->count; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (!lib_is_cached_read(log, i, name))
			continue;
		v[n].first = r->page;
		v[n].last = r->page + r->pages - 1;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_extent);
	*out = v;
	return (int64_t)n;
}
