// SPDX-License-Identifier: MIT
#include "page_age.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array.h"
#include "log_record.h"

void age_add_fetch(struct age_input *in, uint64_t first, uint64_t last,
		   uint64_t t_ns, uint64_t done_ns)
{
	if (last < first)
		return;
	if (!array_grow((void **)&in->f, &in->capf, in->nf, sizeof(*in->f))) {
		in->oom = true;
		return;
	}
	in->f[in->nf++] = (struct age_fetch){ first, last, t_ns, done_ns };
}

void age_add_access(struct age_input *in, unsigned type, uint64_t first,
		    uint64_t last, uint64_t t_ns, uint64_t end_ns)
{
	if (last < first)
		return;
	if (type != LOG_ACCESS_FAULT && type != LOG_ACCESS_READ &&
	    type != LOG_ACCESS_MAP)
		return;
	/* The access rule is analysis.h's. */
	if (!array_grow((void **)&in->a, &in->capa, in->na, sizeof(*in->a))) {
		in->oom = true;
		return;
	}
	in->a[in->na++] =
		(struct age_access){ first, last, t_ns,
				     end_ns < t_ns ? t_ns : end_ns,
				     !an_is_access(type, first, last) };
}

void age_free(struct age_input *in)
{
	free(in->f);
	free(in->a);
	memset(in, 0, sizeof(*in));
}

unsigned age_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned b;

	if (!us)
		return 0;
	b = an_log2(us) + 1; /* us in [2^(b-1), 2^b) */
	return b < AGE_BUCKETS ? b : AGE_BUCKETS - 1;
}

uint64_t age_bucket_low_us(unsigned b)
{
	return b ? 1ull << (b - 1) : 0;
}

/* ---- the sweep over page intervals ---- */

struct sweep {
	const struct age_input *in;
	uint64_t *cuts;
	size_t ncuts;
	size_t *fby, *aby;   /* indices sorted by first page */
	size_t *fact, *aact; /* active at the current interval */
	size_t nfact, naact;
	uint64_t older_ns;
};

static int u64_cmp(const void *a, const void *b)
{
	return (*(const uint64_t *)a > *(const uint64_t *)b) -
	       (*(const uint64_t *)a < *(const uint64_t *)b);
}

/* The input the index comparators read (qsort() passes no context). */
static _Thread_local const struct age_input *sort_in;

static size_t idx(const void *p)
{
	return *(const size_t *)p;
}

static int order_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

static int fetch_first_cmp(const void *a, const void *b)
{
	return order_u64(sort_in->f[idx(a)].first, sort_in->f[idx(b)].first);
}

static int access_first_cmp(const void *a, const void *b)
{
	return order_u64(sort_in->a[idx(a)].first, sort_in->a[idx(b)].first);
}

/* By time, then by index: the order they were added in. */
static int fetch_time_cmp(const void *a, const void *b)
{
	int c = order_u64(sort_in->f[idx(a)].t_ns, sort_in->f[idx(b)].t_ns);

	return c ? c : order_u64(idx(a), idx(b));
}

static int access_time_cmp(const void *a, const void *b)
{
	int c = order_u64(sort_in->a[idx(a)].t_ns, sort_in->a[idx(b)].t_ns);

	return c ? c : order_u64(idx(a), idx(b));
}

static size_t dedup(uint64_t *v, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++)
		if (!o || v[i] != v[o - 1])
			v[o++] = v[i];
	return o;
}

static void add_cut(struct sweep *s, uint64_t p, uint64_t lo, uint64_t hi)
{
	if (p < lo || p > hi)
		return;
	s->cuts[s->ncuts++] = p;
}

/* Cuts at the edges of [@first, @last] within [@lo, @hi]; false if the
 * range lies outside. */
static bool cut_range(struct sweep *s, uint64_t first, uint64_t last,
		      uint64_t lo, uint64_t hi)
{
	if (last < lo || first > hi)
		return false;
	add_cut(s, first, lo, hi);
	if (last < hi)
		add_cut(s, last + 1, lo, hi);
	return true;
}

/* Drops the active fetches and accesses that end before page @p. */
static void retire(struct sweep *s, uint64_t p)
{
	size_t i, o = 0;

	for (i = 0; i < s->nfact; i++)
		if (s->in->f[s->fact[i]].last >= p)
			s->fact[o++] = s->fact[i];
	s->nfact = o;
	for (i = 0, o = 0; i < s->naact; i++)
		if (s->in->a[s->aact[i]].last >= p)
			s->aact[o++] = s->aact[i];
	s->naact = o;
}

static uint64_t epoch_start(uint64_t t)
{
	return t > AGE_LEAD_NS ? t - AGE_LEAD_NS : 0;
}

/*
 * The fate of fetch @k of the active ones (sorted by time) for the
 * interval's pages: an age (>= 0) or AGE_NEVER, AGE_MAPPED, AGE_LATE.
 * @ai is where the scan of the active accesses (by time) goes on.
 */
