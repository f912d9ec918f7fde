// SPDX-License-Identifier: MIT
/*
 * testfs-matrix: runs one testfs command (a scenario, testfs-touch, the
 * characterisation suite) on several kernels, the host's and QEMU guests,
 * and shows what differs. See man/testfs-matrix.1 and docs/matrix.md.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "debian.h"
#include "lab.h"
#include "lava.h"
#include "matrix.h"
#include "parse.h"
#include "prereq.h"

#define MAX_KERNELS 16

static void usage(FILE *f)
{
	fputs("Usage: testfs-matrix [--kernel SPEC]... [--json FILE] "
	      "[--ktap FILE]\n"
	      "                     [--html FILE] [--timeout S] COMMAND "
	      "[ARGS...]\n"
	      "       testfs-matrix kernels [--available] [--refresh]\n"
	      "       testfs-matrix cache-dir\n"
	      "       testfs-matrix build [--source S] [--patches SERIES]... "
	      "[--patch FILE]...\n"
	      "                          [--fuzz N] [--jobs N] [--force]\n"
	      "       testfs-matrix bisect --source S --patch FILE... "
	      "[--field NAME]...\n"
	      "                          [--fuzz N] [--jobs N] [--json FILE] "
	      "[--timeout S]\n"
	      "                          [--all] COMMAND [ARGS...]\n"
	      "       testfs-matrix [--kernel SPEC] image FILE COMMAND "
	      "[ARGS...]\n"
	      "       testfs-matrix [--json FILE] [--ktap FILE] decode LOG...\n"
	      "       testfs-matrix [COMMAND] --help\n"
	      "       testfs-matrix --lava URL [--lava-token FILE] --artifacts "
	      "DIR\n"
	      "                     [--artifacts-url BASE] [--lava-timeout S] "
	      "[--kernel SPEC]...\n"
	      "                     COMMAND [ARGS...]\n"
	      "       testfs-matrix [--kernel SPEC]... --artifacts DIR "
	      "[--artifacts-url BASE]\n"
	      "                     [--arch ARCH] [--lava-timeout S] lava-job "
	      "COMMAND [ARGS...]\n"
	      "\n"
	      "Runs one testfs command on several kernels: the host's, and "
	      "QEMU guests\n"
	      "booted from an initramfs holding this build (KVM when usable, "
	      "else TCG).\n"
	      "\n"
	      "SPEC: host (no VM); debian:LINE (6.1, 6.12, 7.0, 7.3, ...: "
	      "Debian's x86-64\n"
	      "      image of that kernel line from any suite, fetched with "
	      "apt into the\n"
	      "      cache and reused) or debian:latest (the newest line); "
	      "either with\n"
	      "      /arm64 or /arm64-16k: its arm64 image (4 or 16 KiB pages), "
	      "booted with\n"
	      "      qemu-system-aarch64 under TCG (scripts/setup.sh "
	      "--matrix-arm64 makes\n"
	      "      the arm64 build it needs, build-arm64); a kernel in the "
	      "cache\n"
	      "      (lab:6.12 -> kernels/lab-6.12); or a path to a bzImage or "
	      "an arm64\n"
	      "      Image (config and modules/ beside it are optional).\n"
	      "      A lab SPEC (lab:6.12, lab:6.12+vma-limit, "
	      "lab:7.3+vma-limit-conditional,\n"
	      "      lab:7.3+NAME of a --patch build)\n"
	      "      not built yet makes a skipped run that says how to build "
	      "it.\n"
	      "      Default: host, debian:6.1, debian:6.12, debian:latest.\n"
	      "COMMAND:\n"
	      "  scenario NAME [PARAM=VALUE...]  testfs-scenario run NAME "
	      "--json\n"
	      "  touch FIRST COUNT [--exec] [--ra-kb N]  testfs-touch on a "
	      "256 MiB file\n"
	      "  suite                            the characterisation suite "
	      "(tests/ra_*)\n"
	      "  kernels                          the cached kernels and what "
	      "they support\n"
	      "    --available                    the Debian lines and "
	      "packages the suites offer\n"
	      "    --refresh                      update the package indexes "
	      "now (else daily)\n"
	      "  cache-dir                        print the cache folder\n"
	      "  build [--source S] [--patches SERIES]... [--patch FILE]...\n"
	      "                                   build a lab kernel with "
	      "kernel/build.sh and\n"
	      "                                   print its SPEC. S: "
	      "debian:VERSION (Debian's\n"
	      "                                   linux-source-VERSION, "
	      "fetched), debian:latest\n"
	      "                                   (the newest line) or "
	      "the path of a kernel\n"
	      "                                   tree (never modified). "
	      "FILE: a diff, git\n"
	      "                                   format-patch output, an "
	      "mbox, or a mail\n"
	      "                                   quoting the patch with "
	      "'> '; --fuzz N (2)\n"
	      "  bisect --source S --patch FILE... COMMAND\n"
	      "                                   build S with the first k "
	      "patches, k = 0..n,\n"
	      "                                   run COMMAND on each, name "
	      "the first patch\n"
	      "                                   after which --field NAME "
	      "(default: pages\n"
	      "                                   before/after, boundaries "
	      "missing, verdicts)\n"
	      "                                   changes\n"
	      "  image FILE COMMAND [ARGS...]     write the guest initramfs "
	      "for COMMAND\n"
	      "                                   (fuse.ko of the one --kernel "
	      "given)\n"
	      "  decode LOG...                    table, JSON and KTAP from "
	      "console logs\n"
	      "                                   of guests booted elsewhere "
	      "(or LAVA's job\n"
	      "                                   logs: lava-run's, lavacli "
	      "jobs logs --raw)\n"
	      "  lava-job COMMAND [ARGS...]       write a LAVA job (device "
	      "type qemu) per\n"
	      "                                   --kernel into "
	      "--artifacts DIR/NN-SPEC/:\n"
	      "                                   bzImage, initrd.cpio, "
	      "job.yaml\n"
	      "\n"
	      "  --kernel SPEC   a kernel to run on (repeatable)\n"
	      "  --json FILE     every run: spec, release, arch, page_size, "
	      "status, reason,\n"
	      "                  seconds, result\n"
	      "  --ktap FILE     KTAP version 1, one subtest per kernel\n"
	      "  --html FILE     one page, the kernels' page maps on the same "
	      "scale\n"
	      "                  (scenario and touch)\n"
	      "  --timeout S     per kernel, guest boot included (default "
	      "600)\n"
	      "  --lava URL      run every kernel as a job of the LAVA server "
	      "at URL\n"
	      "                  (http://[USER@]HOST[:PORT]; "
	      "$TESTFS_LAVA_USER), all at once;\n"
	      "                  a job whose guest's kernel panicked is "
	      "submitted once more\n"
	      "  --lava-token FILE  the user's LAVA token (default: "
	      "$TESTFS_LAVA_TOKEN)\n"
	      "  --lava-timeout S   LAVA's own time limit for each job "
	      "(default: --timeout\n"
	      "                  and 10 minutes); a job past it ends "
	      "Incomplete in LAVA\n"
	      "  --artifacts DIR    where the jobs' kernels and images are "
	      "written\n"
	      "  --artifacts-url BASE  the URL the workers fetch DIR from "
	      "(default:\n"
	      "                  file://DIR, for a worker on this machine)\n"
	      "  --arch ARCH     x86_64 or arm64: every kernel's architecture "
	      "(default: each kernel's own)\n"
	      "  -h, --help      this text; after a COMMAND, that command's "
	      "whole usage\n"
	      "\n"
	      "Cache: $TESTFS_CACHE, else $XDG_CACHE_HOME/testfs, else "
	      "~/.cache/testfs.\n"
	      "Debian's indexes: a private apt configuration in the cache's "
	      "apt/ (the\n"
	      "machine's Debian mirror; TESTFS_DEBIAN_MIRROR=URL replaces "
	      "it).\n"
	      "Before any work every tool the command needs is checked; "
	      "what is missing\n"
	      "is listed with the command that installs it.\n"
	      "Exit status: 0 every run ok or skipped, 1 a run failed, a "
	      "kernel could not\n"
	      "be fetched, something needed is missing, or (with CI=true) a "
	      "run was\n"
	      "skipped; 2 bad arguments or an unknown Debian line.\n",
	      f);
}

/*
 * Before any work: what the kernels need from the machine, and each
 * Debian SPEC resolved (an unknown line is a usage error). 0, 1 or 2.
 */
