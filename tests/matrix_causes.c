// SPDX-License-Identifier: MIT
/*
 * Causes only where the kernel's events prove them. On 6.12 the filemap
 * events (fault, map_pages) exist but no readahead:* event does: a fault
 * before a read does not tell a one-page read from a read-around or an
 * async window, and the correlator used to call 20-60% of those reads
 * `single`. Here the host kernel is made to look like 6.12 by following
 * only its filemap events: every read must be `unknown`, with the reason
 * from correlator_causes(), while the accesses are still recorded. With
 * every event the same reads get their causes as before (read-around
 * and async for an mmap slice, never `single`).
 *
 * The test's own correlator follows a real mount (whose daemon does not
 * trace) and is fed the daemon's read records afterwards: the same input
 * the daemon's correlator gets, from the real kernel. Root and tracefs;
 * skipped with the reason otherwise.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/mountinfo.h"
#include "correlate/correlate.h"
#include "log/log_ring.h"
#include "mount_harness.h"
#include "trace/events.h"
#include "trace/tracefs.h"

#define PAGE 4096u
#define SLICE_FIRST 8192u
#define SLICE_PAGES 512u
/*
 * MADV_RANDOM: one fault per page, and the reads reach this correlator
 * after every fault: fewer faults than it keeps per file (256).
 */
#define RANDOM_PAGES 128u

static struct tfs_mount mnt;
static struct correlator *corr;
static struct log_ring ring;
static bool ring_ready;

static void cleanup(void)
{
	char name[64];

	if (corr)
		correlator_stop(corr);
	corr = NULL;
	tracefs_instance_name(getpid(), name, sizeof(name));
	tracefs_instance_remove(TRACEFS_DEFAULT, name);
	if (mnt.pid)
		harness_stop(&mnt);
	if (ring_ready)
		log_ring_destroy(&ring);
	ring_ready = false;
}

TestSuite(matrix_causes, .fini = cleanup, .timeout = 90);

static void require_events(bool readahead)
{
	struct stat st;

	if (geteuid() != 0)
		cr_skip_test("the tracer needs root");
	if (stat(TRACEFS_DEFAULT "/events/filemap/mm_filemap_fault", &st))
		cr_skip_test("no filemap:mm_filemap_fault event here");
	if (readahead &&
	    stat(TRACEFS_DEFAULT "/events/readahead/page_cache_ra_unbounded",
		 &st))
		cr_skip_test("no readahead:* events on this kernel");
}

struct outcome {
	uint64_t reads;
	uint64_t by_cause[LOG_CAUSE_COUNT];
	uint64_t fault_records;
	bool causes;
	char why[256];
};

/*
 * Mounts big.bin, follows it with a correlator limited to @kinds (0:
 * all), touches a slice of @pages by mmap under @advice, then feeds the
 * daemon's reads to the correlator and counts its causes.
 */
static void touch_slice(unsigned kinds, int advice, unsigned pages,
			struct outcome *out)
{
	static const char *const args[] = { "--no-trace",  "--file",
					    "big.bin:64M", "--ra-kb",
					    "128",	   NULL };
	struct correlator_options o = { 0 };
	struct mount_entry me;
	struct log_record rec;
	struct tfs_log log;
	char why[256], *path;
	volatile char sum = 0;
	unsigned char *p;
	uint64_t pos, i;
	int fd;

	memset(out, 0, sizeof(*out));
	harness_start(&mnt, args);
	cr_assert(mountinfo_find(mnt.dir, &me), "%s not in mountinfo", mnt.dir);
	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin"), 0);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	cr_assert_eq(log_ring_init(&ring, 1u << 16), 0);
	ring_ready = true;
	o.log = &ring;
	o.dev_major = major(me.dev);
	o.dev_minor = minor(me.dev);
	o.kinds = kinds;
	corr = correlator_start(&o, why, sizeof(why));
	cr_assert_not_null(corr, "correlator_start: %s", why);

