// SPDX-License-Identifier: MIT
/*
 * The analysis layer's usage and histograms (analysis.h): each file's
 * fetched, accessed and mapped page ranges, merged once asked for, and
 * the request and window histograms.
 */
#include "analysis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "log_record.h"

bool an_fetches(uint64_t pages, bool failed, bool direct)
{
	return pages && !failed && !direct;
}

bool an_read_fetches(const struct an_read *r)
{
	return an_fetches(r->pages, r->failed, r->direct);
}

static void ranges_add(struct an_log *l, struct an_ranges *r, uint64_t first,
		       uint64_t last)
{
	struct an_range *end = r->n ? &r->v[r->n - 1] : NULL;

	/* Extend the last range when the next one touches it (common). */
	if (end && first >= end->first && first <= end->last + 1) {
		if (last > end->last)
			end->last = last;
		return;
	}
	if (!array_grow((void **)&r->v, &r->cap, r->n, sizeof(*r->v))) {
		l->oom = true;
		return;
	}
	r->v[r->n++] = (struct an_range){ first, last };
}

static int range_cmp(const void *a, const void *b)
{
	const struct an_range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts and coalesces @r; returns the pages it covers. */
static uint64_t ranges_merge(struct an_ranges *r)
{
	size_t i, o = 0;
	uint64_t pages = 0;

	if (!r->n)
		return 0;
	qsort(r->v, r->n, sizeof(*r->v), range_cmp);
	for (i = 1; i < r->n; i++) {
		if (r->v[i].first <= r->v[o].last + 1) {
			if (r->v[i].last > r->v[o].last)
				r->v[o].last = r->v[i].last;
		} else {
			r->v[++o] = r->v[i];
		}
	}
	r->n = o + 1;
	for (i = 0; i < r->n; i++)
		pages += r->v[i].last - r->v[i].first + 1;
	return pages;
}

/*
 * The pages of merged @a outside merged @b, into @out (emptied first), in
 * order; returns their number.
 */
static uint64_t ranges_subtract(struct an_log *l, const struct an_ranges *a,
				const struct an_ranges *b,
				struct an_ranges *out)
{
	uint64_t pages = 0;
	size_t i, j = 0;

	out->n = 0;
	for (i = 0; i < a->n; i++) {
		uint64_t lo = a->v[i].first, hi = a->v[i].last;

		while (j < b->n && b->v[j].last < lo)
			j++;
		for (; j < b->n && b->v[j].first <= hi; j++) {
			if (b->v[j].first > lo) {
				ranges_add(l, out, lo, b->v[j].first - 1);
				pages += b->v[j].first - lo;
			}
			if (b->v[j].last >= hi)
				break;
			lo = b->v[j].last + 1;
		}
		if (j < b->n && b->v[j].first <= hi && b->v[j].last >= hi)
			continue;
		ranges_add(l, out, lo, hi);
		pages += hi - lo + 1;
	}
	return pages;
}

static struct an_file *file_of(struct an_log *l, uint64_t key)
{
	size_t i;

	/* Few files take part in one measurement; the last one usually. */
	for (i = l->nf; i-- > 0;)
		if (l->f[i].key == key)
			return &l->f[i];
	if (!array_grow((void **)&l->f, &l->capf, l->nf, sizeof(*l->f))) {
		l->oom = true;
		return NULL;
	}
	memset(&l->f[l->nf], 0, sizeof(l->f[l->nf]));
	l->f[l->nf].key = key;
	return &l->f[l->nf++];
}

void an_add_access(struct an_log *l, const struct an_access *a)
{
	struct an_file *f;

	if (a->first > a->last)
		return;
	f = file_of(l, a->file);
	if (!f)
		return;
	ranges_add(l,
		   an_is_access(a->type, a->first, a->last) ? &f->accessed
							    : &f->mapped,
		   a->first, a->last);
	f->late_accesses += a->late;
	age_add_access(&f->age, a->type, a->first, a->last, a->t_ns, a->end_ns);
	l->oom |= f->age.oom;
	if (a->type != LOG_ACCESS_FAULT && a->type != LOG_ACCESS_MAP)
		return;
	if (array_grow((void **)&f->faults, &f->capfaults, f->nfaults,
		       sizeof(*f->faults)))
		f->faults[f->nfaults++] = (struct an_fault){
			a->first, a->last, a->t_ns, a->end_ns,
			a->type == LOG_ACCESS_FAULT ? AGE_LEAD_NS : 0
		};
	else
		l->oom = true;
}

void an_add_folio(struct an_log *l, const struct an_folio *in)
{
	struct an_file *f;

	/* An order-0 folio is its page: a fault maps it alone. */
	if (!in->order || in->order >= 64 || in->first > in->last)
		return;
	f = file_of(l, in->file);
	if (!f)
		return;
	if (array_grow((void **)&f->folios, &f->capfolios, f->nfolios,
		       sizeof(*f->folios)))
		f->folios[f->nfolios++] = *in;
	else
		l->oom = true;
}

static bool overlaps(uint64_t a, uint64_t b, uint64_t first, uint64_t last)
{
	return a <= last && first <= b;
}

/*
 * The folio record that held pages [@a, @b] of fault or fault-around @fl,
 * from @f->folios[@k]: it overlaps them, was added at the latest
 * @fl->lead_ns after it, and no record added later but in time overlaps the
 * same pages (that one replaced it: the pages were evicted and read again).
 */
static bool held_fault(const struct an_file *f, size_t k,
		       const struct an_fault *fl, uint64_t a, uint64_t b)
{
	const struct an_folio *r = &f->folios[k];
	uint64_t until = fl->end_ns + fl->lead_ns;
	size_t j;

	if (r->t_ns > until || !overlaps(a, b, r->first, r->last))
		return false;
	for (j = 0; j < f->nfolios; j++) {
		const struct an_folio *n = &f->folios[j];

		if (j != k && n->t_ns > r->t_ns && n->t_ns <= until &&
		    overlaps(a, b, n->first, n->last) &&
		    overlaps(r->first, r->last, n->first, n->last))
			return false;
	}
	return true;
}

/*
 * Maps the large folios fault or fault-around @fl found whole, as the
 * kernel's finish_fault() and filemap_map_folio_range() do.
 */
static void map_fault_folios(struct an_log *l, struct an_file *f,
			     const struct an_fault *fl)
{
	size_t k;

	for (k = 0; k < f->nfolios; k++) {
		const struct an_folio *r = &f->folios[k];
		uint64_t mask = (1ull << r->order) - 1, lo, hi;

		if (!held_fault(f, k, fl, fl->first, fl->last))
			continue;
		lo = fl->first > r->first ? fl->first : r->first;
		hi = fl->last < r->last ? fl->last : r->last;
		lo &= ~mask;
		hi |= mask;
		if (lo < r->first)
			lo = r->first;
		if (hi > r->last)
			hi = r->last;
		ranges_add(l, &f->mapped, lo, hi);
		age_add_access(&f->age, LOG_ACCESS_MAP, lo, hi, fl->t_ns,
			       fl->end_ns);
		l->oom |= f->age.oom;
	}
}

void an_end(struct an_log *l)
{
	size_t i, k;

	for (i = 0; i < l->nf; i++) {
		struct an_file *f = &l->f[i];

		if (f->ended)
			continue;
		f->ended = true;
		for (k = 0; f->nfolios && k < f->nfaults; k++)
			map_fault_folios(l, f, &f->faults[k]);
	}
}

static int8_t order_of(int order)
{
	return order < 0 ? -1 : order > 127 ? 127 : (int8_t)order;
}

void an_add_read(struct an_log *l, const struct an_read *r)
{
	struct an_file *f;
	uint64_t last;

	if (!r->pages)
		return;
	l->request_pages[an_log2_bucket(r->pages)]++;
	if (r->attributed && r->window) {
		if (array_grow((void **)&l->w, &l->capw, l->nw, sizeof(*l->w)))
			l->w[l->nw++] = (struct an_window_read){
				r->window, order_of(r->order),
				order_of(r->alloc_order), l->nw
			};
		else
			l->oom = true;
	}
	if (!an_read_fetches(r))
		return;
	f = file_of(l, r->file);
	if (!f)
		return;
	last = r->first + r->pages - 1;
	ranges_add(l, &f->fetched, r->first, last);
	age_add_fetch(&f->age, r->first, last, r->t_ns, r->done_ns);
	l->oom |= f->age.oom;
	f->late_reads += r->attributed && r->late;
	f->read_triggered |= r->attributed && r->by_read;
	f->trigger_unknown |= r->trigger_unknown && !r->direct;
}

int an_usage(struct an_log *l, size_t i, struct an_usage *out,
	     struct an_range **wasted, size_t *nwasted)
{
	struct an_ranges touched = { 0 }, rest = { 0 };
	struct an_file *f;

	memset(out, 0, sizeof(*out));
	if (wasted) {
		*wasted = NULL;
		*nwasted = 0;
	}
	if (l->oom || i >= l->nf)
		return -ENOMEM;
	f = &l->f[i];
	out->fetched = ranges_merge(&f->fetched);
	out->accessed = ranges_merge(&f->accessed);
	ranges_merge(&f->mapped);
	/* accessed or mapped, as one list */
	if (f->accessed.n + f->mapped.n) {
		touched.n = touched.cap = f->accessed.n + f->mapped.n;
		touched.v = malloc(touched.n * sizeof(*touched.v));
		if (!touched.v)
			return -ENOMEM;
		if (f->accessed.n)
			memcpy(touched.v, f->accessed.v,
			       f->accessed.n * sizeof(*touched.v));
		if (f->mapped.n)
			memcpy(touched.v + f->accessed.n, f->mapped.v,
			       f->mapped.n * sizeof(*touched.v));
		ranges_merge(&touched);
	}
	out->mapped = ranges_subtract(l, &f->mapped, &f->accessed, &rest);
	out->wasted = ranges_subtract(l, &f->fetched, &touched, &rest);
	out->late_accesses = f->late_accesses;
	out->late_reads = f->late_reads;
	out->read_triggered = f->read_triggered || f->trigger_unknown;
	out->trigger_unknown = f->trigger_unknown && !f->read_triggered;
	free(touched.v);
	if (l->oom) {
		free(rest.v);
		memset(out, 0, sizeof(*out));
		return -ENOMEM;
	}
	if (wasted && rest.n) {
		*wasted = rest.v;
		*nwasted = rest.n;
	} else {
		free(rest.v);
	}
	return 0;
}

/* By window, then in log order. */
static int window_cmp(const void *a, const void *b)
{
	const struct an_window_read *x = a, *y = b;

	return x->id != y->id ? (x->id > y->id) - (x->id < y->id)
			      : (x->at > y->at) - (x->at < y->at);
}

/* Counts @order in @hist, or in *@unknown when it is negative. */
static void count_order(uint64_t *hist, uint64_t *unknown, int order)
{
	if (order < 0)
		(*unknown)++;
	else
		hist[an_order_bucket((unsigned)order)]++;
}

int an_histograms(struct an_log *l, struct an_hist *out)
{
	size_t i, j;

	memset(out, 0, sizeof(*out));
	if (l->oom)
		return -ENOMEM;
	memcpy(out->request_pages, l->request_pages,
	       sizeof(out->request_pages));
	/* Each window: its reads in log order, the first one's asked order
	 * and the first allocated order known. */
	if (l->nw) /* qsort() wants an array, even of none */
		qsort(l->w, l->nw, sizeof(*l->w), window_cmp);
	for (i = 0; i < l->nw; i = j) {
		int alloc = -1;

		for (j = i; j < l->nw && l->w[j].id == l->w[i].id; j++)
			if (alloc < 0)
				alloc = l->w[j].alloc;
		out->windows++;
		count_order(out->order_asked, &out->order_asked_unknown,
			    l->w[i].order);
		count_order(out->order_alloc, &out->order_alloc_unknown, alloc);
	}
	return 0;
}

void an_free(struct an_log *l)
{
	size_t i;

	for (i = 0; i < l->nf; i++) {
		free(l->f[i].fetched.v);
		free(l->f[i].accessed.v);
		free(l->f[i].mapped.v);
		free(l->f[i].folios);
		free(l->f[i].faults);
		age_free(&l->f[i].age);
	}
	free(l->f);
	free(l->w);
	memset(l, 0, sizeof(*l));
}
