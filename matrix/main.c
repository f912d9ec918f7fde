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

#include "parse.h"
#include "lab.h"
#include "matrix.h"

#define MAX_KERNELS 16

static void usage(FILE *f)
{
	fputs("Usage: testfs-matrix [--kernel SPEC]... [--json FILE] "
	      "[--ktap FILE]\n"
	      "                     [--html FILE] [--timeout S] COMMAND "
	      "[ARGS...]\n"
	      "       testfs-matrix kernels\n"
	      "       testfs-matrix build [--source debian:VERSION|PATH] "
	      "[--patches SERIES]...\n"
	      "                          [--patch FILE]... [--fuzz N] "
	      "[--jobs N] [--force]\n"
	      "       testfs-matrix bisect --source debian:VERSION|PATH "
	      "--patch FILE...\n"
	      "                          [--field NAME]... [--json FILE] "
	      "[--all] COMMAND [ARGS...]\n"
	      "       testfs-matrix [--kernel SPEC] image FILE COMMAND "
	      "[ARGS...]\n"
	      "       testfs-matrix [--json FILE] [--ktap FILE] decode LOG...\n"
	      "\n"
	      "Runs one testfs command on several kernels: the host's, and "
	      "QEMU guests\n"
	      "booted from an initramfs holding this build (KVM when usable, "
	      "else TCG).\n"
	      "\n"
	      "SPEC: host (no VM), debian:6.1, debian:6.12 (Debian's "
	      "unsigned kernel\n"
	      "      images, fetched with apt-get download into the cache and "
	      "reused), a\n"
	      "      kernel in the cache (lab:6.12 -> kernels/lab-6.12), or a "
	      "path to a\n"
	      "      bzImage (config and modules/ beside it are optional).\n"
	      "      A lab SPEC (lab:6.12, lab:6.12+vma-limit, "
	      "lab:7.3+vma-limit-conditional,\n"
	      "      lab:7.3+NAME of a --patch build)\n"
	      "      not built yet makes a skipped run that says how to build "
	      "it.\n"
	      "      Default: host, debian:6.1, debian:6.12.\n"
	      "COMMAND:\n"
	      "  scenario NAME [PARAM=VALUE...]  testfs-scenario run NAME "
	      "--json\n"
	      "  touch FIRST COUNT [--exec] [--ra-kb N]  testfs-touch on a "
	      "256 MiB file\n"
	      "  suite                            the characterisation suite "
	      "(tests/ra_*)\n"
	      "  kernels                          the cached kernels and what "
	      "they support\n"
	      "  build [--source S] [--patches SERIES]... [--patch FILE]...\n"
	      "                                   build a lab kernel with "
	      "kernel/build.sh and\n"
	      "                                   print its SPEC. S: "
	      "debian:VERSION (Debian's\n"
	      "                                   linux-source-VERSION, "
	      "fetched) or the path of\n"
	      "                                   a kernel tree (never "
	      "modified). FILE: a diff,\n"
	      "                                   git format-patch output, "
	      "an mbox, or a mail\n"
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
	      "                                   of guests booted elsewhere\n"
	      "\n"
	      "  --kernel SPEC   a kernel to run on (repeatable)\n"
	      "  --json FILE     every run: spec, release, status, reason, "
	      "seconds, result\n"
	      "  --ktap FILE     KTAP version 1, one subtest per kernel\n"
	      "  --html FILE     one page, the kernels' page maps on the same "
	      "scale\n"
	      "                  (scenario and touch)\n"
	      "  --timeout S     per kernel, guest boot included (default "
	      "600)\n"
	      "  -h, --help      this text\n"
	      "\n"
	      "Cache: $TESTFS_CACHE, else $XDG_CACHE_HOME/testfs, else "
	      "~/.cache/testfs.\n"
	      "Exit status: 0 every run ok or skipped, 1 a run failed, 2 bad "
	      "arguments.\n",
	      f);
}

static int bad(const char *fmt, const char *arg)
{
	fputs("testfs-matrix: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'testfs-matrix --help'.\n", stderr);
	return 2;
}

static bool is_uint(const char *s)
{
	const char *why;
	uint64_t v;

	return parse_uint(s, 0, UINT64_MAX, &v, &why) == 0;
}

