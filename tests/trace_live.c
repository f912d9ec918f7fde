// SPDX-License-Identifier: MIT
/*
 * The tracer against the real kernel: a testfs mount, the real tracefs,
 * sequential read(2) and an mmap slice. Needs root and tracefs; skipped
 * with the reason otherwise. Under CI=true a tracer that fails where
 * tracefs exists and we are root is a failure, not a skip.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/mountinfo.h"
#include "mount_harness.h"
#include "trace/tracefs.h"
#include "trace/tracer.h"

#define PAGE 4096u
#define BIG_PAGES 16384u /* big.bin: 64 MiB */
#define SLICE_FIRST 8192u
#define SLICE_PAGES 512u
#define STALE_NAME "testfs-99999999"

/* Events the callback collected; the tracer thread appends. */
struct collected {
	pthread_mutex_t lock;
	struct trace_event *ev;
	size_t n, cap;
};

static struct tfs_mount mnt;
static struct tracer *tracer;
static struct collected got = { .lock = PTHREAD_MUTEX_INITIALIZER };
/*
 * A copy of what was collected: assertions must not hold the lock, the
 * tracer thread may still deliver (and a failed one would leave it held).
 */
static struct trace_event *snap;
static size_t nsnap;

static void on_event(const struct trace_event *ev, void *arg)
{
	struct collected *c = arg;

	pthread_mutex_lock(&c->lock);
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		struct trace_event *ne = realloc(c->ev, cap * sizeof(*ne));

		if (!ne)
			abort();
		c->ev = ne;
		c->cap = cap;
	}
	c->ev[c->n++] = *ev;
	pthread_mutex_unlock(&c->lock);
}

static bool has_tracefs_support(void)
{
	char *fs = harness_read_file("/proc/filesystems", NULL);
	bool yes = fs && strstr(fs, "\ttracefs\n");

	free(fs);
	return yes;
}

/* Skips unless root with a kernel that has tracefs. */
static void require_tracing(void)
{
	if (geteuid() != 0)
		cr_skip_test("the tracer needs root");
	if (!has_tracefs_support())
		cr_skip_test("kernel without tracefs");
}

/* A tracer that failed where it should work: fail under CI, else skip. */
static void tracer_failed(const char *why)
{
	const char *ci = getenv("CI");

	if (ci && strcmp(ci, "true") == 0)
		cr_assert_fail("tracer_start failed under CI=true: %s", why);
	cr_skip_test("tracer unavailable: %s", why);
}

static struct tracer *start_on(dev_t dev, unsigned buffer_kb)
{
	struct tracer_options o = { 0 };
	char why[512] = "";
	struct tracer *t;

	o.dev_major = major(dev);
	o.dev_minor = minor(dev);
	o.fn = on_event;
	o.arg = &got;
	o.buffer_kb = buffer_kb;
	t = tracer_start(&o, why, sizeof(why));
	if (!t)
		tracer_failed(why);
	return t;
}

static void own_instance(char *buf, size_t len)
{
	char name[64];

	tracefs_instance_name(getpid(), name, sizeof(name));
	snprintf(buf, len, TRACEFS_DEFAULT "/instances/%s", name);
}

static void cleanup(void)
{
	char name[64];

	if (tracer)
		tracer_stop(tracer, NULL);
	tracer = NULL;
	/* A failed assertion may have left our instance or the stale one. */
	tracefs_instance_name(getpid(), name, sizeof(name));
	tracefs_instance_remove(TRACEFS_DEFAULT, name);
	tracefs_instance_remove(TRACEFS_DEFAULT, STALE_NAME);
	if (mnt.pid) {
		int status = harness_stop(&mnt);

		if (status != 0)
			harness_crash("testfs exited with status %d", status);
	}
	free(got.ev);
	got.ev = NULL;
	got.n = got.cap = 0;
	free(snap);
	snap = NULL;
	nsnap = 0;
}

TestSuite(trace, .fini = cleanup, .timeout = 90);

static dev_t mount_big(void)
{
	static const char *const args[] = { "--file", "big.bin:64M", "--ra-kb",
					    "1024", NULL };
	struct mount_entry me;

	harness_start(&mnt, args);
	cr_assert(mountinfo_find(mnt.dir, &me), "%s not in mountinfo", mnt.dir);
	cr_assert_eq(harness_ctl(&mnt, "drop-cache big.bin"), 0);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	return me.dev;
}

