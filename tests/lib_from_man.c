// SPDX-License-Identifier: MIT
/*
 * A test written the way a new user writes one: from libtestfs(3) and
 * testfs.h alone, with no knowledge of the tree. It starts a mount, reads
 * from it, takes a snapshot, states the fetched pages with the Criterion
 * macros, reaches the same daemon through a second, attached handle and
 * reads its settings. Where it disagrees with the library, the page or
 * the code is wrong.
 *
 * Readahead is switched off by POSIX_FADV_RANDOM, so every read(2)
 * fetches exactly the pages it asks for (mm/readahead.c: a file opened
 * with FMODE_RANDOM gets force_page_cache_ra() of the request alone): the
 * expected extents are the touched ones, on any kernel.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <testfs.h>
#include <testfs/criterion.h>

#define FILE_NAME "a.bin"
#define FILE_PAGES 1024 /* 4 MiB */

static struct testfs_mount *fs, *att;

static void start(void)
{
	static const char *const files[] = { FILE_NAME ":4M:stamp", NULL };
	struct testfs_config cfg = { .files = files };

	/* Raising read_ahead_kb needs root (libtestfs(3), ra_kb). */
	if (geteuid() == 0)
		cfg.ra_kb = 256;
	testfs_assert_ok(testfs_start(&cfg, &fs));
}

/* Also after a failed assertion: no daemon outlives the test. */
static void stop(void)
{
	if (att)
		testfs_stop(att);
	att = NULL;
	if (fs)
		testfs_stop(fs);
	fs = NULL;
}

TestSuite(from_man, .init = start, .fini = stop, .timeout = 60);

/* Pages 0, 4, 8, ... 60 of FILE_NAME by read(2), one page each. */
static void read_stride(struct testfs_extents *touched)
{
	int fd = testfs_open(fs, FILE_NAME, O_RDONLY);

	testfs_assert_ok(fd);
	testfs_assert_ok(testfs_fadvise(fd, 0, FILE_PAGES, POSIX_FADV_RANDOM));
	testfs_assert_ok(testfs_read_pages(fd, 0, 64, 0, TESTFS_ORDER_STRIDE, 4,
					   touched));
	close(fd);
}

Test(from_man, reads_are_fetched_as_read)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	char buf[TESTFS_STAMP_PAGE];
	int fd;

	testfs_assert_ok(testfs_cold(fs, FILE_NAME));
	read_stride(&touched);
	cr_assert_eq(touched.pages, 16);
	cr_assert(testfs_extents_contains(&touched, 60));
	cr_assert_not(testfs_extents_contains(&touched, 61));

	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	cr_assert_eq(testfs_log_lost(log), 0);
	testfs_assert_fetched(log, FILE_NAME, &touched);
	testfs_assert_within(log, FILE_NAME, 0, 60);
	testfs_assert_touched_plus(log, FILE_NAME, &touched, 0);
	cr_assert_eq(testfs_log_requests(log, FILE_NAME), 16);
	cr_assert_eq(testfs_log_max_request(log, FILE_NAME), 1);
	testfs_assert_ok(testfs_log_fetched(log, FILE_NAME, &fetched));
	cr_assert(testfs_extents_equal(&fetched, &touched));
	testfs_log_free(log);

	/* The bytes are the stamp pattern's (libtestfs(3), PATTERNS). */
	fd = testfs_open(fs, FILE_NAME, O_RDONLY);
	testfs_assert_ok(fd);
	cr_assert_eq(pread(fd, buf, sizeof(buf), 8 * 4096),
		     (ssize_t)sizeof(buf));
	close(fd);
	cr_assert_eq(testfs_verify("stamp", FILE_NAME, 8 * 4096, buf,
				   sizeof(buf), NULL),
		     0);
	testfs_extents_free(&fetched);
	testfs_extents_free(&touched);
}

/* A check that does not hold returns 1 and says why, as the page shows. */
Test(from_man, a_failing_check_explains_itself)
{
	struct testfs_extents touched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log;
	char *why = NULL;

	testfs_assert_ok(testfs_cold(fs, FILE_NAME));
	read_stride(&touched);
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	cr_assert_eq(testfs_check_within(log, FILE_NAME, 0, 0, &why), 1);
	cr_assert_not_null(why);
	/* The page's example: "NAME: readahead fetched N pages past ...". */
	cr_assert_not_null(strstr(why,
				  FILE_NAME ": readahead fetched 15 pages "
					    "past the range [0, 0]: expected "
					    "within [0, 0], observed"),
			   "%s", why);
	free(why);
	why = NULL;
	cr_assert_eq(testfs_check_within(log, FILE_NAME, 0, 60, &why), 0);
	free(why);
	testfs_log_free(log);
	testfs_extents_free(&touched);
}

