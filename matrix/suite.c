// SPDX-License-Identifier: MIT
/*
 * The suite on one kernel: Criterion's TAP report of each ra_* binary
 * (run with --jobs=1 --verbose, so the warnings of a test come between
 * its [RUN ] and its result in the log) turned into test results, the
 * kernel's KTAP subtest and the result JSON. A kernel policy difference
 * (testfs_expect_policy under TESTFS_POLICY=warn: a warning) is `ok` with
 * a diagnostic line; a failed assertion or a crash is `not ok`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"
#include "matrix.h"

static struct test_result *add_test(struct run *r, const char *bin,
				    const char *name)
{
	struct test_result *t, *nt;

	nt = realloc(r->tests, (r->ntests + 1) * sizeof(*nt));
	if (!nt)
		return NULL;
	r->tests = nt;
	t = &r->tests[r->ntests++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s:%s", bin, name);
	return t;
}

static void add_diag(struct test_result *t, const char *line)
{
	size_t old = t->diag ? strlen(t->diag) : 0;
	char *nd = realloc(t->diag, old + strlen(line) + 2);

	if (!nd)
		return;
	t->diag = nd;
	sprintf(nd + old, "%s%s", old ? "\n" : "", line);
}

static struct test_result *find_test(struct run *r, const char *bin,
				     const char *name)
{
	char full[200];
	size_t i;

	snprintf(full, sizeof(full), "%s:%s", bin, name);
	for (i = 0; i < r->ntests; i++)
		if (strcmp(r->tests[i].name, full) == 0)
			return &r->tests[i];
	return NULL;
}

/* "ok - suite::test  (0.09s)", "not ok - ...", "ok - s::t  # SKIP why" */
static void parse_tap(struct run *r, const char *bin, char *tap)
{
	struct test_result *cur = NULL;
	char *line, *save = NULL;

	for (line = strtok_r(tap, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool nok = strncmp(line, "not ok - ", 9) == 0;
		char name[160], *skip;

		if (!nok && strncmp(line, "ok - ", 5) != 0) {
			/* The YAML block of a failure: its messages. */
			if (cur && cur->result == T_NOT_OK &&
			    strstr(line, "Assertion") == NULL &&
			    strncmp(line, "      ", 6) == 0)
				add_diag(cur, line + 6);
			else if (cur && strstr(line, "Assertion failed"))
				add_diag(cur, strstr(line, "Assertion"));
			continue;
		}
		if (sscanf(line + (nok ? 9 : 5), "%159s", name) != 1)
			continue;
		cur = add_test(r, bin, name);
		if (!cur)
			return;
		skip = strstr(line, "# SKIP");
		cur->result = nok ? T_NOT_OK : skip ? T_SKIP : T_OK;
		if (skip)
			add_diag(cur, skip[6] == ' ' ? skip + 7 : skip + 6);
	}
}

/* [RUN ] suite::test, then its [WARN] lines. */
static void parse_log(struct run *r, const char *bin, char *log)
{
	struct test_result *cur = NULL;
	char *line, *save = NULL;

	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "[RUN ] ", 7) == 0)
			cur = find_test(r, bin, line + 7);
		else if (strncmp(line, "[WARN] ", 7) == 0 && cur &&
			 cur->result == T_OK)
			add_diag(cur, line + 7);
	}
}

static void render_result(struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, n[3] = { 0 }, warned = 0;
	static const char *const word[] = { "ok", "not ok", "skip" };

	strbuf_adds(&sb, "{\"tests\":[");
	for (i = 0; i < r->ntests; i++) {
		const struct test_result *t = &r->tests[i];

		n[t->result]++;
		warned += t->result == T_OK && t->diag;
		strbuf_adds(&sb, i ? ",{\"name\":" : "{\"name\":");
		json_add_cstring(&sb, t->name);
		strbuf_addf(&sb, ",\"result\":\"%s\",\"diagnostic\":",
			    word[t->result]);
		json_add_cstring(&sb, t->diag ? t->diag : "");
		strbuf_adds(&sb, "}");
	}
	strbuf_addf(&sb,
		    "],\"ok\":%zu,\"not_ok\":%zu,\"skipped\":%zu,"
		    "\"policy_differences\":%zu}",
		    n[T_OK], n[T_NOT_OK], n[T_SKIP], warned);
	r->result = strbuf_detach(&sb, &r->result_len);
	if (n[T_NOT_OK]) {
		r->status = RUN_FAILED;
		snprintf(r->reason, sizeof(r->reason),
			 "%zu of %zu tests not ok", n[T_NOT_OK], r->ntests);
	}
}