static void snapshot(void)
{
	pthread_mutex_lock(&got.lock);
	free(snap);
	nsnap = got.n;
	snap = malloc((nsnap ? nsnap : 1) * sizeof(*snap));
	if (nsnap)
		memcpy(snap, got.ev, nsnap * sizeof(*snap));
	pthread_mutex_unlock(&got.lock);
	cr_assert_not_null(snap);
}

/* The first event of @kind for @ino at @index (any with @any_index). */
static const struct trace_event *find(unsigned kind, uint64_t ino,
				      uint64_t index, bool any_index)
{
	size_t i;

	for (i = 0; i < nsnap; i++) {
		const struct trace_event *e = &snap[i];

		if (e->kind == kind && e->ino == ino &&
		    (any_index || e->index == index))
			return e;
	}
	return NULL;
}

static char *read_text(const char *path)
{
	char *s = harness_read_file(path, NULL);

	cr_assert_not_null(s, "%s: %s", path, strerror(errno));
	return s;
}

Test(trace, read_and_mmap_events_of_the_mount)
{
	char inst[256], path[320], *text;
	const struct trace_event *sync, *async, *fault, *e;
	struct tracer_stats st;
	uint64_t t_begin, t_end, ino, prev = 0, kdev;
	unsigned char *map;
	char *buf = malloc(PAGE);
	size_t i, batches = 0;
	struct tfs_log log;
	dev_t dev;
	int fd;

	require_tracing();
	dev = mount_big();
	kdev = trace_kdev(major(dev), minor(dev));
	ino = harness_ino(harness_path(&mnt, "big.bin"));
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);

	t_begin = clock_now_ns();
	tracer = start_on(dev, 0);
	own_instance(inst, sizeof(inst));
	cr_assert_str_eq(tracer_instance(tracer), inst);
	cr_assert_eq(tracer_kinds(tracer), (1u << TRACE_KIND_COUNT) - 1,
		     "events missing: %#x", tracer_kinds(tracer));
	/* Enabled in our instance, filtered to the mount's device. */
	snprintf(path, sizeof(path),
		 "%s/events/readahead/page_cache_sync_ra/enable", inst);
	text = read_text(path);
	cr_assert_eq(text[0], '1', "sync_ra not enabled: %s", text);
	free(text);
	snprintf(path, sizeof(path),
		 "%s/events/filemap/mm_filemap_fault/filter", inst);
	text = read_text(path);
	snprintf(path, sizeof(path), "s_dev == %" PRIu64, kdev);
	cr_assert(strstr(text, path), "filter is \"%s\", want \"%s\"", text,
		  path);
	free(text);
	snprintf(path, sizeof(path), "%s/trace_clock", inst);
	text = read_text(path);
	cr_assert(strstr(text, "[mono]"), "trace_clock: %s", text);
	free(text);

	/* Sequential read(2) of the first 8 MiB, 4 KiB at a time. */
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	for (i = 0; i < 2048; i++)
		cr_assert_eq(pread(fd, buf, PAGE, (off_t)i * PAGE), PAGE);
	/* An mmap slice further on, touched page by page. */
	map = mmap(NULL, SLICE_PAGES * PAGE, PROT_READ, MAP_SHARED, fd,
		   (off_t)SLICE_FIRST * PAGE);
	cr_assert_neq(map, MAP_FAILED);
	for (i = 0; i < SLICE_PAGES; i++)
		(void)*(volatile unsigned char *)(map + i * PAGE);
	munmap(map, SLICE_PAGES * PAGE);
	close(fd);
	free(buf);
	cr_assert_eq(tracer_flush(tracer, 5000), 0);
	t_end = clock_now_ns();

	snapshot();
	cr_assert_gt(nsnap, 0, "no event at all");
	for (i = 0; i < nsnap; i++) {
		e = &snap[i];
		cr_assert_eq(e->dev, kdev, "event of device %u:%u",
			     e->dev >> 20, e->dev & 0xfffff);
		cr_assert(e->ts_ns >= t_begin && e->ts_ns <= t_end,
			  "%s at %" PRIu64 " outside [%" PRIu64 ", %" PRIu64
			  "]",
			  trace_kind_name(e->kind), e->ts_ns, t_begin, t_end);
		cr_assert_geq(e->ts_ns, prev, "timestamps not monotonic");
		prev = e->ts_ns;
	}
	sync = find(TRACE_SYNC_RA, ino, 0, false);
	cr_assert_not_null(sync, "no page_cache_sync_ra at page 0");
	async = find(TRACE_ASYNC_RA, ino, 0, true);
	cr_assert_not_null(async, "no page_cache_async_ra");
	cr_assert_gt(async->ts_ns, sync->ts_ns, "async before sync");
	cr_assert_gt(async - sync, 0);
	cr_assert_eq(sync->req_count, 1);
	cr_assert_eq(sync->ra_pages, 256, "ra_pages %u", sync->ra_pages);
	cr_assert_eq(sync->prev_pos, -1);
	cr_assert_not_null(find(TRACE_GET_PAGES, ino, 0, false));
	fault = find(TRACE_FAULT, ino, SLICE_FIRST, false);
	cr_assert_not_null(fault, "no mm_filemap_fault at page %u",
			   SLICE_FIRST);
	cr_assert_gt(fault->ts_ns, async->ts_ns);
	/* Read-around: a window half a window before the fault. */
	e = find(TRACE_RA_UNBOUNDED, ino, SLICE_FIRST - 128, false);
	cr_assert_not_null(e, "no read-around batch at page %u",
			   SLICE_FIRST - 128);
	cr_assert_eq(e->nr_to_read, 256);
	cr_assert_geq(e->ts_ns, fault->ts_ns);

	/*
	 * Every FUSE_READ of the file lies in a page_cache_ra_unbounded
	 * batch of the same task that fired before it.
	 */
	harness_settle(&mnt);
	harness_log(&mnt, &log);
	for (i = 0; i < log.count; i++) {
		const struct log_record *r = &log.recs[i];
		uint64_t first, last;
		size_t j;
		bool inside = false;

		if (r->kind != LOG_READ || r->read.ino != ino)
			continue;
		first = r->read.off / PAGE;
		last = (r->read.off + r->read.len - 1) / PAGE;
		for (j = 0; j < nsnap && !inside; j++) {
			e = &snap[j];
			inside = e->kind == TRACE_RA_UNBOUNDED &&
				 e->ino == ino && e->index <= first &&
				 last < e->index + e->nr_to_read &&
				 e->ts_ns < r->t_ns &&
				 (uint32_t)e->pid == r->read.pid;
		}
		cr_assert(inside,
			  "FUSE_READ of pages [%" PRIu64 ", %" PRIu64
			  "] (pid %u) in no ra_unbounded batch",
			  first, last, r->read.pid);
		batches++;
	}
	harness_log_free(&log);
	cr_assert_gt(batches, 8);

	cr_assert_eq(tracer_stop(tracer, &st), 0);
	tracer = NULL;
	cr_assert_eq(st.bad, 0);
	cr_assert_eq(st.lost, 0);
	cr_assert_eq(st.late, 0);
	cr_assert_eq(st.events, got.n);
	/* The instance, with all it enabled, is gone. */
	cr_assert_neq(access(inst, F_OK), 0, "%s still exists", inst);
	cr_assert_eq(errno, ENOENT);
}

