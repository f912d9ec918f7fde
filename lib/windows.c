// SPDX-License-Identifier: MIT
/*
 * Kernel correlation on a snapshot: the windows (the reads of one kernel
 * readahead decision, grouped by the window id the daemon gave them),
 * wasted and late pages from the access records, and the histograms. Like
 * the set queries, everything works on page ranges, never page by page.
 */
#include "lib_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A read with a window: its window id and its index in log->recs. */
struct window_read {
	uint32_t id;
	size_t rec;
};

static int cmp_window_read(const void *x, const void *y)
{
	const struct window_read *a = x, *b = y;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->rec < b->rec ? -1 : a->rec > b->rec;
}

/* A window under construction: built in id order, then sorted by seq. */
struct window_slot {
	struct testfs_window w;
	size_t by_id;
};

static int cmp_slot_seq(const void *x, const void *y)
{
	const struct window_slot *a = x, *b = y;

	if (a->w.first_seq != b->w.first_seq)
		return a->w.first_seq < b->w.first_seq ? -1 : 1;
	return a->w.id < b->w.id ? -1 : a->w.id > b->w.id;
}

/* Starts window @w at its first read @r. */
static void window_open(struct testfs_window *w, const struct testfs_record *r)
{
	memset(w, 0, sizeof(*w));
	w->id = r->window;
	w->file = r->file;
	w->cause = r->cause;
	w->trigger_page = r->trigger_page;
	w->start = r->ra_start;
	w->size = r->ra_size;
	w->async_size = r->ra_async;
	w->marker = r->ra_marker;
	w->ra_pages = r->ra_pages;
	w->mmap_miss = r->mmap_miss;
	w->folio_order = r->folio_order;
	w->alloc_order = r->alloc_order;
	w->first_seq = r->seq;
	w->t_ns = r->t_ns;
}

/* Adds read @r (in seq order) to window @w. */
static void window_add(struct testfs_window *w, const struct testfs_record *r)
{
	uint64_t last;

	w->requests++;
	if (w->alloc_order < 0)
		w->alloc_order = r->alloc_order;
	w->late = w->late || r->late;
	if (!r->pages)
		return;
	last = r->page + r->pages - 1;
	if (!w->pages || r->page < w->first_page)
		w->first_page = r->page;
	if (!w->pages || last > w->last_page)
		w->last_page = last;
	w->pages += r->pages;
}

void lib_free_windows(struct testfs_log *log)
{
	free(log->windows);
	free(log->window_by_id);
	log->windows = NULL;
	log->window_by_id = NULL;
	log->nwindows = 0;
}

/*
 * Builds the windows in id order from @v (the reads with a window, sorted
 * by id and then by record), then orders them by first seq and keeps
 * where each id went.
 */
static int build_windows(struct testfs_log *log, const struct window_read *v,
			 size_t n)
{
	struct window_slot *slots;
	size_t i, k = 0;

	slots = malloc(n * sizeof(*slots));
	log->windows = malloc(n * sizeof(*log->windows));
	log->window_by_id = malloc(n * sizeof(*log->window_by_id));
	if (!slots || !log->windows || !log->window_by_id) {
		free(slots);
		lib_free_windows(log);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct testfs_record *r = &log->recs[v[i].rec];

		if (i == 0 || v[i].id != v[i - 1].id) {
			window_open(&slots[k].w, r);
			slots[k].by_id = k;
			k++;
		}
		window_add(&slots[k - 1].w, r);
	}
	qsort(slots, k, sizeof(*slots), cmp_slot_seq);
	for (i = 0; i < k; i++) {
		log->windows[i] = slots[i].w;
		log->window_by_id[slots[i].by_id] = i;
	}
	log->nwindows = k;
	free(slots);
	return 0;
}

int lib_index_windows(struct testfs_log *log)
{
	struct window_read *v;
	size_t i, n = 0;
	int err;

	lib_free_windows(log);
	for (i = 0; i < log->count; i++)
		n += lib_is_read_of(&log->recs[i], NULL) &&
		     log->recs[i].window != 0;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < log->count; i++) {
		if (!lib_is_read_of(&log->recs[i], NULL) ||
		    log->recs[i].window == 0)
			continue;
		v[n].id = log->recs[i].window;
		v[n].rec = i;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_window_read);
	err = build_windows(log, v, n);
	free(v);
	return err;
}

size_t testfs_log_window_count(const struct testfs_log *log)
{
	return log ? log->nwindows : 0;
}

const struct testfs_window *testfs_log_window_at(const struct testfs_log *log,
						 size_t i)
{
	return log && i < log->nwindows ? &log->windows[i] : NULL;
}

