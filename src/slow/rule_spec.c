// SPDX-License-Identifier: MIT
/*
 * Parsing --rule and --error specs (rules.h documents the grammar). Every
 * message quotes the whole spec and names the part that is wrong.
 */
#include "rules_i.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "units.h"

#define PAGE_MAX (UINT64_MAX >> RULE_PAGE_SHIFT)
#define ERRNO_MAX 133

#define RULE_USAGE "[file=NAME,][pages=A-B,]latency=MODEL"
#define ERROR_USAGE "[file=NAME,][pages=A-B,]errno=E[,times=N|prob=P][,seed=N]"
#define PAUSE_USAGE "[file=NAME,][pages=A-B,][for=DURATION]"
#define PAGES_EXPECTED "expected A-B with A <= B, or one page number"

static const struct {
	const char *name;
	int err;
} errno_names[] = {
	{ "EPERM", EPERM },	      { "ENOENT", ENOENT },
	{ "EINTR", EINTR },	      { "EIO", EIO },
	{ "ENXIO", ENXIO },	      { "EBADF", EBADF },
	{ "EAGAIN", EAGAIN },	      { "ENOMEM", ENOMEM },
	{ "EACCES", EACCES },	      { "EFAULT", EFAULT },
	{ "EBUSY", EBUSY },	      { "ENODEV", ENODEV },
	{ "EINVAL", EINVAL },	      { "EFBIG", EFBIG },
	{ "ENOSPC", ENOSPC },	      { "EROFS", EROFS },
	{ "ENODATA", ENODATA },	      { "ENOLINK", ENOLINK },
	{ "EPROTO", EPROTO },	      { "EBADMSG", EBADMSG },
	{ "EOVERFLOW", EOVERFLOW },   { "EILSEQ", EILSEQ },
	{ "ECONNRESET", ECONNRESET }, { "ENOTCONN", ENOTCONN },
	{ "ETIMEDOUT", ETIMEDOUT },   { "ESTALE", ESTALE },
	{ "EDQUOT", EDQUOT },	      { "ENOMEDIUM", ENOMEDIUM },
	{ "ECANCELED", ECANCELED },   { "EREMOTEIO", EREMOTEIO },
	{ "EHWPOISON", EHWPOISON },
};

#define N_ERRNO_NAMES (sizeof(errno_names) / sizeof(errno_names[0]))

/* Writes "@what '@spec': " and the detail to @err (when not NULL). */
static void __attribute__((format(printf, 5, 6)))
rule_error(char *err, size_t errlen, const char *what, const char *spec,
	   const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "%s '%s': ", what, spec);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/*
 * Cuts the next "key=value" off *@s, leaving *@s after it (NULL at the
 * end). The value of @rest_key (if not NULL) runs to the end of the spec,
 * commas and all. Returns -EINVAL, with *@key the offending text, when it has
 * no '='.
 */
static int next_setting(char **s, char **key, char **val, const char *rest_key)
{
	char *p = *s, *eq = strchr(p, '='), *comma = strchr(p, ',');

	*key = p;
	if (!eq || (comma && comma < eq)) {
		if (comma)
			*comma = '\0';
		return -EINVAL;
	}
	*eq = '\0';
	*val = eq + 1;
	if (rest_key && strcmp(p, rest_key) == 0) {
		*s = NULL;
		return 0;
	}
	comma = strchr(*val, ',');
	if (comma)
		*comma = '\0';
	*s = comma ? comma + 1 : NULL;
	return 0;
}

