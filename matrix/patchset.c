// SPDX-License-Identifier: MIT
/*
 * patchset: the patch files a user gives `testfs-matrix build --patch`,
 * turned into clean unified diffs. Hunks are read by their line counts, so
 * mail text around and between them (a commit message, a "-- " signature,
 * a reviewer's reply) is left out and a hunk that lost lines is refused
 * here, before any tree is touched.
 */
#include "patchset.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A growing NUL-terminated buffer. */
struct text {
	char *s;
	size_t len, cap;
};

static int text_add(struct text *t, const char *s, size_t n)
{
	char *p;

	if (t->len + n + 2 > t->cap) {
		t->cap = (t->len + n + 2) * 2;
		p = realloc(t->s, t->cap);
		if (!p)
			return -ENOMEM;
		t->s = p;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
	return 0;
}

/* The line at @p: its length without the newline; *next is the line after. */
static size_t line_at(const char *p, const char **next)
{
	const char *nl = strchr(p, '\n');
	size_t n = nl ? (size_t)(nl - p) : strlen(p);

	*next = nl ? nl + 1 : p + n;
	if (n && p[n - 1] == '\r')
		n--;
	return n;
}

static bool starts(const char *p, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && strncmp(p, prefix, k) == 0;
}

static bool is_hunk_header(const char *p, size_t n)
{
	return starts(p, n, "@@ -");
}

/* A mail header line "Name: value" (a word of letters, digits and '-'). */
static bool is_header(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (isalnum((unsigned char)p[i]) || p[i] == '-'))
		i++;
	return i > 0 && i + 1 < n && p[i] == ':' && p[i + 1] == ' ';
}

void patch_short_name(const char *subject, char *out, size_t len)
{
	const char *s = subject, *colon, *sp;
	size_t used = 0, words = 0, w;
	bool more = true;

	out[0] = '\0';
	while (more) {
		more = false;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncasecmp(s, "re:", 3) || !strncasecmp(s, "fw:", 3)) {
			s += 3;
			more = true;
		} else if (!strncasecmp(s, "fwd:", 4)) {
			s += 4;
			more = true;
		} else if (*s == '[' && strchr(s, ']')) {
			s = strchr(s, ']') + 1;
			more = true;
		}
	}
	/* Subsystem prefixes: "mm: ", "mm/readahead: ", "fs: fuse: " */
	while ((colon = strstr(s, ": "))) {
		sp = strpbrk(s, " \t");
		if (sp && sp < colon)
			break;
		s = colon + 2;
	}
	while (*s && words < 4) {
		while (*s && !isalnum((unsigned char)*s))
			s++;
		for (w = 0; isalnum((unsigned char)s[w]); w++)
			;
		if (!w || used + w + 2 > len)
			break;
		if (used)
			out[used++] = '-';
		for (; w; w--)
			out[used++] = (char)tolower((unsigned char)*s++);
		out[used] = '\0';
		words++;
	}
}

/* The set's name from the file name: "0001-Fix-the-clamp.patch" -> ... */
static void name_of_file(const char *path, char *out, size_t len)
{
	static const char *const exts[] = { ".patch", ".diff", ".mbox",
					    ".eml",   ".txt",  ".mail" };
	const char *base = strrchr(path, '/');
	char buf[256], *p;
	size_t i, n;

	snprintf(buf, sizeof(buf), "%s", base ? base + 1 : path);
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		n = strlen(buf);
		if (n > strlen(exts[i]) &&
		    !strcasecmp(buf + n - strlen(exts[i]), exts[i]))
			buf[n - strlen(exts[i])] = '\0';
	}
	p = buf;
	while (isdigit((unsigned char)*p))
		p++;
	if (p > buf && (*p == '-' || *p == '_') && p[1])
		memmove(buf, p + 1, strlen(p + 1) + 1);
	/* Every run of other characters becomes one '-' */
	for (p = buf; *p; p++)
		if (!isalnum((unsigned char)*p))
			*p = ' ';
	patch_short_name(buf, out, len);
	if (!out[0])
		snprintf(out, len, "patch");
}

/* The Subject: header of the message at @p (folded lines joined). */
static void subject_of(const char *p, const char *end, char *out, size_t len)
{
	const char *next;
	size_t n, used = 0;

	out[0] = '\0';
	for (; p < end && *p; p = next) {
		n = line_at(p, &next);
		if (!starts(p, n, "Subject: "))
			continue;
		used = (size_t)snprintf(out, len, "%.*s", (int)(n - 9), p + 9);
		/* Continuation lines start with white space */
		for (p = next; p < end && (*p == ' ' || *p == '\t'); p = next) {
			n = line_at(p, &next);
			if (used < len)
				used += (size_t)snprintf(out + used, len - used,
							 "%.*s", (int)n, p);
		}
		return;
	}
}

/* The first line naming a patch ("Re: [PATCH] mm: ...") of a reply. */
static void subject_of_reply(const char *p, char *out, size_t len)
{
	const char *next;
	size_t n;

	out[0] = '\0';
	for (; *p; p = next) {
		n = line_at(p, &next);
		if (memmem(p, n, "[PATCH", 6)) {
			snprintf(out, len, "%.*s", (int)n, p);
			return;
		}
	}
}