static int64_t fate(const struct sweep *s, size_t k, size_t *ai, uint64_t *span)
{
	const struct age_fetch *f = &s->in->f[s->fact[k]];
	uint64_t from = epoch_start(f->t_ns), to = UINT64_MAX;
	bool mapped = false;

	if (k + 1 < s->nfact)
		to = epoch_start(s->in->f[s->fact[k + 1]].t_ns);
	for (; *ai < s->naact; (*ai)++) {
		const struct age_access *a = &s->in->a[s->aact[*ai]];

		if (a->t_ns < from)
			continue;
		if (a->t_ns >= to)
			break;
		if (a->mapped) {
			mapped = true;
			continue;
		}
		*span = a->end_ns - a->t_ns;
		/* The rest of this epoch is decided: on to the next's. */
		while (*ai < s->naact && s->in->a[s->aact[*ai]].t_ns < to)
			(*ai)++;
		/*
		 * Certainly before the reply only if the whole record was;
		 * one that spans the reply is within the resolution: 0.
		 */
		if (a->end_ns < f->done_ns)
			return AGE_LATE;
		return a->t_ns < f->done_ns ? 0
					    : (int64_t)(a->t_ns - f->done_ns);
	}
	return mapped ? AGE_MAPPED : AGE_NEVER;
}

static void count(struct age_hist *h, int64_t v, uint64_t n, uint64_t older_ns)
{
	h->pages += n;
	if (v >= 0 && (uint64_t)v >= older_ns)
		h->older += n;
	if (v == AGE_LATE)
		h->late += n;
	else if (v == AGE_NEVER)
		h->never += n;
	else if (v == AGE_MAPPED)
		h->mapped += n;
	else
		h->bucket[age_bucket((uint64_t)v)] += n;
}

/* Decides the pages [@p, @q] (same fetches and accesses). */
static void interval(struct sweep *s, uint64_t p, uint64_t q, uint64_t lo,
		     struct age_hist *h, int64_t *ages)
{
	int64_t v = AGE_NOT_FETCHED;
	size_t k, ai = 0;
	uint64_t i;

	sort_in = s->in;
	if (s->nfact)
		qsort(s->fact, s->nfact, sizeof(*s->fact), fetch_time_cmp);
	if (s->naact)
		qsort(s->aact, s->naact, sizeof(*s->aact), access_time_cmp);
	for (k = 0; k < s->nfact; k++) {
		uint64_t span = 0;

		v = fate(s, k, &ai, &span);
		count(h, v, q - p + 1, s->older_ns);
		if (v >= 0 || v == AGE_LATE) {
			if (span > h->resolution_ns)
				h->resolution_ns = span;
		}
	}
	for (i = p; ages && i <= q; i++)
		ages[i - lo] = v;
}

static int sweep_alloc(struct sweep *s)
{
	const struct age_input *in = s->in;
	size_t n = 2 * (in->nf + in->na) + 2;

	s->cuts = malloc(n * sizeof(*s->cuts));
	s->fby = malloc((in->nf + 1) * sizeof(*s->fby));
	s->aby = malloc((in->na + 1) * sizeof(*s->aby));
	s->fact = malloc((in->nf + 1) * sizeof(*s->fact));
	s->aact = malloc((in->na + 1) * sizeof(*s->aact));
	return s->cuts && s->fby && s->aby && s->fact && s->aact ? 0 : -ENOMEM;
}

static void sweep_free(struct sweep *s)
{
	free(s->cuts);
	free(s->fby);
	free(s->aby);
	free(s->fact);
	free(s->aact);
}

int age_compute(const struct age_input *in, uint64_t lo, uint64_t hi,
		uint64_t older_ns, struct age_hist *h, int64_t *ages)
{
	struct sweep s = { .in = in, .older_ns = older_ns };
	size_t i, fi = 0, ai = 0, nfby = 0, naby = 0;
	int err = -ENOMEM;

	memset(h, 0, sizeof(*h));
	if (in->oom || hi < lo)
		return in->oom ? -ENOMEM : 0;
	if (ages)
		for (i = 0; i <= hi - lo; i++)
			ages[i] = AGE_NOT_FETCHED;
	if (sweep_alloc(&s))
		goto out;
	add_cut(&s, lo, lo, hi);
	for (i = 0; i < in->nf; i++)
		if (cut_range(&s, in->f[i].first, in->f[i].last, lo, hi))
			s.fby[nfby++] = i;
	for (i = 0; i < in->na; i++)
		if (cut_range(&s, in->a[i].first, in->a[i].last, lo, hi))
			s.aby[naby++] = i;
	sort_in = in;
	if (s.ncuts)
		qsort(s.cuts, s.ncuts, sizeof(*s.cuts), u64_cmp);
	s.ncuts = dedup(s.cuts, s.ncuts);
	if (nfby)
		qsort(s.fby, nfby, sizeof(*s.fby), fetch_first_cmp);
	if (naby)
		qsort(s.aby, naby, sizeof(*s.aby), access_first_cmp);
	for (i = 0; i < s.ncuts; i++) {
		uint64_t p = s.cuts[i];
		uint64_t q = i + 1 < s.ncuts ? s.cuts[i + 1] - 1 : hi;

		retire(&s, p);
		while (fi < nfby && in->f[s.fby[fi]].first <= p)
			s.fact[s.nfact++] = s.fby[fi++];
		while (ai < naby && in->a[s.aby[ai]].first <= p)
			s.aact[s.naact++] = s.aby[ai++];
		if (s.nfact)
			interval(&s, p, q, lo, h, ages);
	}
	err = 0;
out:
	sweep_free(&s);
	return err;
}
