/* SPDX-License-Identifier: MIT */
/*
 * Inside the option parser: the option table (option_table.c), which the
 * command line (options.c), the config file reader (config_file.c) and
 * --help all read, so an option is described once.
 */
#ifndef TESTFS_OPTIONS_I_H
#define TESTFS_OPTIONS_I_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"
#include "options.h"

enum opt_id {
	OPT_FILE,
	OPT_BACKING,
	OPT_CONFIG,
	OPT_RA_KB,
	OPT_MAX_PAGES,
	OPT_MAX_BACKGROUND,
	OPT_CONGESTION,
	OPT_THREADS,
	OPT_TRANSPORT,
	OPT_LOG,
	OPT_LOG_CAPACITY,
	OPT_LATENCY,
	OPT_RULE,
	OPT_ERROR,
	OPT_PAUSE,
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
	OPT_TRACE_FOLIOS,
	OPT_HELP,
	OPT_VERSION,
};

/* The groups --help shows, in its order. */
enum opt_section {
	SEC_FILES,
	SEC_KNOBS,
	SEC_SLOW,
	SEC_LOG,
	SEC_TRACE,
	SEC_PROCESS,
};

struct opt_desc {
	const char *name;
	char short_name;
	enum opt_id id;
	bool has_arg;
	/* Accepted as a key in a config file. */
	bool in_config;
	enum opt_section section;
	/* What --help shows after the name (NULL: the option takes none). */
	const char *arg;
	/*
	 * --help's text, wrapped when printed: a "\n" starts a new line,
	 * and the spaces after it indent that line. "%k" stands for the
	 * list of config-file keys.
	 */
	const char *help;
};

/* The files served when none is given (NAME:SIZE:PATTERN), NULL-ended. */
extern const char *const options_default_files[];

/* The option named @name (@len bytes, no leading dashes), or NULL. */
const struct opt_desc *options_find_long(const char *name, size_t len);
const struct opt_desc *options_find_short(char c);

/* Appends every config-file key: "A@sepB@last_sepC". */
void options_key_list(struct strbuf *sb, const char *sep, const char *last_sep);

/* Applies option @d with value @val (NULL without one); @what names it. */
int options_apply(struct options *o, const struct opt_desc *d, const char *val,
		  const char *what, char *err, size_t errlen);

/*
 * Writes a message into @err and returns -EINVAL. Inline: every file of
 * the parser uses it, and none should call another for it.
 */
static inline int __attribute__((format(printf, 3, 4)))
options_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Applies setting @d = @val read from a config file; @what names it. */
typedef int config_setting_fn(void *ctx, const struct opt_desc *d,
			      const char *val, const char *what, char *err,
			      size_t errlen);

/*
 * Reads config file @path and hands each setting to @setting. The reader
 * knows the keys (the option table), not what they do, so it does not
 * call back into the parser that calls it.
 */
int config_file_read(const char *path, config_setting_fn *setting, void *ctx,
		     char *err, size_t errlen);

#endif
