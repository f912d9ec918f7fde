/* SPDX-License-Identifier: MIT */
/*
 * The daemon's command line and config file, parsed into the settings of
 * core/settings.h. One table describes every option; the config file
 * accepts the same long names as keys, so the two cannot drift apart.
 * Parsing never prints and never exits: it returns -EINVAL with a message
 * that names the offending argument.
 */
#ifndef TESTFS_OPTIONS_H
#define TESTFS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "settings.h"

void options_init(struct options *o);
void options_free(struct options *o);

/*
 * Parses argv[1..argc-1] into @o (which options_init() prepared), loading
 * --config files where they appear, then fills in the defaults. Returns 0 or
 * -EINVAL with a one-line message in @err.
 */
int options_parse(struct options *o, int argc, char **argv, char *err,
		  size_t errlen);

/* Loads one config file (also used by --config). */
int options_load_config(struct options *o, const char *path, char *err,
			size_t errlen);

/* The @i-th key a config file accepts, NULL past the last. */
const char *options_config_key(size_t i);

/* Writes --help. */
void options_usage(FILE *f);

#endif
