// SPDX-License-Identifier: MIT
/*
 * pause and resume: a held read is outstanding in the kernel for as long
 * as the test wants, so the test can watch what the kernel does
 * meanwhile. Measured here: a second reader of the page waits for the
 * held read and sends no request of its own.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <testfs/pattern.h>

#include "mount_harness.h"

#define PAGE 4096u
#define NPAGES 256u /* a.bin: 1 MiB */

static struct tfs_mount mnt;

static void start(void)
{
	static const char *const args[] = { "--file", "a.bin:1M", "--pause",
					    "file=a.bin,pages=0", NULL };

	harness_start(&mnt, args);
}

static void stop(void)
{
	harness_stop_checked(&mnt);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct reader {
	pthread_t th;
	off_t off;
	ssize_t got;
	int err;
	char buf[PAGE];
	uint64_t done_ns;
};

static void *read_main(void *arg)
{
	struct reader *r = arg;
	int fd = open(harness_path(&mnt, "a.bin"), O_RDONLY | O_CLOEXEC);

	r->got = fd < 0 ? -1 : pread(fd, r->buf, PAGE, r->off);
	r->err = errno;
	__atomic_store_n(&r->done_ns, now_ns(), __ATOMIC_RELEASE);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void start_reader(struct reader *r, off_t off)
{
	memset(r, 0, sizeof(*r));
	r->off = off;
	cr_assert_eq(pthread_create(&r->th, NULL, read_main, r), 0);
}

static bool done(struct reader *r)
{
	return __atomic_load_n(&r->done_ns, __ATOMIC_ACQUIRE) != 0;
}

/* The reads .testfs/stats lists as held, by counting their entries. */
static int held_reads(void)
{
	char *s = harness_read_file(harness_path(&mnt, ".testfs/stats"), NULL);
	char *p = strstr(s, "\"held\":[");
	int n = 0;

	cr_assert_not_null(p, "%s", s);
	for (p += 8; *p && *p != ']'; p++)
		n += *p == '{';
	free(s);
	return n;
}

/* Waits (10 s at most) until @n reads are held. */
static void wait_held(int n)
{
	int i;

	for (i = 0; i < 1000 && held_reads() != n; i++)
		usleep(10000);
	cr_assert_eq(held_reads(), n, "held reads never reached %d", n);
}

static void expect_page(struct reader *r)
{
	uint64_t bad = 0;

	cr_assert_eq(r->got, PAGE, "read: %zd (%s)", r->got, strerror(r->err));
	cr_assert_eq(testfs_verify("stamp", "a.bin", (uint64_t)r->off, r->buf,
				   PAGE, &bad),
		     0, "data differs at %llu", (unsigned long long)bad);
}

TestSuite(pause, .init = start, .fini = stop, .timeout = 60);

/*
 * Two readers of page 0 while the first one's read is held: the second
 * waits for the same read (the page is locked while in flight) and does
 * not return until resume; the log has page 0 fetched once.
 */
Test(pause, second_reader_waits_for_held_read)
{
	struct reader a, b;
	uint64_t resumed;
	char *stats;

	start_reader(&a, 0);
	wait_held(1);
	stats = harness_read_file(harness_path(&mnt, ".testfs/stats"), NULL);
	cr_assert_not_null(strstr(stats, "\"held\":[{\"file\":\"a.bin\""), "%s",
			   stats);
	free(stats);
	start_reader(&b, 0);
	/* Neither can end before resume, however slow the machine is: this
	 * only gives the second reader time to reach the page. */
	usleep(300000);
	cr_assert_not(done(&a), "the held read was answered");
	cr_assert_not(done(&b), "the second reader did not wait");
	cr_assert_eq(held_reads(), 1, "the second reader sent its own read");
	resumed = now_ns();
	cr_assert_eq(harness_ctl(&mnt, "resume"), 0);
	pthread_join(a.th, NULL);
	pthread_join(b.th, NULL);
	expect_page(&a);
	expect_page(&b);
	cr_assert_geq(b.done_ns, resumed);
	cr_assert_eq(held_reads(), 0);
	/* Page 0 fetched once, and the log equals the page cache. */
	harness_assert_log_matches_cache(&mnt, "a.bin", NPAGES);
}

/* resume with nothing held, and a second resume: not errors. */
Test(pause, resume_without_held_reads)
{
	cr_assert_eq(harness_ctl(&mnt, "resume"), 0);
	cr_assert_eq(harness_ctl(&mnt, "resume"), 0);
}

/*
 * for=: a read is held at most that long, never less. After resume the
 * pause rules are gone: page 0 reads at once.
 */
Test(pause, time_limit_releases)
{
	struct tfs_log log;
	struct reader r;
	uint64_t held = 0;
	size_t i;

	cr_assert_eq(harness_ctl(&mnt, "resume"), 0);
	cr_assert_eq(harness_ctl(&mnt, "pause file=a.bin,pages=100,for=200ms"),
		     0);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	start_reader(&r, 100 * PAGE);
	pthread_join(r.th, NULL);
	expect_page(&r);
	harness_log(&mnt, &log);
	for (i = 0; i < log.count; i++) {
		const struct log_record *rec = &log.recs[i];

		if (rec->kind == LOG_READ && rec->read.off <= 100 * PAGE &&
		    rec->read.off + rec->read.len > 100 * PAGE)
			held = rec->read.done_ns - rec->t_ns;
	}
	harness_log_free(&log);
	cr_assert_geq(held, 200000000ull, "held only %llu ns",
		      (unsigned long long)held);
	start_reader(&r, 0);
	pthread_join(r.th, NULL);
	expect_page(&r);
}

/* Unmounting with a read held: answered, no hang, status 0. */
Test(pause, shutdown_releases_held_reads)
{
	struct reader r;
	int status;

	start_reader(&r, 0);
	wait_held(1);
	status = harness_stop(&mnt);
	cr_assert_eq(status, 0, "exit status %d", status);
	pthread_join(r.th, NULL);
	cr_assert(done(&r));
}

static void expect_rejected(const char *cmd, const char *named)
{
	char *err;

	cr_assert_eq(harness_ctl(&mnt, cmd), -EINVAL, "'%s' accepted", cmd);
	err = harness_read_file(harness_path(&mnt, ".testfs/error"), NULL);
	cr_assert_not_null(strstr(err, named), "'%s': %s", cmd, err);
	free(err);
}

Test(pause, bad_commands)
{
	expect_rejected("pause", "missing SPEC");
	expect_rejected("pause colour=red", "unknown key 'colour'");
	expect_rejected("pause pages=9-3", "bad pages '9-3'");
	expect_rejected("pause file=a.bin,for=0s", "bad for '0s'");
	expect_rejected("pause file=a.bin,for=2h", "bad for '2h'");
	expect_rejected("pause file=a.bin,file=b", "file= given twice");
	expect_rejected("resume now", "takes no argument");
}
