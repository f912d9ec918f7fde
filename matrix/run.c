// SPDX-License-Identifier: MIT
/*
 * What every testfs-matrix command shares about a run: its COMMAND's
 * arguments and its scenario checked before any kernel is booted, a run's
 * memory and the scratch folder.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "capture.h"
#include "matrix.h"
#include "parse.h"
#include "suite_tests.h"

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

int matrix_usage_error(const char *fmt, const char *arg)
{
	fputs("testfs-matrix: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'testfs-matrix --help'.\n", stderr);
	return 2;
}

/* What a Criterion --filter pattern of the suite may hold. */
#define SUITE_PATTERN_CHARS                                                    \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/*?[]-"

static bool is_uint(const char *s)
{
	const char *why;
	uint64_t v;

	return parse_uint(s, 0, UINT64_MAX, &v, &why) == 0;
}

/* Whether @name is one of the suite's test binaries. */
static bool is_suite_test(const char *name)
{
	static const char *const suite[] = { MATRIX_SUITE_TESTS };
	size_t i;

	for (i = 0; i < sizeof(suite) / sizeof(suite[0]); i++)
		if (strcmp(name, suite[i]) == 0)
			return true;
	return false;
}

/* Checks the command's arguments before any kernel is booted. */
int check_command(int argc, char **argv)
{
	int i;

	if (strcmp(argv[0], "suite") == 0) {
		int patterns = 0;

		for (i = 1; i < argc; i++) {
			if (!strchr(argv[i], '/')) {
				if (!is_suite_test(argv[i]))
					return matrix_usage_error(
						"suite: '%s' is not one of the "
						"suite's tests (" MATRIX_SUITE_LIST
						") nor a SUITE/TEST pattern",
						argv[i]);
				continue;
			}
			if (++patterns > 1)
				return matrix_usage_error(
					"suite takes one SUITE/TEST pattern at "
					"most: %s",
					argv[i]);
			if (argv[i][0] == '-' ||
			    strspn(argv[i], SUITE_PATTERN_CHARS) !=
				    strlen(argv[i]))
				return matrix_usage_error(
					"suite: '%s' is not a TEST pattern "
					"(SUITE/TEST, letters, digits, _ / * ? "
					"[ ] -)",
					argv[i]);
		}
		return 0;
	}
	if (strcmp(argv[0], "scenario") == 0) {
		if (argc < 2 || !argv[1][0] || argv[1][0] == '-')
			return matrix_usage_error(
				"%s: a scenario NAME is needed", "scenario");
		for (i = 2; i < argc; i++)
			if (!strchr(argv[i], '=') || argv[i][0] == '=')
				return matrix_usage_error(
					"scenario parameter '%s' is not "
					"PARAM=VALUE",
					argv[i]);
		return 0;
	}
	if (strcmp(argv[0], "touch") == 0) {
		if (argc < 3 || !is_uint(argv[1]) || !is_uint(argv[2]))
			return matrix_usage_error(
				"%s: FIRST and COUNT (page numbers) are "
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
			return matrix_usage_error("touch: unknown option '%s'",
						  argv[i]);
		}
		return 0;
	}
	return matrix_usage_error(
		"unknown command '%s' (scenario, touch, suite, kernels, "
		"cache-dir, build, bisect, image, decode)",
		argv[0]);
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

/* Removes the scratch folder, never crossing into a mount left in it. */
void cleanup_work(struct matrix *m)
{
	if (m->workdir[0])
		remove_tree(m->workdir);
	free(m->arm64);
	m->arm64 = NULL;
}
