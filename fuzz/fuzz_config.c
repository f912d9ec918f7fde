// SPDX-License-Identifier: MIT
/*
 * The daemon's config file (src/daemon/config_file.c): the input is the
 * whole file, kept in a memfd and loaded as `testfs --config FILE
 * MOUNTPOINT` loads it, then checked like a command line. The file must be
 * taken or refused with a message; options_free() must leave nothing behind.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#include "options.h"

static struct fuzz_file config;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_open(&config, "testfs-fuzz-config");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { (char *)"testfs", (char *)"--config", config.path,
			 (char *)"/mnt/testfs", NULL };
	struct options o;
	char err[1024] = "";
	int ret;

	fuzz_file_set(&config, data, size);
	options_init(&o);
	ret = options_parse(&o, 4, argv, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM, "returned %d",
			   ret);
		FUZZ_CHECK(err[0], "refused without a message");
	} else {
		/* --backing DIR serves DIR's files instead of --file ones. */
		FUZZ_CHECK(o.mountpoint && (o.nfiles > 0 || o.backing),
			   "incomplete options");
	}
	options_free(&o);
	return 0;
}
