/* SPDX-License-Identifier: MIT */
/*
 * The page map: file pages on the x axis, one column per run of pages,
 * one row per thing shown (VMAs, accessed pages, fetched pages by cause,
 * requests), with an axis and a legend, at most REPORT_COLUMNS wide.
 */
#ifndef SCENARIO_PAGEMAP_H
#define SCENARIO_PAGEMAP_H

#include <stdint.h>

#include <testfs.h>

#include "report_tree.h"

#define PAGEMAP_LABEL 12
#define PAGEMAP_COLS 84
#define PAGEMAP_ROWS 16

struct pagemap {
	uint64_t first;
	uint64_t last;
	uint64_t per_col;
	unsigned cols;
	unsigned nrows;
	char label[PAGEMAP_ROWS][PAGEMAP_LABEL + 1];
	char row[PAGEMAP_ROWS][PAGEMAP_COLS + 1];
	unsigned nlegend;
	char legend[PAGEMAP_ROWS * 2][64];
};

/* Pages [@first, @last] in at most @max_cols columns (<= PAGEMAP_COLS). */
void pagemap_init(struct pagemap *m, uint64_t first, uint64_t last,
		  unsigned max_cols);

/*
 * A row of set @e: @full where every page of the column is in it, @part
 * where some are, ' ' elsewhere.
 */
void pagemap_row_set(struct pagemap *m, const char *label,
		     const struct testfs_extents *e, char full, char part);

/*
 * A row of consecutive ranges (VMAs): '[' at the first page, ']' at the
 * last, '|' where one range ends and the next begins, @fill[i % 2]
 * inside range i.
 */
void pagemap_row_vmas(struct pagemap *m, const char *label,
		      const struct testfs_extent *v, size_t n,
		      const char *fill);

/*
 * A row of requests (ranges in any order): each drawn as "[---]", 'o' when
 * it fits in one column, '|' where one ends in the column another begins;
 * adds the legend of the glyphs drawn, each range being @what ("one FUSE
 * read").
 */
void pagemap_row_requests(struct pagemap *m, const char *label,
			  const struct testfs_extent *v, size_t n,
			  const char *what);

/* A row with @ch in the column of each of @n pages. */
void pagemap_row_marks(struct pagemap *m, const char *label,
		       const uint64_t *pages, size_t n, char ch);

/* A legend entry "CH MEANING" (@ch 0: MEANING alone); once per @ch. */
void pagemap_legend(struct pagemap *m, char ch, const char *meaning);
/*
 * The legend of a map of ranges and touched pages: '[' @start, ']' @end,
 * '=' @inside, '#' touched, ':' touched, part of the column; with
 * @policy also '*' @policy (what a policy would fetch) and '.' the same,
 * part of the column.
 */
void pagemap_legend_ranges(struct pagemap *m, const char *start,
			   const char *end, const char *inside,
			   const char *policy);

/*
 * Adds the map to @parent as object @key: a caption (range, pages per
 * column), the rows, the axis and the legend as verbatim lines.
 */
void pagemap_emit(const struct pagemap *m, struct rnode *parent,
		  const char *key, const char *title);

#endif
