/* SPDX-License-Identifier: MIT */
/*
 * Finding the first matching rule without looking at every rule: a
 * scripted fault run may add hundreds of thousands of rules, and every
 * data read asks which one applies (first match wins, rules.h).
 *
 * The index of one rule list (latency, error or pause rules) holds each
 * rule's target as an interval of pages (all pages without pages=) under
 * its file (or "any file"), numbered by the rule's position in the list.
 * It answers: the lowest-numbered rule whose target overlaps a read, among
 * those not switched off. Switching a rule off (for good: an error rule
 * whose times= are used up; for one decision: one whose draw said no) and
 * back on lets the caller walk the matches in order.
 *
 * Layout: blocks of consecutive rules, each sorted by (file, first page)
 * with a segment tree holding, per node, the largest last page and the
 * lowest rule number of its live entries. Blocks merge as rules are
 * added, like a binary counter, so there are at most about log2(n) of
 * them and each rule is copied O(log n) times in all (a merge is linear).
 * A lookup asks the blocks from the oldest (lowest numbers) and stops at
 * the first that has a match: at most log2(n) blocks, each a binary
 * search for the file and the read's last page, then a descent of its
 * tree that skips subtrees ending before the read or holding no lower
 * number than the best so far. For rules that do not overlap each other
 * (a fault per page or range), and for rules that nest, that descent is
 * O(log n); its worst case (many long rules of high number interleaved
 * with short ones of low number) visits more nodes but never changes the
 * answer.
 *
 * Not thread-safe: the rule set's lock protects it.
 */
#ifndef TESTFS_SLOW_RULE_INDEX_H
#define TESTFS_SLOW_RULE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rule_index_block;

struct rule_index {
	struct rule_index_block *blocks;
	size_t nblocks, cap;
};

/* Where a match sits, to switch it off or on. */
struct rule_hit {
	size_t rule; /* its number in the list */
	size_t block, pos;
};

#define RULE_INDEX_INIT                                                        \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/*
 * Adds rule number @rule (one more than the last added, from 0 after a
 * clear) for @file (NULL: every file; the string must outlive the index)
 * and pages [@first, @last]. Returns 0 or -ENOMEM (the index is then as
 * before).
 */
int rule_index_add(struct rule_index *ix, const char *file, uint64_t first,
		   uint64_t last, size_t rule);

/* Drops every rule. */
void rule_index_clear(struct rule_index *ix);

/*
 * The lowest-numbered rule that is on and matches a read of pages
 * [@first, @last] of @file (NULL: only rules for every file match).
 * Returns false when none does.
 */
bool rule_index_first(const struct rule_index *ix, const char *file,
		      uint64_t first, uint64_t last, struct rule_hit *hit);

/*
 * Every rule of block @block (0 to ix->nblocks - 1; a lower block holds
 * lower numbers only) that is on and matches a read of pages [@first,
 * @last] of @file, into @out (room for as many as the index has rules),
 * in no particular order. Returns how many. Each subtree it enters holds
 * a match, so it costs O(log n) per match: the way to walk many matches
 * (random rules that do not fire) without switching each one off.
 */
size_t rule_index_matches(const struct rule_index *ix, size_t block,
			  const char *file, uint64_t first, uint64_t last,
			  struct rule_hit *out);

/* Switches the rule at @hit off or (if not dropped) on again. */
void rule_index_switch(struct rule_index *ix, const struct rule_hit *hit,
		       bool on);

/* Switches it off for good: the next merge drops it. */
void rule_index_drop(struct rule_index *ix, const struct rule_hit *hit);

#endif
