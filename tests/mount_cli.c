// SPDX-License-Identifier: MIT
/*
 * The command line as a user meets it: bad input exits 2 with a message
 * that names the offending argument; --help documents every option.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mount_harness.h"

struct bad_case {
	const char *args[6];
	const char *named; /* must appear in the message */
};

static const struct bad_case bad_cases[] = {
	{ { "--frobnicate", "/mnt" }, "--frobnicate" },
	{ { "-z", "/mnt" }, "-z" },
	{ { "--file", "a.bin:12Q", "/mnt" }, "a.bin:12Q" },
	{ { "--file", "a.bin:0", "/mnt" }, "a.bin:0" },
	{ { "--file", "a.bin:-4K", "/mnt" }, "a.bin:-4K" },
	{ { "--file", "a.bin:99999999999999999999", "/mnt" }, "a.bin:9999" },
	{ { "--file", "a.bin:8E", "/mnt" }, "a.bin:8E" },
	{ { "--file", "a.bin:1M", "--file", "a.bin:2M", "/mnt" }, "a.bin" },
	{ { "--file", "a.bin", "/mnt" }, "NAME:SIZE" },
	{ { "--file", "a.bin:1M:squares", "/mnt" }, "squares" },
	{ { "--file", "../a.bin:1M", "/mnt" }, "../a.bin" },
	{ { "--file", ".testfs/x:1M", "/mnt" }, ".testfs" },
	{ { "--ra-kb", "lots", "/mnt" }, "--ra-kb" },
	{ { "--ra-kb", "-1", "/mnt" }, "--ra-kb" },
	{ { "--max-pages", "0", "/mnt" }, "--max-pages" },
	{ { "--max-pages", "257", "/mnt" }, "--max-pages" },
	{ { "--max-background", "0", "/mnt" }, "--max-background" },
	{ { "--congestion-threshold", "50", "/mnt" },
	  "--congestion-threshold" },
	{ { "--threads", "0", "/mnt" }, "--threads" },
	{ { "--threads", "257", "/mnt" }, "--threads" },
	{ { "--threads", "four", "/mnt" }, "--threads" },
	{ { "--transport", "io_uring", "/mnt" }, "io_uring" },
	{ { "--log-capacity", "3", "/mnt" }, "--log-capacity" },
	{ { "--config", "/nonexistent.conf", "/mnt" }, "/nonexistent.conf" },
	/* It used to be read forever, its memory growing without bound. */
	{ { "--config", "/dev/zero", "/mnt" }, "'/dev/zero': not a regular" },
	{ { "--file" }, "--file" },
	{ { "--file", "a:1M" }, "MOUNTPOINT" },
	{ { "/mnt", "/other" }, "/other" },
	{ { "--ready-fd", "77", "/mnt" }, "--ready-fd 77" },
	{ { "--watch-pid", "4194303", "/mnt" }, "--watch-pid 4194303" },
	{ { "--rmdir=yes", "/mnt" }, "--rmdir" },
	{ { "--latency", "warp:9", "/mnt" }, "warp" },
	{ { "--latency", "fixed:2xs", "/mnt" }, "2xs" },
	{ { "--latency", "uniform:5ms-1ms", "/mnt" }, "--latency" },
	{ { "--rule", "pages=9-3,latency=fixed:1ms", "/mnt" }, "9-3" },
	{ { "--rule", "file=a.bin", "/mnt" }, "latency" },
	{ { "--error", "pages=1-2,errno=EWHAT", "/mnt" }, "EWHAT" },
	{ { "--error", "pages=1-2,errno=EIO,prob=1.5", "/mnt" }, "1.5" },
	{ { "--error", "pages=1-2,errno=EIO,times=0", "/mnt" }, "times" },
	{ { "--tracefs", "sys/kernel/tracing", "/mnt" }, "--tracefs" },
	{ { "--tracefs" }, "--tracefs" },
	{ { "--trace=yes", "/mnt" }, "--trace" },
	{ { "--no-trace", "--trace-reads", "/mnt" }, "--trace-reads" },
	{ { "--pause", "colour=red", "/mnt" }, "colour" },
	{ { "--pause", "file=a.bin,for=0s", "/mnt" }, "bad for '0s'" },
	{ { "--backing", "", "/mnt" }, "--backing" },
	{ { "--backing", "/nonexistent/dir", "/mnt" }, "/nonexistent/dir" },
};

Test(cli, bad_arguments_exit_2_naming_them, .timeout = 60)
{
	size_t i, k;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const char *argv[8] = { harness_bin() };
		char *out;
		int status;

		for (k = 0; bad_cases[i].args[k]; k++)
			argv[k + 1] = bad_cases[i].args[k];
		status = harness_run(argv, &out, 10);
		cr_expect_eq(status, 2, "case %zu (%s): exit %d: %s", i,
			     bad_cases[i].named, status, out);
		cr_expect_not_null(strstr(out, bad_cases[i].named),
				   "case %zu: message does not name '%s': %s",
				   i, bad_cases[i].named, out);
		free(out);
	}
}

Test(cli, help_documents_every_option)
{
	static const char *const opts[] = {
		"--file",
		"--config",
		"--ra-kb",
		"--max-pages",
		"--max-background",
		"--congestion-threshold",
		"--threads",
		"--log",
		"--log-capacity",
		"--foreground",
		"--debug",
		"--quiet",
		"--no-auto-unmount",
		"--ready-fd",
		"--rmdir",
		"--latency",
		"--rule",
		"--error",
		"ufs4",
		"rules clear",
		"--watch-pid",
		"--trace",
		"--no-trace",
		"--tracefs",
		"--trace-reads",
		"--help",
		"--version",
		"stamp",
		"zero",
		"random",
		"drop-cache",
		"mark",
		"clear",
		"Exit status",
	};
	const char *argv[] = { harness_bin(), "--help", NULL };
	char *out;
	size_t i;

	cr_assert_eq(harness_run(argv, &out, 10), 0);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		cr_expect_not_null(strstr(out, opts[i]),
				   "--help does not mention %s", opts[i]);
	free(out);
}

Test(cli, version)
{
	const char *argv[] = { harness_bin(), "--version", NULL };
	char *out;

	cr_assert_eq(harness_run(argv, &out, 10), 0);
	cr_assert_eq(strncmp(out, "testfs ", 7), 0, "%s", out);
	free(out);
}

/* --trace is a requirement: without a usable tracefs the start fails. */
/* No .timeout: harness_run() has its own limit, and Criterion 2.4 leaks a
 * timer when two tests of one binary have one (LeakSanitizer says so). */
Test(cli, trace_required_without_tracefs_fails_with_the_reason)
{
	char root[HARNESS_TMP_MAX + 32];
	const char *argv[] = { harness_bin(), "-f",   "--trace",
			       "--tracefs",   "/tmp", "--file",
			       "a.bin:1M",    NULL,   NULL };
	char *out;
	int status;

	harness_require_fuse();
	snprintf(root, sizeof(root), "%s/testfs-test.cli.XXXXXX",
		 harness_tmp_dir());
	cr_assert_not_null(mkdtemp(root));
	argv[7] = root;
	status = harness_run(argv, &out, 20);
	cr_expect_eq(status, 1, "exit %d: %s", status, out);
	cr_expect_not_null(strstr(out, "--trace: /tmp is not a tracefs mount"),
			   "%s", out);
	cr_expect_not(harness_is_mounted(root));
	free(out);
	rmdir(root);
}
