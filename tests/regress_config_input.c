// SPDX-License-Identifier: MIT
/*
 * Config files are input like any other: bounded (line length, file size),
 * text only (no NUL byte), regular files only, and a rejected line is
 * never echoed unless it is plainly a testfs setting, so --config on a
 * secret file cannot print it. Each case used to hang, grow without bound,
 * cut a line silently or print the line.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/options.h"

static struct options o;
static char err[1024];
static char path[64];

static void setup(void)
{
	options_init(&o);
	memset(err, 0, sizeof(err));
	path[0] = '\0';
}

static void teardown(void)
{
	options_free(&o);
	if (path[0])
		unlink(path);
}

TestSuite(config_input, .init = setup, .fini = teardown, .timeout = 30);

/* Writes @len bytes of @text (NUL bytes allowed) to a new file. */
static const char *write_config(const char *text, size_t len)
{
	int fd;

	strcpy(path, "/tmp/testfs-regress-config.XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static int parse(const char *config)
{
	const char *argv[] = { "testfs", "--config", config, "/mnt", NULL };

	return options_parse(&o, 4, (char **)argv, err, sizeof(err));
}

static void expect_einval(int ret, const char *a, const char *b)
{
	cr_assert_eq(ret, -EINVAL, "ret = %d, want -EINVAL (message: %s)", ret,
		     err);
	cr_expect(strstr(err, a), "message \"%s\" does not mention \"%s\"", err,
		  a);
	if (b)
		cr_expect(strstr(err, b),
			  "message \"%s\" does not mention \"%s\"", err, b);
}

static void where(char *buf, size_t len, unsigned line)
{
	snprintf(buf, len, "%s:%u:", path, line);
}

Test(config_input, nul_byte_is_refused_with_file_and_line)
{
	static const char text[] = "ra-kb 64\nlog /tmp/x\0.jsonl\n";
	char at[128];

	write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 2);
	expect_einval(parse(path), at, "NUL");
	cr_expect_null(o.log_path, "the line was applied up to the NUL");
}

Test(config_input, nul_byte_hiding_a_bad_line_is_refused)
{
	static const char text[] = "quiet\0 bogus bogus\n";
	char at[128];

	write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 1);
	expect_einval(parse(path), at, "NUL");
}

Test(config_input, long_line_is_refused_with_file_and_line)
{
	size_t len = 5000;
	char *text = malloc(len + 16), at[128];

	cr_assert_not_null(text);
	strcpy(text, "# ok\nlog /tmp/");
	memset(text + strlen(text), 'a', len);
	text[len] = '\n';
	text[len + 1] = '\0';
	write_config(text, strlen(text));
	free(text);
	where(at, sizeof(at), 2);
	expect_einval(parse(path), at, "longer than 4096");
}

Test(config_input, line_of_4096_bytes_is_accepted)
{
	char text[4200];
	size_t n;

	n = (size_t)snprintf(text, sizeof(text), "log /tmp/");
	memset(text + n, 'b', 4096 - n);
	text[4096] = '\n';
	write_config(text, 4097);
	cr_assert_eq(parse(path), 0, "%s", err);
	cr_expect_eq(strlen(o.log_path), 4096 - 4);
}

Test(config_input, file_over_one_mib_is_refused)
{
	size_t len = (1u << 20) + 1;
	char *text = malloc(len);

	cr_assert_not_null(text);
	/* Comment lines: only the size is wrong with this file. */
	memset(text, '\n', len);
	text[0] = '#';
	write_config(text, len);
	free(text);
	expect_einval(parse(path), path, "larger than 1 MiB");
}

Test(config_input, device_is_refused_without_reading_it)
{
	expect_einval(parse("/dev/zero"), "/dev/zero", "not a regular file");
}

Test(config_input, directory_is_refused)
{
	expect_einval(parse("/tmp"), "/tmp", "not a regular file");
}

