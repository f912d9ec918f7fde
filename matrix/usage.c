// SPDX-License-Identifier: MIT
/*
 * testfs-matrix's usage texts: the whole tool's (`testfs-matrix --help`)
 * and each command's (`testfs-matrix COMMAND --help`), complete, on
 * stdout; a usage error prints a command's synopsis on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "matrix.h"

/* The options of the commands that run on kernels. */
#define RUN_OPTIONS                                                            \
	"  --kernel SPEC   a kernel to run on (repeatable): host, "            \
	"debian:LINE,\n"                                                       \
	"                  debian:latest, lab:LINE[+NAME]...[/arm64-64k], a "  \
	"cached\n"                                                             \
	"                  kernel's NAME or the PATH of a bzImage (default: "  \
	"host,\n"                                                              \
	"                  debian:6.1, debian:6.12, debian:latest)\n"          \
	"  --json FILE     every run: spec, release, status, reason, "         \
	"seconds, result\n"                                                    \
	"  --ktap FILE     KTAP version 1, one subtest per kernel\n"           \
	"  --html FILE     one page, the kernels' page maps on the same "      \
	"scale\n"                                                              \
	"                  (scenario and touch)\n"                             \
	"  --timeout S     per kernel, guest boot included (1 to 86400, "      \
	"default 600)\n"                                                       \
	"  -h, --help      this text\n"

#define SOURCE_TEXT                                                            \
	"  --source S       debian:VERSION: Debian's linux-source-VERSION "    \
	"of any suite,\n"                                                      \
	"                   from /usr/src when installed, else fetched "       \
	"into the cache;\n"                                                    \
	"                   debian:latest: the newest line with a "            \
	"linux-source package;\n"                                              \
	"                   PATH: a kernel tree (git checkout or unpacked "    \
	"tarball), never\n"                                                    \
	"                   modified. Default: debian:6.12\n"

#define BUILD_TEXT                                                             \
	"  --fuzz N         context lines a hunk may ignore at each end "      \
	"(0 to 9,\n"                                                           \
	"                   default 2 as patch's); the hunks that needed "     \
	"it are named\n"                                                       \
	"  --jobs N         make -jN (default 2)\n"

static const char build_usage[] =
	"Usage: testfs-matrix build [--source debian:VERSION|debian:latest|"
	"PATH]\n"
	"                           [--patches SERIES]... [--patch FILE]... "
	"[--fuzz N]\n"
	"                           [--jobs N] [--arch x86_64|arm64-64k] "
	"[--force]\n";

static const char bisect_usage[] =
	"Usage: testfs-matrix bisect --source debian:VERSION|debian:latest|"
	"PATH\n"
	"                            --patch FILE... [--field NAME]... "
	"[--fuzz N]\n"
	"                            [--jobs N] [--json FILE] [--timeout S] "
	"[--all]\n"
	"                            COMMAND [ARGS...]\n";

struct command_help {
	const char *name;
	const char *synopsis;
	const char *text;
};

