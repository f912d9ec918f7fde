// SPDX-License-Identifier: MIT
/*
 * The page map, drawn column by column over page ranges (never page by
 * page, so a map of a 2^40-page file costs the same as one of 100 pages).
 */
#include "pagemap.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void pagemap_init(struct pagemap *m, uint64_t first, uint64_t last,
		  unsigned max_cols)
{
	uint64_t n = last - first + 1;

	memset(m, 0, sizeof(*m));
	if (!max_cols || max_cols > PAGEMAP_COLS)
		max_cols = PAGEMAP_COLS;
	m->first = first;
	m->per_col = (n + max_cols - 1) / max_cols;
	/* A power of two: VMAs and windows of power-of-two sizes and
	 * alignments then start and end on column edges. */
	if (m->per_col & (m->per_col - 1)) {
		uint64_t p = 1;

		while (p < m->per_col)
			p <<= 1;
		m->per_col = p;
	}
	m->cols = (unsigned)((n + m->per_col - 1) / m->per_col);
	m->last = first + (uint64_t)m->cols * m->per_col - 1;
	if (m->last < last)
		m->last = last;
}

static char *new_row(struct pagemap *m, const char *label)
{
	char *row;

	if (m->nrows == PAGEMAP_ROWS)
		return NULL;
	snprintf(m->label[m->nrows], sizeof(m->label[0]), "%s", label);
	row = m->row[m->nrows++];
	memset(row, ' ', m->cols);
	row[m->cols] = '\0';
	return row;
}

/* The column of @page, or -1 outside the map. */
static long col_of(const struct pagemap *m, uint64_t page)
{
	if (page < m->first || page > m->last)
		return -1;
	return (long)((page - m->first) / m->per_col);
}

/*
 * The columns of @e's first and last page (-1: that end is outside the
 * map); false when @e does not meet the map at all.
 */
static bool span_cols(const struct pagemap *m, const struct testfs_extent *e,
		      long *a, long *b)
{
	*a = col_of(m, e->first);
	*b = col_of(m, e->last);
	return !(e->last < m->first || e->first > m->last);
}

/* @ch over the columns of @e (those in the map). */
static void fill_span(const struct pagemap *m, char *row,
		      const struct testfs_extent *e, char ch)
{
	long a, b, c;

	if (!span_cols(m, e, &a, &b))
		return;
	if (a < 0)
		a = 0;
	if (b < 0)
		b = (long)m->cols - 1;
	for (c = a; c <= b; c++)
		row[c] = ch;
}

/*
 * A request as "[---]" ('o' within one column), '|' where it meets
 * another, '-' only over columns no other request marked.
 */
static void draw_request(const struct pagemap *m, char *row,
			 const struct testfs_extent *e)
{
	long a, b, c;

	if (!span_cols(m, e, &a, &b))
		return;
	for (c = a < 0 ? 0 : a + 1; c < (b < 0 ? (long)m->cols : b); c++)
		if (row[c] == ' ')
			row[c] = '-';
	if (a >= 0 && a == b) {
		row[a] = row[a] == ' ' ? 'o' : '|';
		return;
	}
	if (a >= 0)
		row[a] = row[a] == ' ' || row[a] == '-' ? '[' : '|';
	if (b >= 0)
		row[b] = row[b] == ' ' || row[b] == '-' ? ']' : '|';
}

void pagemap_row_set(struct pagemap *m, const char *label,
		     const struct testfs_extents *e, char full, char part)
{
	char *row = new_row(m, label);
	unsigned c;
	size_t i = 0;

	if (!row)
		return;
	for (c = 0; c < m->cols; c++) {
		uint64_t lo = m->first + c * m->per_col;
		uint64_t hi = lo + m->per_col - 1, in = 0;

		while (i < e->n && e->v[i].last < lo)
			i++;
		/* Extents overlapping [lo, hi]: from i on, sorted. */
		for (size_t j = i; j < e->n && e->v[j].first <= hi; j++) {
			uint64_t a = e->v[j].first > lo ? e->v[j].first : lo;
			uint64_t b = e->v[j].last < hi ? e->v[j].last : hi;

			in += b - a + 1;
		}
		if (in == m->per_col)
			row[c] = full;
		else if (in)
			row[c] = part;
	}
}

void pagemap_row_vmas(struct pagemap *m, const char *label,
		      const struct testfs_extent *v, size_t n, const char *fill)
{
	char *row = new_row(m, label);
	size_t i;

	if (!row)
		return;
	for (i = 0; i < n; i++)
		fill_span(m, row, &v[i], fill[i % 2]);
	/* Ranges narrower than 4 columns: the fill alone shows them. */
	for (i = 0; i < n; i++)
		if (v[i].last - v[i].first + 1 < 4 * m->per_col)
			return;
	for (i = 0; i < n; i++) {
		long a = col_of(m, v[i].first), b = col_of(m, v[i].last);
		bool joined = i && v[i - 1].last + 1 == v[i].first;

		if (a >= 0)
			row[a] = joined ? '|' : '[';
		if (b >= 0 && !(i + 1 < n && v[i].last + 1 == v[i + 1].first))
			row[b] = ']';
	}
}

