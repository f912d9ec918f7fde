// SPDX-License-Identifier: MIT
/*
 * The command line: each argument is looked up in the option table
 * (option_table.c) and applied; config files (config_file.c) apply their
 * keys the same way.
 */
#include "options_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "rules.h"
#include "fileset.h"

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->ra_kb = OPT_UNSET;
	o->max_pages = OPT_UNSET;
	o->max_background = OPT_UNSET;
	o->threads = OPTIONS_DEFAULT_THREADS;
	o->congestion_threshold = OPT_UNSET;
	o->log_capacity = OPTIONS_DEFAULT_LOG_CAPACITY;
	o->auto_unmount = true;
	o->ready_fd = -1;
}

void options_free(struct options *o)
{
	size_t i;

	for (i = 0; i < o->nfiles; i++)
		free(o->files[i].name);
	free(o->files);
	free(o->name_index);
	free(o->mountpoint);
	free(o->log_path);
	free(o->backing);
	free(o->tracefs);
	rules_free(o->rules);
	options_init(o);
}

static size_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return (size_t)h;
}

/*
 * The index of file @name in o->files, or SIZE_MAX; with @add, the slot
 * is claimed for o->nfiles (the file about to be added). A hash, so that
 * 100 000 files are checked for duplicates in linear time. Returns
 * SIZE_MAX - 1 when out of memory.
 */
static size_t name_lookup(struct options *o, const char *name, bool add)
{
	size_t mask, i;

	if (add && (o->nfiles + 1) * 2 > o->name_index_cap) {
		size_t cap = o->name_index_cap ? o->name_index_cap * 2 : 64;
		size_t *v = calloc(cap, sizeof(*v)), k;

		if (!v)
			return SIZE_MAX - 1;
		for (k = 0; k < o->nfiles; k++) {
			for (i = name_hash(o->files[k].name) & (cap - 1); v[i];
			     i = (i + 1) & (cap - 1))
				;
			v[i] = k + 1;
		}
		free(o->name_index);
		o->name_index = v;
		o->name_index_cap = cap;
	}
	if (!o->name_index_cap)
		return SIZE_MAX;
	mask = o->name_index_cap - 1;
	for (i = name_hash(name) & mask; o->name_index[i]; i = (i + 1) & mask)
		if (!strcmp(o->files[o->name_index[i] - 1].name, name))
			return o->name_index[i] - 1;
	if (add)
		o->name_index[i] = o->nfiles + 1;
	return SIZE_MAX;
}

/* NAME:SIZE[:PATTERN]; @what names the argument in messages. */
static int add_file_spec(struct options *o, const char *what, const char *spec,
			 char *err, size_t errlen)
{
	const char *colon, *why, *pat;
	struct file_spec *fsp;
	char *name, *size_s;
	uint64_t size;
	size_t i;
	int ret;

	colon = strchr(spec, ':');
	if (!colon)
		return options_fail(err, errlen,
				    "%s '%s': expected NAME:SIZE[:PATTERN]",
				    what, spec);
	name = strndup(spec, (size_t)(colon - spec));
	if (!name)
		return options_fail(err, errlen, "out of memory");
	if (fileset_check_path(name, &why)) {
		/* Also -ENAMETOOLONG there; callers are promised -EINVAL. */
		ret = options_fail(err, errlen, "%s '%s': %s", what, spec, why);
		goto out_free;
	}
	pat = strchr(colon + 1, ':');
	size_s = pat ? strndup(colon + 1, (size_t)(pat - colon - 1))
		     : strdup(colon + 1);
	if (!size_s) {
		ret = options_fail(err, errlen, "out of memory");
		goto out_free;
	}
	ret = parse_size(size_s, 0, &size, &why);
	free(size_s);
	if (ret) {
		options_fail(err, errlen, "%s '%s': bad size: %s", what, spec,
			     why);
		ret = -EINVAL;
		goto out_free;
	}
	if (o->nfiles == o->files_cap) {
		size_t cap = o->files_cap ? o->files_cap * 2 : 8;

		fsp = realloc(o->files, cap * sizeof(*fsp));
		if (!fsp) {
			ret = options_fail(err, errlen, "out of memory");
			goto out_free;
		}
		o->files = fsp;
		o->files_cap = cap;
	}
	fsp = &o->files[o->nfiles];
	fsp->pattern = (struct testfs_pattern){ TESTFS_PATTERN_STAMP, 0 };
	if (pat && testfs_pattern_parse(pat + 1, &fsp->pattern)) {
		ret = options_fail(
			err, errlen,
			"%s '%s': unknown pattern '%s' (expected stamp, zero, random or random:SEED)",
			what, spec, pat + 1);
		goto out_free;
	}
	i = name_lookup(o, name, true);
	if (i == SIZE_MAX - 1) {
		ret = options_fail(err, errlen, "out of memory");
		goto out_free;
	}
	if (i != SIZE_MAX) {
		ret = options_fail(err, errlen,
				   "%s '%s': duplicate file name '%s'", what,
				   spec, name);
		goto out_free;
	}
	fsp->name = name;
	fsp->size = size;
	o->nfiles++;
	return 0;
out_free:
	free(name);
	return ret;
}

