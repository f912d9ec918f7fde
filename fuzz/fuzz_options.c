// SPDX-License-Identifier: MIT
/*
 * The daemon's command line (src/daemon/options.c, option_table.c): the
 * input is argv, one argument per NUL-separated piece, then (after a
 * double NUL) the text of a config file. Every --config names that file, kept
 * in a memfd, so no input opens a path of this machine. Parsing must succeed or
 * fail with a message, and options_free() must leave nothing behind.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#include "options.h"

#define MAX_ARGS 64

static struct fuzz_file config;
static char config_arg[80];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_open(&config, "testfs-fuzz-config");
	snprintf(config_arg, sizeof(config_arg), "--config=%s", config.path);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split = fuzz_find(data, size, "\0\0", 2);
	char *buf, *args[MAX_ARGS], *argv[MAX_ARGS + 1];
	struct options o;
	char err[1024] = "";
	size_t n, i;
	int ret;

	fuzz_file_set(&config, data + (split < size ? split + 2 : size),
		      split < size ? size - split - 2 : 0);
	n = fuzz_split(data, split, '\0', &buf, args, MAX_ARGS);
	argv[0] = (char *)"testfs";
	for (i = 0; i < n; i++) {
		argv[i + 1] = args[i];
		if (strncmp(args[i], "--config=", 9) == 0)
			argv[i + 1] = config_arg;
		else if (i > 0 && strcmp(args[i - 1], "--config") == 0)
			argv[i + 1] = config.path;
	}
	options_init(&o);
	ret = options_parse(&o, (int)n + 1, argv, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM, "returned %d",
			   ret);
		FUZZ_CHECK(err[0], "refused without a message");
	} else {
		FUZZ_CHECK(o.help || o.version || o.mountpoint,
			   "accepted without a mountpoint");
		/* --backing DIR serves DIR's files instead of --file ones. */
		FUZZ_CHECK(o.help || o.version || o.nfiles > 0 || o.backing,
			   "accepted without files");
	}
	options_free(&o);
	free(buf);
	return 0;
}
