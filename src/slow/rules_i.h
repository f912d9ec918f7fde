/* SPDX-License-Identifier: MIT */
/*
 * Inside the rule set: the rules as rules.c keeps them and rule_spec.c
 * parses them from --rule and --error specs.
 */
#ifndef TESTFS_SLOW_RULES_I_H
#define TESTFS_SLOW_RULES_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latency.h"
#include "prng.h"
#include "rules.h"

#define RULE_PAGE_SHIFT 12
/* prob= is kept in billionths. */
#define PROB_PLACES 9
#define PROB_ONE 1000000000ull

/* Which reads a rule applies to. */
struct rule_target {
	char *file; /* NULL: every file */
	bool has_pages;
	uint64_t first, last; /* inclusive page numbers */
};

struct latency_rule {
	struct rule_target target;
	struct latency_model *model;
	uint64_t hits;
};

struct error_rule {
	struct rule_target target;
	int err;
	bool limited; /* times= given: times_left counts down */
	uint64_t times_left;
	bool random;   /* prob= given */
	uint64_t prob; /* billionths */
	struct prng rng;
	uint64_t hits;
};

struct pause_rule {
	struct rule_target target;
	uint64_t hold_ns; /* for=: the longest hold; 0 until resume */
	uint64_t hits;
};

/*
 * Parse a --rule or --error spec into @r (zeroed by the caller). Return 0,
 * -EINVAL with a message in @err, or -ENOMEM; on error the caller frees
 * what @r holds (rule_target_free(), latency_free()).
 */
int latency_rule_parse(const char *spec, struct latency_rule *r, char *err,
		       size_t errlen);
int error_rule_parse(const char *spec, struct error_rule *r, char *err,
		     size_t errlen);
int pause_rule_parse(const char *spec, struct pause_rule *r, char *err,
		     size_t errlen);
void rule_target_free(struct rule_target *t);

/* "EIO" for EIO; NULL for an errno without a name in the table. */
const char *rule_errno_name(int e);

#endif