Test(from_man, a_second_handle_attaches_to_the_same_daemon)
{
	struct testfs_settings set = TESTFS_SETTINGS_INIT;
	struct testfs_log *log;
	char path[4096];
	size_t i, n;

	testfs_assert_ok(testfs_path(fs, FILE_NAME, path, sizeof(path)));
	testfs_assert_ok(testfs_attach(path, &att));
	cr_assert(testfs_attached(att));
	cr_assert_not(testfs_attached(fs));
	cr_assert_str_eq(testfs_mountpoint(att), testfs_mountpoint(fs));
	cr_assert_gt(testfs_pid(fs), 0);
	cr_assert_eq(testfs_pid(att), testfs_pid(fs));

	testfs_assert_ok(testfs_settings(att, &set));
	cr_assert_neq(set.version[0], '\0');
	cr_assert_neq(set.kernel[0], '\0');
	cr_assert_eq(set.files, 1);
	cr_assert_eq(set.pid, testfs_pid(fs));
	cr_assert_str_eq(set.latency, "none");
	cr_assert_gt(set.log_capacity, 0);
	if (geteuid() == 0)
		cr_assert_eq(set.ra_kb, 256);
	cr_assert_eq(testfs_file_size(att, FILE_NAME), FILE_PAGES * 4096);

	/* A mark through one handle is in the other's snapshot. */
	testfs_assert_ok(testfs_clear(att));
	testfs_assert_ok(testfs_mark(att, "through the attached handle"));
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	n = testfs_log_count(log);
	for (i = 0; i < n; i++)
		if (testfs_log_at(log, i)->kind == TESTFS_RECORD_MARK)
			break;
	cr_assert_lt(i, n, "the mark is not in the log");
	cr_assert_str_eq(testfs_log_at(log, i)->mark,
			 "through the attached handle");
	testfs_log_free(log);

	/* Stopping the attached handle leaves the daemon serving. */
	cr_assert_eq(testfs_stop(att), 0);
	att = NULL;
	cr_assert_eq(testfs_file_size(fs, FILE_NAME), FILE_PAGES * 4096);
	testfs_assert_ok(testfs_settings(fs, &set));
	cr_assert_eq(set.pid, testfs_pid(fs));
}

/* Bad arguments give an errno, never a crash (libtestfs(3), RETURN VALUE). */
Test(from_man, bad_arguments_are_errors)
{
	struct testfs_mount *none = NULL;
	struct testfs_settings set = TESTFS_SETTINGS_INIT;
	char why[128];

	cr_assert_eq(testfs_settings(NULL, &set), -EINVAL);
	cr_assert_eq(testfs_settings(fs, NULL), -EINVAL);
	cr_assert_eq(testfs_attach("", &none), -EINVAL);
	cr_assert_null(none);
	cr_assert_eq(testfs_attach("/", &none), -ENODEV);
	cr_assert_eq(testfs_ctl(fs, "no-such-command", why, sizeof(why)),
		     -EINVAL);
	cr_assert_neq(why[0], '\0');
	cr_assert_eq(testfs_pid(NULL), -1);
}

/* What the page promises about marks, records and extents. */
Test(from_man, marks_records_and_extents)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	const struct testfs_record *recs;
	struct testfs_log *log;
	char text[105];
	size_t count;

	/* "text up to 103 bytes, one line" */
	memset(text, 'm', 103);
	text[103] = '\0';
	testfs_assert_ok(testfs_clear(fs));
	testfs_assert_ok(testfs_mark(fs, text));
	text[103] = 'm';
	text[104] = '\0';
	cr_assert_eq(testfs_mark(fs, text), -EINVAL);
	cr_assert_eq(testfs_mark(fs, "two\nlines"), -EINVAL);
	testfs_assert_ok(testfs_settle(fs, 0));
	testfs_assert_ok(testfs_log_snapshot(fs, &log));
	recs = testfs_log_records(log, &count);
	cr_assert_eq(count, testfs_log_count(log));
	cr_assert_eq(count, 1);
	cr_assert_eq(recs[0].kind, TESTFS_RECORD_MARK);
	cr_assert_eq(strlen(recs[0].mark), 103);
	cr_assert_null(recs[0].file);
	cr_assert_eq(testfs_log_at(log, 0), &recs[0]);
	cr_assert_null(testfs_log_at(log, 1));
	testfs_log_free(log);

	cr_assert_eq(testfs_extents_add(&e, 5, 4), -EINVAL);
	testfs_assert_ok(testfs_extents_add(&e, 1, 2));
	testfs_assert_ok(testfs_extents_add(&e, 3, 3));
	cr_assert_eq(e.n, 1, "[1, 2] and [3, 3] coalesce");
	cr_assert_eq(e.pages, 3);
	testfs_extents_free(&e);
	cr_assert_eq(e.n, 0);
}