Test(trace, global_buffer_untouched)
{
	static const char *const files[] = {
		"events/readahead/enable",
		"events/filemap/enable",
		"events/readahead/page_cache_sync_ra/filter",
		"events/filemap/mm_filemap_fault/filter",
		"trace_clock",
		"tracing_on",
	};
	char *before[6], *after[6], path[256];
	struct mount_entry me;
	unsigned i;

	require_tracing();
	cr_assert(mountinfo_find("/", &me));
	tracer = start_on(me.dev, 0);
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), TRACEFS_DEFAULT "/%s", files[i]);
		before[i] = read_text(path);
	}
	cr_assert_eq(tracer_stop(tracer, NULL), 0);
	tracer = NULL;
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), TRACEFS_DEFAULT "/%s", files[i]);
		after[i] = read_text(path);
		cr_assert_str_eq(before[i], after[i], "%s changed", files[i]);
		free(before[i]);
		free(after[i]);
	}
}

Test(trace, stale_instance_is_removed)
{
	char stale[256], path[320], *text, desc[2048];

	require_tracing();
	snprintf(stale, sizeof(stale), TRACEFS_DEFAULT "/instances/%s",
		 STALE_NAME);
	/* What a SIGKILLed daemon leaves: an instance with an event on. */
	tracefs_instance_remove(TRACEFS_DEFAULT, STALE_NAME);
	if (mkdir(stale, 0750) != 0)
		tracer_failed(strerror(errno));
	snprintf(path, sizeof(path),
		 "%s/events/filemap/mm_filemap_fault/enable", stale);
	cr_assert_eq(tracefs_write(stale,
				   "events/filemap/mm_filemap_fault/enable",
				   "1"),
		     0);
	text = read_text(path);
	cr_assert_eq(text[0], '1');
	free(text);

	tracer = start_on(makedev(0, 1), 0);
	cr_assert_neq(access(stale, F_OK), 0, "%s was not removed", stale);
	tracer_describe(tracer, desc, sizeof(desc));
	cr_assert(strstr(desc, "removed " STALE_NAME), "describe: %s", desc);
	cr_assert_eq(tracer_stop(tracer, NULL), 0);
	tracer = NULL;
}

