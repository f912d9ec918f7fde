// SPDX-License-Identifier: MIT
/*
 * The MODEL grammar, the simple models (none, fixed, uniform, normal,
 * lognormal, bw) and the dispatch to the device models. latency.h documents
 * the grammar for users; the device models and the sources of their
 * defaults are in devices.c, next to the table that holds them.
 */
#include "latency_i.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "units.h"

#define MODELS                                                                 \
	"none, fixed:DUR, uniform:MIN-MAX, normal:MEAN,SD, "                   \
	"lognormal:MEDIAN,SIGMA, bw:RATE, " DEVICE_NAMES

/* SIGMA is kept in millionths, at most 10. */
#define SIGMA_PLACES 6
#define SIGMA_SCALE 1000000.0
#define SIGMA_MAX 10000000ull

/* The most positional parameters a simple model has. */
#define MAX_PARAMS 2

struct simple_kind {
	const char *name;
	enum latency_kind kind;
	const char *usage;
	int nparams;
	bool seeded;
};

static const struct simple_kind simple_kinds[] = {
	{ "none", LATENCY_NONE, "none", 0, false },
	{ "fixed", LATENCY_FIXED, "fixed:DUR", 1, false },
	{ "uniform", LATENCY_UNIFORM, "uniform:MIN-MAX[,seed=N]", 1, true },
	{ "normal", LATENCY_NORMAL, "normal:MEAN,SD[,seed=N]", 2, true },
	{ "lognormal", LATENCY_LOGNORMAL, "lognormal:MEDIAN,SIGMA[,seed=N]", 2,
	  true },
	{ "bw", LATENCY_BW, "bw:RATE", 1, false },
};

static int get_duration(const char *spec, const char *what, const char *s,
			uint64_t *v, char *err, size_t errlen)
{
	const char *why;

	if (parse_duration(s, v, &why)) {
		latency_error(err, errlen, spec, "bad %s '%s' (%s)", what, s,
			      why);
		return -EINVAL;
	}
	return 0;
}

static int parse_uniform(const char *spec, const char *range,
			 struct latency_model *m, char *err, size_t errlen)
{
	/* From the second character, so that "-1ms-2ms" reads as negative. */
	const char *dash = *range ? strchr(range + 1, '-') : NULL;
	char *min;
	int ret;

	if (!dash) {
		latency_error(err, errlen, spec,
			      "bad range '%s' (expected MIN-MAX, e.g. 1ms-5ms)",
			      range);
		return -EINVAL;
	}
	min = strndup(range, (size_t)(dash - range));
	if (!min)
		return -ENOMEM;
	ret = get_duration(spec, "MIN", min, &m->a, err, errlen);
	if (!ret)
		ret = get_duration(spec, "MAX", dash + 1, &m->b, err, errlen);
	if (!ret && m->a > m->b) {
		latency_error(
			err, errlen, spec,
			"MIN '%s' is more than MAX '%s' (expected MIN <= MAX)",
			min, dash + 1);
		ret = -EINVAL;
	}
	free(min);
	return ret;
}

static int parse_lognormal(const char *spec, char **params,
			   struct latency_model *m, char *err, size_t errlen)
{
	const char *why;
	int ret;

	if (get_duration(spec, "MEDIAN", params[0], &m->a, err, errlen))
		return -EINVAL;
	if (!m->a) {
		latency_error(err, errlen, spec,
			      "MEDIAN '%s' must be more than 0", params[0]);
		return -EINVAL;
	}
	ret = units_parse_decimal(params[1], SIGMA_PLACES, SIGMA_MAX, &m->b,
				  &why);
	if (!ret && !m->b) {
		why = "zero";
		ret = -EINVAL;
	}
	if (ret) {
		latency_error(
			err, errlen, spec,
			"bad SIGMA '%s' (%s; expected a plain number above 0 and at most 10, up to 6 decimals)",
			params[1], why);
		return -EINVAL;
	}
	return 0;
}

