// SPDX-License-Identifier: MIT
/*
 * testfs-matrix build and bisect with bad input, as a user meets them: a
 * --source that is not a kernel tree, files that are not patches, a patch
 * that does not apply (its file, hunk header and reject named, the user's
 * tree untouched, nothing in the cache's kernels/), one that needs more
 * fuzz than --fuzz allows. The "kernel tree" here is a hand-made folder
 * with the files build.sh checks for: no kernel is built (its configure
 * step fails, after the patch step these tests look at).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mount_harness.h"

static char dir[64];
static char tree[128];

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "w");
	cr_assert_not_null(f, "%s", p);
	fputs(text, f);
	fclose(f);
}

/* Seven numbered lines: the file every patch here changes. */
#define READAHEAD_C "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"

static void setup(void)
{
	char cache[128];
	const char *mk[] = { "tree",
			     "tree/mm",
			     "tree/arch",
			     "tree/arch/x86",
			     "tree/include",
			     "tree/include/trace",
			     "tree/include/trace/events",
			     "notatree" };
	char p[256];
	size_t i;

	snprintf(dir, sizeof(dir), "/tmp/testfs-test.lab.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	for (i = 0; i < sizeof(mk) / sizeof(mk[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, mk[i]);
		cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
	}
	put("tree/Makefile", "VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 0\n"
			     "EXTRAVERSION =\n");
	put("tree/Kbuild", "");
	put("tree/mm/readahead.c", READAHEAD_C);
	/* 7.x has the readahead events: the tracepoints series is left out */
	put("tree/include/trace/events/readahead.h",
	    "DEFINE_EVENT(page_cache_ra_op, page_cache_sync_ra,\n");
	put("notatree/Makefile", "all:\n");
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("TESTFS_CACHE", cache, 1);
}

/* What a test started in the background, killed whatever happened */
static pid_t started[3];

static void teardown(void)
{
	const char *argv[] = { "/bin/rm", "-rf", dir, NULL };
	char *out = NULL;
	size_t i;

	for (i = 0; i < 3; i++)
		if (started[i] > 0)
			kill(started[i], SIGKILL);
	if (started[0] > 0)
		waitpid(started[0], NULL, 0);

	if (dir[0])
		harness_run(argv, &out, 30);
	free(out);
}

TestSuite(lab_cli, .init = setup, .fini = teardown, .timeout = 120);

static int run(const char *const *args, char **out)
{
	const char *argv[32];
	const char *m = getenv("TESTFS_MATRIX");
	int n = 0;

	cr_assert_not_null(m, "TESTFS_MATRIX not set");
	argv[n++] = m;
	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	*out = NULL;
	return harness_run(argv, out, 60);
}

static void expect(const char *const *args, int status, const char *want)
{
	char *out;

	cr_expect_eq(run(args, &out), status, "%s: %s", args[1], out);
	cr_expect(out && strstr(out, want), "want '%s' in:\n%s", want, out);
	free(out);
}

/* The user's tree is as it was, and no kernel was installed. */
static void expect_untouched(void)
{
	char p[256], *text;
	struct dirent *e;
	DIR *d;

	snprintf(p, sizeof(p), "%s/mm/readahead.c", tree);
	text = harness_read_file(p, NULL);
	cr_expect_str_eq(text, READAHEAD_C);
	free(text);
	d = opendir(tree);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		cr_expect(strcmp(e->d_name, "obj") &&
				  strcmp(e->d_name, ".config"),
			  "%s appeared in the user's tree", e->d_name);
	closedir(d);
	snprintf(p, sizeof(p), "%s/cache/kernels", dir);
	d = opendir(p);
	while (d && (e = readdir(d)))
		cr_expect(e->d_name[0] == '.', "kernels/%s installed",
			  e->d_name);
	if (d)
		closedir(d);
}