Test(trace, without_root_fails_with_reason)
{
	struct tracer_options o = { 0 };
	char why[512] = "", inst[256];
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	require_tracing();
	own_instance(inst, sizeof(inst));
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct tracer *t;

		close(pipefd[0]);
		if (setresgid(65534, 65534, 65534) || setgroups(0, NULL) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		o.dev_minor = 1;
		o.fn = on_event;
		o.arg = &got;
		t = tracer_start(&o, why, sizeof(why));
		if (write(pipefd[1], why, strlen(why)) < 0)
			_exit(4);
		if (t) {
			tracer_stop(t, NULL);
			_exit(1);
		}
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], why, sizeof(why) - 1);
	close(pipefd[0]);
	why[n > 0 ? n : 0] = '\0';
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child status %#x, reason \"%s\"", status, why);
	cr_assert(strstr(why, "needs root"), "reason: \"%s\"", why);
	cr_log_info("without root: %s", why);
	/* The child left no instance (it could create none). */
	snprintf(inst, sizeof(inst), TRACEFS_DEFAULT "/instances/testfs-%d",
		 (int)pid);
	cr_assert_neq(access(inst, F_OK), 0);
}

/*
 * Runs tracer_start() in a child with tracefs unmounted in a private
 * mount namespace (the machine's tracefs mount is never touched), as
 * root or as nobody. Returns the child's exit code (3: no namespace) and
 * the reason in @why.
 */
static int start_without_tracefs(bool as_root, char *why, size_t len)
{
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct tracer_options o = { 0 };
		struct tracer *t;
		int code = 0;

		close(pipefd[0]);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(3);
		umount2("/sys/kernel/debug", MNT_DETACH);
		while (umount2(TRACEFS_DEFAULT, MNT_DETACH) == 0)
			;
		if (tracefs_is_tracefs(TRACEFS_DEFAULT))
			_exit(4);
		if (!as_root &&
		    (setresgid(65534, 65534, 65534) || setgroups(0, NULL) ||
		     setresuid(65534, 65534, 65534)))
			_exit(9);
		o.dev_minor = 1;
		o.fn = on_event;
		o.arg = &got;
		t = tracer_start(&o, why, len);
		if (!t)
			code = 5;
		else if (!tracefs_is_tracefs(TRACEFS_DEFAULT))
			code = 6;
		if (tracer_stop(t, NULL))
			code = 7;
		if (write(pipefd[1], why, strlen(why)) < 0)
			code = 8;
		_exit(code);
	}
	close(pipefd[1]);
	n = read(pipefd[0], why, len - 1);
	close(pipefd[0]);
	why[n > 0 ? n : 0] = '\0';
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "child status %#x", status);
	cr_assert(tracefs_is_tracefs(TRACEFS_DEFAULT),
		  "the machine's tracefs mount was affected");
	if (WEXITSTATUS(status) == 3)
		cr_skip_test("no private mount namespace here");
	return WEXITSTATUS(status);
}

/* Without tracefs mounted the tracer mounts it, as root. */
Test(trace, mounts_tracefs_when_missing)
{
	char why[512] = "";
	int code;

	require_tracing();
	code = start_without_tracefs(true, why, sizeof(why));
	cr_assert_eq(code, 0, "child exit %d, reason \"%s\"", code, why);
}

/* ... and says so when it cannot. */
Test(trace, no_tracefs_without_root_fails_with_reason)
{
	char why[512] = "";
	int code;

	require_tracing();
	code = start_without_tracefs(false, why, sizeof(why));
	cr_assert_eq(code, 5, "child exit %d, reason \"%s\"", code, why);
	cr_assert(strstr(why, "tracefs is not mounted") &&
			  strstr(why, "needs root"),
		  "reason: \"%s\"", why);
}