/* The positional parameters of a simple model, by kind. */
static int parse_params(const char *spec, char **params,
			struct latency_model *m, char *err, size_t errlen)
{
	const char *why;

	switch (m->kind) {
	case LATENCY_FIXED:
		return get_duration(spec, "duration", params[0], &m->a, err,
				    errlen);
	case LATENCY_UNIFORM:
		return parse_uniform(spec, params[0], m, err, errlen);
	case LATENCY_NORMAL:
		if (get_duration(spec, "MEAN", params[0], &m->a, err, errlen))
			return -EINVAL;
		return get_duration(spec, "SD", params[1], &m->b, err, errlen);
	case LATENCY_LOGNORMAL:
		return parse_lognormal(spec, params, m, err, errlen);
	case LATENCY_BW:
		if (parse_rate(params[0], &m->a, &why)) {
			latency_error(err, errlen, spec, "bad rate '%s' (%s)",
				      params[0], why);
			return -EINVAL;
		}
		return 0;
	default:
		return 0;
	}
}

/* The optional settings after the parameters: only seed=N. */
static int parse_seed(const char *spec, const struct simple_kind *k, char *tok,
		      bool *seen, struct latency_model *m, char *err,
		      size_t errlen)
{
	const char *why;

	if (!k->seeded || strncmp(tok, "seed=", 5) != 0) {
		latency_error(err, errlen, spec,
			      "unexpected '%s' (expected %s)", tok, k->usage);
		return -EINVAL;
	}
	if (*seen) {
		latency_error(err, errlen, spec, "seed= given twice");
		return -EINVAL;
	}
	*seen = true;
	if (parse_uint(tok + 5, 0, UINT64_MAX, &m->seed, &why)) {
		latency_error(
			err, errlen, spec,
			"bad seed '%s' (%s; expected an integer 0..2^64-1)",
			tok + 5, why);
		return -EINVAL;
	}
	return 0;
}

/* Parses the simple model @k; @args (may be NULL) is cut up in place. */
static int parse_simple(const char *spec, const struct simple_kind *k,
			char *args, struct latency_model *m, char *err,
			size_t errlen)
{
	char *params[MAX_PARAMS];
	char *tok, *next = args;
	bool seen_seed = false;
	int n = 0, ret;

	m->kind = k->kind;
	if (!k->nparams) {
		if (args) {
			latency_error(
				err, errlen, spec,
				"unexpected ':%s' (%s takes no parameters)",
				args, k->name);
			return -EINVAL;
		}
		return 0;
	}
	while (next && n < k->nparams) {
		tok = strsep(&next, ",");
		params[n++] = tok;
	}
	if (n < k->nparams) {
		latency_error(err, errlen, spec,
			      "missing parameters (expected %s)", k->usage);
		return -EINVAL;
	}
	ret = parse_params(spec, params, m, err, errlen);
	while (!ret && next) {
		tok = strsep(&next, ",");
		ret = parse_seed(spec, k, tok, &seen_seed, m, err, errlen);
	}
	prng_seed(&m->rng, m->seed);
	return ret;
}

int latency_parse(const char *spec, struct latency_model **out, char *err,
		  size_t errlen)
{
	struct latency_model *m;
	char *name, *args;
	size_t i;
	int ret;

	if (!spec || !*spec) {
		latency_error(err, errlen, spec ? spec : "",
			      "empty model (expected " MODELS ")");
		return -EINVAL;
	}
	name = strdup(spec);
	m = calloc(1, sizeof(*m));
	if (!name || !m) {
		ret = -ENOMEM;
		goto out_free;
	}
	args = strchr(name, ':');
	if (args)
		*args++ = '\0';
	for (i = 0; i < sizeof(simple_kinds) / sizeof(simple_kinds[0]); i++) {
		if (strcmp(name, simple_kinds[i].name) == 0)
			break;
	}
	if (i < sizeof(simple_kinds) / sizeof(simple_kinds[0])) {
		ret = parse_simple(spec, &simple_kinds[i], args, m, err,
				   errlen);
	} else {
		m->kind = LATENCY_DEVICE;
		ret = device_parse(spec, name, args, &m->dev, err, errlen);
		if (ret == -ENOENT) {
			latency_error(err, errlen, spec,
				      "unknown model '%s' (expected " MODELS
				      ")",
				      name);
			ret = -EINVAL;
		}
	}
	if (!ret) {
		*out = m;
		m = NULL;
	}
out_free:
	latency_free(m);
	free(name);
	return ret;
}

