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

static int config_fd = -1;
static char config_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	config_fd = memfd_create("testfs-fuzz-config", MFD_CLOEXEC);
	if (config_fd < 0)
		abort();
	snprintf(config_path, sizeof(config_path), "/proc/self/fd/%d",
		 config_fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { (char *)"testfs", (char *)"--config", config_path,
			 (char *)"/mnt/testfs", NULL };
	struct options o;
	char err[1024] = "";
	int ret;

	if (ftruncate(config_fd, 0) ||
	    pwrite(config_fd, data, size, 0) != (ssize_t)size)
		abort();
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