static const struct command_help helps[] = {
	{ "scenario",
	  "Usage: testfs-matrix [OPTIONS] scenario NAME [PARAM=VALUE...]\n",
	  "Runs `testfs-scenario run NAME --json` on each kernel and shows "
	  "the results side\n"
	  "by side: requests, pages fetched, pages before and after the "
	  "mapping, causes,\n"
	  "boundaries, each verdict. `testfs-scenario list` names the "
	  "scenarios,\n"
	  "`testfs-scenario help NAME` their parameters. A binary=PATH of the "
	  "host\n"
	  "(elf-startup) is copied into each guest.\n\n" RUN_OPTIONS },
	{ "touch",
	  "Usage: testfs-matrix [OPTIONS] touch FIRST COUNT [--exec] "
	  "[--ra-kb N]\n",
	  "Runs testfs-touch on pages [FIRST, FIRST + COUNT) of a 256 MiB "
	  "file of a fresh\n"
	  "testfs mount on each kernel.\n\n"
	  "  --exec          map the range PROT_READ|PROT_EXEC\n"
	  "  --ra-kb N       the mount's read_ahead_kb\n" RUN_OPTIONS },
	{ "suite", "Usage: testfs-matrix [OPTIONS] suite [TEST...]\n",
	  "Runs the characterisation suite (tests/ra_*, from the build "
	  "tree) with\n"
	  "TESTFS_POLICY=warn on each kernel: a policy difference is a "
	  "warning, a failed\n"
	  "invariant 'not ok'. A TEST without '/' names a test binary to "
	  "run (e.g.\n"
	  "ra_read_ramp; without one, every one); one TEST with '/' is a "
	  "Criterion pattern\n"
	  "SUITE/TEST (globs: * ? [...]) that runs only the tests it "
	  "names, e.g.\n"
	  "'causes/mmap_*' or 'folio_orders/*'.\n\n" RUN_OPTIONS },
	{ "kernels", "Usage: testfs-matrix kernels [--available] [--refresh]\n",
	  "Lists the cached kernels (release, FUSE, cachestat, THP, "
	  "tracepoints) and the\n"
	  "lab SPECs kernel/ can build, built or with the command that "
	  "builds them.\n\n"
	  "  --available     the Debian lines the suites offer: SPEC, image "
	  "package, suite,\n"
	  "                  cached or not, arm64 images, linux-source "
	  "package\n"
	  "  --refresh       update the package indexes now (else when older "
	  "than a day)\n"
	  "  -h, --help      this text\n" },
	{ "cache-dir", "Usage: testfs-matrix cache-dir\n",
	  "Prints the cache folder: $TESTFS_CACHE, else "
	  "$XDG_CACHE_HOME/testfs, else\n"
	  "~/.cache/testfs.\n\n"
	  "  -h, --help      this text\n" },
	{ "build", build_usage,
	  "Builds a lab kernel with kernel/build.sh (or finds it in the "
	  "cache) and prints\n"
	  "its SPEC (lab:7.3+vma-limit) on stdout; progress goes to "
	  "stderr.\n\n" SOURCE_TEXT
	  "  --patches SERIES a series of kernel/ (kernel/MAJOR.x/SERIES "
	  "where ported):\n"
	  "                   vma-limit, vma-limit-conditional (repeatable, "
	  "in order)\n"
	  "  --patch FILE     a diff, git format-patch output, an mbox of "
	  "several, or a\n"
	  "                   mail quoting the patch with '> ' (repeatable, "
	  "applied in order\n"
	  "                   after the series; named in the SPEC by its "
	  "subject)\n" BUILD_TEXT
	  "  --arch A         x86_64 (default), or arm64-64k: arm64 with 64 "
	  "KiB pages through\n"
	  "                   the cross compiler aarch64-linux-gnu-gcc "
	  "(SPEC lab:7.3/arm64-64k)\n"
	  "  --force          build again even when the cached kernel is "
	  "current\n"
	  "  -h, --help       this text\n\n"
	  "Environment: TESTFS_CACHE (the cache), TESTFS_LAB_NICE (the "
	  "build's nice,\n"
	  "default 19), TESTFS_KERNEL_DIR (the kernel/ folder).\n"
	  "Exit status: 0 built or cached; 1 a patch did not apply, the "
	  "build failed, the\n"
	  "disk is full, something needed is missing; 2 bad arguments or "
	  "input.\n" },
	{ "bisect", bisect_usage,
	  "Builds the source with the first k patches of the --patch files, "
	  "k = 0..n, in\n"
	  "one build tree (each step compiles what its patch changes), runs "
	  "COMMAND\n"
	  "(scenario or touch) on each kernel and names the first patch "
	  "after which the\n"
	  "fields change. A progress line per step on stderr, the answer on "
	  "stdout.\n\n" SOURCE_TEXT
	  "  --patch FILE     the series, in order (each patch of an mbox is "
	  "a step)\n"
	  "  --field NAME     a result field to compare (repeatable): a row "
	  "of the table\n"
	  "                   ('pages before'), 'verdicts', 'verdict: "
	  "POLICY' or a JSON\n"
	  "                   path (fetched.before). Default: pages before, "
	  "pages after,\n"
	  "                   boundaries missing, verdicts\n" BUILD_TEXT
	  "  --json FILE      every step: patch, SPEC, release, status, "
	  "reason, build and\n"
	  "                   run seconds, the fields and which changed; "
	  "the first change\n"
	  "  --timeout S      per run, guest boot included (1 to 86400, "
	  "default 600)\n"
	  "  --all            build and run every step, not only up to the "
	  "first change\n"
	  "  -h, --help       this text\n\n"
	  "Exit status: 0 a change found or none; 1 a build or a run "
	  "failed; 2 bad\n"
	  "arguments.\n" },
	{ "image",
	  "Usage: testfs-matrix [--kernel SPEC] image FILE COMMAND "
	  "[ARGS...]\n",
	  "Writes the guest initramfs that runs COMMAND (scenario, touch, "
	  "suite) to FILE,\n"
	  "with fuse.ko of the one --kernel given, for another CI system "
	  "to boot with\n"
	  "console=ttyS0 panic=-1 quiet; `decode` reads its console log.\n\n"
	  "  --kernel SPEC   the kernel the image is for (one at most)\n"
	  "  -h, --help      this text\n" },
	{ "decode",
	  "Usage: testfs-matrix [--json FILE] [--ktap FILE] decode LOG...\n",
	  "Reads the console logs of guests booted elsewhere from `image`, "
	  "one per kernel,\n"
	  "and gives the same table, --json and --ktap as a local run.\n\n"
	  "  --json FILE     every run, as for a local run\n"
	  "  --ktap FILE     KTAP version 1, one subtest per log\n"
	  "  -h, --help      this text\n" },
};

static const struct command_help *find(const char *cmd)
{
	size_t i;

	for (i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
		if (!strcmp(helps[i].name, cmd))
			return &helps[i];
	return NULL;
}

bool matrix_command_help(const char *cmd)
{
	const struct command_help *h = find(cmd);

	if (!h)
		return false;
	printf("%s\n%s", h->synopsis, h->text);
	return true;
}

void matrix_command_synopsis(const char *cmd, FILE *f)
{
	const struct command_help *h = find(cmd);

	if (h)
		fputs(h->synopsis, f);
}

bool matrix_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}