void pagemap_row_requests(struct pagemap *m, const char *label,
			  const struct testfs_extent *v, size_t n,
			  const char *what)
{
	char *row = new_row(m, label), text[64];
	size_t i;

	if (!row)
		return;
	for (i = 0; i < n; i++)
		draw_request(m, row, &v[i]);
	/* The legend of the glyphs drawn. */
	if (strpbrk(row, "[]-|")) {
		snprintf(text, sizeof(text), "[---] %s", what);
		pagemap_legend(m, 0, text);
	}
	if (strchr(row, '|')) {
		snprintf(text, sizeof(text), "| one %s ends, the next begins",
			 strncmp(what, "one ", 4) == 0 ? what + 4 : what);
		pagemap_legend(m, 0, text);
	}
	if (strchr(row, 'o')) {
		snprintf(text, sizeof(text), "o %s within one column", what);
		pagemap_legend(m, 0, text);
	}
}

void pagemap_row_marks(struct pagemap *m, const char *label,
		       const uint64_t *pages, size_t n, char ch)
{
	char *row = new_row(m, label);
	size_t i;

	if (!row)
		return;
	for (i = 0; i < n; i++) {
		long c = col_of(m, pages[i]);

		if (c >= 0)
			row[c] = ch;
	}
}

void pagemap_legend(struct pagemap *m, char ch, const char *meaning)
{
	unsigned i;

	for (i = 0; i < m->nlegend; i++)
		if (ch ? m->legend[i][0] == ch && m->legend[i][1] == ' '
		       : strcmp(m->legend[i], meaning) == 0)
			return;
	if (m->nlegend == sizeof(m->legend) / sizeof(m->legend[0]))
		return;
	if (ch)
		snprintf(m->legend[m->nlegend++], sizeof(m->legend[0]), "%c %s",
			 ch, meaning);
	else
		snprintf(m->legend[m->nlegend++], sizeof(m->legend[0]), "%s",
			 meaning);
}

void pagemap_legend_ranges(struct pagemap *m, const char *start,
			   const char *end, const char *inside,
			   const char *policy)
{
	pagemap_legend(m, '[', start);
	pagemap_legend(m, ']', end);
	pagemap_legend(m, '=', inside);
	pagemap_legend(m, '#', "touched");
	pagemap_legend(m, ':', "touched, part of the column");
	if (!policy)
		return;
	pagemap_legend(m, '*', policy);
	pagemap_legend(m, '.', "the same, part of the column");
}

/* Two axis lines: '+' ticks every 20 columns and at the last, numbers. */
static void axis(const struct pagemap *m, struct rnode *lines)
{
	char ticks[PAGEMAP_COLS + 1], nums[PAGEMAP_COLS + 40];
	unsigned c, used = 0;

	memset(ticks, '-', m->cols);
	ticks[m->cols] = '\0';
	memset(nums, ' ', sizeof(nums));
	for (c = 0; c < m->cols; c = c + 20 < m->cols - 1 || c == m->cols - 1
					     ? c + 20
					     : m->cols - 1) {
		char num[24];
		int len;

		ticks[c] = '+';
		len = snprintf(num, sizeof(num), "%llu",
			       (unsigned long long)(m->first + c * m->per_col));
		if (c >= used && c + (unsigned)len < sizeof(nums) - 1) {
			memcpy(nums + c, num, (size_t)len);
			used = c + (unsigned)len + 1;
		}
		if (c == m->cols - 1)
			break;
	}
	while (used && nums[used - 1] == ' ')
		used--;
	nums[used] = '\0';
	rep_line(lines, "%-*s %s", PAGEMAP_LABEL, "", ticks);
	rep_line(lines, "%-*s %s", PAGEMAP_LABEL, "page", nums);
}

/* Whether glyph @ch is in a row of @m. */
static bool drawn(const struct pagemap *m, char ch)
{
	unsigned i;

	for (i = 0; i < m->nrows; i++)
		if (memchr(m->row[i], ch, m->cols))
			return true;
	return false;
}

void pagemap_emit(const struct pagemap *m, struct rnode *parent,
		  const char *key, const char *title)
{
	struct rnode *obj = rep_obj(parent, key, title);
	struct rnode *lines;
	char buf[REPORT_COLUMNS + 1];
	unsigned i, used = 0;

	rep_text(obj, "scale",
		 "pages %llu-%llu, %llu page%s per column; a column shows "
		 "what holds for its pages",
		 (unsigned long long)m->first, (unsigned long long)m->last,
		 (unsigned long long)m->per_col, m->per_col == 1 ? "" : "s");
	rep_uint(obj, "first_page", NULL, m->first, NULL);
	rep_json_only(rep_last(obj));
	rep_uint(obj, "last_page", NULL, m->last, NULL);
	rep_json_only(rep_last(obj));
	rep_uint(obj, "pages_per_column", NULL, m->per_col, NULL);
	rep_json_only(rep_last(obj));
	lines = rep_lines(obj, "lines");
	for (i = 0; i < m->nrows; i++) {
		int len = (int)m->cols;

		while (len && m->row[i][len - 1] == ' ')
			len--;
		rep_line(lines, "%-*s %.*s", PAGEMAP_LABEL, m->label[i], len,
			 m->row[i]);
	}
	axis(m, lines);
	/* The legend of the glyphs drawn, as many entries per line as fit. */
	buf[0] = '\0';
	for (i = 0; i < m->nlegend; i++) {
		size_t len = strlen(m->legend[i]);

		if (m->legend[i][1] == ' ' && !drawn(m, m->legend[i][0]))
			continue;
		if (used && used + 3 + len > REPORT_COLUMNS - 4) {
			rep_line(lines, "%s", buf);
			used = 0;
		}
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s",
					 used ? "   " : "", m->legend[i]);
	}
	if (used)
		rep_line(lines, "%s", buf);
}
