// SPDX-License-Identifier: MIT
/*
 * The model behind the HTML page: growable arrays of what the log and
 * the run said, copied so callers may free their own data.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void htmlrep_init(struct htmlrep *r)
{
	memset(r, 0, sizeof(*r));
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
	for (i = 0; i < r->nverdicts; i++) {
		free(r->verdicts[i].policy);
		free(r->verdicts[i].expected);
		free(r->verdicts[i].observed);
		free(r->verdicts[i].verdict);
	}
	free(r->verdicts);
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
	char *c;

	if (grow(&r->notes, r->nnotes, sizeof(*r->notes)))
		return -ENOMEM;
	c = strdup(text);
	if (!c)
		return -ENOMEM;
	r->notes[r->nnotes++] = c;
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

int htmlrep_add_range(struct htmlrep *r, const struct htmlrep_range *g)
{
	if (g->file >= r->nfiles || !g->pages)
		return -EINVAL;
	if (grow(&r->ranges, r->nranges, sizeof(*r->ranges)))
		return -ENOMEM;
	r->ranges[r->nranges++] = *g;
	return 0;
}

int htmlrep_add_access(struct htmlrep *r, const struct htmlrep_access *a)
{
	if (a->file >= r->nfiles || !a->pages)
		return -EINVAL;
	if (grow(&r->accesses, r->naccesses, sizeof(*r->accesses)))
		return -ENOMEM;
	r->accesses[r->naccesses++] = *a;
	return 0;
}

int htmlrep_add_mark(struct htmlrep *r, uint64_t seq, uint64_t t_ns,
		     const char *text)
{
	struct htmlrep_mark *m;
	char *c;

	if (grow(&r->marks, r->nmarks, sizeof(*r->marks)))
		return -ENOMEM;
	c = strdup(text);
	if (!c)
		return -ENOMEM;
	m = &r->marks[r->nmarks++];
	m->seq = seq;
	m->t_ns = t_ns;
	m->text = c;
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
		free(v->policy);
		free(v->expected);
		free(v->observed);
		free(v->verdict);
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
