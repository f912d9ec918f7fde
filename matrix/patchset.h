/* SPDX-License-Identifier: MIT */
/*
 * Patches as a user has them, for `testfs-matrix build --patch FILE`: a
 * plain unified diff, `git format-patch` output, an mbox of several, or a
 * reply that quotes the patch with "> " (shared/seeds/001). Each becomes a
 * clean unified diff (file headers and whole hunks only) with a short,
 * readable name for the lab SPEC (lab:7.3+<name>).
 */
#ifndef TESTFS_MATRIX_PATCHSET_H
#define TESTFS_MATRIX_PATCHSET_H

#include <stddef.h>

#define PATCH_NAME_MAX 40

struct lab_patch {
	char subject[256]; /* "" when the input has none */
	char *diff;	   /* the diff: headers and hunks, NUL-terminated */
	size_t files;	   /* "+++ " headers */
	size_t hunks;
};

struct patchset {
	struct lab_patch *patches;
	size_t n;
	/* the set's short name: the one patch's subject, else the file's */
	char name[PATCH_NAME_MAX];
	const char *kind; /* "diff", "mail", "mbox", "quoted mail" */
};

/*
 * Parses @text (the contents of the file @path, used for the name when no
 * subject says one) into @ps. 0, or -EINVAL with the reason in @why (not
 * a patch, a mail with no diff, a hunk cut short). Free with
 * patchset_free() either way.
 */
int patchset_parse(const char *path, const char *text, struct patchset *ps,
		   char *why, size_t whylen);

/* Reads @path and parses it: as patchset_parse(), -errno if unreadable. */
int patchset_read(const char *path, struct patchset *ps, char *why,
		  size_t whylen);

void patchset_free(struct patchset *ps);

/*
 * The short name of a subject ("[PATCH v2 1/3] mm: limit filemap_fault
 * readahead to VMA boundaries" -> "limit-filemap-fault-readahead"): no
 * "Re:", brackets or subsystem prefix, lower case, at most four words
 * joined by '-'. "" when nothing is left.
 */
void patch_short_name(const char *subject, char *out, size_t len);

#endif