static int parse_pages(const char *val, struct rule_target *t, const char **why)
{
	/* From the second character, so that "-1-5" reads as negative. */
	const char *dash = *val ? strchr(val + 1, '-') : NULL;
	char *first;
	int ret;

	if (!dash) {
		ret = parse_uint(val, 0, PAGE_MAX, &t->first, why);
		t->last = t->first;
	} else {
		first = strndup(val, (size_t)(dash - val));
		if (!first)
			return -ENOMEM;
		ret = parse_uint(first, 0, PAGE_MAX, &t->first, why);
		if (!ret)
			ret = parse_uint(dash + 1, 0, PAGE_MAX, &t->last, why);
		free(first);
		if (!ret && t->last < t->first) {
			*why = "the last page is before the first";
			ret = -EINVAL;
		}
	}
	t->has_pages = !ret;
	return ret == -ENOMEM ? ret : ret ? -EINVAL : 0;
}

/*
 * Handles file= and pages=, common to both kinds of rule. Returns 1 when
 * @key is neither, 0 when it was handled, or a negative errno.
 */
static int parse_target(const char *what, const char *spec, const char *key,
			const char *val, struct rule_target *t, char *err,
			size_t errlen)
{
	const char *why;
	int ret;

	if (strcmp(key, "file") == 0) {
		if (!*val) {
			rule_error(err, errlen, what, spec,
				   "empty file= (expected a file name)");
			return -EINVAL;
		}
		t->file = strdup(val);
		return t->file ? 0 : -ENOMEM;
	}
	if (strcmp(key, "pages") != 0)
		return 1;
	ret = parse_pages(val, t, &why);
	if (ret == -EINVAL)
		rule_error(err, errlen, what, spec, "bad pages '%s' (%s; %s)",
			   val, why, PAGES_EXPECTED);
	return ret;
}

/* Marks @key as seen in @seen (a list of names); -EINVAL if it was. */
static int check_repeat(const char *what, const char *spec, const char *key,
			const char *const *names, unsigned *seen, char *err,
			size_t errlen)
{
	unsigned i;

	for (i = 0; names[i]; i++) {
		if (strcmp(names[i], key) != 0)
			continue;
		if (*seen & (1u << i)) {
			rule_error(err, errlen, what, spec, "%s= given twice",
				   key);
			return -EINVAL;
		}
		*seen |= 1u << i;
	}
	return 0;
}

void rule_target_free(struct rule_target *t)
{
	free(t->file);
}

/* What tells a --rule spec from an --error spec; the rest is shared. */
struct key_list {
	const char *what;  /* "rule" or "error", for messages */
	const char *empty; /* the message for an empty spec */
	const char *usage;
	const char *const *keys; /* every key, NULL-ended */
	/* The key whose value runs to the end of the spec, or NULL. */
	const char *rest_key;
	/* A setting other than file= and pages=. */
	int (*setting)(const char *spec, const char *key, const char *val,
		       void *ctx, char *err, size_t errlen);
};

/*
 * Parses "key=value,..." @spec: file= and pages= into @target, the other
 * keys through kl->setting(@ctx). Returns 0 or a negative errno, with a
 * message in @err.
 */
static int parse_key_list(const struct key_list *kl, const char *spec,
			  struct rule_target *target, void *ctx, char *err,
			  size_t errlen)
{
	char *copy, *next, *key, *val;
	unsigned seen = 0;
	int ret = 0;

	if (!spec || !*spec) {
		rule_error(err, errlen, kl->what, spec ? spec : "",
			   "%s (expected %s)", kl->empty, kl->usage);
		return -EINVAL;
	}
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	next = copy;
	while (!ret && next) {
		if (next_setting(&next, &key, &val, kl->rest_key)) {
			rule_error(err, errlen, kl->what, spec,
				   "'%s' is not key=value (expected %s)", key,
				   kl->usage);
			ret = -EINVAL;
			break;
		}
		ret = check_repeat(kl->what, spec, key, kl->keys, &seen, err,
				   errlen);
		if (!ret)
			ret = parse_target(kl->what, spec, key, val, target,
					   err, errlen);
		if (ret == 1)
			ret = kl->setting(spec, key, val, ctx, err, errlen);
	}
	free(copy);
	return ret;
}

