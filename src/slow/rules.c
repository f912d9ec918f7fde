// SPDX-License-Identifier: MIT
/*
 * The rule set: the default model, the rules in order, one mutex, and the
 * decision for each read. rule_spec.c parses the specs; rule_index.c finds
 * the first match of each list without a walk over it.
 */
#include "rules_i.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "thread.h"
#include "rule_index.h"
#include "units.h"

struct rule_set {
	pthread_mutex_t lock;
	struct latency_model *def; /* NULL is none */
	struct latency_rule *lat;
	size_t nlat, lat_cap;
	struct error_rule *errs;
	size_t nerr, err_cap;
	struct pause_rule *pauses;
	size_t npause, pause_cap;
	uint64_t injected;
	/* Each list's index (rule_index.h), and room for the error rules a
	 * decision switches off while it looks for one that fires. */
	struct rule_index lat_ix, err_ix, pause_ix;
	struct rule_hit *err_off;
	size_t err_off_cap;
};

int rules_new(struct rule_set **out)
{
	struct rule_set *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return -ENOMEM;
	pthread_mutex_init(&rs->lock, NULL);
	*out = rs;
	return 0;
}

static void free_rules(struct latency_rule *lat, size_t nlat,
		       struct error_rule *errs, size_t nerr)
{
	size_t i;

	for (i = 0; i < nlat; i++) {
		rule_target_free(&lat[i].target);
		latency_free(lat[i].model);
	}
	for (i = 0; i < nerr; i++)
		rule_target_free(&errs[i].target);
	free(lat);
	free(errs);
}

void rules_free(struct rule_set *rs)
{
	if (!rs)
		return;
	free_rules(rs->lat, rs->nlat, rs->errs, rs->nerr);
	rule_index_clear(&rs->lat_ix);
	rule_index_clear(&rs->err_ix);
	free(rs->err_off);
	rules_resume(rs);
	latency_free(rs->def);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}

const char *rules_why_detail(const char *why, const char *kind,
			     const char *spec)
{
	size_t k = strlen(kind), n = strlen(spec);

	if (strncmp(why, kind, k) == 0 && strncmp(why + k, " '", 2) == 0 &&
	    strncmp(why + k + 2, spec, n) == 0 &&
	    strncmp(why + k + 2 + n, "': ", 3) == 0)
		return why + k + 2 + n + 3;
	return why;
}

int rules_set_default(struct rule_set *rs, const char *model, char *err,
		      size_t errlen)
{
	struct latency_model *m, *old;
	int ret;

	ret = latency_parse(model, &m, err, errlen);
	if (ret)
		return ret;
	pthread_mutex_lock(&rs->lock);
	old = rs->def;
	rs->def = m;
	pthread_mutex_unlock(&rs->lock);
	latency_free(old);
	return 0;
}

/* Makes room for one more element of @size in *@arr (under the lock). */
static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Indexes rule @n of a list with target @t (under the lock). */
static int index_target(struct rule_index *ix, const struct rule_target *t,
			size_t n)
{
	return rule_index_add(ix, t->file, t->has_pages ? t->first : 0,
			      t->has_pages ? t->last : UINT64_MAX, n);
}

/*
 * Appends rule *@r to list @arr of *@n (capacity *@cap) and indexes it
 * in @ix, under the lock: 0, or -ENOMEM with the list as it was.
 */
#define append(arr, n, cap, ix, r)                                             \
	__extension__({                                                        \
		int append_ret_ =                                              \
			grow((void **)&(arr), *(n), (cap), sizeof(*(r)));      \
		if (!append_ret_)                                              \
			append_ret_ = index_target((ix), &(r)->target, *(n));  \
		if (!append_ret_)                                              \
			(arr)[(*(n))++] = *(r);                                \
		append_ret_;                                                   \
	})

enum rule_kind { RULE_LATENCY, RULE_ERROR, RULE_PAUSE };

