// SPDX-License-Identifier: MIT
/*
 * options_parse() and config files: every error must come back as -EINVAL
 * with a message naming the argument at fault.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/options.h"

#define MAX_CONFIGS 4

static struct options o;
static char err[1024];
static char config_paths[MAX_CONFIGS][64];
static int nconfigs;

static void setup(void)
{
	options_init(&o);
	memset(err, 0, sizeof(err));
	nconfigs = 0;
}

static void teardown(void)
{
	int i;

	options_free(&o);
	for (i = 0; i < nconfigs; i++)
		unlink(config_paths[i]);
}

TestSuite(options, .init = setup, .fini = teardown);
TestSuite(config, .init = setup, .fini = teardown);

static int parse_argv(const char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return options_parse(&o, argc, (char **)argv, err, sizeof(err));
}

/* PARSE("--file", "a:1M", "/mnt") runs "testfs --file a:1M /mnt". */
#define PARSE(...) parse_argv((const char *[]){ "testfs", __VA_ARGS__, NULL })

/* Asserts -EINVAL and that the message contains @a and (if set) @b. */
static void expect_einval(int ret, const char *a, const char *b)
{
	cr_assert_eq(ret, -EINVAL, "ret = %d, want -EINVAL (message: %s)", ret,
		     err);
	cr_assert(strstr(err, a), "message \"%s\" does not mention \"%s\"", err,
		  a);
	if (b)
		cr_assert(strstr(err, b),
			  "message \"%s\" does not mention \"%s\"", err, b);
}

static void expect_ok(int ret)
{
	cr_assert_eq(ret, 0, "ret = %d, message: %s", ret, err);
}

