// SPDX-License-Identifier: MIT
/*
 * The model behind the HTML page: growable arrays of what the log and
 * the run said, copied so callers may free their own data.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void htmlrep_init(struct htmlrep *r)
{
	memset(r, 0, sizeof(*r));
}

static void verdict_clear(struct htmlrep_verdict *v)
{
	free(v->policy);
	free(v->expected);
	free(v->observed);
	free(v->verdict);
}

void htmlrep_verdicts_free(struct htmlrep_verdict *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		verdict_clear(&v[i]);
	free(v);
}

void htmlrep_free(struct htmlrep *r)
{
	size_t i;

	free(r->title);
	free(r->subtitle);
	for (i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].name);
	free(r->files);
	free(r->vmas);
	free(r->ranges);
	free(r->accesses);
	for (i = 0; i < r->nmarks; i++)
		free(r->marks[i].text);
	free(r->marks);
	htmlrep_verdicts_free(r->verdicts, r->nverdicts);
	for (i = 0; i < r->nhists; i++) {
		free(r->hists[i].title);
		free(r->hists[i].label);
		free(r->hists[i].counts);
	}
	free(r->hists);
	htmlrep_init(r);
}

/* Makes room for one more element of @size in *@v holding @n. */
static int grow(void *v, size_t n, size_t size)
{
	void **p = v;
	void *nv;
	size_t cap;

	/* Capacities are 16, 32, 64 ...: full when n is one of them. */
	if (n != 0 && (n < 16 || (n & (n - 1))))
		return 0;
	cap = n ? n * 2 : 16;
	nv = realloc(*p, cap * size);
	if (!nv)
		return -ENOMEM;
	*p = nv;
	return 0;
}