/*
 * Parses @spec as a rule of @kind and appends it under the lock: 0, or
 * what the parser or the allocation said (then nothing is kept).
 */
static int add_rule(struct rule_set *rs, enum rule_kind kind, const char *spec,
		    char *err, size_t errlen)
{
	/* Each begins with its struct rule_target. */
	union {
		struct latency_rule lat;
		struct error_rule err;
		struct pause_rule pause;
	} r;
	int ret;

	memset(&r, 0, sizeof(r));
	if (kind == RULE_LATENCY)
		ret = latency_rule_parse(spec, &r.lat, err, errlen);
	else if (kind == RULE_ERROR)
		ret = error_rule_parse(spec, &r.err, err, errlen);
	else
		ret = pause_rule_parse(spec, &r.pause, err, errlen);
	if (ret)
		goto out_free;
	pthread_mutex_lock(&rs->lock);
	if (kind == RULE_LATENCY) {
		ret = append(rs->lat, &rs->nlat, &rs->lat_cap, &rs->lat_ix,
			     &r.lat);
	} else if (kind == RULE_ERROR) {
		ret = grow((void **)&rs->err_off, rs->nerr, &rs->err_off_cap,
			   sizeof(*rs->err_off));
		if (!ret)
			ret = append(rs->errs, &rs->nerr, &rs->err_cap,
				     &rs->err_ix, &r.err);
	} else {
		ret = append(rs->pauses, &rs->npause, &rs->pause_cap,
			     &rs->pause_ix, &r.pause);
	}
	pthread_mutex_unlock(&rs->lock);
	if (!ret)
		return 0;
out_free:
	rule_target_free(&r.lat.target);
	if (kind == RULE_LATENCY)
		latency_free(r.lat.model);
	return ret;
}

int rules_add_latency(struct rule_set *rs, const char *spec, char *err,
		      size_t errlen)
{
	return add_rule(rs, RULE_LATENCY, spec, err, errlen);
}

int rules_add_error(struct rule_set *rs, const char *spec, char *err,
		    size_t errlen)
{
	return add_rule(rs, RULE_ERROR, spec, err, errlen);
}

/* Pause rules: added like the others, ended by rules_resume(). */
int rules_add_pause(struct rule_set *rs, const char *spec, char *err,
		    size_t errlen)
{
	return add_rule(rs, RULE_PAUSE, spec, err, errlen);
}

size_t rules_resume(struct rule_set *rs)
{
	struct pause_rule *p;
	size_t n, i;

	pthread_mutex_lock(&rs->lock);
	p = rs->pauses;
	n = rs->npause;
	rs->pauses = NULL;
	rs->npause = rs->pause_cap = 0;
	rule_index_clear(&rs->pause_ix);
	pthread_mutex_unlock(&rs->lock);
	for (i = 0; i < n; i++)
		rule_target_free(&p[i].target);
	free(p);
	return n;
}

void rules_clear(struct rule_set *rs)
{
	struct latency_rule *lat;
	struct error_rule *errs;
	size_t nlat, nerr;

	pthread_mutex_lock(&rs->lock);
	lat = rs->lat;
	nlat = rs->nlat;
	errs = rs->errs;
	nerr = rs->nerr;
	rs->lat = NULL;
	rs->errs = NULL;
	rs->nlat = rs->lat_cap = rs->nerr = rs->err_cap = 0;
	rule_index_clear(&rs->lat_ix);
	rule_index_clear(&rs->err_ix);
	pthread_mutex_unlock(&rs->lock);
	/* Models are freed outside the lock: the read path need not wait. */
	free_rules(lat, nlat, errs, nerr);
}

static bool error_fires(struct error_rule *r)
{
	if (r->limited) {
		if (!r->times_left)
			return false;
		r->times_left--;
		return true;
	}
	if (r->random)
		return prng_below(&r->rng, PROB_ONE) < r->prob;
	return true;
}