	path = harness_path(&mnt, "big.bin");
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	p = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd,
		 (off_t)SLICE_FIRST * PAGE);
	cr_assert_neq(p, MAP_FAILED, "mmap: %s", strerror(errno));
	if (advice >= 0)
		cr_assert_eq(madvise(p, pages * PAGE, advice), 0);
	for (i = 0; i < pages; i++)
		sum += p[i * PAGE];
	munmap(p, pages * PAGE);
	close(fd);
	harness_settle(&mnt);

	/* The daemon's reads, as its own correlator would have had them. */
	harness_log(&mnt, &log);
	for (i = 0; i < log.count; i++) {
		rec = log.recs[i];
		if (rec.kind != LOG_READ)
			continue;
		memset(&rec.read.attr, 0, sizeof(rec.read.attr));
		log_ring_append(&ring, &rec);
	}
	harness_log_free(&log);
	correlator_sync(corr, 2000);
	out->causes = correlator_causes(corr, out->why, sizeof(out->why));
	for (pos = 0; pos < log_ring_head(&ring); pos++) {
		cr_assert_eq(log_ring_read(&ring, pos, &rec), LOG_READ_OK);
		if (rec.kind == LOG_ACCESS &&
		    rec.access.type == LOG_ACCESS_FAULT)
			out->fault_records++;
		if (rec.kind != LOG_READ)
			continue;
		out->reads++;
		out->by_cause[rec.read.attr.cause < LOG_CAUSE_COUNT
				      ? rec.read.attr.cause
				      : 0]++;
	}
	correlator_stop(corr);
	corr = NULL;
	log_ring_destroy(&ring);
	ring_ready = false;
	cr_assert_eq(harness_stop(&mnt), 0);
	(void)sum;
}

static const unsigned filemap_only =
	(1u << TRACE_FAULT) | (1u << TRACE_GET_PAGES) | (1u << TRACE_MAP_PAGES);

static void assert_all_unknown(const struct outcome *o)
{
	cr_assert_gt(o->reads, 0, "the slice was not read");
	cr_assert_eq(o->by_cause[LOG_CAUSE_SINGLE], 0,
		     "%llu reads called single without a readahead event",
		     (unsigned long long)o->by_cause[LOG_CAUSE_SINGLE]);
	cr_assert_eq(
		o->by_cause[LOG_CAUSE_UNKNOWN], o->reads,
		"%llu of %llu reads given a cause",
		(unsigned long long)(o->reads - o->by_cause[LOG_CAUSE_UNKNOWN]),
		(unsigned long long)o->reads);
	cr_assert_not(o->causes, "causes claimed without readahead events");
	cr_assert(strstr(o->why, "readahead:"), "reason: '%s'", o->why);
	/* Tracing is on: the faults are still there. */
	cr_assert_gt(o->fault_records, 0, "no fault was recorded");
}

Test(matrix_causes, filemap_events_alone_prove_no_cause)
{
	struct outcome o;

	require_events(false);
	touch_slice(filemap_only, -1, SLICE_PAGES, &o);
	assert_all_unknown(&o);
}

Test(matrix_causes, filemap_events_alone_prove_no_single_page_read)
{
	struct outcome o;

	require_events(false);
	/* MADV_RANDOM: each fault reads its page alone. Without a
	 * readahead event that is still not proven. */
	touch_slice(filemap_only, MADV_RANDOM, RANDOM_PAGES, &o);
	assert_all_unknown(&o);
}

Test(matrix_causes, with_readahead_events_causes_are_given)
{
	struct outcome o;

	require_events(true);
	touch_slice(0, -1, SLICE_PAGES, &o);
	cr_assert(o.causes, "no causes: %s", o.why);
	cr_assert_str_empty(o.why);
	cr_assert_gt(o.reads, 0);
	/* mm/filemap.c: the first fault reads around, then async windows. */
	cr_assert_gt(o.by_cause[LOG_CAUSE_READAROUND], 0);
	cr_assert_eq(o.by_cause[LOG_CAUSE_SINGLE], 0);
	cr_assert_eq(o.by_cause[LOG_CAUSE_READAROUND] +
			     o.by_cause[LOG_CAUSE_ASYNC],
		     o.reads, "readaround %llu async %llu of %llu",
		     (unsigned long long)o.by_cause[LOG_CAUSE_READAROUND],
		     (unsigned long long)o.by_cause[LOG_CAUSE_ASYNC],
		     (unsigned long long)o.reads);
}
