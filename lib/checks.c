// SPDX-License-Identifier: MIT
/*
 * Checks that explain themselves: on failure, a sentence a reader can act
 * on without the test's source, with the expected and observed extents
 * side by side.
 */
#include "lib_i.h"

#include "strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Room for one extent list in a message; longer lists end in "... [y, z]". */
#define LIST_MAX 256

struct list {
	char s[LIST_MAX];
};

static const char *list(struct list *l, const struct testfs_extents *e)
{
	testfs_extents_format(e, l->s, sizeof(l->s));
	return l->s;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* ", N page(s) @what: LIST" for the pages of @e, if any. */
static void add_only(struct strbuf *sb, struct list *l,
		     const struct testfs_extents *e, const char *what)
{
	if (e->n)
		strbuf_addf(sb, ", %" PRIu64 " page%s %s: %s", e->pages,
			    plural(e->pages), what, list(l, e));
}

int lib_check_fail(struct strbuf *sb, char **why)
{
	char *s;

	if (sb->oom) {
		strbuf_free(sb);
		return -ENOMEM;
	}
	s = strbuf_detach(sb, NULL);
	if (!s)
		return -ENOMEM;
	if (why)
		*why = s;
	else
		free(s);
	return 1;
}

int lib_check_start(const struct testfs_log *log, const char *name, char **why)
{
	struct strbuf sb = STRBUF_INIT;

	if (why)
		*why = NULL;
	if (!log || !name)
		return -EINVAL;
	if (log->lost == 0)
		return 0;
	strbuf_addf(&sb,
		    "%s: the log lost %" PRIu64
		    " record%s; raise --log-capacity",
		    name, log->lost, plural(log->lost));
	return lib_check_fail(&sb, why);
}

/* " (N pages in M requests)" after an observed extent list. */
static void add_observed(struct strbuf *sb, const struct testfs_log *log,
			 const char *name, const struct testfs_extents *fetched)
{
	struct list l;
	size_t nreq = testfs_log_requests(log, name);

	strbuf_addf(sb, "observed %s (%" PRIu64 " page%s in %zu request%s)",
		    list(&l, fetched), fetched->pages, plural(fetched->pages),
		    nreq, plural(nreq));
}

/* "N pages before and M pages past [a, b]", or "none outside [a, b]". */
static int add_outside(struct strbuf *sb, const struct testfs_log *log,
		       const char *name, uint64_t first, uint64_t last)
{
	uint64_t before, after;
	int64_t n;

	n = testfs_log_outside(log, name, first, last, &before, &after);
	if (n < 0)
		return (int)n;
	strbuf_addf(sb,
		    "%" PRIu64 " page%s before and %" PRIu64
		    " page%s past [%" PRIu64 ", %" PRIu64 "]",
		    before, plural(before), after, plural(after), first, last);
	return 0;
}

int testfs_check_within(const struct testfs_log *log, const char *name,
			uint64_t first, uint64_t last, char **why)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct strbuf sb = STRBUF_INIT;
	uint64_t before, after;
	int64_t n;
	int err;

	err = lib_check_start(log, name, why);
	if (err)
		return err;
	n = testfs_log_outside(log, name, first, last, &before, &after);
	if (n <= 0)
		return (int)n;
	err = testfs_log_fetched(log, name, &fetched);
	if (err)
		return err;
	strbuf_addf(&sb, "%s: readahead fetched ", name);
	if (after)
		strbuf_addf(&sb, "%" PRIu64 " page%s past ", after,
			    plural(after));
	if (after && before)
		strbuf_adds(&sb, "and ");
	if (before)
		strbuf_addf(&sb, "%" PRIu64 " page%s before ", before,
			    plural(before));
	strbuf_addf(&sb,
		    "the range [%" PRIu64 ", %" PRIu64
		    "]: expected within [%" PRIu64 ", %" PRIu64 "], ",
		    first, last, first, last);
	add_observed(&sb, log, name, &fetched);
	testfs_extents_free(&fetched);
	return lib_check_fail(&sb, why);
}

