// SPDX-License-Identifier: MIT
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/parse.h"
#include "../slow/rules.h"
#include "../store/fileset.h"

enum opt_id {
	OPT_FILE,
	OPT_CONFIG,
	OPT_RA_KB,
	OPT_MAX_PAGES,
	OPT_MAX_BACKGROUND,
	OPT_CONGESTION,
	OPT_LOG,
	OPT_LOG_CAPACITY,
	OPT_LATENCY,
	OPT_RULE,
	OPT_ERROR,
	OPT_FOREGROUND,
	OPT_DEBUG,
	OPT_QUIET,
	OPT_NO_AUTO_UNMOUNT,
	OPT_RMDIR,
	OPT_READY_FD,
	OPT_WATCH_PID,
	OPT_TRACE,
	OPT_NO_TRACE,
	OPT_TRACEFS,
	OPT_TRACE_READS,
	OPT_HELP,
	OPT_VERSION,
};

struct opt_desc {
	const char *name;
	char short_name;
	enum opt_id id;
	bool has_arg;
	/* Accepted as a key in a config file. */
	bool in_config;
};

static const struct opt_desc opt_table[] = {
	{ "file", 0, OPT_FILE, true, true },
	{ "config", 0, OPT_CONFIG, true, false },
	{ "ra-kb", 0, OPT_RA_KB, true, true },
	{ "max-pages", 0, OPT_MAX_PAGES, true, true },
	{ "max-background", 0, OPT_MAX_BACKGROUND, true, true },
	{ "congestion-threshold", 0, OPT_CONGESTION, true, true },
	{ "log", 0, OPT_LOG, true, true },
	{ "log-capacity", 0, OPT_LOG_CAPACITY, true, true },
	{ "latency", 0, OPT_LATENCY, true, true },
	{ "rule", 0, OPT_RULE, true, true },
	{ "error", 0, OPT_ERROR, true, true },
	{ "foreground", 'f', OPT_FOREGROUND, false, false },
	{ "debug", 'd', OPT_DEBUG, false, false },
	{ "quiet", 'q', OPT_QUIET, false, true },
	{ "no-auto-unmount", 0, OPT_NO_AUTO_UNMOUNT, false, true },
	{ "rmdir", 0, OPT_RMDIR, false, false },
	{ "ready-fd", 0, OPT_READY_FD, true, false },
	{ "watch-pid", 0, OPT_WATCH_PID, true, false },
	{ "trace", 0, OPT_TRACE, false, true },
	{ "no-trace", 0, OPT_NO_TRACE, false, true },
	{ "tracefs", 0, OPT_TRACEFS, true, true },
	{ "trace-reads", 0, OPT_TRACE_READS, false, true },
	{ "help", 'h', OPT_HELP, false, false },
	{ "version", 'V', OPT_VERSION, false, false },
};

#define N_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

/* Config files are small text files; anything else is refused. */
#define CONFIG_LINE_MAX 4096u
#define CONFIG_SIZE_MAX (1u << 20)
/* Longest unknown key repeated in a message (the longest key has 20). */
#define CONFIG_KEY_SHOWN_MAX 32