/* --latency, --rule, --error, --pause: checked now, kept parsed. */
static int add_slow(struct options *o, enum opt_id id, const char *what,
		    const char *val, char *err, size_t errlen)
{
	const char *kind;
	char why[512];
	int ret;

	if (!o->rules && rules_new(&o->rules))
		return options_fail(err, errlen, "out of memory");
	if (id == OPT_LATENCY)
		ret = rules_set_default(o->rules, val, why, sizeof(why));
	else if (id == OPT_RULE)
		ret = rules_add_latency(o->rules, val, why, sizeof(why));
	else if (id == OPT_PAUSE)
		ret = rules_add_pause(o->rules, val, why, sizeof(why));
	else
		ret = rules_add_error(o->rules, val, why, sizeof(why));
	/* "--rule 'SPEC': " names the spec: the message need not again. */
	kind = id == OPT_LATENCY ? "latency"
	       : id == OPT_RULE	 ? "rule"
	       : id == OPT_PAUSE ? "pause"
				 : "error";
	if (ret)
		return options_fail(err, errlen, "%s '%s': %s", what, val,
				    rules_why_detail(why, kind, val));
	o->slow_given = true;
	return 0;
}

static int set_int(int64_t *dst, const char *what, const char *val,
		   uint64_t min, uint64_t max, char *err, size_t errlen)
{
	const char *why;
	uint64_t v;

	if (parse_uint(val, min, max, &v, &why))
		return options_fail(
			err, errlen,
			"%s '%s': %s (expected an integer in %llu..%llu)", what,
			val, why, (unsigned long long)min,
			(unsigned long long)max);
	*dst = (int64_t)v;
	return 0;
}