/* One diagnostic line per line of @text, at @indent. */
static void diag_lines(struct strbuf *sb, const char *indent, const char *text)
{
	while (text && *text) {
		size_t n = strcspn(text, "\n");

		strbuf_addf(sb, "%s# %.*s\n", indent, (int)n, text);
		text += n + (text[n] == '\n');
	}
}

/* The kernel's KTAP subtest: one nested subtest per binary. */
static void render_ktap(struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, nbin = 0, k;
	const char *bin_of[64];

	for (i = 0; i < r->ntests; i++) {
		size_t len = strcspn(r->tests[i].name, ":");

		for (j = 0; j < nbin; j++)
			if (strncmp(bin_of[j], r->tests[i].name, len) == 0 &&
			    bin_of[j][len] == ':')
				break;
		if (j == nbin && nbin < 64)
			bin_of[nbin++] = r->tests[i].name;
	}
	strbuf_addf(&sb, "    KTAP version 1\n    # Subtest: %s\n    1..%zu\n",
		    r->k.spec, nbin);
	for (j = 0; j < nbin; j++) {
		size_t len = strcspn(bin_of[j], ":"), nt = 0;
		bool bad = false;

		for (i = 0; i < r->ntests; i++)
			nt += strncmp(r->tests[i].name, bin_of[j], len + 1) ==
			      0;
		strbuf_addf(&sb,
			    "        KTAP version 1\n        # Subtest: %.*s\n"
			    "        1..%zu\n",
			    (int)len, bin_of[j], nt);
		for (i = 0, k = 0; i < r->ntests; i++) {
			const struct test_result *t = &r->tests[i];

			if (strncmp(t->name, bin_of[j], len + 1))
				continue;
			diag_lines(&sb, "        ",
				   t->result == T_SKIP ? NULL : t->diag);
			bad |= t->result == T_NOT_OK;
			strbuf_addf(&sb, "        %s %zu %s",
				    t->result == T_NOT_OK ? "not ok" : "ok",
				    ++k, t->name + len + 1);
			if (t->result == T_SKIP)
				strbuf_addf(&sb, " # SKIP %s",
					    t->diag ? t->diag : "");
			strbuf_adds(&sb, "\n");
		}
		strbuf_addf(&sb, "    %s %zu %.*s\n", bad ? "not ok" : "ok",
			    j + 1, (int)len, bin_of[j]);
	}
	r->ktap = strbuf_detach(&sb, NULL);
}

void suite_collect(struct run *r, const struct capture *c)
{
	size_t i;

	for (i = 0; i < c->nframes; i++) {
		const struct frame *f = &c->frames[i];
		char bin[128], *copy;
		const struct frame *rc, *log;
		char key[160];
		size_t before = r->ntests;

		if (strncmp(f->name, "skip:", 5) == 0) {
			struct test_result *t = add_test(r, f->name + 5, "*");

			if (t) {
				t->result = T_SKIP;
				t->diag = strdup(f->data);
			}
			continue;
		}
		if (strncmp(f->name, "tap:", 4) != 0)
			continue;
		snprintf(bin, sizeof(bin), "%s", f->name + 4);
		copy = strndup(f->data, f->len);
		if (copy)
			parse_tap(r, bin, copy);
		free(copy);
		snprintf(key, sizeof(key), "log:%s", bin);
		log = capture_frame(c, key);
		copy = log ? strndup(log->data, log->len) : NULL;
		if (copy)
			parse_log(r, bin, copy);
		free(copy);
		snprintf(key, sizeof(key), "rc:%s", bin);
		rc = capture_frame(c, key);
		/* No test reported: the binary itself failed. */
		if (r->ntests == before) {
			struct test_result *t = add_test(r, bin, "*");

			if (t) {
				t->result = T_NOT_OK;
				add_diag(t, "no test result reported");
				if (rc)
					add_diag(t, rc->data);
			}
		}
		if (!f->whole) {
			struct test_result *t = add_test(r, bin, "report");

			if (t) {
				t->result = T_NOT_OK;
				add_diag(t, "its TAP report was cut");
			}
		}
	}
	render_result(r);
	render_ktap(r);
}
