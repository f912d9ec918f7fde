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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void teardown(void)
{
	const char *argv[] = { "/bin/rm", "-rf", dir, NULL };
	char *out = NULL;

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
