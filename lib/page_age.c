// SPDX-License-Identifier: MIT
/*
 * Page ages of a snapshot: the snapshot's reads and accesses of one file
 * fed to the computation the daemon's stats use (src/age/page_age.c).
 */
#include "lib_i.h"

#include <errno.h>
#include <string.h>

#include "page_age.h"

_Static_assert(TESTFS_AGE_BUCKETS == AGE_BUCKETS, "one bucket scheme");
_Static_assert(TESTFS_AGE_NOT_FETCHED == AGE_NOT_FETCHED &&
		       TESTFS_AGE_NEVER == AGE_NEVER &&
		       TESTFS_AGE_MAPPED == AGE_MAPPED &&
		       TESTFS_AGE_LATE == AGE_LATE,
	       "the library's page-age values are the computation's");

uint64_t testfs_age_bucket_us(unsigned bucket)
{
	return bucket < AGE_BUCKETS ? age_bucket_low_us(bucket) : UINT64_MAX;
}

/* The fetches and accesses of @name; 0, or -ENOENT, -ENODATA, -ENOMEM. */
static int gather(const struct testfs_log *log, const char *name,
		  struct age_input *in)
{
	size_t i;

	memset(in, 0, sizeof(*in));
	if (!lib_knows_file(log, name))
		return -ENOENT;
	if (!log->traced)
		return -ENODATA;
	for (i = 0; i < log->count; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (!r->pages || !lib_is_cached_read(log, i, name))
			continue;
		age_add_fetch(in, r->page, r->page + r->pages - 1, r->t_ns,
			      r->done_ns);
	}
	for (i = 0; i < log->naccess; i++) {
		const struct testfs_access *a = &log->access[i];

		if (!a->file || strcmp(a->file, name))
			continue;
		age_add_access(in, (unsigned)a->type, a->first, a->last,
			       a->t_ns, a->end_ns);
	}
	if (in->oom) {
		age_free(in);
		return -ENOMEM;
	}
	return 0;
}

int lib_page_age(const struct testfs_log *log, const char *name,
		 uint64_t older_ns, struct testfs_page_age *out,
		 uint64_t *older)
{
	struct age_input in;
	struct age_hist h;
	int err;

	if (!log || !name || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	err = gather(log, name, &in);
	if (err)
		return err;
	err = age_compute(&in, 0, UINT64_MAX, older_ns, &h, NULL);
	age_free(&in);
	if (err)
		return err;
	out->pages = h.pages;
	memcpy(out->bucket, h.bucket, sizeof(out->bucket));
	out->late = h.late;
	out->never = h.never;
	out->mapped = h.mapped;
	out->resolution_ns = h.resolution_ns;
	out->reads_untraced =
		!log->reads_traced && lib_read_triggered(log, name);
	if (older)
		*older = h.older;
	return 0;
}

int testfs_log_page_age(const struct testfs_log *log, const char *name,
			struct testfs_page_age *out)
{
	return lib_page_age(log, name, UINT64_MAX, out, NULL);
}

int testfs_log_page_ages(const struct testfs_log *log, const char *name,
			 uint64_t first_page, uint64_t npages, int64_t *ages)
{
	struct age_input in;
	struct age_hist h;
	int err;

	if (!log || !name || !ages || !npages ||
	    npages > TESTFS_AGE_MAX_PAGES || first_page > UINT64_MAX - npages)
		return -EINVAL;
	err = gather(log, name, &in);
	if (err)
		return err;
	err = age_compute(&in, first_page, first_page + npages - 1, UINT64_MAX,
			  &h, ages);
	age_free(&in);
	return err;
}
