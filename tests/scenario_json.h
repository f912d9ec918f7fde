/* SPDX-License-Identifier: MIT */
/*
 * A tiny strict JSON validator for the scenario tests (RFC 8259: one
 * value, no trailing garbage), which also returns the number found at a
 * dotted member path ("fetched.before"; array elements by index:
 * "fetched.request_list.0.page").
 */
#ifndef TESTFS_SCENARIO_JSON_H
#define TESTFS_SCENARIO_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jparse {
	const char *p;
	int depth;
	const char *want;
	char path[256];
	bool found;
	double value;
	char text[256];
};

static void j_ws(struct jparse *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

/* A string; its raw bytes (escapes kept) into @out if non-NULL. */
static bool j_string(struct jparse *j, char *out, size_t size)
{
	size_t n = 0;

	if (*j->p != '"')
		return false;
	j->p++;
	while (*j->p != '"') {
		unsigned char c = (unsigned char)*j->p;

		if (c < 0x20)
			return false;
		if (c == '\\') {
			j->p++;
			if (*j->p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF",
						    j->p[i]) ||
					    !j->p[i])
						return false;
				j->p += 4;
			} else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
				return false;
			}
		}
		if (out && n + 1 < size)
			out[n++] = *j->p;
		j->p++;
	}
	if (out)
		out[n] = '\0';
	j->p++;
	return true;
}

static bool j_number(struct jparse *j)
{
	const char *s = j->p;

	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (*j->p >= '1' && *j->p <= '9')
		while (*j->p >= '0' && *j->p <= '9')
			j->p++;
	else
		return false;
	if (*j->p == '.') {
		j->p++;
		if (!(*j->p >= '0' && *j->p <= '9'))
			return false;
		while (*j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!(*j->p >= '0' && *j->p <= '9'))
			return false;
		while (*j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->want && strcmp(j->path, j->want) == 0) {
		j->found = true;
		j->value = strtod(s, NULL);
	}
	return true;
}

static bool j_value(struct jparse *j);

static bool j_members(struct jparse *j)
{
	size_t len = strlen(j->path);
	char key[128];

	j->p++;
	j_ws(j);
	if (*j->p == '}') {
		j->p++;
		return true;
	}
	for (;;) {
		j_ws(j);
		if (!j_string(j, key, sizeof(key)))
			return false;
		j_ws(j);
		if (*j->p++ != ':')
			return false;
		snprintf(j->path + len, sizeof(j->path) - len, "%s%s",
			 len ? "." : "", key);
		if (!j_value(j))
			return false;
		j->path[len] = '\0';
		j_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != '}')
			return false;
		return true;
	}
}

/* Element i of an array at PATH is at PATH.i ("verdicts.policies.0"). */
static bool j_elements(struct jparse *j)
{
	size_t len = strlen(j->path);
	unsigned i = 0;

	j->p++;
	j_ws(j);
	if (*j->p == ']') {
		j->p++;
		return true;
	}
	for (;; i++) {
		snprintf(j->path + len, sizeof(j->path) - len, "%s%u",
			 len ? "." : "", i);
		if (!j_value(j))
			return false;
		j->path[len] = '\0';
		j_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		return *j->p++ == ']';
	}
}

static bool j_value(struct jparse *j)
{
	bool ok;

	j_ws(j);
	if (++j->depth > 64)
		return false;
	if (*j->p == '{')
		ok = j_members(j);
	else if (*j->p == '[')
		ok = j_elements(j);
	else if (*j->p == '"') {
		bool want = j->want && strcmp(j->path, j->want) == 0;

		ok = j_string(j, want ? j->text : NULL, sizeof(j->text));
		if (want && ok)
			j->found = true;
	} else if (strncmp(j->p, "true", 4) == 0 ||
		   strncmp(j->p, "null", 4) == 0) {
		j->p += 4;
		ok = true;
	} else if (strncmp(j->p, "false", 5) == 0) {
		j->p += 5;
		ok = true;
	} else
		ok = j_number(j);
	j->depth--;
	return ok;
}

/* Whether @text is one valid JSON value (and nothing else). */
static inline bool json_valid(const char *text)
{
	struct jparse j = { .p = text };

	if (!j_value(&j))
		return false;
	j_ws(&j);
	return *j.p == '\0';
}

/* The number at @path in valid JSON @text; false if none. */
static inline bool json_number(const char *text, const char *path, double *out)
{
	struct jparse j = { .p = text, .want = path };

	if (!j_value(&j) || !j.found)
		return false;
	*out = j.value;
	return true;
}

/* The string at @path (escapes kept), into @out; false if none. */
static inline bool json_string(const char *text, const char *path, char *out,
			       size_t size)
{
	struct jparse j = { .p = text, .want = path };

	if (!j_value(&j) || !j.found)
		return false;
	snprintf(out, size, "%s", j.text);
	return true;
}

#endif