/* Checks the command's arguments before any kernel is booted. */
int check_command(int argc, char **argv)
{
	int i;

	if (strcmp(argv[0], "suite") == 0)
		return argc == 1 ? 0
				 : bad("suite takes no arguments: %s", argv[1]);
	if (strcmp(argv[0], "scenario") == 0) {
		if (argc < 2 || !argv[1][0] || argv[1][0] == '-')
			return bad("%s: a scenario NAME is needed", "scenario");
		for (i = 2; i < argc; i++)
			if (!strchr(argv[i], '=') || argv[i][0] == '=')
				return bad("scenario parameter '%s' is not "
					   "PARAM=VALUE",
					   argv[i]);
		return 0;
	}
	if (strcmp(argv[0], "touch") == 0) {
		if (argc < 3 || !is_uint(argv[1]) || !is_uint(argv[2]))
			return bad("%s: FIRST and COUNT (page numbers) are "
				   "needed",
				   "touch");
		for (i = 3; i < argc; i++) {
			if (strcmp(argv[i], "--exec") == 0)
				continue;
			if (strcmp(argv[i], "--ra-kb") == 0 && i + 1 < argc &&
			    is_uint(argv[i + 1])) {
				i++;
				continue;
			}
			return bad("touch: unknown option '%s'", argv[i]);
		}
		return 0;
	}
	return bad(
		"unknown command '%s' (scenario, touch, suite, kernels, build)",
		argv[0]);
}

/* Runs `testfs-scenario help NAME` so a wrong name stops at once. */
int check_scenario(const struct bins *b, const char *name)
{
	const char *argv[] = { b->scenario, "help", name, NULL };
	struct capture_opts o = { .argv = argv, .timeout_s = 30 };
	struct capture c;
	char *tail;
	int ok;

	if (capture_run(&o, &c))
		return 0;
	ok = WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0;
	if (!ok) {
		tail = capture_tail(&c, 2);
		fprintf(stderr, "testfs-matrix: scenario '%s': %s\n", name,
			tail ? tail : "unknown");
		free(tail);
	}
	capture_free(&c);
	return ok ? 0 : 2;
}

void run_free(struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntests; i++)
		free(r->tests[i].diag);
	free(r->tests);
	free(r->caps);
	free(r->result);
	free(r->ktap);
	free(r->page);
	free(r->log);
	free(r->console_tail);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Removes the scratch folder, never crossing into a mount left in it. */
void cleanup_work(struct matrix *m)
{
	if (m->workdir[0])
		nftw(m->workdir, remove_one, 16,
		     FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Ctrl-C or a CI's kill: QEMU goes too, then we die of the signal. */
static struct matrix *signalled_matrix;

static void on_signal(int sig)
{
	struct matrix *m = signalled_matrix;
	char p[sizeof(m->workdir) + 16];
	size_t n;

	capture_kill_current();
	/* The images are big: removed with what is safe in a handler. */
	if (m && m->workdir[0]) {
		n = strlen(m->workdir);
		memcpy(p, m->workdir, n);
		memcpy(p + n, "/base.cpio", 11);
		unlink(p);
		memcpy(p + n, "/guest.cpio", 12);
		unlink(p);
		rmdir(m->workdir);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "json", required_argument, NULL, 'j' },
		{ "ktap", required_argument, NULL, 't' },
		{ "html", required_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *specs[MAX_KERNELS], *json = NULL, *ktap = NULL;
	const char *html = NULL;
	static const char *const defaults[] = { "host", "debian:6.1",
						"debian:6.12" };
	struct matrix m = { .timeout_s = 600 };
	struct run *runs;
	size_t nspec = 0, i;
	char why[512];
	int c, status = 0;
	const char *perr;
	uint64_t v;

	signalled_matrix = &m;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	/* '+': options after COMMAND belong to it (touch --exec). */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (nspec == MAX_KERNELS)
				return bad("at most 16 kernels (%s)", optarg);
			if (kernel_check_spec(optarg, why, sizeof(why)))
				return bad("%s", why);
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
			if (parse_uint(optarg, 1, 86400, &v, &perr))
				return bad(
					"--timeout '%s': seconds, 1 to 86400",
					optarg);
			m.timeout_s = (int)v;
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
		return bad("%s", "a COMMAND is needed");
	m.argv = argv + optind;
	m.argc = argc - optind;
	if (html && (strcmp(m.argv[0], "kernels") == 0 ||
		     strcmp(m.argv[0], "image") == 0 ||
		     strcmp(m.argv[0], "decode") == 0))
		return bad("--html draws scenario and touch runs, not '%s'",
			   m.argv[0]);
	if (strcmp(m.argv[0], "kernels") == 0)
		return kernels_list();
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
	if (!nspec)
		for (; nspec < 3; nspec++)
			specs[nspec] = defaults[nspec];
	runs = calloc(nspec, sizeof(*runs));
	if (!runs)
		return 1;
	for (i = 0; i < nspec; i++) {
		kernel_prepare(&runs[i].k, specs[i]);
		run_kernel(&m, &runs[i]);
		if (runs[i].status == RUN_FAILED)
			status = 1;
	}
	if (matrix_finish(&m, runs, nspec, json, ktap))
		status = 1;
	if (html && matrix_html(&m, runs, nspec, html))
		status = 1;
	for (i = 0; i < nspec; i++)
		run_free(&runs[i]);
	free(runs);
	cleanup_work(&m);
	return status;
}