/* Whether a hunk header sits at column 0, or after one "> " quote. */
static bool has_hunk(const char *p, bool quoted)
{
	const char *next;
	size_t n;

	for (; *p; p = next) {
		n = line_at(p, &next);
		if (quoted && n && p[0] == '>') {
			p++, n--;
			if (n && p[0] == ' ')
				p++, n--;
			if (is_hunk_header(p, n))
				return true;
		} else if (!quoted && is_hunk_header(p, n)) {
			return true;
		}
	}
	return false;
}

/* The quoted lines of a reply, one "> " (or ">") removed. */
static int unquote(const char *p, struct text *t)
{
	const char *next;
	size_t n;
	int err = 0;

	for (; *p && !err; p = next) {
		n = line_at(p, &next);
		if (!n || p[0] != '>')
			continue;
		p++, n--;
		if (n && p[0] == ' ')
			p++, n--;
		err = text_add(t, p, n) ?: text_add(t, "\n", 1);
	}
	return err;
}

/* "@@ -a[,b] +c[,d] @@": the old and new line counts. */
static bool hunk_counts(const char *p, size_t n, long *old, long *new)
{
	char buf[128], *e;
	long a;

	snprintf(buf, sizeof(buf), "%.*s", (int)(n < 127 ? n : 127), p);
	e = buf + 4;
	a = strtol(e, &e, 10);
	*old = 1;
	if (*e == ',')
		*old = strtol(e + 1, &e, 10);
	if (a < 0 || strncmp(e, " +", 2))
		return false;
	strtol(e + 2, &e, 10);
	*new = 1;
	if (*e == ',')
		*new = strtol(e + 1, &e, 10);
	return strncmp(e, " @@", 3) == 0 && *old >= 0 && *new >= 0;
}

static bool git_header_line(const char *p, size_t n)
{
	static const char *const heads[] = {
		"index ",
		"new file mode ",
		"deleted file mode ",
		"old mode ",
		"new mode ",
		"similarity index ",
		"rename from ",
		"rename to ",
		"copy from ",
		"copy to ",
		"dissimilarity index ",
	};
	size_t i;

	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		if (starts(p, n, heads[i]))
			return true;
	return false;
}

/*
 * The diff of one message, [@p, @end), into @lp: file headers and whole
 * hunks. 0 (lp->hunks may be 0: no diff), or -EINVAL with the reason.
 */
static int extract_diff(const char *p, const char *end, struct lab_patch *lp,
			char *why, size_t whylen)
{
	struct text t = { 0 };
	const char *next, *after;
	char file[200] = "", head[120] = "";
	long old = 0, new = 0, seen = 0;
	bool git_head = false;
	size_t n, n2;
	int err = 0;

	for (; p < end && *p && !err; p = next) {
		n = line_at(p, &next);
		if (old > 0 || new > 0) {
			/* Inside a hunk: every line counts */
			if (n == 0 || p[0] == ' ') {
				old--, new --;
			} else if (p[0] == '-') {
				old--;
			} else if (p[0] == '+') {
				new --;
			} else if (p[0] != '\\') {
				break;
			}
			seen++;
			if (old < 0 || new < 0)
				break;
			err = n ? text_add(&t, p, n) : text_add(&t, " ", 1);
			err = err ?: text_add(&t, "\n", 1);
			continue;
		}
		if (starts(p, n, "\\ ") && lp->hunks) {
			err = text_add(&t, p, n) ?: text_add(&t, "\n", 1);
		} else if (starts(p, n, "diff --git ")) {
			git_head = true;
			err = text_add(&t, p, n) ?: text_add(&t, "\n", 1);
		} else if (git_head && git_header_line(p, n)) {
			err = text_add(&t, p, n) ?: text_add(&t, "\n", 1);
		} else if (starts(p, n, "--- ") && next < end &&
			   (n2 = line_at(next, &after), 1) &&
			   starts(next, n2, "+++ ")) {
			snprintf(file, sizeof(file), "%.*s", (int)(n2 - 4),
				 next + 4);
			err = text_add(&t, p, n) ?: text_add(&t, "\n", 1);
			err = err ?: text_add(&t, next, n2);
			err = err ?: text_add(&t, "\n", 1);
			next = after;
			lp->files++;
			git_head = false;
		} else if (is_hunk_header(p, n) && lp->files) {
			if (!hunk_counts(p, n, &old, &new)) {
				snprintf(why, whylen,
					 "%s: bad hunk header '%.*s'", file,
					 (int)(n < 80 ? n : 80), p);
				err = -EINVAL;
				break;
			}
			snprintf(head, sizeof(head), "%.*s", (int)n, p);
			seen = 0;
			lp->hunks++;
			err = text_add(&t, p, n) ?: text_add(&t, "\n", 1);
		} else {
			git_head = false;
		}
	}
	if (!err && (old > 0 || new > 0 || old < 0 || new < 0)) {
		snprintf(why, whylen,
			 "%s: hunk '%s' is cut short after %ld lines (lines "
			 "lost, or a line without its leading space, in the "
			 "file or the mail)",
			 file, head, seen);
		err = -EINVAL;
	}
	if (err) {
		free(t.s);
		return err;
	}
	lp->diff = t.s;
	return 0;
}

