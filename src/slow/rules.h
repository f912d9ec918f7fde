/* SPDX-License-Identifier: MIT */
/*
 * The rules that decide, for each data read, how long testfs waits and
 * whether it answers with an error: a default latency model (--latency),
 * latency rules (--rule) and error rules (--error), in the order given.
 *
 * --rule 'file=NAME,pages=A-B,latency=MODEL'
 *	file= and pages= are optional, latency= is required and comes last
 *	(MODEL, see latency.h, may contain commas). NAME is the file's path
 *	in the mount, matched exactly (it cannot contain a comma); without
 *	file= every file matches. pages=A-B are inclusive page numbers
 *	(4096-byte pages), A <= B, or one page (pages=7); without pages= every
 *	page matches. A read of [off, off + len) covers pages off / 4096 to
 *	(off + len - 1) / 4096 (a read of 0 bytes covers the page at off) and
 *	matches when that range overlaps [A, B]. The first matching rule
 *	wins; a read no rule matches gets the default model (initially none).
 *
 * --error 'file=NAME,pages=A-B,errno=E[,times=N|prob=P][,seed=N]'
 *	file= and pages= as above, in any order. E is a name (EPERM, ENOENT,
 *	EINTR, EIO, ENXIO, EBADF, EAGAIN, ENOMEM, EACCES, EFAULT, EBUSY,
 *	ENODEV, EINVAL, EFBIG, ENOSPC, EROFS, ENODATA, ENOLINK, EPROTO,
 *	EBADMSG, EOVERFLOW, EILSEQ, ECONNRESET, ENOTCONN, ETIMEDOUT, ESTALE,
 *	EDQUOT, ENOMEDIUM, ECANCELED, EREMOTEIO, EHWPOISON; case does not
 *	matter) or a number 1..133. times=N (N >= 1) fails only the first N
 *	matching reads; prob=P (a decimal 0..1, up to 9 decimals) fails each
 *	matching read with probability P, drawn from a generator seeded with
 *	seed= (default 0), so a run is reproducible; times= and prob= exclude
 *	each other. Without either, every matching read fails. The first
 *	matching error rule that fires decides; a rule whose times are used
 *	up, or whose draw says no, lets the next one try.
 *
 * --pause 'file=NAME,pages=A-B[,for=DURATION]'
 *	file= and pages= as above. A matching read is held: it is not
 *	answered until rules_resume() drops the pause rules and the caller
 *	releases what they held, or for= (a duration as in latency.h, at
 *	most 1 h) after it arrived. The first matching pause rule decides.
 *	rules_clear() leaves pause rules alone.
 *
 * Hits: a latency rule counts the reads it matched (first match only), an
 * error rule the reads it failed.
 *
 * Every function may be called from any thread: one internal mutex
 * protects the set, and rules_decide() holds it only to pick the rule and
 * compute the delay (it never sleeps).
 */
#ifndef TESTFS_SLOW_RULES_H
#define TESTFS_SLOW_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

struct rule_set;

struct rule_verdict {
	uint64_t delay_ns; /* 0 = reply now */
	int err;	   /* 0 or a positive errno to answer with */
	int latency_rule;  /* index of the matching --rule, -1 = the default */
	int error_rule;	   /* index of the matching --error, -1 = none */
	bool hold;	   /* a pause rule matched: hold the reply */
	uint64_t hold_ns;  /* ... at most this long; 0 = until resumed */
};

/* Makes an empty set with the default model none. Returns 0 or -ENOMEM. */
int rules_new(struct rule_set **out);

/* Frees @rs and its models; NULL is allowed. */
void rules_free(struct rule_set *rs);

/*
 * @why without a leading "@kind '@spec': ", which the messages below
 * start with (kind latency, rule, error or pause): for a caller that names
 * the spec itself (--rule 'SPEC': ..., or the ctl command rule SPEC), so
 * the spec is not said twice. @why itself when it does not start so.
 */
const char *rules_why_detail(const char *why, const char *kind,
			     const char *spec);

/*
 * Replaces the default model with MODEL @model (--latency). Returns 0,
 * -EINVAL with latency_parse()'s message in @err (up to @errlen bytes; @err
 * may be NULL), or -ENOMEM. On error the default is unchanged.
 */
int rules_set_default(struct rule_set *rs, const char *model, char *err,
		      size_t errlen);

/*
 * Appends a latency rule (--rule). Returns 0, -EINVAL with a message that
 * quotes @spec and names what is wrong (unknown key, missing latency=, bad
 * pages range, empty file=, a repeated key, or the MODEL's own message), or
 * -ENOMEM.
 */
int rules_add_latency(struct rule_set *rs, const char *spec, char *err,
		      size_t errlen);

/*
 * Appends an error rule (--error). Returns 0, -EINVAL with a message that
 * quotes @spec and names what is wrong (unknown key, missing errno=,
 * unknown errno name, errno out of range, bad pages range, times=0, prob
 * outside 0..1, both times= and prob=, empty file=, a repeated key), or
 * -ENOMEM.
 */
int rules_add_error(struct rule_set *rs, const char *spec, char *err,
		    size_t errlen);

/*
 * Appends a pause rule (--pause, ctl pause). Returns 0, -EINVAL with a
 * message that quotes @spec (unknown key, bad pages, bad for=, a repeated
 * key), or -ENOMEM.
 */
int rules_add_pause(struct rule_set *rs, const char *spec, char *err,
		    size_t errlen);

/* Drops every pause rule; returns how many there were. */
size_t rules_resume(struct rule_set *rs);

/*
 * Drops every latency and error rule, with their models and hit counts;
 * keeps the default model and the rules_errors_injected() total.
 */
void rules_clear(struct rule_set *rs);

/*
 * Decides the fate of a read of @len bytes at @off of @file (its path in
 * the mount) arriving at @now_ns (CLOCK_MONOTONIC): fills in @v. The
 * delay comes from the first matching latency rule's model, else the
 * default's; the error from the first matching error rule that fires.
 * Both are decided for every read: a failed read is delayed like any
 * other. Updates hit counters and the models' state.
 */
void rules_decide(struct rule_set *rs, const char *file, uint64_t off,
		  uint64_t len, uint64_t now_ns, struct rule_verdict *v);

/*
 * Appends the set as one JSON object:
 * {"default":"MODEL",
 *  "rules":[{"file":"NAME" or null,"pages":[A,B] or null,"latency":"MODEL",
 *            "hits":N}, ...],
 *  "errors":[{"file":...,"pages":...,"errno":"EIO","times_left":N or null,
 *             "prob":P or null,"hits":N}, ...],
 *  "pauses":[{"file":...,"pages":...,"for":"DURATION" or null,"hits":N},
 *            ...]}
 * MODEL is latency_format()'s canonical form; errno is the name ("EIO"),
 * or the number as a string for errnos without a name here.
 */
void rules_format_json(struct rule_set *rs, struct strbuf *sb);

/* Reads answered with an error since rules_new(), rules_clear() or not. */
uint64_t rules_errors_injected(struct rule_set *rs);

#endif