/*
 * Draws error rule @hit (a match): whether it fires; one whose times= are
 * used up is dropped for good.
 */
static bool error_try(struct rule_set *rs, const struct rule_hit *hit,
		      struct rule_verdict *v)
{
	struct error_rule *r = &rs->errs[hit->rule];
	bool fired = error_fires(r);

	if (r->limited && !r->times_left)
		rule_index_drop(&rs->err_ix, hit);
	if (!fired)
		return false;
	r->hits++;
	rs->injected++;
	v->err = r->err;
	v->error_rule = (int)hit->rule;
	return true;
}

static int cmp_hit_rule(const void *a, const void *b)
{
	const struct rule_hit *x = a, *y = b;

	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/*
 * Matches that did not fire, switched off one by one, before the rest
 * are gathered and drawn in order (random rules that rarely fire, many
 * to a read: one gathering costs less than switching each off).
 */
#define ERR_SWITCH_LIMIT 8

/*
 * The first matching error rule that fires, in rule order: each match
 * that does not fire is switched off until the decision is made, one
 * whose times= are used up for good. Past ERR_SWITCH_LIMIT of them, the
 * remaining matches of each block (lower blocks hold lower numbers) are
 * gathered, sorted and drawn in order: the same draws, in the same order.
 */
static void decide_error(struct rule_set *rs, const char *file, uint64_t first,
			 uint64_t last, struct rule_verdict *v)
{
	struct rule_hit hit, *more;
	size_t noff = 0, k, n, i;
	bool fired = false;

	while (noff < ERR_SWITCH_LIMIT &&
	       rule_index_first(&rs->err_ix, file, first, last, &hit)) {
		fired = error_try(rs, &hit, v);
		if (fired)
			break;
		if (!rs->errs[hit.rule].limited) {
			rule_index_switch(&rs->err_ix, &hit, false);
			rs->err_off[noff++] = hit;
		}
	}
	/*
	 * Room (err_off holds as many as there are rules): the rules switched
	 * off and those gathered are distinct.
	 */
	for (k = 0;
	     !fired && noff == ERR_SWITCH_LIMIT && k < rs->err_ix.nblocks;
	     k++) {
		more = rs->err_off + noff;
		n = rule_index_matches(&rs->err_ix, k, file, first, last, more);
		qsort(more, n, sizeof(*more), cmp_hit_rule);
		for (i = 0; i < n && !fired; i++)
			fired = error_try(rs, &more[i], v);
	}
	while (noff)
		rule_index_switch(&rs->err_ix, &rs->err_off[--noff], true);
}

void rules_decide(struct rule_set *rs, const char *file, uint64_t off,
		  uint64_t len, uint64_t now_ns, struct rule_verdict *v)
{
	uint64_t first = off >> RULE_PAGE_SHIFT, last;
	struct latency_model *model;
	struct rule_hit hit;

	/* The last byte, saturated: a read may not wrap around 2^64. */
	last = len ? off + (len - 1 > UINT64_MAX - off ? UINT64_MAX - off
						       : len - 1)
		   : off;
	last >>= RULE_PAGE_SHIFT;
	v->err = 0;
	v->latency_rule = -1;
	v->error_rule = -1;
	v->hold = false;
	v->hold_ns = 0;

	pthread_mutex_lock(&rs->lock);
	model = rs->def;
	if (rule_index_first(&rs->lat_ix, file, first, last, &hit)) {
		rs->lat[hit.rule].hits++;
		model = rs->lat[hit.rule].model;
		v->latency_rule = (int)hit.rule;
	}
	v->delay_ns = latency_delay(model, now_ns, off, len);
	decide_error(rs, file, first, last, v);
	if (rule_index_first(&rs->pause_ix, file, first, last, &hit)) {
		rs->pauses[hit.rule].hits++;
		v->hold = true;
		v->hold_ns = rs->pauses[hit.rule].hold_ns;
	}
	pthread_mutex_unlock(&rs->lock);
}

static void json_target(struct strbuf *sb, const struct rule_target *t)
{
	strbuf_adds(sb, "{\"file\":");
	if (t->file)
		json_add_cstring(sb, t->file);
	else
		strbuf_adds(sb, "null");
	if (t->has_pages)
		strbuf_addf(sb, ",\"pages\":[%" PRIu64 ",%" PRIu64 "]",
			    t->first, t->last);
	else
		strbuf_adds(sb, ",\"pages\":null");
}

static void json_model(struct strbuf *sb, const struct latency_model *m)
{
	struct strbuf spec = STRBUF_INIT;

	latency_format(m, &spec);
	if (spec.oom)
		sb->oom = true;
	else
		json_add_cstring(sb, spec.data);
	strbuf_free(&spec);
}

static void json_latency_rule(struct strbuf *sb, const void *rule)
{
	const struct latency_rule *r = rule;

	json_target(sb, &r->target);
	strbuf_adds(sb, ",\"latency\":");
	json_model(sb, r->model);
	strbuf_addf(sb, ",\"hits\":%" PRIu64 "}", r->hits);
}

static void json_error_rule(struct strbuf *sb, const void *rule)
{
	const struct error_rule *r = rule;
	const char *name = rule_errno_name(r->err);

	json_target(sb, &r->target);
	if (name)
		strbuf_addf(sb, ",\"errno\":\"%s\"", name);
	else
		strbuf_addf(sb, ",\"errno\":\"%d\"", r->err);
	if (r->limited)
		strbuf_addf(sb, ",\"times_left\":%" PRIu64, r->times_left);
	else
		strbuf_adds(sb, ",\"times_left\":null");
	strbuf_adds(sb, ",\"prob\":");
	if (r->random)
		units_format_decimal(sb, r->prob, PROB_PLACES);
	else
		strbuf_adds(sb, "null");
	strbuf_addf(sb, ",\"hits\":%" PRIu64 "}", r->hits);
}

static void json_pause_rule(struct strbuf *sb, const void *rule)
{
	const struct pause_rule *r = rule;

	json_target(sb, &r->target);
	strbuf_adds(sb, ",\"for\":");
	if (r->hold_ns) {
		struct strbuf d = STRBUF_INIT;

		units_format_duration(&d, r->hold_ns);
		if (d.oom)
			sb->oom = true;
		else
			json_add_cstring(sb, d.data);
		strbuf_free(&d);
	} else {
		strbuf_adds(sb, "null");
	}
	strbuf_addf(sb, ",\"hits\":%" PRIu64 "}", r->hits);
}

/* ,"@key":[...] of the @n rules of @size bytes at @v, each by @fn. */
static void json_rules(struct strbuf *sb, const char *key, const void *v,
		       size_t n, size_t size,
		       void (*fn)(struct strbuf *, const void *))
{
	size_t i;

	strbuf_addf(sb, ",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addc(sb, ',');
		fn(sb, (const char *)v + i * size);
	}
	strbuf_addc(sb, ']');
}

void rules_format_json(struct rule_set *rs, struct strbuf *sb)
{
	pthread_mutex_lock(&rs->lock);
	strbuf_adds(sb, "{\"default\":");
	json_model(sb, rs->def);
	json_rules(sb, "rules", rs->lat, rs->nlat, sizeof(*rs->lat),
		   json_latency_rule);
	json_rules(sb, "errors", rs->errs, rs->nerr, sizeof(*rs->errs),
		   json_error_rule);
	json_rules(sb, "pauses", rs->pauses, rs->npause, sizeof(*rs->pauses),
		   json_pause_rule);
	strbuf_addc(sb, '}');
	pthread_mutex_unlock(&rs->lock);
}

uint64_t rules_errors_injected(struct rule_set *rs)
{
	return locked_read(&rs->lock, rs->injected);
}