/*
 * The reader keeps up with 200k events/s: one CPU reads cached pages of
 * the mount as fast as it is told, one mm_filemap_get_pages each, the
 * tracer reads on the other. Nothing may be lost.
 */
Test(trace, keeps_up_with_200k_events_per_second)
{
	const uint64_t rate = 200000, seconds = 1;
	struct tracer_stats st;
	uint64_t n = 0, start, now, ino, count = 0;
	char b;
	size_t i;
	dev_t dev;
	int fd;

	require_tracing();
	dev = mount_big();
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	for (i = 0; i < 64; i++)
		cr_assert_eq(pread(fd, &b, 1, (off_t)i * PAGE), 1);
	ino = harness_ino(harness_path(&mnt, "big.bin"));
	tracer = start_on(dev, 0);
	/* Only mm_filemap_get_pages fires for reads of cached pages. */
	start = clock_now_ns();
	do {
		now = clock_now_ns();
		while (n < (now - start) * rate / 1000000000u) {
			if (pread(fd, &b, 1, (off_t)(n % 64) * PAGE) != 1)
				cr_assert_fail("pread: %s", strerror(errno));
			n++;
		}
	} while (now - start < seconds * 1000000000u);
	close(fd);
	cr_assert_eq(tracer_flush(tracer, 5000), 0);
	now = clock_now_ns();
	cr_assert_eq(tracer_stop(tracer, &st), 0);
	tracer = NULL;
	for (i = 0; i < got.n; i++)
		if (got.ev[i].kind == TRACE_GET_PAGES && got.ev[i].ino == ino)
			count++;
	/* For the test log: what the reader sustained. */
	fprintf(stderr,
		"trace_live: %" PRIu64 " reads, %" PRIu64 " events in %.3f s "
		"(%.0f/s); %" PRIu64 " pages in %" PRIu64 " reads, %" PRIu64
		" rounds, lost %" PRIu64 "\n",
		n, st.events, (double)(now - start) / 1e9,
		(double)st.events * 1e9 / (double)(now - start), st.pages,
		st.reads, st.wakeups, st.lost);
	cr_assert_eq(st.lost, 0, "%" PRIu64 " events lost", st.lost);
	cr_assert_eq(count, n,
		     "%" PRIu64 " get_pages events for %" PRIu64 " reads",
		     count, n);
}

/*
 * A few events, far below the buffers' watermark (the instance's
 * buffer_percent, 50), still reach the callback without a flush: the
 * reader also reads every 100 ms at most.
 */
Test(trace, events_below_the_watermark_arrive_without_flush)
{
	char inst[512], *pct;
	uint64_t ino, start, count = 0;
	dev_t dev;
	size_t i;
	char b;
	int fd;

	require_tracing();
	dev = mount_big();
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	for (i = 0; i < 8; i++)
		cr_assert_eq(pread(fd, &b, 1, (off_t)i * PAGE), 1);
	ino = harness_ino(harness_path(&mnt, "big.bin"));
	tracer = start_on(dev, 0);
	snprintf(inst, sizeof(inst), "%s/buffer_percent",
		 tracer_instance(tracer));
	pct = harness_read_file(inst, NULL);
	cr_assert(pct && atoi(pct) == 50, "buffer_percent: %s",
		  pct ? pct : strerror(errno));
	free(pct);
	/* Cached pages: one mm_filemap_get_pages each, nothing else. */
	for (i = 0; i < 8; i++)
		cr_assert_eq(pread(fd, &b, 1, (off_t)i * PAGE), 1);
	close(fd);
	/* No flush: the period delivers them (generous for a busy CI). */
	start = clock_now_ns();
	while (count < 8 && clock_now_ns() - start < 20000000000ull) {
		usleep(10000);
		count = 0;
		pthread_mutex_lock(&got.lock);
		for (i = 0; i < got.n; i++)
			if (got.ev[i].kind == TRACE_GET_PAGES &&
			    got.ev[i].ino == ino)
				count++;
		pthread_mutex_unlock(&got.lock);
	}
	cr_assert_eq(count, 8, "%" PRIu64 " of 8 events without a flush",
		     count);
	fprintf(stderr, "trace_live: 8 events without a flush in %.3f s\n",
		(double)(clock_now_ns() - start) / 1e9);
	cr_assert_eq(tracer_stop(tracer, NULL), 0);
	tracer = NULL;
}