static int set_str(char **dst, const char *s)
{
	char *c = strdup(s ? s : "");

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

/* Appends the @size bytes of @item to the array *@v of *@n items. */
static int push(void *v, size_t *n, const void *item, size_t size)
{
	if (grow(v, *n, size))
		return -ENOMEM;
	memcpy((char *)*(void **)v + *n * size, item, size);
	(*n)++;
	return 0;
}

int htmlrep_set_title(struct htmlrep *r, const char *title)
{
	return set_str(&r->title, title);
}

int htmlrep_set_subtitle(struct htmlrep *r, const char *subtitle)
{
	return set_str(&r->subtitle, subtitle);
}

int htmlrep_add_note(struct htmlrep *r, const char *text)
{
	char *c = strdup(text);

	if (!c || push(&r->notes, &r->nnotes, &c, sizeof(c))) {
		free(c);
		return -ENOMEM;
	}
	return 0;
}

long htmlrep_file(struct htmlrep *r, const char *name, uint64_t pages)
{
	struct htmlrep_file *f;
	size_t i;

	for (i = 0; i < r->nfiles; i++) {
		if (strcmp(r->files[i].name, name) == 0) {
			if (pages)
				r->files[i].pages = pages;
			return (long)i;
		}
	}
	if (grow(&r->files, r->nfiles, sizeof(*r->files)))
		return -ENOMEM;
	f = &r->files[r->nfiles];
	f->name = strdup(name);
	if (!f->name)
		return -ENOMEM;
	f->pages = pages;
	return (long)r->nfiles++;
}

int htmlrep_add_vma(struct htmlrep *r, const char *name, uint64_t first,
		    uint64_t last, int prot)
{
	struct htmlrep_vma *v;
	long file;

	if (last < first)
		return -EINVAL;
	file = htmlrep_file(r, name, 0);
	if (file < 0)
		return (int)file;
	if (grow(&r->vmas, r->nvmas, sizeof(*r->vmas)))
		return -ENOMEM;
	v = &r->vmas[r->nvmas++];
	v->file = (size_t)file;
	v->first = first;
	v->last = last;
	v->prot = prot;
	return 0;
}

static int refuse(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Pages [first, first + pages - 1] of file @file, as a read or access. */
static int check_pages(const struct htmlrep *r, size_t file, uint64_t first,
		       uint64_t pages, bool may_pass_eof, char *why,
		       size_t whylen)
{
	const struct htmlrep_file *f = &r->files[file];

	if (!pages)
		return refuse(why, whylen, "0 pages (\"pages\" is at least 1)");
	if (first >= HTMLREP_PAGE_LIMIT || pages > HTMLREP_PAGE_LIMIT - first)
		return refuse(why, whylen,
			      "page %" PRIu64 " and %" PRIu64
			      " pages: past page 2^51, the end of any file "
			      "(2^63 bytes)",
			      first, pages);
	if (f->pages && first >= f->pages && !may_pass_eof)
		return refuse(why, whylen,
			      "page %" PRIu64 " is past the end of %s (%" PRIu64
			      " pages)",
			      first, f->name, f->pages);
	return 0;
}

static int check_time(const char *key, uint64_t ns, char *why, size_t whylen)
{
	if (ns > HTMLREP_TIME_LIMIT)
		return refuse(why, whylen,
			      "\"%s\" %" PRIu64
			      " is no CLOCK_MONOTONIC time (more than 2^63 ns)",
			      key, ns);
	return 0;
}

static int check_page(const char *key, uint64_t page, char *why, size_t whylen)
{
	if (page != HTMLREP_NO_PAGE && page >= HTMLREP_PAGE_LIMIT)
		return refuse(why, whylen,
			      "\"%s\" %" PRIu64
			      ": past page 2^51, the end of any file",
			      key, page);
	return 0;
}

/*
 * Times t_ns and @end_ns (named @end_key) of a record: each a valid time,
 * and the end not before the start ("@ended (@end_key N) before it
 * @started (t_ns M)").
 */
static int check_span(uint64_t t_ns, const char *end_key, uint64_t end_ns,
		      const char *ended, const char *started, char *why,
		      size_t whylen)
{
	int err = check_time("t_ns", t_ns, why, whylen);

	if (!err)
		err = check_time(end_key, end_ns, why, whylen);
	if (!err && end_ns < t_ns)
		err = refuse(why, whylen,
			     "%s (%s %" PRIu64 ") before it %s (t_ns %" PRIu64
			     ")",
			     ended, end_key, end_ns, started, t_ns);
	return err;
}

int htmlrep_check_range(const struct htmlrep *r, const struct htmlrep_range *g,
			char *why, size_t whylen)
{
	int err;

	if (g->file >= r->nfiles)
		return refuse(why, whylen, "no such file");
	err = check_pages(r, g->file, g->first, g->pages,
			  strcmp(g->cause, "direct") == 0, why, whylen);
	if (!err && g->pages > HTMLREP_READ_MAX_PAGES)
		err = refuse(why, whylen,
			     "a read of %" PRIu64
			     " pages (a FUSE read covers at most %llu)",
			     g->pages, HTMLREP_READ_MAX_PAGES);
	if (!err)
		err = check_span(g->t_ns, "done_ns", g->done_ns, "answered",
				 "arrived", why, whylen);
	if (!err && g->ra_start != HTMLREP_NO_PAGE &&
	    (g->ra_start >= HTMLREP_PAGE_LIMIT ||
	     g->ra_size > HTMLREP_PAGE_LIMIT - g->ra_start))
		err = refuse(why, whylen,
			     "a window of %" PRIu32 " pages at page %" PRIu64
			     ": past page 2^51, the end of any file",
			     g->ra_size, g->ra_start);
	if (!err)
		err = check_page("ra_marker", g->marker, why, whylen);
	if (!err)
		err = check_page("trigger_page", g->trigger, why, whylen);
	return err;
}

int htmlrep_check_access(const struct htmlrep *r,
			 const struct htmlrep_access *a, char *why,
			 size_t whylen)
{
	int err;

	if (a->file >= r->nfiles)
		return refuse(why, whylen, "no such file");
	err = check_pages(r, a->file, a->first, a->pages, false, why, whylen);
	if (!err)
		err = check_span(a->t_ns, "end_ns", a->end_ns, "ends", "starts",
				 why, whylen);
	if (!err && a->late > a->events)
		err = refuse(why, whylen, "%" PRIu32 " late events of %" PRIu32,
			     a->late, a->events);
	return err;
}

int htmlrep_add_range(struct htmlrep *r, const struct htmlrep_range *g)
{
	if (htmlrep_check_range(r, g, NULL, 0))
		return -EINVAL;
	return push(&r->ranges, &r->nranges, g, sizeof(*g));
}

int htmlrep_add_access(struct htmlrep *r, const struct htmlrep_access *a)
{
	if (htmlrep_check_access(r, a, NULL, 0))
		return -EINVAL;
	return push(&r->accesses, &r->naccesses, a, sizeof(*a));
}

int htmlrep_add_mark(struct htmlrep *r, uint64_t seq, uint64_t t_ns,
		     const char *text)
{
	struct htmlrep_mark m = { .seq = seq,
				  .t_ns = t_ns,
				  .text = strdup(text) };

	if (!m.text || push(&r->marks, &r->nmarks, &m, sizeof(m))) {
		free(m.text);
		return -ENOMEM;
	}
	return 0;
}

int htmlrep_add_verdict(struct htmlrep *r, const char *policy,
			const char *expected, const char *observed,
			const char *verdict)
{
	struct htmlrep_verdict *v;

	if (grow(&r->verdicts, r->nverdicts, sizeof(*r->verdicts)))
		return -ENOMEM;
	v = &r->verdicts[r->nverdicts];
	memset(v, 0, sizeof(*v));
	if (set_str(&v->policy, policy) || set_str(&v->expected, expected) ||
	    set_str(&v->observed, observed) || set_str(&v->verdict, verdict)) {
		verdict_clear(v);
		return -ENOMEM;
	}
	r->nverdicts++;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

size_t htmlrep_window_count(const struct htmlrep *r)
{
	uint32_t *ids;
	size_t i, n = 0, distinct = 0;

	ids = malloc((r->nranges ? r->nranges : 1) * sizeof(*ids));
	if (!ids)
		return 0;
	for (i = 0; i < r->nranges; i++)
		if (r->ranges[i].window)
			ids[n++] = r->ranges[i].window;
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (i = 0; i < n; i++)
		if (i == 0 || ids[i] != ids[i - 1])
			distinct++;
	free(ids);
	return distinct;
}

int htmlrep_add_histogram(struct htmlrep *r, const char *title,
			  const char *label, const uint64_t *counts, size_t n)
{
	struct htmlrep_hist *h;

	if (grow(&r->hists, r->nhists, sizeof(*r->hists)))
		return -ENOMEM;
	h = &r->hists[r->nhists];
	memset(h, 0, sizeof(*h));
	h->counts = malloc((n ? n : 1) * sizeof(*h->counts));
	if (!h->counts || set_str(&h->title, title) ||
	    set_str(&h->label, label)) {
		free(h->counts);
		free(h->title);
		free(h->label);
		return -ENOMEM;
	}
	if (n)
		memcpy(h->counts, counts, n * sizeof(*counts));
	h->n = n;
	r->nhists++;
	return 0;
}
