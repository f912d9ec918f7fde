// SPDX-License-Identifier: MIT
/*
 * matrix/patchset.c: patch files as users have them (`testfs-matrix build
 * --patch FILE`) turned into clean diffs with a short name. The inputs are
 * written here in the shapes the lab meets: a plain diff, git
 * format-patch output, an mbox with a cover letter, and a review reply
 * that quotes the patch with "> " (shared/seeds/001), and the inputs it
 * must refuse before any tree is touched.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchset.h"

#define HUNK                                                                   \
	"--- a/mm/readahead.c\n"                                               \
	"+++ b/mm/readahead.c\n"                                               \
	"@@ -10,6 +10,7 @@ static void ra_window(void)\n"                      \
	" \tunsigned long a;\n"                                                \
	" \tunsigned long b;\n"                                                \
	" \n"                                                                  \
	"+\tb = min(b, max_index);\n"                                          \
	" \treturn;\n"                                                         \
	" }\n"                                                                 \
	" \n"

static struct patchset ps;
static char why[512];

static void fini(void)
{
	patchset_free(&ps);
}

TestSuite(patchset, .fini = fini);

Test(patchset, a_plain_diff_is_named_after_its_file)
{
	cr_assert_eq(patchset_parse("/tmp/0001-Fix-the-Clamp.patch", HUNK, &ps,
				    why, sizeof(why)),
		     0, "%s", why);
	cr_expect_eq(ps.n, 1);
	cr_expect_str_eq(ps.kind, "diff");
	cr_expect_str_eq(ps.name, "fix-the-clamp");
	cr_expect_eq(ps.patches[0].files, 1);
	cr_expect_eq(ps.patches[0].hunks, 1);
	cr_expect_str_eq(ps.patches[0].diff, HUNK);
}

/*
 * git format-patch: the subject (folded over two lines) names it; the
 * commit message, the diffstat and the "-- " signature are left out.
 */
Test(patchset, format_patch_output_is_named_after_its_subject)
{
	const char *text =
		"From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 "
		"00:00:00 2001\n"
		"From: A Developer <dev@example.org>\n"
		"Date: Tue, 1 Dec 2026 10:00:00 +0000\n"
		"Subject: [PATCH v2 3/7] mm/readahead: clamp the window to\n"
		" max_index\n"
		"\n"
		"The window stops at max_index.\n"
		"--- a/b is not a file header in a commit message\n"
		"\n"
		"Signed-off-by: A Developer <dev@example.org>\n"
		"---\n"
		" mm/readahead.c | 1 +\n"
		" 1 file changed, 1 insertion(+)\n"
		"\n"
		"diff --git a/mm/readahead.c b/mm/readahead.c\n"
		"index 1111111..2222222 100644\n" HUNK "-- \n"
		"2.39.5\n"
		"\n";

	cr_assert_eq(patchset_parse("x.patch", text, &ps, why, sizeof(why)), 0,
		     "%s", why);
	cr_expect_str_eq(ps.kind, "mail");
	cr_expect_str_eq(ps.patches[0].subject,
			 "[PATCH v2 3/7] mm/readahead: clamp the window to "
			 "max_index");
	cr_expect_str_eq(ps.name, "clamp-the-window-to");
	cr_expect_str_eq(ps.patches[0].diff,
			 "diff --git a/mm/readahead.c b/mm/readahead.c\n"
			 "index 1111111..2222222 100644\n" HUNK);
}

/* An mbox: one patch a message, the cover letter (no diff) names it. */
Test(patchset, an_mbox_gives_one_patch_a_message)
{
	const char *text =
		"From aaaa Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 0/2] mm: fault readahead inside the VMA\n"
		"\n"
		"Two patches.\n"
		"\n"
		"From bbbb Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 1/2] mm: add max_index\n"
		"\n"
		"---\n" HUNK "-- \n2.39.5\n\n"
		"From cccc Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 2/2] mm: use max_index\n"
		"\n"
		"---\n"
		"--- a/mm/filemap.c\n"
		"+++ b/mm/filemap.c\n"
		"@@ -1 +1 @@\n"
		"-old\n"
		"+new\n"
		"-- \n2.39.5\n";

	cr_assert_eq(patchset_parse("series.mbox", text, &ps, why, sizeof(why)),
		     0, "%s", why);
	cr_assert_eq(ps.n, 2);
	cr_expect_str_eq(ps.kind, "mbox");
	cr_expect_str_eq(ps.name, "fault-readahead-inside-the");
	cr_expect_str_eq(ps.patches[0].subject,
			 "[PATCH 1/2] mm: add max_index");
	cr_expect_str_eq(ps.patches[1].diff, "--- a/mm/filemap.c\n"
					     "+++ b/mm/filemap.c\n"
					     "@@ -1 +1 @@\n"
					     "-old\n"
					     "+new\n");
}

