// SPDX-License-Identifier: MIT
/*
 * Page ages of a snapshot: the snapshot's reads and accesses of one file
 * fed to the analysis layer (lib/usage.c), whose page age
 * (src/analysis/page_age.c) the daemon's stats use too.
 */
#include "lib_i.h"

#include <errno.h>
#include <string.h>

#include "analysis.h"

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

/*
 * The analysis of @name's reads and accesses (the layer holds them as one
 * file, or none); 0, or -ENOENT, -ENODATA, -ENOMEM.
 */
static int gather(const struct testfs_log *log, const char *name,
		  struct an_log *l)
{
	*l = (struct an_log)AN_LOG_INIT;
	if (!lib_knows_file(log, name))
		return -ENOENT;
	if (!log->traced)
		return -ENODATA;
	return lib_analyse(log, name, l);
}

/* The page-age input of the one file @l holds (an empty one if none). */
static const struct age_input *age_of(const struct an_log *l)
{
	static const struct age_input none;

	return l->nf ? &l->f[0].age : &none;
}

int lib_page_age(const struct testfs_log *log, const char *name,
		 uint64_t older_ns, struct testfs_page_age *out,
		 uint64_t *older)
{
	struct an_log l;
	struct age_hist h;
	bool triggered;
	int err;

	if (!log || !name || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	err = gather(log, name, &l);
	if (err)
		return err;
	err = age_compute(age_of(&l), 0, UINT64_MAX, older_ns, &h, NULL);
	triggered = l.nf && (l.f[0].read_triggered || l.f[0].trigger_unknown);
	an_free(&l);
	if (err)
		return err;
	out->pages = h.pages;
	memcpy(out->bucket, h.bucket, sizeof(out->bucket));
	out->late = h.late;
	out->never = h.never;
	out->mapped = h.mapped;
	out->resolution_ns = h.resolution_ns;
	out->reads_untraced = !log->reads_traced && triggered;
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
	struct an_log l;
	struct age_hist h;
	int err;

	if (!log || !name || !ages || !npages ||
	    npages > TESTFS_AGE_MAX_PAGES || first_page > UINT64_MAX - npages)
		return -EINVAL;
	err = gather(log, name, &l);
	if (err)
		return err;
	err = age_compute(age_of(&l), first_page, first_page + npages - 1,
			  UINT64_MAX, &h, ages);
	an_free(&l);
	return err;
}