int testfs_check_covers(const struct testfs_log *log, const char *name,
			uint64_t first, uint64_t last, char **why)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_extents range = TESTFS_EXTENTS_INIT;
	struct testfs_extents missing = TESTFS_EXTENTS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct list l;
	int err;

	err = lib_check_start(log, name, why);
	if (err)
		return err;
	err = testfs_extents_add(&range, first, last);
	if (!err)
		err = testfs_log_fetched(log, name, &fetched);
	if (!err)
		err = testfs_extents_subtract(&range, &fetched, &missing);
	if (err || !missing.n)
		goto out;
	strbuf_addf(&sb,
		    "%s: %" PRIu64 " of the %" PRIu64 " page%s of [%" PRIu64
		    ", %" PRIu64 "] %s not fetched: expected covering [%" PRIu64
		    ", %" PRIu64 "], ",
		    name, missing.pages, range.pages, plural(range.pages),
		    first, last, missing.pages == 1 ? "was" : "were", first,
		    last);
	add_observed(&sb, log, name, &fetched);
	strbuf_addf(&sb, "; not fetched: %s", list(&l, &missing));
	err = lib_check_fail(&sb, why);
out:
	strbuf_free(&sb);
	testfs_extents_free(&fetched);
	testfs_extents_free(&range);
	testfs_extents_free(&missing);
	return err;
}

/* The fetched pages of a file against the pages a check expected. */
struct against {
	struct testfs_extents fetched;
	/* Expected and not fetched. */
	struct testfs_extents missing;
	/* Fetched and not expected. */
	struct testfs_extents extra;
};

#define AGAINST_INIT                                                           \
	{                                                                      \
		TESTFS_EXTENTS_INIT, TESTFS_EXTENTS_INIT, TESTFS_EXTENTS_INIT  \
	}

/* Starts a check of @name's fetched pages against @want (lib_check_start()). */
static int start_against(const struct testfs_log *log, const char *name,
			 const struct testfs_extents *want, struct against *a,
			 char **why)
{
	int err = lib_check_start(log, name, why);

	if (err)
		return err;
	if (!want)
		return -EINVAL;
	err = testfs_log_fetched(log, name, &a->fetched);
	if (!err)
		err = testfs_extents_subtract(want, &a->fetched, &a->missing);
	if (!err)
		err = testfs_extents_subtract(&a->fetched, want, &a->extra);
	return err;
}

static void against_free(struct against *a)
{
	testfs_extents_free(&a->fetched);
	testfs_extents_free(&a->missing);
	testfs_extents_free(&a->extra);
}

/*
 * Ends the explanation of a check against @want with the pages fetched
 * outside @want's span, and fails the check.
 */
static int fail_outside(struct strbuf *sb, const struct testfs_log *log,
			const char *name, const struct testfs_extents *want,
			char **why)
{
	int err = 0;

	if (want->n) {
		strbuf_adds(sb, "; ");
		err = add_outside(sb, log, name, want->v[0].first,
				  want->v[want->n - 1].last);
	}
	return err ? err : lib_check_fail(sb, why);
}

int testfs_check_fetched(const struct testfs_log *log, const char *name,
			 const struct testfs_extents *expected, char **why)
{
	struct against a = AGAINST_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct list l;
	int err;

	err = start_against(log, name, expected, &a, why);
	if (err || (!a.missing.n && !a.extra.n))
		goto out;
	strbuf_addf(&sb,
		    "%s: the fetched pages differ: expected %s (%" PRIu64
		    " page%s), ",
		    name, list(&l, expected), expected->pages,
		    plural(expected->pages));
	add_observed(&sb, log, name, &a.fetched);
	if (a.missing.n)
		strbuf_addf(&sb, "; %" PRIu64 " page%s not fetched: %s",
			    a.missing.pages, plural(a.missing.pages),
			    list(&l, &a.missing));
	if (a.extra.n)
		strbuf_addf(&sb, "; %" PRIu64 " page%s fetched besides: %s",
			    a.extra.pages, plural(a.extra.pages),
			    list(&l, &a.extra));
	err = fail_outside(&sb, log, name, expected, why);
out:
	strbuf_free(&sb);
	against_free(&a);
	return err;
}

int testfs_check_touched_plus(const struct testfs_log *log, const char *name,
			      const struct testfs_extents *touched,
			      uint64_t max_extra, char **why)
{
	struct against a = AGAINST_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct list l;
	int err;

	err = start_against(log, name, touched, &a, why);
	if (err || (!a.missing.n && a.extra.pages <= max_extra))
		goto out;
	strbuf_addf(&sb, "%s: ", name);
	if (a.missing.n)
		strbuf_addf(&sb,
			    "%" PRIu64 " touched page%s never fetched (%s)",
			    a.missing.pages, plural(a.missing.pages),
			    list(&l, &a.missing));
	if (a.missing.n && a.extra.pages > max_extra)
		strbuf_adds(&sb, " and ");
	if (a.extra.pages > max_extra)
		strbuf_addf(&sb,
			    "%" PRIu64 " page%s fetched besides the touched "
			    "ones, more than the %" PRIu64 " allowed (%s)",
			    a.extra.pages, plural(a.extra.pages), max_extra,
			    list(&l, &a.extra));
	strbuf_addf(&sb,
		    ": expected the touched %s (%" PRIu64
		    " page%s) plus at most %" PRIu64 " page%s, ",
		    list(&l, touched), touched->pages, plural(touched->pages),
		    max_extra, plural(max_extra));
	add_observed(&sb, log, name, &a.fetched);
	err = fail_outside(&sb, log, name, touched, why);
out:
	strbuf_free(&sb);
	against_free(&a);
	return err;
}