/* A random draw in nanoseconds: rounded, at least 0, at most 1h. */
static uint64_t draw_ns(double ns)
{
	if (!(ns > 0))
		return 0;
	if (ns >= (double)UNITS_DURATION_MAX)
		return UNITS_DURATION_MAX;
	return (uint64_t)(ns + 0.5);
}

uint64_t latency_delay(struct latency_model *m, uint64_t now_ns, uint64_t off,
		       uint64_t len)
{
	uint64_t start, d;
	double z;

	if (!m)
		return 0;
	switch (m->kind) {
	case LATENCY_NONE:
		return 0;
	case LATENCY_FIXED:
		return m->a;
	case LATENCY_UNIFORM:
		return m->a + prng_below(&m->rng, m->b - m->a + 1);
	case LATENCY_NORMAL:
		z = prng_normal(&m->rng);
		return draw_ns((double)m->a + (double)m->b * z);
	case LATENCY_LOGNORMAL:
		z = prng_normal(&m->rng);
		return draw_ns((double)m->a *
			       real_exp((double)m->b / SIGMA_SCALE * z));
	case LATENCY_BW:
		/* One channel: a transfer starts when the previous ended. */
		start = m->b > now_ns ? m->b : now_ns;
		m->b = units_transfer_ns(len, m->a);
		m->b = m->b > UINT64_MAX - start ? UINT64_MAX : start + m->b;
		/*
		 * Capped like every duration (bw:1B/s would make a 16 KiB
		 * read wait 4.5 h); the channel is free when the capped
		 * transfer ends, so the backlog cannot grow past the cap.
		 */
		if (m->b - now_ns > UNITS_DURATION_MAX)
			m->b = now_ns + UNITS_DURATION_MAX;
		return m->b - now_ns;
	case LATENCY_DEVICE:
		d = device_delay(m->dev, now_ns, off, len);
		return d < UNITS_DURATION_MAX ? d : UNITS_DURATION_MAX;
	}
	return 0;
}

/* The name a simple model's spec starts with ("fixed", ...). */
static const char *simple_name(enum latency_kind kind)
{
	size_t i;

	for (i = 0; i < sizeof(simple_kinds) / sizeof(simple_kinds[0]); i++)
		if (simple_kinds[i].kind == kind)
			return simple_kinds[i].name;
	return "?";
}

void latency_format(const struct latency_model *m, struct strbuf *sb)
{
	enum latency_kind kind = m ? m->kind : LATENCY_NONE;

	if (kind == LATENCY_DEVICE) {
		device_format(m->dev, sb);
		return;
	}
	strbuf_adds(sb, simple_name(kind));
	if (kind == LATENCY_NONE)
		return;
	strbuf_addc(sb, ':');
	if (kind == LATENCY_BW) {
		units_format_rate(sb, m->a);
		return;
	}
	units_format_duration(sb, m->a);
	if (kind == LATENCY_FIXED)
		return;
	/* MIN-MAX, MEAN,SD or MEDIAN,SIGMA, then the seed. */
	strbuf_addc(sb, kind == LATENCY_UNIFORM ? '-' : ',');
	if (kind == LATENCY_LOGNORMAL)
		units_format_decimal(sb, m->b, SIGMA_PLACES);
	else
		units_format_duration(sb, m->b);
	strbuf_addf(sb, ",seed=%" PRIu64, m->seed);
}

bool latency_is_none(const struct latency_model *m)
{
	return !m || m->kind == LATENCY_NONE;
}

void latency_free(struct latency_model *m)
{
	if (!m)
		return;
	device_free(m->dev);
	free(m);
}