/*
 * A MODEL runs to the end of the spec, commas and all, so a key written
 * after latency= ends up in the model: "latency=1ms,file=a". When @val
 * (latency='s value in @spec) holds ",file=" or ",pages=", says so, with
 * the spec in the right order, and returns true.
 */
static bool misordered(const char *spec, const char *val, char *err,
		       size_t errlen)
{
	const char *f = strstr(val, ",file="), *pg = strstr(val, ",pages=");
	const char *cut = !f ? pg : !pg ? f : f < pg ? f : pg;

	if (!cut || cut == val)
		return false;
	/* val is a copy of the tail of spec: spec's own "latency=" is the
	 * same distance from its end. */
	rule_error(err, errlen, "rule", spec,
		   "latency= must be the last key (its MODEL runs to the end "
		   "of the spec): write '%.*s%s,latency=%.*s'",
		   (int)(strlen(spec) - strlen(val) - strlen("latency=")), spec,
		   cut + 1, (int)(cut - val), val);
	return true;
}

/* latency=, the last setting; the others are handled by the caller. */
static int parse_latency_setting(const char *spec, const char *key,
				 const char *val, void *ctx, char *err,
				 size_t errlen)
{
	struct latency_rule *r = ctx;
	char why[512];
	int ret;

	if (strcmp(key, "latency") != 0) {
		rule_error(
			err, errlen, "rule", spec,
			"unknown key '%s' (expected file=, pages= or latency=)",
			key);
		return -EINVAL;
	}
	ret = latency_parse(val, &r->model, why, sizeof(why));
	if (ret == -EINVAL && misordered(spec, val, err, errlen))
		return ret;
	if (ret == -EINVAL)
		rule_error(err, errlen, "rule", spec, "%s", why);
	return ret;
}

int latency_rule_parse(const char *spec, struct latency_rule *r, char *err,
		       size_t errlen)
{
	static const char *const keys[] = { "file", "pages", "latency", NULL };
	static const struct key_list kl = {
		"rule", "empty rule", RULE_USAGE,
		keys,	"latency",    parse_latency_setting,
	};
	int ret;

	ret = parse_key_list(&kl, spec, &r->target, r, err, errlen);
	if (!ret && !r->model) {
		rule_error(err, errlen, "rule", spec,
			   "missing latency=MODEL (expected " RULE_USAGE ")");
		ret = -EINVAL;
	}
	return ret;
}

const char *rule_errno_name(int e)
{
	size_t i;

	for (i = 0; i < N_ERRNO_NAMES; i++) {
		if (errno_names[i].err == e)
			return errno_names[i].name;
	}
	return NULL;
}

static int parse_errno(const char *spec, const char *val, int *out, char *err,
		       size_t errlen)
{
	const char *why;
	uint64_t v;
	size_t i;

	for (i = 0; i < N_ERRNO_NAMES; i++) {
		if (strcasecmp(val, errno_names[i].name) == 0) {
			*out = errno_names[i].err;
			return 0;
		}
	}
	if (val[0] >= '0' && val[0] <= '9') {
		if (parse_uint(val, 1, ERRNO_MAX, &v, &why) == 0) {
			*out = (int)v;
			return 0;
		}
		rule_error(
			err, errlen, "error", spec,
			"errno '%s' out of range (%s; expected a number 1..133 or a name such as EIO)",
			val, why);
		return -EINVAL;
	}
	rule_error(
		err, errlen, "error", spec,
		"unknown errno '%s' (expected a name such as EIO, ENODATA or ETIMEDOUT, or a number 1..133)",
		val);
	return -EINVAL;
}

/* "bad KEY 'VAL' (WHY; expected EXPECTED)" for error rule @spec: -EINVAL. */
static int bad_value(const char *spec, const char *key, const char *val,
		     const char *why, const char *expected, char *err,
		     size_t errlen)
{
	rule_error(err, errlen, "error", spec, "bad %s '%s' (%s; expected %s)",
		   key, val, why, expected);
	return -EINVAL;
}

