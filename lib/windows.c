// SPDX-License-Identifier: MIT
/*
 * Kernel correlation on a snapshot: the windows (the reads of one kernel
 * readahead decision, grouped by the window id the daemon gave them).
 * Usage and histograms are the analysis layer's (lib/usage.c).
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
	if (!log->count)
		return 0;
	/* Room for every record: one pass, no count first. */
	v = malloc(log->count * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < log->count; i++) {
		if (!lib_is_read_of(&log->recs[i], NULL) ||
		    log->recs[i].window == 0)
			continue;
		v[n].id = log->recs[i].window;
		v[n].rec = i;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_window_read);
	err = n ? build_windows(log, v, n) : 0;
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
