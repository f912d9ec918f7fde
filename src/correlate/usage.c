// SPDX-License-Identifier: MIT
#include "usage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "page_age.h"
#include "array.h"
#include "json.h"

struct range {
	uint64_t first;
	uint64_t last;
};

struct rlist {
	struct range *v;
	size_t n;
	size_t cap;
};

struct ufile {
	uint64_t ino;
	struct rlist fetched, accessed, mapped;
	struct age_input age;
	uint64_t late_accesses;
	uint64_t late_reads;
	bool read_triggered; /* a window started by read(2) */
};

struct win {
	uint32_t id;
	int8_t asked;
	int8_t alloc;
};

struct uctx {
	struct ufile *f;
	size_t n, cap;
	struct win *w;
	size_t nw, capw;
	struct usage_hist h;
	uint32_t page_size;
	bool oom;
};

static void rl_add(struct uctx *u, struct rlist *l, uint64_t first,
		   uint64_t last)
{
	/* Extend the last range when the next one touches it (common). */
	if (l->n && first >= l->v[l->n - 1].first &&
	    first <= l->v[l->n - 1].last + 1) {
		if (last > l->v[l->n - 1].last)
			l->v[l->n - 1].last = last;
		return;
	}
	if (!array_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v))) {
		u->oom = true;
		return;
	}
	l->v[l->n].first = first;
	l->v[l->n].last = last;
	l->n++;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts and coalesces; returns the pages covered. */
static uint64_t rl_merge(struct rlist *l)
{
	size_t i, o = 0;
	uint64_t pages = 0;

	if (!l->n)
		return 0;
	qsort(l->v, l->n, sizeof(*l->v), range_cmp);
	for (i = 1; i < l->n; i++) {
		if (l->v[i].first <= l->v[o].last + 1) {
			if (l->v[i].last > l->v[o].last)
				l->v[o].last = l->v[i].last;
		} else {
			l->v[++o] = l->v[i];
		}
	}
	l->n = o + 1;
	for (i = 0; i < l->n; i++)
		pages += l->v[i].last - l->v[i].first + 1;
	return pages;
}

/* Pages of merged @a covered by merged @b. */
static uint64_t rl_overlap(const struct rlist *a, const struct rlist *b)
{
	size_t i = 0, j = 0;
	uint64_t n = 0;

	while (i < a->n && j < b->n) {
		uint64_t lo = a->v[i].first > b->v[j].first ? a->v[i].first
							    : b->v[j].first;
		uint64_t hi = a->v[i].last < b->v[j].last ? a->v[i].last
							  : b->v[j].last;

		if (lo <= hi)
			n += hi - lo + 1;
		if (a->v[i].last < b->v[j].last)
			i++;
		else
			j++;
	}
	return n;
}

static struct ufile *file_of(struct uctx *u, uint64_t ino)
{
	size_t i;

	/* Few files take part in one measurement; the last one usually. */
	for (i = u->n; i-- > 0;)
		if (u->f[i].ino == ino)
			return &u->f[i];
	if (!array_grow((void **)&u->f, &u->cap, u->n, sizeof(*u->f))) {
		u->oom = true;
		return NULL;
	}
	memset(&u->f[u->n], 0, sizeof(u->f[u->n]));
	u->f[u->n].ino = ino;
	return &u->f[u->n++];
}

static unsigned bucket(uint64_t v)
{
	unsigned b = 0;

	while (v > 1 && b < USAGE_BUCKETS - 1) {
		v >>= 1;
		b++;
	}
	return b;
}

static void visit(void *arg, const struct log_record *rec)
{
	struct uctx *u = arg;
	struct ufile *f;
	uint64_t first, last;

	if (rec->kind == LOG_ACCESS) {
		f = file_of(u, rec->access.ino);
		if (!f)
			return;
		/* A one-page fault-around is the touched page (lib/windows.c
		 * and src/age/ say the same). */
		rl_add(u,
		       rec->access.type == LOG_ACCESS_MAP &&
				       rec->access.last > rec->access.first
			       ? &f->mapped
			       : &f->accessed,
		       rec->access.first, rec->access.last);
		f->late_accesses += rec->access.late;
		age_add_access(&f->age, rec->access.type, rec->access.first,
			       rec->access.last, rec->t_ns, rec->access.end_ns);
		u->oom |= f->age.oom;
		return;
	}
	if (rec->kind != LOG_READ || !rec->read.len)
		return;
	first = rec->read.off / u->page_size;
	last = (rec->read.off + rec->read.len - 1) / u->page_size;
	u->h.request_pages[bucket(last - first + 1)]++;
	if (rec->read.attr.window &&
	    array_grow((void **)&u->w, &u->capw, u->nw, sizeof(*u->w))) {
		u->w[u->nw].id = rec->read.attr.window;
		u->w[u->nw].asked = rec->read.attr.order;
		u->w[u->nw].alloc = rec->read.attr.alloc_order;
		u->nw++;
	}
	if (rec->read.err || (rec->flags & LOG_FLAG_DIRECT))
		return;
	f = file_of(u, rec->read.ino);
	if (!f)
		return;
	rl_add(u, &f->fetched, first, last);
	age_add_fetch(&f->age, first, last, rec->t_ns, rec->read.done_ns);
	u->oom |= f->age.oom;
	if (rec->read.attr.flags & LOG_ATTR_LATE)
		f->late_reads++;
	if (rec->read.attr.flags & LOG_ATTR_READ_TRIGGER)
		f->read_triggered = true;
}