/* Appends "; " between the sentences of a multi-part failure. */
static void next_part(struct strbuf *sb)
{
	if (sb->len)
		strbuf_adds(sb, "; ");
}

static void check_request_sizes(struct strbuf *sb, const struct testfs_log *log,
				const char *name, uint64_t max_pages)
{
	const struct testfs_record *big = NULL;
	size_t i, over = 0;

	for (i = 0; i < log->count; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (!lib_is_read_of(r, name) || r->pages <= max_pages)
			continue;
		over++;
		if (!big || r->pages > big->pages)
			big = r;
	}
	if (!over)
		return;
	next_part(sb);
	strbuf_addf(sb,
		    "%s: %zu request%s larger than max_pages %" PRIu64
		    ", the largest %" PRIu64 " pages at page %" PRIu64
		    " (seq %" PRIu64 ")",
		    name, over, plural(over), max_pages, big->pages, big->page,
		    big->seq);
}

int testfs_check_consistent(struct testfs_mount *fs,
			    const struct testfs_log *log, const char *name,
			    uint64_t max_pages, char **why)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_extents again = TESTFS_EXTENTS_INIT;
	struct testfs_extents resident = TESTFS_EXTENTS_INIT;
	struct testfs_extents only_log = TESTFS_EXTENTS_INIT;
	struct testfs_extents only_cache = TESTFS_EXTENTS_INIT;
	struct testfs_cachestat cs;
	struct strbuf sb = STRBUF_INIT;
	struct list l, m;
	int err;

	err = lib_check_start(log, name, why);
	if (err)
		return err;
	if (!fs)
		return -EINVAL;
	err = testfs_log_fetched(log, name, &fetched);
	if (!err)
		err = testfs_log_refetched(log, name, &again);
	if (!err)
		err = testfs_resident(fs, name, &resident);
	if (!err)
		err = testfs_extents_subtract(&fetched, &resident, &only_log);
	if (!err)
		err = testfs_extents_subtract(&resident, &fetched, &only_cache);
	if (err)
		goto out;
	/*
	 * Memory reclaim (kswapd, or DAMON on some VMs) may evict a freshly
	 * read page before the check looks. Eviction leaves a shadow entry
	 * that cachestat() counts (drop-cache leaves none), so up to that
	 * many fetched pages missing from the cache are explained; a page
	 * cached but never fetched never is.
	 */
	if (only_log.n && !only_cache.n &&
	    testfs_cachestat(fs, name, 0, 0, &cs) == 0 &&
	    cs.nr_evicted >= only_log.pages)
		testfs_extents_free(&only_log);

	if (again.n) {
		strbuf_addf(&sb,
			    "%s: %" PRIu64
			    " page%s fetched more than once: %s, ",
			    name, again.pages, plural(again.pages),
			    list(&l, &again));
		add_observed(&sb, log, name, &fetched);
	}
	if (only_log.n || only_cache.n) {
		next_part(&sb);
		strbuf_addf(
			&sb,
			"%s: the log and the page cache disagree: fetched %s (%" PRIu64
			" page%s), resident %s (%" PRIu64 " page%s)",
			name, list(&l, &fetched), fetched.pages,
			plural(fetched.pages), list(&m, &resident),
			resident.pages, plural(resident.pages));
		add_only(&sb, &l, &only_log, "fetched but not resident");
		add_only(&sb, &l, &only_cache, "resident but never fetched");
	}
	if (max_pages)
		check_request_sizes(&sb, log, name, max_pages);
	if (sb.len || sb.oom)
		err = lib_check_fail(&sb, why);
out:
	strbuf_free(&sb);
	testfs_extents_free(&fetched);
	testfs_extents_free(&again);
	testfs_extents_free(&resident);
	testfs_extents_free(&only_log);
	testfs_extents_free(&only_cache);
	return err;
}