Test(lab_cli, a_source_that_is_not_a_kernel_tree)
{
	char notatree[128];
	const char *a1[] = { "build", "--source", "/nonexistent/linux", NULL };
	const char *a2[] = { "build", "--source", notatree, NULL };
	const char *a3[] = { "build", "--source", "debian:latest!", NULL };

	snprintf(notatree, sizeof(notatree), "%s/notatree", dir);
	expect(a1, 2, "neither debian:VERSION nor an existing folder");
	expect(a2, 2, "is not a kernel tree (no Makefile with VERSION");
	expect(a3, 2, "unknown --source 'debian:latest!'");
}

/*
 * An arm64 lab kernel (--arch arm64-64k) without its cross compiler
 * (CROSS_COMPILE names one that is not there): exit 1 naming the compiler
 * and the package, before anything is linked or built.
 */
Test(lab_cli, an_arm64_build_without_the_cross_compiler)
{
	const char *args[] = { "build",	 "--source",  tree,
			       "--arch", "arm64-64k", NULL };
	char p[256];

	setenv("CROSS_COMPILE", "/nonexistent/aarch64-linux-gnu-", 1);
	expect(args, 1, "gcc-aarch64-linux-gnu");
	expect(args, 1, "aarch64-linux-gnu-gcc");
	expect_untouched();
	snprintf(p, sizeof(p), "%s/cache/build/lab-7.3-tree-arm64-64k", dir);
	cr_expect(access(p, F_OK) != 0, "%s was made", p);
	unsetenv("CROSS_COMPILE");
}

/* A tree built in place: kbuild would refuse O=; testfs never cleans it */
Test(lab_cli, a_tree_with_an_in_tree_build_is_refused)
{
	const char *args[] = { "build", "--source", tree, NULL };

	put("tree/.config", "CONFIG_64BIT=y\n");
	expect(args, 1, "has an in-tree build (.config)");
}

Test(lab_cli, files_that_are_not_patches)
{
	char readme[128], mail[128], none[128];
	const char *a1[] = {
		"build", "--source", tree, "--patch", readme, NULL
	};
	const char *a2[] = { "build", "--source", tree, "--patch", mail, NULL };
	const char *a3[] = { "build", "--source", tree, "--patch", none, NULL };

	snprintf(readme, sizeof(readme), "%s/README", dir);
	snprintf(mail, sizeof(mail), "%s/reply.eml", dir);
	snprintf(none, sizeof(none), "%s/missing.patch", dir);
	put("README", "# A readme\n\n--- a list\n");
	put("reply.eml", "From: A Reviewer <r@example.org>\n"
			 "Subject: Re: [PATCH] mm: a window\n\n"
			 "> Does it change the window?\nYes.\n");
	expect(a1, 2, "README: not a patch");
	expect(a2, 2, "reply.eml: a mail with no diff");
	expect(a3, 2, "missing.patch: No such file or directory");
	expect_untouched();
}

/*
 * A hunk whose lines are not in the source: exit 1 naming the file, the
 * hunk header and the reject's first lines.
 */
Test(lab_cli, a_patch_that_does_not_apply_names_its_hunk)
{
	char p[128];
	const char *args[] = { "build", "--source", tree, "--patch", p, NULL };

	snprintf(p, sizeof(p), "%s/0001-Make-four-loud.patch", dir);
	put("0001-Make-four-loud.patch", "--- a/mm/readahead.c\n"
					 "+++ b/mm/readahead.c\n"
					 "@@ -2,5 +2,5 @@ a function\n"
					 " two\n"
					 " three\n"
					 "-FOUR?\n"
					 "+FOUR!\n"
					 " five\n"
					 " six\n");
	expect(args, 1,
	       "make-four-loud: mm/readahead.c: hunk #1 @@ -2,5 +2,5 @@ a "
	       "function FAILED");
	expect(args, 1,
	       "the reject begins:\n    @@ -2,5 +2,5 @@ a function\n     two\n"
	       "     three\n    -FOUR?");
	expect(args, 1, "does not apply to tree");
	expect_untouched();
}