static int win_cmp(const void *a, const void *b)
{
	const struct win *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void count_windows(struct uctx *u)
{
	size_t i;

	if (!u->nw)
		return;
	qsort(u->w, u->nw, sizeof(*u->w), win_cmp);
	for (i = 0; i < u->nw; i++) {
		const struct win *w = &u->w[i];

		if (i && w->id == u->w[i - 1].id)
			continue;
		u->h.windows++;
		if (w->asked < 0)
			u->h.order_asked_unknown++;
		else
			u->h.order_asked[w->asked < USAGE_BUCKETS
						 ? w->asked
						 : USAGE_BUCKETS - 1]++;
		if (w->alloc < 0)
			u->h.order_alloc_unknown++;
		else
			u->h.order_alloc[w->alloc < USAGE_BUCKETS
						 ? w->alloc
						 : USAGE_BUCKETS - 1]++;
	}
}

static void add_hist(struct strbuf *sb, const char *key, const uint64_t *v,
		     bool ranges, uint64_t unknown)
{
	bool first = true;
	unsigned i;

	strbuf_addf(sb, "\"%s\":{", key);
	for (i = 0; i < USAGE_BUCKETS; i++) {
		if (!v[i])
			continue;
		if (ranges && i)
			strbuf_addf(sb, "%s\"%llu-%llu\":%" PRIu64,
				    first ? "" : ",", 1ull << i,
				    (2ull << i) - 1, v[i]);
		else
			strbuf_addf(sb, "%s\"%u\":%" PRIu64, first ? "" : ",",
				    ranges ? 1u : i, v[i]);
		first = false;
	}
	if (unknown)
		strbuf_addf(sb, "%s\"unknown\":%" PRIu64, first ? "" : ",",
			    unknown);
	strbuf_adds(sb, "}");
}

/*
 * ,"page_age":{"pages":N,"late":N,"never":N,"mapped":N,
 * "resolution_ns":N,"us":{"LOW":N,...}}: bucket LOW holds ages of LOW to
 * 2 LOW us (0: under 1 us; the last bucket is open). null untraced. With
 * @reads_untraced (read(2) started readahead here, its lookups are not
 * traced) a "never_why" after "us" says that "never" counts pages read(2)
 * read too.
 */
static int add_page_age(struct strbuf *sb, const struct age_input *in,
			bool traced, bool reads_untraced)
{
	struct age_hist h;
	bool first = true;
	unsigned i;

	strbuf_adds(sb, ",\"page_age\":");
	if (!traced) {
		strbuf_adds(sb, "null");
		return 0;
	}
	if (age_compute(in, 0, UINT64_MAX, UINT64_MAX, &h, NULL))
		return -ENOMEM;
	strbuf_addf(sb,
		    "{\"pages\":%" PRIu64 ",\"late\":%" PRIu64
		    ",\"never\":%" PRIu64 ",\"mapped\":%" PRIu64
		    ",\"resolution_ns\":%" PRIu64 ",\"us\":{",
		    h.pages, h.late, h.never, h.mapped, h.resolution_ns);
	for (i = 0; i < AGE_BUCKETS; i++) {
		if (!h.bucket[i])
			continue;
		strbuf_addf(sb, "%s\"%" PRIu64 "\":%" PRIu64, first ? "" : ",",
			    age_bucket_low_us(i), h.bucket[i]);
		first = false;
	}
	strbuf_adds(sb, "}");
	if (reads_untraced)
		strbuf_adds(
			sb,
			",\"never_why\":\"read(2) accesses are not traced (--trace-reads): pages only read(2) touched count as never\"");
	strbuf_adds(sb, "}");
	return 0;
}

/* One sentence on what the folio orders mean, for people reading stats. */
static void add_order_note(struct strbuf *sb, const struct usage_hist *h)
{
	unsigned i, max_asked = 0, max_alloc = 0;
	bool asked = false, alloc = false;

	for (i = 0; i < USAGE_BUCKETS; i++) {
		if (h->order_asked[i]) {
			asked = true;
			max_asked = i;
		}
		if (h->order_alloc[i]) {
			alloc = true;
			max_alloc = i;
		}
	}
	strbuf_adds(sb, ",\"order_note\":");
	if (!h->windows)
		json_add_cstring(sb, "no readahead window traced");
	else if (alloc && max_alloc == 0 && asked && max_asked > 0)
		json_add_cstring(
			sb,
			"the kernel asked for large folios, but every window was read through page_cache_ra_unbounded() with order-0 folios: this file system does not use large folios here");
	else if (alloc && max_alloc == 0)
		json_add_cstring(sb, "only order-0 folios were allocated");
	else if (h->order_alloc_unknown)
		json_add_cstring(
			sb,
			"windows read without page_cache_ra_unbounded() used large folios of at most the order asked for");
	else
		json_add_cstring(sb, "");
}

int usage_render(struct log_ring *ring, uint64_t from, uint32_t page_size,
		 bool traced, bool reads_traced, usage_name_fn name_of,
		 void *ctx, struct strbuf *sb)
{
	struct uctx u;
	bool first = true;
	size_t i;

	memset(&u, 0, sizeof(u));
	u.page_size = page_size ? page_size : 4096;
	log_ring_walk(ring, from, visit, NULL, &u);
	count_windows(&u);
	strbuf_adds(sb, "\"files\":{");
	for (i = 0; i < u.n && !u.oom; i++) {
		struct ufile *f = &u.f[i];
		uint64_t fetched = rl_merge(&f->fetched);
		uint64_t accessed = rl_merge(&f->accessed);
		uint64_t mapped = rl_merge(&f->mapped);
		uint64_t used, wasted;
		struct rlist both = { 0 };

		/* accessed or mapped, as one list */
		both.n = f->accessed.n + f->mapped.n;
		both.v = malloc((both.n ? both.n : 1) * sizeof(*both.v));
		if (!both.v) {
			u.oom = true;
			break;
		}
		if (f->accessed.n)
			memcpy(both.v, f->accessed.v,
			       f->accessed.n * sizeof(*both.v));
		if (f->mapped.n)
			memcpy(both.v + f->accessed.n, f->mapped.v,
			       f->mapped.n * sizeof(*both.v));
		rl_merge(&both);
		used = rl_overlap(&f->fetched, &both);
		wasted = fetched - used;
		mapped -= rl_overlap(&f->mapped, &f->accessed);
		free(both.v);
		strbuf_adds(sb, first ? "" : ",");
		first = false;
		json_add_cstring(sb, name_of(ctx, f->ino));
		strbuf_addf(sb,
			    ":{\"fetched\":%" PRIu64 ",\"accessed\":%" PRIu64
			    ",\"mapped\":%" PRIu64 ",\"wasted\":",
			    fetched, accessed, mapped);
		if (!traced)
			strbuf_adds(
				sb,
				"null,\"wasted_why\":\"no kernel tracing: accesses are not seen\"");
		else if (!reads_traced && f->read_triggered)
			strbuf_adds(
				sb,
				"null,\"wasted_why\":\"read(2) started readahead here and read(2) accesses are not traced (--trace-reads)\"");
		else
			strbuf_addf(sb, "%" PRIu64, wasted);
		strbuf_addf(sb,
			    ",\"late_accesses\":%" PRIu64
			    ",\"late_reads\":%" PRIu64,
			    f->late_accesses, f->late_reads);
		if (add_page_age(sb, &f->age, traced,
				 !reads_traced && f->read_triggered))
			u.oom = true;
		strbuf_adds(sb, "}");
	}
	strbuf_adds(sb, "},\"histograms\":{");
	add_hist(sb, "request_pages", u.h.request_pages, true, 0);
	strbuf_addf(sb, ",\"windows\":%" PRIu64 ",", u.h.windows);
	add_hist(sb, "order_asked", u.h.order_asked, false,
		 u.h.order_asked_unknown);
	strbuf_adds(sb, ",");
	add_hist(sb, "order_allocated", u.h.order_alloc, false,
		 u.h.order_alloc_unknown);
	add_order_note(sb, &u.h);
	strbuf_adds(sb, "}");
	for (i = 0; i < u.n; i++) {
		free(u.f[i].fetched.v);
		free(u.f[i].accessed.v);
		free(u.f[i].mapped.v);
		age_free(&u.f[i].age);
	}
	free(u.f);
	free(u.w);
	return u.oom ? -ENOMEM : 0;
}