/* Start of the next mbox message after @p: a "From " line then headers. */
static const char *next_message(const char *p)
{
	const char *next, *after;
	size_t n, n2;

	for (; *p; p = next) {
		n = line_at(p, &next);
		if (!starts(p, n, "From ") || !*next)
			continue;
		n2 = line_at(next, &after);
		if (is_header(next, n2))
			return p;
	}
	return p;
}

static int add_message(struct patchset *ps, const char *p, const char *end,
		       const char *subject, char *why, size_t whylen,
		       char *first_subject, size_t fslen)
{
	struct lab_patch lp = { 0 }, *grown;
	int err;

	subject_of(p, end, lp.subject, sizeof(lp.subject));
	if (!lp.subject[0] && subject)
		snprintf(lp.subject, sizeof(lp.subject), "%s", subject);
	if (!first_subject[0])
		snprintf(first_subject, fslen, "%s", lp.subject);
	err = extract_diff(p, end, &lp, why, whylen);
	if (err || !lp.hunks) {
		free(lp.diff);
		return err;
	}
	grown = realloc(ps->patches, (ps->n + 1) * sizeof(*grown));
	if (!grown) {
		free(lp.diff);
		return -ENOMEM;
	}
	ps->patches = grown;
	ps->patches[ps->n++] = lp;
	return 0;
}

int patchset_parse(const char *path, const char *text, struct patchset *ps,
		   char *why, size_t whylen)
{
	char reply_subject[256] = "", first[256] = "";
	struct text quoted = { 0 };
	const char *p, *end, *start, *src = text;
	size_t messages = 0;
	bool mail;
	int err = 0;

	memset(ps, 0, sizeof(*ps));
	mail = is_header(text, line_at(text, &p)) ||
	       starts(text, strlen(text), "From ");
	if (!has_hunk(text, false) && has_hunk(text, true)) {
		/* A reply quoting the patch: its own subject names it */
		subject_of(text, text + strlen(text), reply_subject,
			   sizeof(reply_subject));
		if (!reply_subject[0])
			subject_of_reply(text, reply_subject,
					 sizeof(reply_subject));
		err = unquote(text, &quoted);
		if (err)
			return err;
		src = quoted.s;
		ps->kind = "quoted mail";
	}
	/* Text before the first "From " line: a plain diff, or one mail */
	start = next_message(src);
	if (start != src) {
		err = add_message(ps, src, start, reply_subject, why, whylen,
				  first, sizeof(first));
		messages++;
	}
	for (p = start; *p && !err; p = end) {
		line_at(p, &end);
		end = next_message(end);
		err = add_message(ps, p, end, reply_subject, why, whylen, first,
				  sizeof(first));
		messages++;
	}
	free(quoted.s);
	if (err)
		return err;
	if (!ps->n) {
		if (mail || reply_subject[0] || first[0])
			snprintf(why, whylen,
				 "%s: a mail with no diff in it (no '--- a/' "
				 "'+++ b/' file header with a '@@' hunk, "
				 "quoted or not)",
				 path);
		else
			snprintf(why, whylen,
				 "%s: not a patch (no '--- a/' '+++ b/' file "
				 "header with a '@@' hunk)",
				 path);
		return -EINVAL;
	}
	if (!ps->kind)
		ps->kind = messages > 1 && ps->n > 1   ? "mbox"
			   : ps->patches[0].subject[0] ? "mail"
						       : "diff";
	if (ps->n == 1 && ps->patches[0].subject[0])
		patch_short_name(ps->patches[0].subject, ps->name,
				 sizeof(ps->name));
	else if (ps->n > 1 && first[0] && strstr(first, " 0/"))
		patch_short_name(first, ps->name, sizeof(ps->name));
	if (!ps->name[0])
		name_of_file(path, ps->name, sizeof(ps->name));
	return 0;
}

int patchset_read(const char *path, struct patchset *ps, char *why,
		  size_t whylen)
{
	struct text t = { 0 };
	char buf[65536];
	size_t n;
	FILE *f;
	int err = 0;

	memset(ps, 0, sizeof(*ps));
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return err;
	}
	while (!err && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (memchr(buf, '\0', n)) {
			snprintf(why, whylen, "%s: not a patch (a binary file)",
				 path);
			err = -EINVAL;
		} else {
			err = text_add(&t, buf, n);
		}
	}
	if (!err && ferror(f)) {
		err = -EIO;
		snprintf(why, whylen, "%s: read error", path);
	}
	fclose(f);
	if (!err)
		err = patchset_parse(path, t.s ? t.s : "", ps, why, whylen);
	free(t.s);
	return err;
}

void patchset_free(struct patchset *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		free(ps->patches[i].diff);
	free(ps->patches);
	memset(ps, 0, sizeof(*ps));
}