/*
 * A review reply quoting the patch (shared/seeds/001's shape): the quoted
 * lines are the patch, the reply's first line names it, and a blank
 * context line whose space the mail lost is a context line again.
 */
Test(patchset, a_reply_quoting_the_patch_gives_the_quoted_diff)
{
	const char *text = "Re: [PATCH] mm: limit fault readahead to the VMA\n"
			   "\n"
			   "On Tue, A Developer wrote:\n"
			   "> A window that stops at the VMA end.\n"
			   "> \n"
			   "> Signed-off-by: A Developer <dev@example.org>\n"
			   "\n"
			   "Looks good to me.\n"
			   "\n"
			   "> ---\n"
			   ">  mm/readahead.c | 1 +\n"
			   "> \n"
			   "> diff --git a/mm/readahead.c b/mm/readahead.c\n"
			   "> --- a/mm/readahead.c\n"
			   "> +++ b/mm/readahead.c\n"
			   "> @@ -10,6 +10,7 @@ static void ra_window(void)\n"
			   ">  \tunsigned long a;\n"
			   ">  \tunsigned long b;\n"
			   ">\n"
			   "> +\tb = min(b, max_index);\n"
			   ">  \treturn;\n"
			   ">  }\n"
			   ">  \n"
			   "> \n"
			   "> base-commit: 0123456789abcdef\n"
			   "> -- \n"
			   "> 2.54.0\n"
			   "-- \n"
			   "A Reviewer\n";

	cr_assert_eq(patchset_parse("reply.txt", text, &ps, why, sizeof(why)),
		     0, "%s", why);
	cr_expect_str_eq(ps.kind, "quoted mail");
	cr_expect_str_eq(ps.name, "limit-fault-readahead-to");
	cr_expect_str_eq(ps.patches[0].diff,
			 "diff --git a/mm/readahead.c b/mm/readahead.c\n" HUNK);
}

Test(patchset, text_without_a_diff_is_not_a_patch)
{
	cr_expect_eq(patchset_parse("README.md",
				    "# testfs\n\nA FUSE test bed.\n"
				    "--- not a header\n",
				    &ps, why, sizeof(why)),
		     -EINVAL);
	cr_expect(strstr(why, "README.md: not a patch"), "%s", why);
}

Test(patchset, a_mail_without_a_diff_says_so)
{
	cr_expect_eq(patchset_parse("mail.eml",
				    "From: A Developer <dev@example.org>\n"
				    "Subject: Re: [PATCH] mm: readahead\n"
				    "\n"
				    "> What does this change?\n"
				    "It changes the window.\n",
				    &ps, why, sizeof(why)),
		     -EINVAL);
	cr_expect(strstr(why, "a mail with no diff"), "%s", why);
}

/* A hunk that lost lines (its header counts 7 new lines, 3 follow). */
Test(patchset, a_hunk_cut_short_is_refused)
{
	cr_expect_eq(patchset_parse("cut.diff",
				    "--- a/mm/readahead.c\n"
				    "+++ b/mm/readahead.c\n"
				    "@@ -10,6 +10,7 @@\n"
				    " \tunsigned long a;\n"
				    "+\tb = 0;\n"
				    " \treturn;\n"
				    "Some text after.\n",
				    &ps, why, sizeof(why)),
		     -EINVAL);
	cr_expect(strstr(why, "mm/readahead.c: hunk '@@ -10,6 +10,7 @@' "
			      "is cut short after 3 lines"),
		  "%s", why);
}

Test(patchset, a_binary_file_is_not_a_patch)
{
	char path[] = "/tmp/testfs-test.patchset.XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd,
			   "\x7f"
			   "ELF\0\0\0",
			   7),
		     7);
	close(fd);
	cr_expect_eq(patchset_read(path, &ps, why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "not a patch (a binary file)"), "%s", why);
	unlink(path);
	cr_expect_eq(patchset_read(path, &ps, why, sizeof(why)), -ENOENT);
}

Test(patchset, short_names)
{
	char out[PATCH_NAME_MAX];

	patch_short_name("Re: [PATCH] mm: limit filemap_fault readahead to "
			 "VMA boundaries",
			 out, sizeof(out));
	cr_expect_str_eq(out, "limit-filemap-fault-readahead");
	patch_short_name("[PATCH v3 02/10] fs: fuse: read folios", out,
			 sizeof(out));
	cr_expect_str_eq(out, "read-folios");
	patch_short_name("Fix: the window", out, sizeof(out));
	cr_expect_str_eq(out, "the-window");
	patch_short_name("[RFC] ", out, sizeof(out));
	cr_expect_str_eq(out, "");
	patch_short_name("Averyveryveryveryverylongwordthatdoesnotfitatall "
			 "x",
			 out, sizeof(out));
	cr_expect_lt(strlen(out), sizeof(out));
}