/* The window with id @id, or NULL. */
static const struct testfs_window *window_by_id(const struct testfs_log *log,
						uint32_t id)
{
	size_t lo = 0, hi = log->nwindows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t got = log->windows[log->window_by_id[mid]].id;

		if (got == id)
			return &log->windows[log->window_by_id[mid]];
		if (got < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct testfs_window *testfs_log_window_of(const struct testfs_log *log,
						 const char *name,
						 uint64_t page)
{
	size_t i;

	if (!log || !name)
		return NULL;
	for (i = log->count; i-- > 0;) {
		const struct testfs_record *r = &log->recs[i];

		if (!r->window || !lib_is_cached_read(log, i, name) ||
		    page < r->page || page - r->page >= r->pages)
			continue;
		return window_by_id(log, r->window);
	}
	return NULL;
}

bool lib_knows_file(const struct testfs_log *log, const char *name)
{
	size_t i;

	for (i = 0; i < log->nfiles; i++)
		if (strcmp(log->files[i], name) == 0)
			return true;
	for (i = 0; i < log->count; i++)
		if (lib_is_read_of(&log->recs[i], name))
			return true;
	for (i = 0; i < log->naccess; i++)
		if (log->access[i].file &&
		    strcmp(log->access[i].file, name) == 0)
			return true;
	return false;
}

static int cmp_extent(const void *x, const void *y)
{
	const struct testfs_extent *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->last < b->last ? -1 : a->last > b->last;
}

/*
 * The union of the access ranges of @name of type @t1 or @t2 into @out
 * (emptied first). Sorted before they are added, so that each add appends
 * instead of moving the extents after it.
 */
/*
 * A fault-around record of one page is the touched page itself (the
 * range always holds the faulting page), so it is an access; wider ones
 * are mapped pages the program was not seen to touch. The daemon's stats
 * and page age (src/age/) draw the line at the same place.
 */
static bool is_access(const struct testfs_access *a)
{
	return a->type != TESTFS_ACCESS_MAP || a->first == a->last;
}

/* The pages of @name's accesses (@accesses) or of its wider mappings. */
static int access_pages(const struct testfs_log *log, const char *name,
			bool accesses, struct testfs_extents *out)
{
	struct testfs_extent *v;
	size_t i, n = 0;
	int err = 0;

	testfs_extents_free(out);
	if (!log->naccess)
		return 0;
	v = malloc(log->naccess * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < log->naccess; i++) {
		const struct testfs_access *a = &log->access[i];

		if (is_access(a) != accesses || !a->file ||
		    strcmp(a->file, name) != 0 || a->first > a->last)
			continue;
		v[n].first = a->first;
		v[n].last = a->last;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_extent);
	for (i = 0; i < n && !err; i++)
		err = testfs_extents_add(out, v[i].first, v[i].last);
	free(v);
	if (err)
		testfs_extents_free(out);
	return err;
}

static void count_late(const struct testfs_log *log, const char *name,
		       struct testfs_usage *out)
{
	size_t i;

	for (i = 0; i < log->naccess; i++)
		if (log->access[i].file &&
		    strcmp(log->access[i].file, name) == 0)
			out->late_accesses += log->access[i].late;
	for (i = 0; i < log->count; i++)
		if (lib_is_cached_read(log, i, name) && log->recs[i].late)
			out->late_reads++;
}

bool lib_read_triggered(const struct testfs_log *log, const char *name)
{
	size_t i;

	for (i = 0; i < log->count; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (r->kind == TESTFS_RECORD_READ && r->by_read && r->file &&
		    !strcmp(r->file, name))
			return true;
	}
	return false;
}

int testfs_log_usage(const struct testfs_log *log, const char *name,
		     struct testfs_usage *out, struct testfs_extents *wasted)
{
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_extents accessed = TESTFS_EXTENTS_INIT;
	struct testfs_extents mapped = TESTFS_EXTENTS_INIT;
	struct testfs_extents waste = TESTFS_EXTENTS_INIT;
	int err;

	if (!log || !name || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (wasted)
		testfs_extents_free(wasted);
	if (!lib_knows_file(log, name))
		return -ENOENT;
	err = testfs_log_fetched(log, name, &fetched);
	if (err)
		return err;
	out->fetched = fetched.pages;
	/* Without accesses nothing can be called wasted. */
	if (!log->traced)
		goto out;
	err = access_pages(log, name, true, &accessed);
	if (!err)
		err = access_pages(log, name, false, &mapped);
	if (!err)
		err = testfs_extents_subtract(&mapped, &accessed, &mapped);
	if (!err)
		err = testfs_extents_subtract(&fetched, &accessed, &waste);
	if (!err)
		err = testfs_extents_subtract(&waste, &mapped, &waste);
	if (err) {
		memset(out, 0, sizeof(*out));
		goto out;
	}
	out->accessed = accessed.pages;
	out->mapped = mapped.pages;
	out->wasted = waste.pages;
	out->wasted_known = log->reads_traced || !lib_read_triggered(log, name);
	if (!out->wasted_known)
		out->wasted = 0;
	count_late(log, name, out);
	if (wasted && out->wasted_known) {
		*wasted = waste;
		waste = (struct testfs_extents)TESTFS_EXTENTS_INIT;
	}
out:
	testfs_extents_free(&fetched);
	testfs_extents_free(&accessed);
	testfs_extents_free(&mapped);
	testfs_extents_free(&waste);
	return err;
}

/* floor(log2(@n)) for @n > 0, at most the last bucket. */
static unsigned size_bucket(uint64_t n)
{
	unsigned b = 63u - (unsigned)__builtin_clzll(n);

	return b < TESTFS_HIST_BUCKETS ? b : TESTFS_HIST_BUCKETS - 1;
}

/* Counts @order in @hist, or in *@unknown when it is negative. */
static void count_order(uint64_t *hist, uint64_t *unknown, int order)
{
	if (order < 0)
		(*unknown)++;
	else if (order >= TESTFS_HIST_BUCKETS)
		hist[TESTFS_HIST_BUCKETS - 1]++;
	else
		hist[order]++;
}

int testfs_log_histograms(const struct testfs_log *log, const char *name,
			  struct testfs_histograms *out)
{
	size_t i;

	if (!log || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < log->count; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (lib_is_read_of(r, name) && r->pages)
			out->request_pages[size_bucket(r->pages)]++;
	}
	for (i = 0; i < log->nwindows; i++) {
		const struct testfs_window *w = &log->windows[i];

		if (name && (!w->file || strcmp(w->file, name) != 0))
			continue;
		count_order(out->order_asked, &out->order_asked_unknown,
			    w->folio_order);
		count_order(out->order_allocated, &out->order_allocated_unknown,
			    w->alloc_order);
	}
	return 0;
}
