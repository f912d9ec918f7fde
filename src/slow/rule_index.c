// SPDX-License-Identifier: MIT
/*
 * The rule index (rule_index.h): blocks of rules sorted by (file, first
 * page), each with a segment tree of (largest last page, lowest rule
 * number) over its live entries.
 */
#include "rule_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NO_RULE SIZE_MAX

struct entry {
	const char *file; /* NULL: every file */
	uint64_t first, last;
	size_t rule;
	bool on;      /* off: skipped by lookups */
	bool dropped; /* off for good: left out of the next merge */
};

struct node {
	uint64_t max_last; /* of live entries below; 0 if none */
	size_t min_rule;   /* of live entries below; NO_RULE if none */
};

struct rule_index_block {
	struct entry *e;
	size_t n;
	size_t nany;	/* entries e[0, nany) are for every file */
	size_t leaves;	/* a power of two >= n */
	struct node *t; /* 2 * leaves nodes, root at 1 */
};

/* Files order NULL first, then by strcmp(); then first page, then rule. */
static int cmp_entry(const struct entry *x, const struct entry *y)
{
	int c;

	if (!x->file != !y->file)
		return x->file ? 1 : -1;
	if (x->file && (c = strcmp(x->file, y->file)) != 0)
		return c;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static void set_leaf(struct rule_index_block *b, size_t pos)
{
	struct node *leaf = &b->t[b->leaves + pos];
	const struct entry *e = &b->e[pos];

	leaf->max_last = e->on ? e->last : 0;
	leaf->min_rule = e->on ? e->rule : NO_RULE;
}

static void pull(struct rule_index_block *b, size_t i)
{
	const struct node *l = &b->t[2 * i], *r = &b->t[2 * i + 1];

	b->t[i].max_last =
		l->max_last > r->max_last ? l->max_last : r->max_last;
	b->t[i].min_rule =
		l->min_rule < r->min_rule ? l->min_rule : r->min_rule;
}

/* Builds the tree of @b over its n sorted entries. */
static int build_tree(struct rule_index_block *b)
{
	size_t i;

	b->leaves = 1;
	while (b->leaves < b->n)
		b->leaves *= 2;
	b->t = malloc(2 * b->leaves * sizeof(*b->t));
	if (!b->t)
		return -ENOMEM;
	for (i = 0; i < b->leaves; i++) {
		if (i < b->n) {
			set_leaf(b, i);
		} else {
			b->t[b->leaves + i].max_last = 0;
			b->t[b->leaves + i].min_rule = NO_RULE;
		}
	}
	for (i = b->leaves - 1; i >= 1; i--)
		pull(b, i);
	b->nany = 0;
	while (b->nany < b->n && !b->e[b->nany].file)
		b->nany++;
	return 0;
}

static void free_block(struct rule_index_block *b)
{
	free(b->e);
	free(b->t);
}

/* One block of the live entries of @x and @y (both sorted), merged. */
static int merge_blocks(const struct rule_index_block *x,
			const struct rule_index_block *y,
			struct rule_index_block *out)
{
	size_t i = 0, j = 0;

	memset(out, 0, sizeof(*out));
	out->e = malloc((x->n + y->n ? x->n + y->n : 1) * sizeof(*out->e));
	if (!out->e)
		return -ENOMEM;
	while (i < x->n || j < y->n) {
		const struct entry *pick;

		if (j == y->n ||
		    (i < x->n && cmp_entry(&x->e[i], &y->e[j]) < 0))
			pick = &x->e[i++];
		else
			pick = &y->e[j++];
		if (!pick->dropped)
			out->e[out->n++] = *pick;
	}
	if (build_tree(out)) {
		free(out->e);
		return -ENOMEM;
	}
	return 0;
}

int rule_index_add(struct rule_index *ix, const char *file, uint64_t first,
		   uint64_t last, size_t rule)
{
	struct rule_index_block one = { 0 }, merged;
	void *p;

	if (ix->nblocks == ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 16;

		p = realloc(ix->blocks, cap * sizeof(*ix->blocks));
		if (!p)
			return -ENOMEM;
		ix->blocks = p;
		ix->cap = cap;
	}
	one.e = malloc(sizeof(*one.e));
	if (!one.e)
		return -ENOMEM;
	one.e[0] = (struct entry){ file, first, last, rule, true, false };
	one.n = 1;
	if (build_tree(&one)) {
		free(one.e);
		return -ENOMEM;
	}
	ix->blocks[ix->nblocks++] = one;
	/*
	 * A binary counter: merge while the block before is not larger.
	 * Failing to merge (no memory) only leaves more, smaller blocks.
	 */
	while (ix->nblocks >= 2 &&
	       ix->blocks[ix->nblocks - 2].n <= ix->blocks[ix->nblocks - 1].n) {
		if (merge_blocks(&ix->blocks[ix->nblocks - 2],
				 &ix->blocks[ix->nblocks - 1], &merged))
			break;
		free_block(&ix->blocks[ix->nblocks - 2]);
		free_block(&ix->blocks[ix->nblocks - 1]);
		ix->blocks[ix->nblocks - 2] = merged;
		ix->nblocks--;
	}
	return 0;
}

void rule_index_clear(struct rule_index *ix)
{
	size_t i;

	for (i = 0; i < ix->nblocks; i++)
		free_block(&ix->blocks[i]);
	free(ix->blocks);
	*ix = (struct rule_index)RULE_INDEX_INIT;
}

/* The first position in [lo, hi) whose entry is not before @file. */
static size_t lower_file(const struct rule_index_block *b, size_t lo, size_t hi,
			 const char *file, bool after)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(b->e[mid].file, file);

		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The end of the entries in [lo, hi) that start at or before @page. */
static size_t upper_first(const struct rule_index_block *b, size_t lo,
			  size_t hi, uint64_t page)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->e[mid].first <= page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct search {
	size_t lo, hi;	/* positions allowed */
	uint64_t first; /* entries must end at or after it */
	size_t best, best_pos;
};

static void descend(const struct rule_index_block *b, size_t i, size_t nl,
		    size_t nr, struct search *s)
{
	const struct node *x = &b->t[i];
	size_t mid, a, c;

	if (nr <= s->lo || s->hi <= nl || x->min_rule >= s->best ||
	    x->max_last < s->first)
		return;
	if (nr - nl == 1) {
		s->best = x->min_rule;
		s->best_pos = nl;
		return;
	}
	mid = nl + (nr - nl) / 2;
	/* The child with the lower number first: it may settle the rest. */
	a = 2 * i;
	c = 2 * i + 1;
	if (b->t[c].min_rule < b->t[a].min_rule) {
		descend(b, c, mid, nr, s);
		descend(b, a, nl, mid, s);
	} else {
		descend(b, a, nl, mid, s);
		descend(b, c, mid, nr, s);
	}
}

/* Entries [lo, hi) of one file group: those starting by @last. */
static void search_group(const struct rule_index_block *b, size_t lo, size_t hi,
			 uint64_t first, uint64_t last, struct search *s)
{
	s->lo = lo;
	s->hi = upper_first(b, lo, hi, last);
	s->first = first;
	if (s->lo < s->hi)
		descend(b, 1, 0, b->leaves, s);
}

bool rule_index_first(const struct rule_index *ix, const char *file,
		      uint64_t first, uint64_t last, struct rule_hit *hit)
{
	struct search s;
	size_t k, lo, hi;

	for (k = 0; k < ix->nblocks; k++) {
		const struct rule_index_block *b = &ix->blocks[k];

		s.best = NO_RULE;
		search_group(b, 0, b->nany, first, last, &s);
		if (file) {
			lo = lower_file(b, b->nany, b->n, file, false);
			hi = lower_file(b, lo, b->n, file, true);
			search_group(b, lo, hi, first, last, &s);
		}
		if (s.best != NO_RULE) {
			hit->rule = s.best;
			hit->block = k;
			hit->pos = s.best_pos;
			return true;
		}
	}
	return false;
}

struct gather {
	size_t lo, hi;	/* positions allowed */
	uint64_t first; /* entries must end at or after it */
	size_t block, n;
	struct rule_hit *out;
};

/* Every live entry below node @i (covering [nl, nr)) that matches. */
static void gather(const struct rule_index_block *b, size_t i, size_t nl,
		   size_t nr, struct gather *g)
{
	const struct node *x = &b->t[i];
	size_t mid;

	if (nr <= g->lo || g->hi <= nl || x->min_rule == NO_RULE ||
	    x->max_last < g->first)
		return;
	if (nr - nl == 1) {
		g->out[g->n++] = (struct rule_hit){ x->min_rule, g->block, nl };
		return;
	}
	mid = nl + (nr - nl) / 2;
	gather(b, 2 * i, nl, mid, g);
	gather(b, 2 * i + 1, mid, nr, g);
}

/* Entries [lo, hi) of one file group: those starting by @last. */
static void gather_group(const struct rule_index_block *b, size_t lo, size_t hi,
			 uint64_t last, struct gather *g)
{
	g->lo = lo;
	g->hi = upper_first(b, lo, hi, last);
	if (g->lo < g->hi)
		gather(b, 1, 0, b->leaves, g);
}

size_t rule_index_matches(const struct rule_index *ix, size_t block,
			  const char *file, uint64_t first, uint64_t last,
			  struct rule_hit *out)
{
	const struct rule_index_block *b = &ix->blocks[block];
	struct gather g = { .first = first, .block = block, .out = out };
	size_t lo, hi;

	gather_group(b, 0, b->nany, last, &g);
	if (file) {
		lo = lower_file(b, b->nany, b->n, file, false);
		hi = lower_file(b, lo, b->n, file, true);
		gather_group(b, lo, hi, last, &g);
	}
	return g.n;
}

void rule_index_switch(struct rule_index *ix, const struct rule_hit *hit,
		       bool on)
{
	struct rule_index_block *b = &ix->blocks[hit->block];
	size_t i;

	b->e[hit->pos].on = on && !b->e[hit->pos].dropped;
	set_leaf(b, hit->pos);
	for (i = (b->leaves + hit->pos) / 2; i >= 1; i /= 2)
		pull(b, i);
}

void rule_index_drop(struct rule_index *ix, const struct rule_hit *hit)
{
	ix->blocks[hit->block].e[hit->pos].dropped = true;
	rule_index_switch(ix, hit, false);
}