/*
 * The lab series of story 4 on a 7.3 tree whose files are not the ones
 * they were made for: exit 1 naming the series' patch, its file and its
 * hunk; the tree untouched, nothing installed. fuse-large-folios finds
 * no fs/fuse/file.c, next-miss-off-by-one no page_cache_async_ra() in
 * mm/readahead.c.
 */
Test(lab_cli, a_series_that_does_not_apply_names_its_hunk)
{
	const char *a1[] = {
		"build", "--source", tree, "--patches", "next-miss-off-by-one",
		NULL
	};
	const char *a2[] = { "build",	  "--source",	       tree,
			     "--patches", "fuse-large-folios", NULL };

	expect(a1, 1,
	       "mm/readahead.c: hunk #1 @@ -704,8 +704,16 @@ "
	       "void page_cache_async_ra(");
	expect(a1, 1, "does not apply to tree");
	expect_untouched();
	expect(a2, 1,
	       "-read-path.patch: fs/fuse/file.c: hunk #1 @@ -952,6 +952,11 "
	       "@@ static int fuse_handle_readahead(struct folio *folio,: its "
	       "file is not in this source");
	expect(a2, 1, "does not apply to tree");
	expect_untouched();
}

/*
 * Its context matches only with three lines of fuzz (the line next to the
 * change differs, as in shared/seeds/001 on 7.3): refused at patch's
 * default fuzz 2 with the hint, applied with --fuzz 3 and reported.
 */
Test(lab_cli, a_patch_that_needs_more_fuzz)
{
	char p[128];
	const char *a1[] = { "build", "--source", tree, "--patch", p, NULL };
	const char *a2[] = { "build", "--source", tree, "--patch",
			     p,	      "--fuzz",	  "3",	NULL };

	snprintf(p, sizeof(p), "%s/fuzzy.diff", dir);
	put("fuzzy.diff", "--- a/mm/readahead.c\n"
			  "+++ b/mm/readahead.c\n"
			  "@@ -1,7 +1,7 @@\n"
			  " one\n"
			  " two\n"
			  " THREE\n"
			  "-four\n"
			  "+FOUR\n"
			  " FIVE\n"
			  " six\n"
			  " seven\n");
	expect(a1, 1, "fuzzy: applies with --fuzz 3");
	expect_untouched();
	/* Applied; the fake tree's configure step then fails */
	expect(a2, 1,
	       "fuzzy: mm/readahead.c: hunk #1 @@ -1,7 +1,7 @@: "
	       "applied at line 1 with fuzz 3");
	expect(a2, 1, "configuring lab-7.3-tree+fuzzy failed");
	expect_untouched();
}

Test(lab_cli, bisect_usage_errors)
{
	char p[128];
	const char *a1[] = { "bisect",	 "--source",	 tree,
			     "scenario", "vma-boundary", NULL };
	const char *a2[] = {
		"bisect",  "--source",	     tree,	 "--patch",	 p,
		"--field", "pages sideways", "scenario", "vma-boundary", NULL
	};
	const char *a3[] = { "bisect", "--source", tree, "--patch",
			     p,	       "suite",	   NULL };
	const char *a4[] = { "bisect", "--source", tree, "--patch", p, NULL };
	const char *a5[] = { "build", "--field", "pages before", NULL };

	snprintf(p, sizeof(p), "%s/fuzzy.diff", dir);
	put("fuzzy.diff", "--- a/mm/readahead.c\n+++ b/mm/readahead.c\n"
			  "@@ -1 +1 @@\n-one\n+ONE\n");
	expect(a1, 2, "--patch FILE is needed");
	expect(a2, 2, "unknown --field 'pages sideways'");
	expect(a3, 2, "COMMAND is scenario or touch (not suite)");
	expect(a4, 2, "a COMMAND is needed");
	expect(a5, 2, "--field is an option of bisect");
	expect_untouched();
}

/*
 * A stand-in for kernel/build.sh (TESTFS_KERNEL_DIR): it writes its pid
 * and its child's, then waits for the child, as build.sh waits for make.
 */