/* Writes @text to a new temporary file and returns its path. */
static const char *write_config(const char *text)
{
	char *path;
	size_t len = strlen(text);
	int fd;

	cr_assert_lt(nconfigs, MAX_CONFIGS);
	path = config_paths[nconfigs];
	strcpy(path, "/tmp/testfs-unit-config.XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
	nconfigs++;
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static const struct file_spec *find_spec(const char *name)
{
	size_t i;

	for (i = 0; i < o.nfiles; i++)
		if (strcmp(o.files[i].name, name) == 0)
			return &o.files[i];
	return NULL;
}

/* --- command line: success --- */

Test(options, defaults)
{
	expect_ok(PARSE("/mnt"));
	cr_assert_str_eq(o.mountpoint, "/mnt");
	cr_assert_eq(o.ra_kb, OPT_UNSET);
	cr_assert_eq(o.max_pages, OPT_UNSET);
	cr_assert_eq(o.max_background, OPT_UNSET);
	cr_assert_eq(o.congestion_threshold, OPT_UNSET);
	cr_assert_eq(o.log_capacity, OPTIONS_DEFAULT_LOG_CAPACITY);
	cr_assert_eq(o.threads, OPTIONS_DEFAULT_THREADS);
	cr_assert_null(o.log_path);
	cr_assert(o.auto_unmount);
	cr_assert_not(o.foreground);
	cr_assert_not(o.debug);
	cr_assert_not(o.quiet);
	cr_assert_not(o.help);
	cr_assert_not(o.version);
	cr_assert_eq(o.ready_fd, -1);
}

Test(options, default_file_set)
{
	const struct file_spec *f;

	expect_ok(PARSE("/mnt"));
	cr_assert(o.default_files);
	cr_assert_eq(o.nfiles, 6);
	f = find_spec("big.bin");
	cr_assert_not_null(f);
	cr_assert_eq(f->size, 256ull << 20);
	cr_assert_eq(f->pattern.kind, TESTFS_PATTERN_STAMP);
	f = find_spec("small.bin");
	cr_assert_not_null(f);
	cr_assert_eq(f->size, 1ull << 20);
	f = find_spec("zero.bin");
	cr_assert_not_null(f);
	cr_assert_eq(f->pattern.kind, TESTFS_PATTERN_ZERO);
	f = find_spec("random.bin");
	cr_assert_not_null(f);
	cr_assert_eq(f->pattern.kind, TESTFS_PATTERN_RANDOM);
	cr_assert_eq(f->pattern.seed, 1);
	f = find_spec("huge.bin");
	cr_assert_not_null(f);
	cr_assert_eq(f->size, 1ull << 40);
	f = find_spec("dir/nested.bin");
	cr_assert_not_null(f);
	cr_assert_eq(f->size, 4ull << 20);
}

Test(options, given_files_replace_defaults)
{
	expect_ok(PARSE("--file", "a.bin:1M", "--file", "d/b.bin:4K:random:7",
			"--file", "z:1:zero", "/mnt"));
	cr_assert_not(o.default_files);
	cr_assert_eq(o.nfiles, 3);
	/* Kept in command-line order. */
	cr_assert_str_eq(o.files[0].name, "a.bin");
	cr_assert_eq(o.files[0].size, 1ull << 20);
	cr_assert_eq(o.files[0].pattern.kind, TESTFS_PATTERN_STAMP);
	cr_assert_str_eq(o.files[1].name, "d/b.bin");
	cr_assert_eq(o.files[1].size, 4096);
	cr_assert_eq(o.files[1].pattern.kind, TESTFS_PATTERN_RANDOM);
	cr_assert_eq(o.files[1].pattern.seed, 7);
	cr_assert_str_eq(o.files[2].name, "z");
	cr_assert_eq(o.files[2].size, 1);
	cr_assert_eq(o.files[2].pattern.kind, TESTFS_PATTERN_ZERO);
}

Test(options, many_files_grow_the_array)
{
	const char *argv[2 * 40 + 3];
	char specs[40][16];
	int i, n = 0;

	argv[n++] = "testfs";
	for (i = 0; i < 40; i++) {
		snprintf(specs[i], sizeof(specs[i]), "f%d:%dK", i, i + 1);
		argv[n++] = "--file";
		argv[n++] = specs[i];
	}
	argv[n++] = "/mnt";
	argv[n] = NULL;
	expect_ok(parse_argv(argv));
	cr_assert_eq(o.nfiles, 40);
	for (i = 0; i < 40; i++)
		cr_assert_eq(o.files[i].size, (uint64_t)(i + 1) << 10);
}

Test(options, knobs)
{
	expect_ok(PARSE("--ra-kb", "512", "--max-pages", "32",
			"--max-background", "64", "--congestion-threshold",
			"48", "--log", "/tmp/x.jsonl", "--log-capacity", "4096",
			"--ready-fd", "3", "--watch-pid", "1234", "/mnt"));
	cr_assert_eq(o.ra_kb, 512);
	cr_assert_eq(o.max_pages, 32);
	cr_assert_eq(o.max_background, 64);
	cr_assert_eq(o.congestion_threshold, 48);
	cr_assert_str_eq(o.log_path, "/tmp/x.jsonl");
	cr_assert_eq(o.log_capacity, 4096);
	cr_assert_eq(o.ready_fd, 3);
	cr_assert_eq(o.watch_pid, 1234);
}

Test(options, knob_limits_accepted)
{
	expect_ok(PARSE("--ra-kb", "0", "--max-pages", "1", "--log-capacity",
			"16", "--max-background", "65535", "/mnt"));
	cr_assert_eq(o.ra_kb, 0);
	cr_assert_eq(o.max_pages, 1);
	cr_assert_eq(o.log_capacity, 16);
	cr_assert_eq(o.max_background, 65535);
	options_free(&o);
	expect_ok(PARSE("--ra-kb", "1048576", "--max-pages", "256",
			"--log-capacity", "1073741824", "/mnt"));
	cr_assert_eq(o.ra_kb, 1048576);
	cr_assert_eq(o.max_pages, 256);
	cr_assert_eq(o.log_capacity, 1ull << 30);
}

Test(options, equals_form)
{
	expect_ok(PARSE("--ra-kb=512", "--file=x.bin:4K:zero", "--max-pages=16",
			"--log=/tmp/l", "/mnt"));
	cr_assert_eq(o.ra_kb, 512);
	cr_assert_eq(o.max_pages, 16);
	cr_assert_eq(o.nfiles, 1);
	cr_assert_str_eq(o.files[0].name, "x.bin");
	cr_assert_eq(o.files[0].pattern.kind, TESTFS_PATTERN_ZERO);
	cr_assert_str_eq(o.log_path, "/tmp/l");
}

Test(options, value_may_start_with_dash)
{
	/* The next argument is the value even if it looks like an option. */
	expect_ok(PARSE("--log", "-weird", "/mnt"));
	cr_assert_str_eq(o.log_path, "-weird");
}

Test(options, flags)
{
	expect_ok(PARSE("-f", "-q", "--no-auto-unmount", "/mnt"));
	cr_assert(o.foreground);
	cr_assert(o.quiet);
	cr_assert_not(o.auto_unmount);
	cr_assert_not(o.debug);
}

Test(options, long_flags)
{
	expect_ok(PARSE("--foreground", "--quiet", "/mnt"));
	cr_assert(o.foreground);
	cr_assert(o.quiet);
}

Test(options, debug_implies_foreground)
{
	expect_ok(PARSE("-d", "/mnt"));
	cr_assert(o.debug);
	cr_assert(o.foreground);
	options_free(&o);
	expect_ok(PARSE("--debug", "/mnt"));
	cr_assert(o.debug);
	cr_assert(o.foreground);
}

Test(options, help_needs_no_mountpoint)
{
	expect_ok(PARSE("--help"));
	cr_assert(o.help);
	cr_assert_null(o.mountpoint);
	options_free(&o);
	expect_ok(PARSE("-h"));
	cr_assert(o.help);
}

Test(options, version_needs_no_mountpoint)
{
	expect_ok(PARSE("--version"));
	cr_assert(o.version);
	options_free(&o);
	expect_ok(PARSE("-V"));
	cr_assert(o.version);
}

Test(options, help_skips_later_checks)
{
	/* Conflicting knobs do not matter when only --help is wanted. */
	expect_ok(PARSE("--congestion-threshold", "20", "--help"));
	cr_assert(o.help);
}

Test(options, double_dash_separator)
{
	expect_ok(PARSE("-f", "--", "-mnt"));
	cr_assert_str_eq(o.mountpoint, "-mnt");
	cr_assert(o.foreground);
}

Test(options, options_after_double_dash_are_arguments)
{
	expect_einval(PARSE("--", "/mnt", "--ra-kb"), "--ra-kb", "/mnt");
	cr_assert_eq(o.ra_kb, OPT_UNSET);
}

Test(options, single_dash_is_a_mountpoint)
{
	expect_ok(PARSE("-"));
	cr_assert_str_eq(o.mountpoint, "-");
}

Test(options, congestion_within_max_background)
{
	expect_ok(PARSE("--congestion-threshold", "20", "--max-background",
			"32", "/mnt"));
	cr_assert_eq(o.congestion_threshold, 20);
	cr_assert_eq(o.max_background, 32);
}

Test(options, congestion_within_kernel_default)
{
	expect_ok(PARSE("--congestion-threshold", "12", "/mnt"));
	cr_assert_eq(o.congestion_threshold, 12);
}

/* --- command line: errors --- */

Test(options, unknown_long_option)
{
	expect_einval(PARSE("--bogus", "/mnt"), "--bogus", NULL);
}

Test(options, unknown_long_option_with_value)
{
	expect_einval(PARSE("--bogus=1", "/mnt"), "--bogus", NULL);
}

Test(options, long_option_prefix_is_not_enough)
{
	expect_einval(PARSE("--ra", "5", "/mnt"), "--ra", NULL);
}

Test(options, unknown_short_option)
{
	expect_einval(PARSE("-x", "/mnt"), "-x", NULL);
}

Test(options, grouped_short_options_rejected)
{
	expect_einval(PARSE("-fq", "/mnt"), "-fq", NULL);
}

Test(options, missing_value)
{
	expect_einval(PARSE("/mnt", "--file"), "--file", "needs a value");
}

Test(options, missing_value_knob)
{
	expect_einval(PARSE("/mnt", "--ra-kb"), "--ra-kb", "needs a value");
}

Test(options, flag_with_value)
{
	expect_einval(PARSE("--foreground=1", "/mnt"), "--foreground",
		      "takes no value");
}

Test(options, file_without_size)
{
	expect_einval(PARSE("--file", "a.bin", "/mnt"), "--file", "a.bin");
}

Test(options, file_empty_value)
{
	expect_einval(PARSE("--file=", "/mnt"), "--file", NULL);
}

Test(options, bad_size_suffix)
{
	expect_einval(PARSE("--file", "a:12Q", "/mnt"), "--file", "a:12Q");
}

Test(options, empty_size)
{
	expect_einval(PARSE("--file", "a:", "/mnt"), "--file", "'a:'");
}

Test(options, empty_size_with_pattern)
{
	expect_einval(PARSE("--file", "a::zero", "/mnt"), "--file", "a::zero");
}

Test(options, zero_size)
{
	expect_einval(PARSE("--file", "a:0", "/mnt"), "--file", "a:0");
}

Test(options, negative_size)
{
	expect_einval(PARSE("--file", "a:-1", "/mnt"), "--file", "a:-1");
}

Test(options, overflow_size)
{
	expect_einval(PARSE("--file", "a:99999999999999999999", "/mnt"),
		      "--file", "a:99999999999999999999");
}

Test(options, size_over_limit)
{
	/* parse_size says -ERANGE; the caller must still see -EINVAL. */
	expect_einval(PARSE("--file", "a:5E", "/mnt"), "a:5E", "too large");
}

Test(options, duplicate_file_name)
{
	expect_einval(PARSE("--file", "dup.bin:1M", "--file", "dup.bin:2M:zero",
			    "/mnt"),
		      "'dup.bin'", "duplicate");
	cr_assert_eq(o.nfiles, 1);
}

Test(options, name_component_255_ok)
{
	char spec[300], name[256];

	memset(name, 'n', 255);
	name[255] = '\0';
	snprintf(spec, sizeof(spec), "%s:1M", name);
	expect_ok(PARSE("--file", spec, "/mnt"));
	cr_assert_eq(o.nfiles, 1);
	cr_assert_eq(strlen(o.files[0].name), 255);
}

Test(options, name_component_256_rejected)
{
	char spec[300], name[257];

	memset(name, 'n', 256);
	name[256] = '\0';
	snprintf(spec, sizeof(spec), "%s:1M", name);
	expect_einval(PARSE("--file", spec, "/mnt"), "--file", "255");
	cr_assert_eq(o.nfiles, 0);
}

Test(options, name_component_256_in_directory_rejected)
{
	char spec[300], name[257];

	memset(name, 'n', 256);
	name[256] = '\0';
	snprintf(spec, sizeof(spec), "dir/%s:1M", name);
	expect_einval(PARSE("--file", spec, "/mnt"), "--file", "dir/nnn");
}

Test(options, name_with_dotdot)
{
	expect_einval(PARSE("--file", "a/../b:1M", "/mnt"), "--file",
		      "a/../b:1M");
}

Test(options, name_is_dotdot)
{
	expect_einval(PARSE("--file", "..:1M", "/mnt"), "--file", "..:1M");
}

Test(options, name_is_dot)
{
	expect_einval(PARSE("--file", "./a:1M", "/mnt"), "--file", "./a:1M");
}

Test(options, name_absolute)
{
	expect_einval(PARSE("--file", "/abs.bin:1M", "/mnt"), "--file",
		      "/abs.bin:1M");
}

Test(options, name_empty_component)
{
	expect_einval(PARSE("--file", "a//b:1M", "/mnt"), "--file", "a//b:1M");
}

Test(options, name_trailing_slash)
{
	expect_einval(PARSE("--file", "a/:1M", "/mnt"), "--file", "a/:1M");
}

Test(options, name_empty)
{
	expect_einval(PARSE("--file", ":1M", "/mnt"), "--file", "':1M'");
}

Test(options, name_in_control_dir)
{
	expect_einval(PARSE("--file", ".testfs/x:1M", "/mnt"), "--file",
		      ".testfs/x:1M");
}

Test(options, bad_pattern)
{
	expect_einval(PARSE("--file", "a:1M:bogus", "/mnt"), "--file",
		      "'bogus'");
}

Test(options, bad_random_seed)
{
	expect_einval(PARSE("--file", "a:1M:random:x", "/mnt"), "--file",
		      "random:x");
}

Test(options, max_pages_zero)
{
	expect_einval(PARSE("--max-pages", "0", "/mnt"), "--max-pages", "'0'");
}

Test(options, max_pages_too_big)
{
	expect_einval(PARSE("--max-pages", "257", "/mnt"), "--max-pages",
		      "'257'");
}

Test(options, ra_kb_negative)
{
	expect_einval(PARSE("--ra-kb", "-5", "/mnt"), "--ra-kb", "'-5'");
}

Test(options, ra_kb_not_a_number)
{
	expect_einval(PARSE("--ra-kb", "abc", "/mnt"), "--ra-kb", "'abc'");
}

Test(options, ra_kb_too_big)
{
	expect_einval(PARSE("--ra-kb", "1048577", "/mnt"), "--ra-kb",
		      "'1048577'");
}

Test(options, ra_kb_empty_in_equals_form)
{
	expect_einval(PARSE("--ra-kb=", "/mnt"), "--ra-kb", NULL);
}

Test(options, max_background_too_big)
{
	expect_einval(PARSE("--max-background", "70000", "/mnt"),
		      "--max-background", "'70000'");
}

Test(options, log_capacity_too_small)
{
	expect_einval(PARSE("--log-capacity", "1", "/mnt"), "--log-capacity",
		      "'1'");
}

Test(options, log_capacity_too_big)
{
	expect_einval(PARSE("--log-capacity", "1073741825", "/mnt"),
		      "--log-capacity", "'1073741825'");
}

Test(options, ready_fd_negative)
{
	expect_einval(PARSE("--ready-fd", "-1", "/mnt"), "--ready-fd", "'-1'");
}

Test(options, watch_pid_zero)
{
	expect_einval(PARSE("--watch-pid", "0", "/mnt"), "--watch-pid", "'0'");
}

Test(options, empty_log_path)
{
	expect_einval(PARSE("--log=", "/mnt"), "--log", NULL);
}

Test(options, congestion_over_kernel_default)
{
	expect_einval(PARSE("--congestion-threshold", "20", "/mnt"),
		      "--congestion-threshold", "20");
	cr_assert(strstr(err, "max-background"), "message: %s", err);
}

Test(options, congestion_over_max_background)
{
	expect_einval(PARSE("--max-background", "16", "--congestion-threshold",
			    "17", "/mnt"),
		      "--congestion-threshold", "17");
}

Test(options, missing_mountpoint)
{
	expect_einval(parse_argv((const char *[]){ "testfs", NULL }),
		      "MOUNTPOINT", NULL);
}

Test(options, missing_mountpoint_with_options)
{
	expect_einval(PARSE("-f", "--file", "a:1M"), "MOUNTPOINT", NULL);
}

Test(options, two_mountpoints)
{
	expect_einval(PARSE("/mnt", "/other"), "/other", "/mnt");
}

/* --- config files --- */

Test(config, valid_keys)
{
	const char *path = write_config("# a comment\n"
					"\n"
					"file a.bin:1M\n"
					"   # indented comment\n"
					"file = d/b.bin:2K:random:9\n"
					"ra-kb = 512\n"
					"max-pages=64\n"
					"max-background\t32\r\n"
					"congestion-threshold 24   \n"
					"log /tmp/testfs.log\n"
					"log-capacity 4096\n"
					"quiet\n"
					"  no-auto-unmount\n"
					"\t\n");

	expect_ok(PARSE("--config", path, "/mnt"));
	cr_assert_not(o.default_files);
	cr_assert_eq(o.nfiles, 2);
	cr_assert_str_eq(o.files[0].name, "a.bin");
	cr_assert_eq(o.files[0].size, 1ull << 20);
	cr_assert_str_eq(o.files[1].name, "d/b.bin");
	cr_assert_eq(o.files[1].size, 2048);
	cr_assert_eq(o.files[1].pattern.kind, TESTFS_PATTERN_RANDOM);
	cr_assert_eq(o.files[1].pattern.seed, 9);
	cr_assert_eq(o.ra_kb, 512);
	cr_assert_eq(o.max_pages, 64);
	cr_assert_eq(o.max_background, 32);
	cr_assert_eq(o.congestion_threshold, 24);
	cr_assert_str_eq(o.log_path, "/tmp/testfs.log");
	cr_assert_eq(o.log_capacity, 4096);
	cr_assert(o.quiet);
	cr_assert_not(o.auto_unmount);
}

Test(config, last_line_without_newline)
{
	const char *path = write_config("ra-kb 64");

	expect_ok(PARSE("--config", path, "/mnt"));
	cr_assert_eq(o.ra_kb, 64);
}

Test(config, threads_and_command_line_override)
{
	const char *path = write_config("threads 4\n");

	expect_ok(PARSE("--config", path, "/mnt"));
	cr_assert_eq(o.threads, 4);
	options_free(&o);
	expect_ok(PARSE("--config", path, "--threads", "256", "/mnt"));
	cr_assert_eq(o.threads, 256);
}

Test(config, transport_and_command_line_override)
{
	const char *path = write_config("transport uring\n");

	expect_ok(PARSE("/mnt"));
	cr_assert_eq(o.transport, OPT_TRANSPORT_DEV);
	options_free(&o);
	expect_ok(PARSE("--config", path, "/mnt"));
	cr_assert_eq(o.transport, OPT_TRANSPORT_URING);
	options_free(&o);
	expect_ok(PARSE("--config", path, "--transport", "dev", "/mnt"));
	cr_assert_eq(o.transport, OPT_TRANSPORT_DEV);
	options_free(&o);
	expect_einval(PARSE("--transport", "io_uring", "/mnt"),
		      "--transport 'io_uring'", "expected dev");
	options_free(&o);
	expect_einval(PARSE("--transport", "", "/mnt"), "--transport", NULL);
}

Test(config, empty_file)
{
	const char *path = write_config("");

	expect_ok(PARSE("--config", path, "/mnt"));
	cr_assert(o.default_files);
}

Test(config, equals_form_on_command_line)
{
	const char *path = write_config("ra-kb 64\n");
	char arg[128];

	snprintf(arg, sizeof(arg), "--config=%s", path);
	expect_ok(PARSE(arg, "/mnt"));
	cr_assert_eq(o.ra_kb, 64);
}

Test(config, unknown_key)
{
	const char *path = write_config("ra-kb 1\n# c\nbogus 1\n");
	char where[128];

	snprintf(where, sizeof(where), "%s:3", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "'bogus'");
}

Test(config, command_line_only_key)
{
	/* Only the keys marked for config files are accepted there. */
	const char *path = write_config("foreground\n");
	char where[128];

	snprintf(where, sizeof(where), "%s:1", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "'foreground'");
}

Test(config, nested_config_key)
{
	const char *path = write_config("\nconfig /etc/passwd\n");
	char where[128];

	snprintf(where, sizeof(where), "%s:2", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "'config'");
}

Test(config, bad_value)
{
	const char *path = write_config("# x\nra-kb abc\n");
	char where[128];

	snprintf(where, sizeof(where), "%s:2", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "abc");
	cr_assert(strstr(err, "ra-kb"), "message: %s", err);
}

Test(config, bad_file_spec)
{
	const char *path = write_config("file a.bin:1M\n\nfile b.bin:12Q\n");
	char where[128];

	snprintf(where, sizeof(where), "%s:3", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "b.bin:12Q");
}

Test(config, long_name_in_file_spec)
{
	char text[400], name[257], where[128];
	const char *path;

	memset(name, 'n', 256);
	name[256] = '\0';
	snprintf(text, sizeof(text), "file %s:1M\n", name);
	path = write_config(text);
	snprintf(where, sizeof(where), "%s:1", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "file");
}

Test(config, duplicate_file_across_config_and_command_line)
{
	const char *path = write_config("file a.bin:1M\n");

	expect_einval(PARSE("--config", path, "--file", "a.bin:2M", "/mnt"),
		      "'a.bin'", "duplicate");
}

Test(config, missing_value)
{
	const char *path = write_config("ra-kb\n");
	char where[128];

	snprintf(where, sizeof(where), "%s:1", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "'ra-kb'");
	cr_assert(strstr(err, "needs a value"), "message: %s", err);
}

Test(config, missing_value_after_equals)
{
	const char *path = write_config("\n\nmax-pages =  \n");
	char where[128];

	snprintf(where, sizeof(where), "%s:3", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "'max-pages'");
}

Test(config, flag_with_value)
{
	const char *path = write_config("quiet yes\n");
	char where[128];

	snprintf(where, sizeof(where), "%s:1", path);
	expect_einval(PARSE("--config", path, "/mnt"), where, "'quiet'");
}

Test(config, nonexistent_path)
{
	const char *path = "/tmp/testfs-unit-no-such-dir/none.conf";

	expect_einval(PARSE("--config", path, "/mnt"), "--config", path);
}

Test(config, command_line_overrides_config)
{
	const char *path = write_config("ra-kb 512\nmax-pages 64\n");

	expect_ok(PARSE("--config", path, "--ra-kb", "256", "/mnt"));
	cr_assert_eq(o.ra_kb, 256);
	cr_assert_eq(o.max_pages, 64);
}

Test(config, later_config_overrides_command_line)
{
	const char *path = write_config("ra-kb 512\n");

	expect_ok(PARSE("--ra-kb", "256", "--config", path, "/mnt"));
	cr_assert_eq(o.ra_kb, 512);
}

Test(config, files_accumulate)
{
	const char *path = write_config("file a.bin:1M\n");

	expect_ok(PARSE("--config", path, "--file", "b.bin:2M", "/mnt"));
	cr_assert_eq(o.nfiles, 2);
	cr_assert_str_eq(o.files[0].name, "a.bin");
	cr_assert_str_eq(o.files[1].name, "b.bin");
}

Test(config, two_config_files)
{
	const char *p1 = write_config("ra-kb 1\nmax-pages 2\n");
	const char *p2 = write_config("ra-kb 3\n");

	expect_ok(PARSE("--config", p1, "--config", p2, "/mnt"));
	cr_assert_eq(o.ra_kb, 3);
	cr_assert_eq(o.max_pages, 2);
}

Test(config, load_directly)
{
	const char *path = write_config("log-capacity 64\n");
	int ret;

	ret = options_load_config(&o, path, err, sizeof(err));
	cr_assert_eq(ret, 0, "message: %s", err);
	cr_assert_eq(o.log_capacity, 64);
	/* No mountpoint check and no defaults: that is options_parse()'s. */
	cr_assert_eq(o.nfiles, 0);
	cr_assert_not(o.default_files);
}

/* The config-file keys testfs(8) documents. */
static const char *const documented_keys[] = {
	"file",
	"backing",
	"ra-kb",
	"max-pages",
	"max-background",
	"congestion-threshold",
	"threads",
	"transport",
	"log",
	"log-capacity",
	"latency",
	"rule",
	"error",
	"pause",
	"quiet",
	"no-auto-unmount",
	"trace",
	"no-trace",
	"trace-reads",
	"trace-folios",
	"tracefs",
};

#define N_DOCUMENTED (sizeof(documented_keys) / sizeof(documented_keys[0]))

/* Whether @key is one of the words of @list (split at ", " and blanks). */
static bool lists_word(const char *list, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = list; (p = strstr(p, key)); p++)
		if ((p == list || strchr(" ,\n(", p[-1])) &&
		    (!p[len] || strchr(" ,;\n)", p[len])))
			return true;
	return false;
}

/*
 * The option table marks exactly the documented keys as config keys, and
 * both lists generated from it name each: --help's config section and the
 * "unknown key" message.
 */
Test(config, generated_key_lists_name_every_key)
{
	const char *key, *path = write_config("frobnicate 1\n");
	char *help = NULL, *keys, *end;
	size_t i, k, len = 0;
	FILE *f;

	for (k = 0; options_config_key(k); k++)
		;
	cr_assert_eq(k, N_DOCUMENTED, "%zu config keys, %zu documented", k,
		     N_DOCUMENTED);
	for (i = 0; i < N_DOCUMENTED; i++) {
		for (k = 0; (key = options_config_key(k)); k++)
			if (!strcmp(key, documented_keys[i]))
				break;
		cr_expect_not_null(key, "'%s' is not a config key",
				   documented_keys[i]);
	}

	f = open_memstream(&help, &len);
	cr_assert_not_null(f);
	options_usage(f);
	fclose(f);
	keys = strstr(help, "(keys:");
	cr_assert_not_null(keys, "%s", help);
	end = strstr(keys, "'#'");
	cr_assert_not_null(end);
	*end = '\0';
	expect_einval(options_load_config(&o, path, err, sizeof(err)),
		      "unknown key 'frobnicate' (expected ", NULL);
	for (k = 0; (key = options_config_key(k)); k++) {
		cr_expect(lists_word(keys, key), "--help's keys lack '%s': %s",
			  key, keys);
		cr_expect(lists_word(strstr(err, "(expected "), key),
			  "the message lacks '%s': %s", key, err);
	}
	free(help);
}

/* Every option the table knows is in --help, with its dashes. */
Test(options, help_names_every_config_key_as_an_option)
{
	char *help = NULL, name[64];
	const char *key;
	size_t k, len = 0;
	FILE *f = open_memstream(&help, &len);

	cr_assert_not_null(f);
	options_usage(f);
	fclose(f);
	for (k = 0; (key = options_config_key(k)); k++) {
		snprintf(name, sizeof(name), "--%s ", key);
		cr_expect_not_null(strstr(help, name), "--help lacks '%s'",
				   name);
	}
	free(help);
}

/* --backing alone serves only its tree: not the default set. */
Test(options, backing_replaces_defaults)
{
	expect_ok(PARSE("--backing", "/srv/tree", "/mnt"));
	cr_assert_not(o.default_files);
	cr_assert_eq(o.nfiles, 0);
	cr_assert_str_eq(o.backing, "/srv/tree");
}

Test(options, backing_given_twice)
{
	expect_einval(PARSE("--backing", "/a", "--backing", "/b", "/mnt"),
		      "only one backing directory", "'/a'");
}

Test(config, backing_key)
{
	const char *path = write_config("backing /srv/tree\n");

	expect_ok(PARSE("--config", path, "/mnt"));
	cr_assert_str_eq(o.backing, "/srv/tree");
	cr_assert_not(o.default_files);
}

/* --- messages: each says what is wrong once, in the parser's terms --- */

#define MODELS                                                                 \
	"(expected none, fixed:DUR, uniform:MIN-MAX, normal:MEAN,SD, "         \
	"lognormal:MEDIAN,SIGMA, bw:RATE, hdd, sata-ssd, nvme, ufs4 or nfs)"

/* The option names the model; the message does not repeat it. */
Test(options, unknown_model_is_named_once)
{
	expect_einval(PARSE("--latency", "warp9", "/mnt"), "warp9", NULL);
	cr_assert_str_eq(err,
			 "--latency 'warp9': unknown model 'warp9' " MODELS);
}

/* A key after latency= would be read as part of the model. */
Test(options, rule_with_latency_not_last_says_the_order)
{
	expect_einval(PARSE("--rule", "pages=1-2,latency=1ms,file=a", "/mnt"),
		      "latency", NULL);
	cr_assert_str_eq(
		err,
		"--rule 'pages=1-2,latency=1ms,file=a': latency= must be the "
		"last key (its MODEL runs to the end of the spec): write "
		"'pages=1-2,file=a,latency=1ms'");
}

/* A bad model inside a rule: the rule, then the model, each once. */
Test(options, rule_with_unknown_model)
{
	expect_einval(PARSE("--rule", "file=a,latency=warp9", "/mnt"), "warp9",
		      NULL);
	cr_assert_str_eq(err, "--rule 'file=a,latency=warp9': latency "
			      "'warp9': unknown model 'warp9' " MODELS);
}

/* The decimal point is what is wrong, not the suffix. */
Test(options, size_with_a_decimal_point)
{
	expect_einval(PARSE("--file", "a:1.5M", "/mnt"), "1.5M", NULL);
	cr_assert_str_eq(err, "--file 'a:1.5M': bad size: a size is a whole "
			      "number (no decimal point: 1536K, not 1.5M)");
}

/* The limit is said in a unit the parser takes (it has no h). */
Test(options, pause_longer_than_the_limit)
{
	expect_einval(PARSE("--pause", "for=2h", "/mnt"), "2h", NULL);
	cr_assert_str_eq(err, "--pause 'for=2h': bad for '2h' (expected a "
			      "number with ns, us, ms or s; for= is above 0 "
			      "and at most 3600s, e.g. 500ms)");
	expect_einval(PARSE("--pause", "for=3601s", "/mnt"), "3601s", NULL);
	cr_assert_str_eq(err, "--pause 'for=3601s': bad for '3601s' (longer "
			      "than 3600s; for= is above 0 and at most 3600s, "
			      "e.g. 500ms)");
}

/* The same from a config file: the file, the line, the key, once. */
Test(config, unknown_model_is_named_once)
{
	const char *path = write_config("latency = warp9\n");
	char want[256];

	expect_einval(PARSE("--config", path, "/mnt"), "warp9", NULL);
	snprintf(want, sizeof(want),
		 "%s:1: latency 'warp9': unknown model 'warp9' " MODELS, path);
	cr_assert_str_eq(err, want);
}
