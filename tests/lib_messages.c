// SPDX-License-Identifier: MIT
/*
 * What a failing testfs_assert_* / testfs_expect_* prints, as a user sees
 * it: each case of lib_fail_cases runs alone in a subprocess (Criterion's
 * --filter) and its output must hold the library's message, word for
 * word, and the run must fail.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct run {
	int status;
	char out[16384];
};

/*
 * This process's environment without BoxFort's (Criterion's sandbox): a
 * child that inherits BXFI_MAP takes itself for a worker of this run.
 */
static char **plain_environ(void)
{
	static char *env[512];
	size_t i, n = 0;

	for (i = 0; environ[i] && n < 511; i++)
		if (strncmp(environ[i], "BXFI_", 5) != 0)
			env[n++] = environ[i];
	env[n] = NULL;
	return env;
}

/* Runs the case "fail/@name" with stdout and stderr into r->out. */
static void run_case(const char *name, struct run *r)
{
	const char *cases = getenv("LIB_FAIL_CASES");
	char filter[128], path[] = "/tmp/lib_messages.XXXXXX";
	posix_spawn_file_actions_t fa;
	ssize_t n;
	pid_t pid;
	int fd, ws;

	cr_assert_not_null(cases, "LIB_FAIL_CASES is not set (meson sets it)");
	snprintf(filter, sizeof(filter), "--filter=fail/%s", name);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	unlink(path);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	{
		char *argv[] = { (char *)cases, filter, (char *)"--jobs=1",
				 NULL };

		cr_assert_eq(posix_spawn(&pid, cases, &fa, NULL, argv,
					 plain_environ()),
			     0);
	}
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	n = pread(fd, r->out, sizeof(r->out) - 1, 0);
	close(fd);
	r->out[n > 0 ? n : 0] = '\0';
}

static void expect_in(const struct run *r, const char *want)
{
	cr_expect_not_null(strstr(r->out, want),
			   "expected in the output:\n%s\n--- output:\n%s", want,
			   r->out);
}

Test(messages, assert_covers)
{
	struct run r;

	run_case("assert_covers", &r);
	cr_assert_neq(r.status, 0, "the case passed:\n%s", r.out);
	expect_in(
		&r,
		"big.bin: 896 of the 1024 pages of [0, 1023] were not fetched: expected covering [0, 1023], observed [896, 2431] (1536 pages in 6 requests); not fetched: [0, 895]");
	cr_expect_null(strstr(r.out, "not reached"), "%s", r.out);
}

Test(messages, expect_covers)
{
	struct run r;

	run_case("expect_covers", &r);
	cr_assert_neq(r.status, 0, "the case passed:\n%s", r.out);
	expect_in(
		&r,
		"big.bin: 1 of the 2 pages of [2431, 2432] was not fetched: expected covering [2431, 2432], observed [896, 2431] (1536 pages in 6 requests); not fetched: [2432, 2432]");
	expect_in(
		&r,
		"testfs: testfs_check_covers(&f.log, \"big.bin\", 5, 4, &testfs_why_) could not check: Invalid argument");
	expect_in(&r, "went on after the expectations");
}

Test(messages, bytes)
{
	struct run r;

	run_case("bytes", &r);
	cr_assert_neq(r.status, 0, "the case passed:\n%s", r.out);
	expect_in(
		&r,
		"big.bin: bytes [4194304, 8388607] are pages [1024, 2047]: readahead fetched 384 pages past and 128 pages before the range [1024, 2047]: expected within [1024, 2047], observed [896, 2431] (1536 pages in 6 requests)");
	expect_in(
		&r,
		"big.bin: bytes [3670015, 3670016] are pages [895, 896]: 1 of the 2 pages of [895, 896] was not fetched");
}

/* The daemon's reason is in the assertion's message, not only on stderr. */
Test(messages, start_failure_has_the_daemons_reason)
{
	struct run r;
	const char *msg;

	run_case("start", &r);
	cr_assert_neq(r.status, 0, "the case passed:\n%s", r.out);
	msg = strstr(r.out, "testfs_start(&cfg, &fs) failed: ");
	cr_assert_not_null(msg, "%s", r.out);
	cr_expect_eq(
		strncmp(msg,
			"testfs_start(&cfg, &fs) failed: Input/output error: the daemon ",
			63),
		0, "%s", r.out);
	/* The same line holds the exit status and the daemon's words. */
	cr_expect_not_null(
		strstr(msg,
		       " exited with status 2 before the mount was ready: --max-pages '999': value out of range (expected an integer in 1..256)\n"),
		"%s", r.out);
}

Test(messages, start_without_daemon)
{
	struct run r;

	run_case("start_no_daemon", &r);
	cr_assert_neq(r.status, 0, "the case passed:\n%s", r.out);
	expect_in(
		&r,
		"testfs_start(&cfg, &fs) failed: No such file or directory: daemon '/nonexistent/testfs' not found");
}