/* The documented set served when no file is given. */
static const char *const default_files[] = {
	"big.bin:256M:stamp", "small.bin:1M:stamp",
	"zero.bin:64M:zero",  "random.bin:64M:random:1",
	"huge.bin:1T:stamp",  "dir/nested.bin:4M:stamp",
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->ra_kb = OPT_UNSET;
	o->max_pages = OPT_UNSET;
	o->max_background = OPT_UNSET;
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
		return fail(err, errlen,
			    "%s '%s': expected NAME:SIZE[:PATTERN]", what,
			    spec);
	name = strndup(spec, (size_t)(colon - spec));
	if (!name)
		return fail(err, errlen, "out of memory");
	if (fileset_check_path(name, &why)) {
		/* Also -ENAMETOOLONG there; callers are promised -EINVAL. */
		ret = fail(err, errlen, "%s '%s': %s", what, spec, why);
		goto out_free;
	}
	pat = strchr(colon + 1, ':');
	size_s = pat ? strndup(colon + 1, (size_t)(pat - colon - 1))
		     : strdup(colon + 1);
	if (!size_s) {
		ret = fail(err, errlen, "out of memory");
		goto out_free;
	}
	ret = parse_size(size_s, 0, &size, &why);
	free(size_s);
	if (ret) {
		fail(err, errlen, "%s '%s': bad size: %s", what, spec, why);
		ret = -EINVAL;
		goto out_free;
	}
	if (o->nfiles == o->files_cap) {
		size_t cap = o->files_cap ? o->files_cap * 2 : 8;

		fsp = realloc(o->files, cap * sizeof(*fsp));
		if (!fsp) {
			ret = fail(err, errlen, "out of memory");
			goto out_free;
		}
		o->files = fsp;
		o->files_cap = cap;
	}
	fsp = &o->files[o->nfiles];
	fsp->pattern = (struct testfs_pattern){ TESTFS_PATTERN_STAMP, 0 };
	if (pat && testfs_pattern_parse(pat + 1, &fsp->pattern)) {
		ret = fail(
			err, errlen,
			"%s '%s': unknown pattern '%s' (expected stamp, zero, random or random:SEED)",
			what, spec, pat + 1);
		goto out_free;
	}
	i = name_lookup(o, name, true);
	if (i == SIZE_MAX - 1) {
		ret = fail(err, errlen, "out of memory");
		goto out_free;
	}
	if (i != SIZE_MAX) {
		ret = fail(err, errlen, "%s '%s': duplicate file name '%s'",
			   what, spec, name);
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

/* --latency MODEL, --rule SPEC, --error SPEC: checked now, kept parsed. */
static int add_slow(struct options *o, enum opt_id id, const char *what,
		    const char *val, char *err, size_t errlen)
{
	char why[512];
	int ret;

	if (!o->rules && rules_new(&o->rules))
		return fail(err, errlen, "out of memory");
	if (id == OPT_LATENCY)
		ret = rules_set_default(o->rules, val, why, sizeof(why));
	else if (id == OPT_RULE)
		ret = rules_add_latency(o->rules, val, why, sizeof(why));
	else
		ret = rules_add_error(o->rules, val, why, sizeof(why));
	if (ret)
		return fail(err, errlen, "%s '%s': %s", what, val, why);
	o->slow_given = true;
	return 0;
}

static int set_int(int64_t *dst, const char *what, const char *val,
		   uint64_t min, uint64_t max, char *err, size_t errlen)
{
	const char *why;
	uint64_t v;

	if (parse_uint(val, min, max, &v, &why))
		return fail(err, errlen,
			    "%s '%s': %s (expected an integer in %llu..%llu)",
			    what, val, why, (unsigned long long)min,
			    (unsigned long long)max);
	*dst = (int64_t)v;
	return 0;
}

static int set_string(char **dst, const char *what, const char *val, char *err,
		      size_t errlen)
{
	char *s;

	if (!*val)
		return fail(err, errlen, "%s: empty value (expected a path)",
			    what);
	s = strdup(val);
	if (!s)
		return fail(err, errlen, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

static int apply(struct options *o, const struct opt_desc *d, const char *val,
		 const char *what, char *err, size_t errlen)
{
	int64_t v = 0;
	int ret;

	switch (d->id) {
	case OPT_FILE:
		return add_file_spec(o, what, val, err, errlen);
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
		return 0;
	case OPT_TRACE_READS:
		o->trace_reads = true;
		return 0;
	case OPT_TRACEFS:
		if (val[0] != '/')
			return fail(err, errlen,
				    "%s '%s': expected an absolute path", what,
				    val);
		free(o->tracefs);
		o->tracefs = strdup(val);
		return o->tracefs ? 0 : fail(err, errlen, "out of memory");
	case OPT_HELP:
		o->help = true;
		return 0;
	case OPT_VERSION:
		o->version = true;
		return 0;
	}
	return fail(err, errlen, "%s: unhandled option", what);
}

static const struct opt_desc *find_long(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < N_OPTS; i++)
		if (strlen(opt_table[i].name) == len &&
		    strncmp(opt_table[i].name, name, len) == 0)
			return &opt_table[i];
	return NULL;
}

static const struct opt_desc *find_short(char c)
{
	size_t i;

	for (i = 0; i < N_OPTS; i++)
		if (opt_table[i].short_name == c)
			return &opt_table[i];
	return NULL;
}

/* Checks made once everything is read, and the defaults. */
static int finish(struct options *o, char *err, size_t errlen)
{
	size_t i;
	int ret;

	if (o->help || o->version)
		return 0;
	if (!o->mountpoint)
		return fail(err, errlen, "missing MOUNTPOINT");
	if (o->trace_reads && o->trace == OPT_TRACE_OFF)
		return fail(err, errlen,
			    "--trace-reads: conflicts with --no-trace");
	if (o->congestion_threshold != OPT_UNSET) {
		int64_t mb = o->max_background != OPT_UNSET
				     ? o->max_background
				     : KERNEL_DEFAULT_MAX_BACKGROUND;

		if (o->congestion_threshold > mb)
			return fail(
				err, errlen,
				"%s %lld: exceeds max-background (%lld%s); raise max-background too",
				o->congestion_what,
				(long long)o->congestion_threshold,
				(long long)mb,
				o->max_background != OPT_UNSET
					? ""
					: ", the kernel default");
	}
	if (o->nfiles == 0) {
		o->default_files = true;
		for (i = 0;
		     i < sizeof(default_files) / sizeof(default_files[0]);
		     i++) {
			ret = add_file_spec(o, "default file", default_files[i],
					    err, errlen);
			if (ret)
				return ret;
		}
	}
	return 0;
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
				return fail(
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
			d = find_long(arg + 2, eq ? (size_t)(eq - arg - 2)
						  : strlen(arg + 2));
			if (!d)
				return fail(err, errlen, "unknown option '%s'",
					    arg);
			snprintf(what, sizeof(what), "--%s", d->name);
			if (eq) {
				if (!d->has_arg)
					return fail(
						err, errlen,
						"option '%s' takes no value",
						what);
				val = eq + 1;
			}
		} else {
			d = find_short(arg[1]);
			if (!d || arg[2])
				return fail(err, errlen, "unknown option '%s'",
					    arg);
			snprintf(what, sizeof(what), "-%c", d->short_name);
		}
		if (d->has_arg && !val) {
			if (i + 1 >= argc)
				return fail(err, errlen,
					    "option '%s' needs a value", what);
			val = argv[++i];
		}
		ret = apply(o, d, val, what, err, errlen);
		if (ret)
			return ret;
	}
	return finish(o, err, errlen);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/*
 * Whether @key may be shown in a message. --config may be pointed at any
 * file (say /etc/shadow), so a line that is not plainly a testfs setting
 * is never echoed: only a short lowercase word, like the keys themselves.
 */
static bool key_is_showable(const char *key)
{
	size_t i;

	if (!(*key >= 'a' && *key <= 'z'))
		return false;
	for (i = 0; key[i]; i++)
		if (i >= CONFIG_KEY_SHOWN_MAX ||
		    !((key[i] >= 'a' && key[i] <= 'z') ||
		      (key[i] >= '0' && key[i] <= '9') || key[i] == '-' ||
		      key[i] == '_'))
			return false;
	return true;
}

/* One line of a config file, NUL-terminated and already checked. */
static int config_line(struct options *o, const char *path, unsigned lineno,
		       char *line, char *err, size_t errlen)
{
	const struct opt_desc *d;
	char *key, *val, *sep;
	char what[192], sub[512];
	int ret;

	key = trim(line);
	if (!*key || *key == '#')
		return 0;
	sep = key + strcspn(key, " \t=");
	val = sep;
	if (*sep) {
		*sep = '\0';
		val = sep + 1;
		val = trim(val);
		if (*val == '=')
			val = trim(val + 1);
	}
	d = find_long(key, strlen(key));
	if ((!d || !d->in_config) && !key_is_showable(key))
		return fail(
			err, errlen,
			"%s:%u: not a 'key value' line of a testfs config file (its content is not shown)",
			path, lineno);
	if (!d || !d->in_config)
		return fail(
			err, errlen,
			"%s:%u: unknown key '%s' (expected file, ra-kb, max-pages, max-background, congestion-threshold, log, log-capacity, latency, rule, error, quiet, no-auto-unmount, trace, no-trace, trace-reads or tracefs)",
			path, lineno, key);
	if (!d->has_arg && *val)
		return fail(err, errlen, "%s:%u: key '%s' takes no value", path,
			    lineno, key);
	if (d->has_arg && !*val)
		return fail(err, errlen, "%s:%u: key '%s' needs a value", path,
			    lineno, key);
	snprintf(what, sizeof(what), "%s:%u: %s", path, lineno, key);
	ret = apply(o, d, val, what, sub, sizeof(sub));
	if (ret)
		return fail(err, errlen, "%s", sub);
	return 0;
}

/*
 * Reads a whole config file into a NUL-terminated buffer. Only a regular
 * file of at most CONFIG_SIZE_MAX bytes: /dev/zero or a FIFO would
 * otherwise be read forever (O_NONBLOCK: opening a FIFO does not wait).
 */
static int read_config(const char *path, char **out, size_t *len, char *err,
		       size_t errlen)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "--config '%s': %s", path,
			    strerror(errno));
	if (fstat(fd, &st) != 0) {
		ret = fail(err, errlen, "--config '%s': %s", path,
			   strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = fail(err, errlen, "--config '%s': not a regular file",
			   path);
		goto out_close;
	}
	if (st.st_size > CONFIG_SIZE_MAX)
		goto too_big;
	buf = malloc(CONFIG_SIZE_MAX + 2);
	if (!buf) {
		ret = fail(err, errlen, "out of memory");
		goto out_close;
	}
	/* One byte more than allowed: a file that grew is caught too. */
	while (got <= CONFIG_SIZE_MAX) {
		n = read(fd, buf + got, CONFIG_SIZE_MAX + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = fail(err, errlen, "--config '%s': %s", path,
				   strerror(errno));
			free(buf);
			goto out_close;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > CONFIG_SIZE_MAX) {
		free(buf);
		goto too_big;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	close(fd);
	return 0;
too_big:
	ret = fail(err, errlen, "--config '%s': larger than 1 MiB", path);
out_close:
	close(fd);
	return ret;
}

int options_load_config(struct options *o, const char *path, char *err,
			size_t errlen)
{
	char *buf = NULL, *p, *end, *nl;
	unsigned lineno = 0;
	size_t len = 0;
	int ret;

	ret = read_config(path, &buf, &len, err, errlen);
	if (ret)
		return ret;
	end = buf + len;
	for (p = buf; p < end && !ret; p += len + 1) {
		lineno++;
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl ? nl : end) - p);
		if (len > CONFIG_LINE_MAX)
			ret = fail(err, errlen,
				   "%s:%u: line longer than %u bytes", path,
				   lineno, CONFIG_LINE_MAX);
		else if (memchr(p, '\0', len))
			ret = fail(
				err, errlen,
				"%s:%u: NUL byte in the line (a config file is text)",
				path, lineno);
		else {
			p[len] = '\0';
			ret = config_line(o, path, lineno, p, err, errlen);
		}
	}
	free(buf);
	return ret;
}

void options_usage(FILE *f)
{
	fputs("Usage: testfs [OPTIONS] MOUNTPOINT\n"
	      "\n"
	      "Serves read-only synthetic files over FUSE and records every page range the\n"
	      "kernel reads from them (MOUNTPOINT/.testfs/log).\n"
	      "\n"
	      "Files:\n"
	      "  --file NAME:SIZE[:PATTERN]  serve a file (repeatable). NAME is relative to\n"
	      "                        the mount and may contain directories (a/b.bin); no\n"
	      "                        ':' in names. SIZE is bytes with an optional binary\n"
	      "                        suffix K, M, G, T, P, E (1 byte to 2^62 bytes; no\n"
	      "                        memory is spent per byte). PATTERN is\n"
	      "                          stamp          (default) every 4 KiB page starts\n"
	      "                                         with 'testfs page N file NAME', the\n"
	      "                                         rest derives from (name, offset)\n"
	      "                          zero           all zero bytes\n"
	      "                          random[:SEED]  bytes derived from (SEED, offset)\n"
	      "  --config PATH         read options from PATH: one 'key value' per line\n"
	      "                        (keys: file, ra-kb, max-pages, max-background,\n"
	      "                        congestion-threshold, log, log-capacity, latency,\n"
	      "                        rule, error, quiet, no-auto-unmount, trace,\n"
	      "                        no-trace, trace-reads, tracefs; '#' starts a\n"
	      "                        comment). A regular text file of at most 1 MiB,\n"
	      "                        lines of at most 4096 bytes. Options after\n"
	      "                        --config override it.\n"
	      "  Without any file: big.bin 256M stamp, small.bin 1M stamp, zero.bin 64M\n"
	      "  zero, random.bin 64M random:1, huge.bin 1T stamp, dir/nested.bin 4M stamp.\n"
	      "\n"
	      "Readahead knobs (effective values are reported at mount and in\n"
	      ".testfs/config):\n"
	      "  --ra-kb N             the mount's read_ahead_kb (0..1048576), written to\n"
	      "                        /sys/class/bdi/<dev>/read_ahead_kb after mounting,\n"
	      "                        before any file is opened; needs root (otherwise a\n"
	      "                        warning and the kernel's value, 128). Default: kernel\n"
	      "  --max-pages N         largest FUSE_READ in pages (1..256; the kernel caps\n"
	      "                        it at /proc/sys/fs/fuse/max_pages_limit). Default 256\n"
	      "  --max-background N    FUSE background requests in flight (1..65535).\n"
	      "                        Default: kernel (12)\n"
	      "  --congestion-threshold N  background requests at which the kernel drops\n"
	      "                        async readahead (1..max-background). Default:\n"
	      "                        kernel (9), or 3/4 of --max-background if given\n"
	      "\n"
	      "Slow storage (see the README for every model and its parameters):\n"
	      "  --latency MODEL       latency of every data read that no --rule matches:\n"
	      "                        none, fixed:DUR, uniform:MIN-MAX, normal:MEAN,SD,\n"
	      "                        lognormal:MEDIAN,SIGMA (random ones take ,seed=N),\n"
	      "                        bw:RATE, or a device: hdd, sata-ssd, nvme, ufs4,\n"
	      "                        nfs, optionally NAME:key=value,... (e.g.\n"
	      "                        ufs4:bw=1600MB/s,lat=80us,qd=32). DUR takes ns, us,\n"
	      "                        ms, s; RATE e.g. 500MB/s, 1GiB/s. Default none\n"
	      "  --rule 'file=NAME,pages=A-B,latency=MODEL'  latency for reads touching\n"
	      "                        pages A-B of NAME (file= and pages= optional,\n"
	      "                        latency= last); repeatable, first match wins\n"
	      "  --error 'file=NAME,pages=A-B,errno=EIO[,times=N|prob=P][,seed=N]'\n"
	      "                        answer reads touching the range with that errno\n"
	      "                        (EIO, ENODATA, ... or a number); repeatable\n"
	      "  Delayed replies never block other requests.\n"
	      "\n"
	      "Read log:\n"
	      "  --log PATH            also write every record to PATH as JSON Lines\n"
	      "                        (flushed when clear/mark is acknowledged and at\n"
	      "                        unmount). A new file is created with mode 0600;\n"
	      "                        an existing one must be a regular file of the\n"
	      "                        caller (it is truncated); a symbolic link is\n"
	      "                        refused\n"
	      "  --log-capacity N      records kept in memory (16..2^30, rounded up to a\n"
	      "                        power of two; default 1048576, 144 bytes each,\n"
	      "                        paid for as used, up to N x 144 bytes, and kept\n"
	      "                        until exit: clear does not give it back).\n"
	      "                        Overflow is counted and reported\n"
	      "\n"
	      "Kernel correlation (the readahead:* and filemap:* tracepoints of this\n"
	      "mount, in a tracefs instance of its own; needs root and tracefs):\n"
	      "  --trace               require it: fail to start without it. Default: on\n"
	      "                        when possible; if not, causes are 'unknown' and\n"
	      "                        .testfs/config says why\n"
	      "  --no-trace            do not trace\n"
	      "  --trace-reads         also follow read(2) page-cache lookups\n"
	      "                        (mm_filemap_get_pages): read(2) accesses, their\n"
	      "                        lateness, wasted pages of read(2) streams. It\n"
	      "                        fires once per read(2) call: +250 ns each, 10-20%\n"
	      "                        slower 4 KiB reads from the cache\n"
	      "  --tracefs DIR         use the tracefs mounted at DIR. Default:\n"
	      "                        /sys/kernel/tracing, else where /proc/mounts\n"
	      "                        has one; mounted on /sys/kernel/tracing if none\n"
	      "  With it every read gets a cause (sync, async, readaround, forced,\n"
	      "  single, direct) and its readahead window, and the log gets access\n"
	      "  records (faults and fault-around; read(2) with --trace-reads).\n"
	      "\n"
	      "Process:\n"
	      "  -f, --foreground      stay in the foreground (default: detach once the\n"
	      "                        mount is ready, or exit with the reason it failed)\n"
	      "  -d, --debug           print every FUSE request (implies -f)\n"
	      "  -q, --quiet           do not print the ready line\n"
	      "  --no-auto-unmount     do not ask fusermount3 to unmount if testfs dies\n"
	      "                        (by default even a SIGKILL leaves no mount behind)\n"
	      "  --rmdir               remove MOUNTPOINT (an empty directory) after\n"
	      "                        unmounting, e.g. a temporary one made for testfs\n"
	      "  --ready-fd FD         write 'ready\\n' to FD once the mount is ready\n"
	      "  --watch-pid PID       unmount and exit when process PID exits\n"
	      "  -h, --help            this text\n"
	      "  -V, --version         print the version\n"
	      "\n"
	      "Control directory MOUNTPOINT/.testfs/:\n"
	      "  log      records since the last clear, JSON Lines (not itself logged)\n"
	      "  log.bin  the same records in binary (128 bytes each, see README)\n"
	      "  ctl      write commands: clear | drop-cache [NAME] | mark TEXT |\n"
	      "           latency MODEL | rule SPEC | error SPEC | rules clear\n"
	      "  error    why the last rejected command was rejected\n"
	      "  config   effective settings (JSON)\n"
	      "  stats    counters (JSON)\n"
	      "\n"
	      "Stop with fusermount3 -u MOUNTPOINT, SIGTERM or SIGINT.\n"
	      "Exit status: 0 success, 1 runtime failure, 2 bad command line or config.\n",
	      f);
}