struct error_ctx {
	struct error_rule *r;
	uint64_t seed;
};

/* errno=, times=, prob= and seed=; the others are handled by the caller. */
static int parse_error_setting(const char *spec, const char *key,
			       const char *val, void *ctx, char *err,
			       size_t errlen)
{
	struct error_rule *r = ((struct error_ctx *)ctx)->r;
	uint64_t *seed = &((struct error_ctx *)ctx)->seed;
	const char *why;

	if (strcmp(key, "errno") == 0)
		return parse_errno(spec, val, &r->err, err, errlen);
	if (strcmp(key, "times") == 0) {
		r->limited = true;
		if (!parse_uint(val, 1, UINT64_MAX, &r->times_left, &why))
			return 0;
		return bad_value(spec, key, val, why,
				 "a number of reads, at least 1", err, errlen);
	}
	if (strcmp(key, "prob") == 0) {
		r->random = true;
		if (!units_parse_decimal(val, PROB_PLACES, PROB_ONE, &r->prob,
					 &why))
			return 0;
		return bad_value(
			spec, key, val, why,
			"a probability 0..1 such as 0.25, up to 9 decimals",
			err, errlen);
	}
	if (strcmp(key, "seed") == 0) {
		if (!parse_uint(val, 0, UINT64_MAX, seed, &why))
			return 0;
		return bad_value(spec, key, val, why, "an integer 0..2^64-1",
				 err, errlen);
	}
	rule_error(
		err, errlen, "error", spec,
		"unknown key '%s' (expected file=, pages=, errno=, times=, prob= or seed=)",
		key);
	return -EINVAL;
}

int error_rule_parse(const char *spec, struct error_rule *r, char *err,
		     size_t errlen)
{
	static const char *const keys[] = { "file", "pages", "errno", "times",
					    "prob", "seed",  NULL };
	static const struct key_list kl = {
		"error", "empty error rule",  ERROR_USAGE, keys,
		NULL,	 parse_error_setting,
	};
	struct error_ctx ctx = { r, 0 };
	int ret;

	ret = parse_key_list(&kl, spec, &r->target, &ctx, err, errlen);
	if (!ret && !r->err) {
		rule_error(err, errlen, "error", spec,
			   "missing errno=E (expected " ERROR_USAGE ")");
		ret = -EINVAL;
	}
	if (!ret && r->limited && r->random) {
		rule_error(
			err, errlen, "error", spec,
			"times= and prob= exclude each other (expected one of them or neither)");
		ret = -EINVAL;
	}
	prng_seed(&r->rng, ctx.seed);
	return ret;
}

/* for=, the longest hold; the others are handled by the caller. */
static int parse_pause_setting(const char *spec, const char *key,
			       const char *val, void *ctx, char *err,
			       size_t errlen)
{
	struct pause_rule *r = ctx;
	const char *why = "zero";
	uint64_t ns = 0;

	if (strcmp(key, "for") != 0) {
		rule_error(err, errlen, "pause", spec,
			   "unknown key '%s' (expected file=, pages= or for=)",
			   key);
		return -EINVAL;
	}
	if (!parse_duration(val, &ns, &why) && ns) {
		r->hold_ns = ns;
		return 0;
	}
	rule_error(err, errlen, "pause", spec,
		   "bad for '%s' (%s; for= is above 0 and at most 3600s, "
		   "e.g. 500ms)",
		   val, why);
	return -EINVAL;
}

int pause_rule_parse(const char *spec, struct pause_rule *r, char *err,
		     size_t errlen)
{
	static const char *const keys[] = { "file", "pages", "for", NULL };
	static const struct key_list kl = {
		"pause", "empty pause", PAUSE_USAGE,
		keys,	 NULL,		parse_pause_setting,
	};

	return parse_key_list(&kl, spec, &r->target, r, err, errlen);
}