static void fake_build(void)
{
	char p[256], text[512];

	snprintf(p, sizeof(p), "%s/kernel", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/tmp", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(text, sizeof(text),
		 "#!/bin/bash\n"
		 "sleep 300 >/dev/null 2>&1 &\n"
		 "echo $! >%s/child.pid\n"
		 "echo $$ >%s/build.pid.tmp && mv %s/build.pid.tmp "
		 "%s/build.pid\n"
		 "wait\n",
		 dir, dir, dir, dir);
	put("kernel/build.sh", text);
	snprintf(p, sizeof(p), "%s/kernel", dir);
	setenv("TESTFS_KERNEL_DIR", p, 1);
	snprintf(p, sizeof(p), "%s/tmp", dir);
	setenv("TMPDIR", p, 1);
}

static void nap(void)
{
	const struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* The pid in @name once it is there (60 s at most), else 0. */
static pid_t pid_file(const char *name)
{
	char p[256];
	long pid = 0;
	int i;

	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	for (i = 0; i < 600 && !pid; i++) {
		f = fopen(p, "r");
		if (!f || fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		if (f)
			fclose(f);
		if (!pid)
			nap();
	}
	return (pid_t)pid;
}

/* Whether @pid ends (or is a zombie) within 20 s. */
static bool ends(pid_t pid)
{
	char p[64], stat[512], *paren;
	bool zombie;
	size_t n;
	FILE *f;
	int i;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 200; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return true;
		f = fopen(p, "r");
		n = f ? fread(stat, 1, sizeof(stat) - 1, f) : 0;
		if (f)
			fclose(f);
		stat[n] = '\0';
		paren = strrchr(stat, ')');
		zombie = paren && paren[1] && paren[2] == 'Z';
		if (zombie)
			return true;
		nap();
	}
	return false;
}

/*
 * testfs-matrix @args in the background, @sig sent to it once build.sh
 * runs: it dies of @sig, build.sh and its child end, and the scratch
 * folders under TMPDIR are gone.
 */
static void interrupt(const char *const *args, int sig)
{
	const char *argv[32], *m = getenv("TESTFS_MATRIX");
	pid_t pid, build, child;
	struct dirent *e;
	char p[256];
	int n = 0, status;
	DIR *d;

	argv[n++] = m;
	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execv(m, (char *const *)argv);
		_exit(127);
	}
	started[0] = pid;
	started[1] = build = pid_file("build.pid");
	started[2] = child = pid_file("child.pid");
	cr_assert(build > 0 && child > 0, "build.sh did not start");
	cr_assert_eq(kill(pid, sig), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	started[0] = 0;
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		  "testfs-matrix did not die of signal %d (status %#x)", sig,
		  status);
	cr_expect(ends(build), "build.sh %d still runs", (int)build);
	cr_expect(ends(child), "build.sh's child %d still runs", (int)child);
	snprintf(p, sizeof(p), "%s/tmp", dir);
	d = opendir(p);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		cr_expect(e->d_name[0] == '.', "%s/%s left behind", p,
			  e->d_name);
	closedir(d);
}

/* Ctrl-C during a bisect's build: no build left running, no scratch */
Test(lab_cli, a_bisect_interrupted_leaves_nothing_behind)
{
	char p[128];
	const char *args[] = { "bisect", "--source", tree,	     "--patch",
			       p,	 "scenario", "vma-boundary", NULL };

	fake_build();
	snprintf(p, sizeof(p), "%s/one.diff", dir);
	put("one.diff", "--- a/mm/readahead.c\n+++ b/mm/readahead.c\n"
			"@@ -1 +1 @@\n-one\n+ONE\n");
	interrupt(args, SIGINT);
}

Test(lab_cli, a_build_terminated_stops_build_sh)
{
	const char *args[] = { "build", "--source", tree, NULL };

	fake_build();
	interrupt(args, SIGTERM);
	expect_untouched();
}