static int set_string(char **dst, const char *what, const char *val, char *err,
		      size_t errlen)
{
	char *s;

	if (!*val)
		return options_fail(err, errlen,
				    "%s: empty value (expected a path)", what);
	s = strdup(val);
	if (!s)
		return options_fail(err, errlen, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

int options_apply(struct options *o, const struct opt_desc *d, const char *val,
		  const char *what, char *err, size_t errlen)
{
	int64_t v = 0;
	int ret;

	switch (d->id) {
	case OPT_FILE:
		return add_file_spec(o, what, val, err, errlen);
	case OPT_BACKING:
		if (o->backing)
			return options_fail(
				err, errlen,
				"%s '%s': only one backing directory (already '%s')",
				what, val, o->backing);
		return set_string(&o->backing, what, val, err, errlen);
	case OPT_CONFIG:
		return options_load_config(o, val, err, errlen);
	case OPT_RA_KB:
		return set_int(&o->ra_kb, what, val, 0, 1u << 20, err, errlen);
	case OPT_MAX_PAGES:
		return set_int(&o->max_pages, what, val, 1, 256, err, errlen);
	case OPT_MAX_BACKGROUND:
		return set_int(&o->max_background, what, val, 1, 65535, err,
			       errlen);
	case OPT_CONGESTION:
		/* Checked against max-background at the end: keep where. */
		snprintf(o->congestion_what, sizeof(o->congestion_what), "%s",
			 what);
		return set_int(&o->congestion_threshold, what, val, 1, 65535,
			       err, errlen);
	case OPT_THREADS:
		return set_int(&o->threads, what, val, 1, TESTFS_THREADS_MAX,
			       err, errlen);
	case OPT_TRANSPORT:
		if (!strcmp(val, "dev"))
			o->transport = OPT_TRANSPORT_DEV;
		else if (!strcmp(val, "uring"))
			o->transport = OPT_TRANSPORT_URING;
		else
			return options_fail(
				err, errlen,
				"%s '%s': expected dev (/dev/fuse) or uring (FUSE over io_uring)",
				what, val);
		return 0;
	case OPT_LOG:
		return set_string(&o->log_path, what, val, err, errlen);
	case OPT_LOG_CAPACITY:
		ret = set_int(&v, what, val, 16, 1u << 30, err, errlen);
		if (!ret)
			o->log_capacity = (uint64_t)v;
		return ret;
	case OPT_LATENCY:
	case OPT_RULE:
	case OPT_ERROR:
	case OPT_PAUSE:
		return add_slow(o, d->id, what, val, err, errlen);
	case OPT_FOREGROUND:
		o->foreground = true;
		return 0;
	case OPT_DEBUG:
		o->debug = true;
		o->foreground = true;
		return 0;
	case OPT_QUIET:
		o->quiet = true;
		return 0;
	case OPT_NO_AUTO_UNMOUNT:
		o->auto_unmount = false;
		return 0;
	case OPT_RMDIR:
		o->rmdir_after = true;
		return 0;
	case OPT_READY_FD:
		ret = set_int(&v, what, val, 0, 65535, err, errlen);
		if (!ret)
			o->ready_fd = (int)v;
		return ret;
	case OPT_WATCH_PID:
		return set_int(&o->watch_pid, what, val, 1, 4194304, err,
			       errlen);
	case OPT_TRACE:
		o->trace = OPT_TRACE_REQUIRED;
		return 0;
	case OPT_NO_TRACE:
		o->trace = OPT_TRACE_OFF;
		snprintf(o->no_trace_what, sizeof(o->no_trace_what), "%s",
			 what);
		return 0;
	case OPT_TRACE_READS:
		o->trace_reads = true;
		snprintf(o->trace_reads_what, sizeof(o->trace_reads_what), "%s",
			 what);
		return 0;
	case OPT_TRACE_FOLIOS:
		o->trace_folios = true;
		snprintf(o->trace_folios_what, sizeof(o->trace_folios_what),
			 "%s", what);
		return 0;
	case OPT_TRACEFS:
		if (val[0] != '/')
			return options_fail(
				err, errlen,
				"%s '%s': expected an absolute path", what,
				val);
		free(o->tracefs);
		o->tracefs = strdup(val);
		return o->tracefs ? 0
				  : options_fail(err, errlen, "out of memory");
	case OPT_HELP:
		o->help = true;
		return 0;
	case OPT_VERSION:
		o->version = true;
		return 0;
	}
	return options_fail(err, errlen, "%s: unhandled option", what);
}

/* Checks made once everything is read, and the defaults. */
static int finish(struct options *o, char *err, size_t errlen)
{
	size_t i;
	int ret;

	if (o->help || o->version)
		return 0;
	if (!o->mountpoint)
		return options_fail(err, errlen, "missing MOUNTPOINT");
	/* Either may come from a config file: name where each was given. */
	if (o->trace_reads && o->trace == OPT_TRACE_OFF)
		return options_fail(err, errlen, "%s: conflicts with %s",
				    o->trace_reads_what[0] ? o->trace_reads_what
							   : "--trace-reads",
				    o->no_trace_what[0] ? o->no_trace_what
							: "--no-trace");
	if (o->trace_folios && o->trace == OPT_TRACE_OFF)
		return options_fail(
			err, errlen, "%s: conflicts with %s",
			o->trace_folios_what[0] ? o->trace_folios_what
						: "--trace-folios",
			o->no_trace_what[0] ? o->no_trace_what : "--no-trace");
	if (o->congestion_threshold != OPT_UNSET) {
		int64_t mb = o->max_background != OPT_UNSET
				     ? o->max_background
				     : KERNEL_DEFAULT_MAX_BACKGROUND;

		if (o->congestion_threshold > mb)
			return options_fail(
				err, errlen,
				"%s %lld: exceeds max-background (%lld%s); raise max-background too",
				o->congestion_what,
				(long long)o->congestion_threshold,
				(long long)mb,
				o->max_background != OPT_UNSET
					? ""
					: ", the kernel default");
	}
	if (o->nfiles == 0 && !o->backing) {
		o->default_files = true;
		for (i = 0; options_default_files[i]; i++) {
			ret = add_file_spec(o, "default file",
					    options_default_files[i], err,
					    errlen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* One setting of a config file, applied as the option it names. */
static int apply_setting(void *ctx, const struct opt_desc *d, const char *val,
			 const char *what, char *err, size_t errlen)
{
	return options_apply(ctx, d, val, what, err, errlen);
}

int options_load_config(struct options *o, const char *path, char *err,
			size_t errlen)
{
	return config_file_read(path, apply_setting, o, err, errlen);
}

int options_parse(struct options *o, int argc, char **argv, char *err,
		  size_t errlen)
{
	bool only_args = false;
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		const struct opt_desc *d;
		char what[128];

		if (only_args || arg[0] != '-' || arg[1] == '\0') {
			if (o->mountpoint)
				return options_fail(
					err, errlen,
					"unexpected argument '%s' (MOUNTPOINT is already '%s')",
					arg, o->mountpoint);
			ret = set_string(&o->mountpoint, "MOUNTPOINT", arg, err,
					 errlen);
			if (ret)
				return ret;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			only_args = true;
			continue;
		}
		if (arg[1] == '-') {
			eq = strchr(arg + 2, '=');
			d = options_find_long(arg + 2,
					      eq ? (size_t)(eq - arg - 2)
						 : strlen(arg + 2));
			if (!d)
				return options_fail(err, errlen,
						    "unknown option '%s'", arg);
			snprintf(what, sizeof(what), "--%s", d->name);
			if (eq) {
				if (!d->has_arg)
					return options_fail(
						err, errlen,
						"option '%s' takes no value",
						what);
				val = eq + 1;
			}
		} else {
			d = options_find_short(arg[1]);
			if (!d || arg[2])
				return options_fail(err, errlen,
						    "unknown option '%s'", arg);
			snprintf(what, sizeof(what), "-%c", d->short_name);
		}
		if (d->has_arg && !val) {
			if (i + 1 >= argc)
				return options_fail(err, errlen,
						    "option '%s' needs a value",
						    what);
			val = argv[++i];
		}
		ret = options_apply(o, d, val, what, err, errlen);
		if (ret)
			return ret;
	}
	return finish(o, err, errlen);
}