Test(config_input, secret_file_line_is_not_echoed)
{
	static const char text[] =
		"root:$6$Sekr3tSalt$Sekr3tHash:19000:0:99999:7:::\n";
	char at[128];

	write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 1);
	expect_einval(parse(path), at, NULL);
	cr_expect_null(strstr(err, "Sekr3t"), "the line was echoed: %s", err);
	cr_expect_null(strstr(err, "root"), "the line was echoed: %s", err);
}

Test(config_input, secret_line_with_a_space_is_not_echoed)
{
	static const char text[] = "password hunter2-Sekr3t\n";
	char at[128];

	write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 1);
	/* A key-like word is named, the rest of the line is not. */
	expect_einval(parse(path), at, "'password'");
	cr_expect_null(strstr(err, "Sekr3t"), "the value was echoed: %s", err);
}

Test(config_input, long_unknown_key_is_not_echoed)
{
	char text[200];

	memset(text, 'k', 100);
	strcpy(text + 100, " 1\n");
	write_config(text, strlen(text));
	expect_einval(parse(path), ":1: ", "not shown");
	cr_expect_null(
		strstr(err, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"),
		"an unbounded key was echoed: %s", err);
}

Test(config_input, congestion_error_names_file_and_line)
{
	static const char text[] = "ra-kb 1\n\ncongestion-threshold 50\n";
	char at[128];

	write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 3);
	expect_einval(parse(path), at, "max-background");
}

Test(config_input, congestion_error_on_command_line_names_the_option)
{
	const char *argv[] = { "testfs", "--max-background",
			       "8",	 "--congestion-threshold",
			       "9",	 "/mnt",
			       NULL };

	expect_einval(options_parse(&o, 6, (char **)argv, err, sizeof(err)),
		      "--congestion-threshold 9", "(8)");
}

/*
 * trace-reads and no-trace together are refused once everything is read;
 * the message names where each was given, as the other config errors do.
 */
Test(config_input, trace_conflict_names_file_and_line)
{
	static const char text[] = "trace-reads\nra-kb 64\nno-trace\n";
	char at[128], at3[128];

	write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 1);
	where(at3, sizeof(at3), 3);
	expect_einval(parse(path), at, at3);
	cr_expect(strstr(err, "conflicts with"), "message: %s", err);
}

Test(config_input, trace_conflict_with_the_command_line_names_both)
{
	static const char text[] = "ra-kb 64\n\nno-trace\n";
	const char *argv[] = { "testfs", "--trace-reads", "--config",
			       NULL,	 "/mnt",	  NULL };
	char at[128];

	argv[3] = write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 3);
	expect_einval(options_parse(&o, 5, (char **)argv, err, sizeof(err)),
		      "--trace-reads: conflicts with", at);
}

Test(config_input, trace_conflict_on_command_line_names_the_options)
{
	const char *argv[] = { "testfs", "--no-trace", "--trace-reads", "/mnt",
			       NULL };

	expect_einval(options_parse(&o, 4, (char **)argv, err, sizeof(err)),
		      "--trace-reads: conflicts with --no-trace", NULL);
}

Test(config_input, trace_folios_conflicts_with_no_trace)
{
	const char *argv[] = { "testfs", "--no-trace", "--trace-folios", "/mnt",
			       NULL };

	expect_einval(options_parse(&o, 4, (char **)argv, err, sizeof(err)),
		      "--trace-folios: conflicts with --no-trace", NULL);
}

Test(config_input, trace_folios_in_a_file_conflicts_with_no_trace)
{
	static const char text[] = "trace-folios\n";
	const char *argv[] = { "testfs",     "--config", NULL,
			       "--no-trace", "/mnt",	 NULL };
	char at[128];

	argv[2] = write_config(text, sizeof(text) - 1);
	where(at, sizeof(at), 1);
	expect_einval(options_parse(&o, 5, (char **)argv, err, sizeof(err)), at,
		      "conflicts with --no-trace");
}