static int check_kernels(const char *const *specs, size_t n)
{
	unsigned needs = 0;
	char why[1024];
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (strcmp(specs[i], "host"))
			needs |= NEED_GUEST | NEED_CACHE;
		if (debian_is_spec(specs[i]))
			needs |= NEED_DEBIAN;
		if (arch_spec_arm64(specs[i]))
			needs |= NEED_ARM64;
	}
	if (prereq_check(needs, "testfs-matrix"))
		return 1;
	for (i = 0; i < n; i++) {
		err = kernel_resolve(specs[i], why, sizeof(why));
		if (err == -ENOENT || err == -EINVAL)
			return matrix_usage_error("%s", why);
		if (err) {
			fprintf(stderr,
				"testfs-matrix: %s: cannot read Debian's "
				"package indexes: %s\n",
				specs[i], why);
			return 1;
		}
	}
	return 0;
}

/*
 * The exit status the runs make: a failed run, a kernel that could not
 * be fetched, and under CI=true any skipped run (a CI step must not
 * pass with no guest booted).
 */
static int runs_status(const struct run *runs, size_t n)
{
	const char *ci = getenv("CI");
	bool strict = ci && strcmp(ci, "true") == 0;
	int status = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (runs[i].status == RUN_FAILED)
			status = 1;
		if (runs[i].status != RUN_SKIPPED)
			continue;
		if (runs[i].k.fetch_failed || strict) {
			fprintf(stderr, "testfs-matrix: %s was skipped%s: %s\n",
				runs[i].k.spec,
				runs[i].k.fetch_failed ? "" : " (CI=true)",
				runs[i].reason);
			status = 1;
		}
	}
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "json", required_argument, NULL, 'j' },
		{ "ktap", required_argument, NULL, 't' },
		{ "html", required_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "lava", required_argument, NULL, 'L' },
		{ "lava-token", required_argument, NULL, 'K' },
		{ "lava-timeout", required_argument, NULL, 'O' },
		{ "artifacts", required_argument, NULL, 'A' },
		{ "artifacts-url", required_argument, NULL, 'U' },
		{ "arch", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *specs[MAX_KERNELS], *json = NULL, *ktap = NULL;
	const char *html = NULL;
	static const char *const defaults[] = { "host", "debian:6.1",
						"debian:6.12",
						"debian:latest" };
	const size_t ndefaults = sizeof(defaults) / sizeof(defaults[0]);
	struct matrix m = { .timeout_s = 600 };
	struct lava_opts lo = { 0 };
	struct run *runs = NULL;
	size_t nspec = 0, i;
	char why[512];
	int c, status = 0;
	const char *perr;
	uint64_t v;

	matrix_catch_signals(&m);
	/* '+': options after COMMAND belong to it (touch --exec). */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (nspec == MAX_KERNELS)
				return matrix_usage_error(
					"at most 16 kernels (%s)", optarg);
			if (kernel_check_spec(optarg, why, sizeof(why)))
				return matrix_usage_error("%s", why);
			specs[nspec++] = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 't':
			ktap = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'T':
		case 'O':
			if (parse_uint(optarg, 1, 86400, &v, &perr)) {
				snprintf(why, sizeof(why),
					 "--%s '%s': seconds, 1 to 86400",
					 c == 'T' ? "timeout" : "lava-timeout",
					 optarg);
				return matrix_usage_error("%s", why);
			}
			*(c == 'T' ? &m.timeout_s : &lo.job_timeout_s) = (int)v;
			break;
		case 'L':
			lo.url = optarg;
			break;
		case 'K':
			lo.token = optarg;
			break;
		case 'A':
			lo.artifacts = optarg;
			break;
		case 'U':
			lo.artifacts_url = optarg;
			break;
		case 'R':
			lo.arch = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc)
		return matrix_usage_error("%s", "a COMMAND is needed");
	m.argv = argv + optind;
	m.argc = argc - optind;
	if (matrix_wants_help(m.argc, m.argv) && matrix_command_help(m.argv[0]))
		return 0;
	if (html && (strcmp(m.argv[0], "kernels") == 0 ||
		     strcmp(m.argv[0], "image") == 0 ||
		     strcmp(m.argv[0], "decode") == 0))
		return matrix_usage_error(
			"--html draws scenario and touch runs, not '%s'",
			m.argv[0]);
	if (strcmp(m.argv[0], "lava-job") == 0) {
		if (lo.url || lo.token)
			return matrix_usage_error(
				"%s", "lava-job writes the jobs; --lava and "
				      "--lava-token are for a --lava run");
		return cmd_lava_job(&m, specs, nspec, &lo);
	}
	if (!lo.url && (lo.token || lo.artifacts || lo.artifacts_url ||
			lo.arch || lo.job_timeout_s))
		return matrix_usage_error(
			"%s", "--lava-token, --lava-timeout, --artifacts, "
			      "--artifacts-url and --arch go with --lava URL "
			      "or lava-job");
	if (lo.url && strcmp(m.argv[0], "scenario") &&
	    strcmp(m.argv[0], "touch") && strcmp(m.argv[0], "suite"))
		return matrix_usage_error(
			"--lava runs scenario, touch or suite, not '%s'",
			m.argv[0]);
	if (strcmp(m.argv[0], "kernels") == 0)
		return kernels_command(m.argc, m.argv);
	if (strcmp(m.argv[0], "cache-dir") == 0) {
		if (m.argc > 1)
			return matrix_usage_error("cache-dir takes no "
						  "arguments: %s",
						  m.argv[1]);
		cache_root(why, sizeof(why));
		printf("%s\n", why);
		return 0;
	}
	if (strcmp(m.argv[0], "build") == 0)
		return cmd_build(m.argc, m.argv);
	if (strcmp(m.argv[0], "bisect") == 0)
		return cmd_bisect(m.argc, m.argv);
	if (strcmp(m.argv[0], "image") == 0)
		return cmd_image(&m, specs, nspec);
	if (strcmp(m.argv[0], "decode") == 0)
		return cmd_decode(&m, json, ktap);
	if (check_command(m.argc, m.argv))
		return 2;
	if (html && html_check_command(m.argc, m.argv))
		return 2;
	if (bins_find(&m.bins, why, sizeof(why))) {
		fprintf(stderr, "testfs-matrix: %s\n", why);
		return 2;
	}
	if (strcmp(m.argv[0], "scenario") == 0 &&
	    check_scenario(&m.bins, m.argv[1]))
		return 2;
	if (lo.url) {
		c = lava_main(&m, specs, nspec, &lo, &runs, &nspec);
		if (c) {
			free(runs);
			cleanup_work(&m);
			return c;
		}
		goto finish;
	}
	if (!nspec)
		for (; nspec < ndefaults; nspec++)
			specs[nspec] = defaults[nspec];
	c = check_kernels(specs, nspec);
	if (c)
		return c;
	runs = calloc(nspec, sizeof(*runs));
	if (!runs)
		return 1;
	for (i = 0; i < nspec; i++) {
		kernel_prepare(&runs[i].k, specs[i]);
		run_kernel(&m, &runs[i]);
	}
finish:
	if (matrix_finish(&m, runs, nspec, json, ktap))
		status = 1;
	if (runs_status(runs, nspec))
		status = 1;
	if (html && matrix_html(&m, runs, nspec, html))
		status = 1;
	for (i = 0; i < nspec; i++)
		run_free(&runs[i]);
	free(runs);
	cleanup_work(&m);
	return status;
}
