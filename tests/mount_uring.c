// SPDX-License-Identifier: MIT
/*
 * --transport uring on the real kernel. Where the kernel takes the ring
 * (Linux 6.14+ with CONFIG_FUSE_IO_URING; testfs sets enable_uring as
 * root), every phase first checks that its reads really came over the
 * ring (.testfs/stats: uring_reads grew by at least the phase's records,
 * dev_reads not at all), then makes the exactness checks of the /dev/fuse
 * tests: the pages the log says were fetched are the pages mincore()
 * shows cached, none fetched twice, the data right. Where the kernel has
 * no ring (Debian's 6.1 and 6.12), the same phases run over /dev/fuse
 * after the fallback, which is checked: .testfs/config says "dev" and
 * why, and a kernel that has the ring but did not take it fails.
 *
 * The uring_threads suites run the same checks with --threads 4, where
 * ceil(4 / queues) threads, each with its own io_uring and share of the
 * entries, serve each queue, and hold more reads on one queue than one
 * thread has entries, so that every thread of the queue holds some.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <testfs/pattern.h>

#include "mount_harness.h"
#include "ra_evict.h"

#define PAGE 4096u
#define BIG_PAGES 16384u /* big.bin: 64 MiB */
#define ENABLE_URING "/sys/module/fuse/parameters/enable_uring"
/* slow.bin's latency: every read of it is answered by the delay queue,
 * so through the queue's commit list, not the queue thread. */
#define SLOW_NS 5000000ull

static struct tfs_mount mnt;
static bool ring; /* the kernel took the ring */
/* Evictions of the file cold() made cold: see check_phase(). */
static struct ra_evictions evictions;

static void start_with(const char *const *args)
{
	char *cfg;

	harness_start(&mnt, args);
	cfg = harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	cr_assert(cfg);
	ring = strstr(cfg, "\"transport\":\"uring\"") != NULL;
	free(cfg);
}

static void start(void)
{
	static const char *const args[] = {
		"--transport", "uring",
		"--ra-kb",     "128",
		"--file",      "big.bin:64M",
		"--file",      "slow.bin:1M",
		"--file",      "bad.bin:64K",
		"--rule",      "file=slow.bin,latency=fixed:5ms",
		"--error",     "file=bad.bin,pages=0-0,errno=EIO",
		NULL,
	};

	start_with(args);
}

/*
 * --threads 4: several threads per queue. max-background 64 lets the
 * kernel send up to HELD_MAX background reads at once (12 by default),
 * and held.bin's reads wait for `resume` (fill_held()).
 */
#define THREADS_ARGS                                                           \
	"--transport", "uring", "--threads", "4", "--max-background", "64",    \
		"--file", "held.bin:32M", "--pause", "file=held.bin"

static void start_threads(void)
{
	static const char *const args[] = {
		THREADS_ARGS,
		"--ra-kb",
		"128",
		"--file",
		"big.bin:64M",
		"--file",
		"slow.bin:1M",
		"--file",
		"bad.bin:64K",
		"--rule",
		"file=slow.bin,latency=fixed:5ms",
		"--error",
		"file=bad.bin,pages=0-0,errno=EIO",
		NULL,
	};

	start_with(args);
}

static void stop(void)
{
	ra_evictions_free(&evictions);
	harness_stop_checked(&mnt);
}

TestSuite(uring, .init = start, .fini = stop, .timeout = 60);
TestSuite(uring_threads, .init = start_threads, .fini = stop, .timeout = 120);

/* A number of .testfs/stats or .testfs/config of @m. */
static uint64_t field_of(struct tfs_mount *m, const char *file, const char *key)
{
	char *s = harness_read_file(harness_path(m, file), NULL), pat[64];
	const char *p;
	uint64_t v;

	cr_assert(s);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(s, pat);
	cr_assert(p, "%s has no %s: %s", file, key, s);
	v = strtoull(p + strlen(pat), NULL, 10);
	free(s);
	return v;
}

static uint64_t field(const char *file, const char *key)
{
	return field_of(&mnt, file, key);
}

struct counts {
	uint64_t dev, uring;
};

static struct counts reads_now(void)
{
	return (struct counts){ field(".testfs/stats", "dev_reads"),
				field(".testfs/stats", "uring_reads") };
}

static void cold(const char *name)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "drop-cache %s", name);
	cr_assert_eq(harness_ctl(&mnt, cmd), 0, "%s failed", cmd);
	cr_assert_eq(harness_ctl(&mnt, "clear"), 0);
	ra_evictions_start_path(&evictions, harness_path(&mnt, name));
}

/*
 * The phase's reads came over the transport in use; the log is exact. A
 * page fetched twice passes only if reclaim evicted it in between (16
 * readers on a busy machine leave pages read ahead long enough for
 * kswapd or DAMON to take some: seen once in a whole-suite run), as in
 * tests/mount_threads.c.
 */
static void check_phase(const char *name, size_t npages, struct counts before)
{
	struct counts after;
	struct tfs_log log;
	size_t recs;
	uint32_t *per = calloc(npages, sizeof(*per));

	harness_settle(&mnt);
	harness_log(&mnt, &log);
	recs = harness_fetch_counts(&log, harness_ino(harness_path(&mnt, name)),
				    per, npages);
	/* Every queue's reads, in the kernel's order. */
	harness_assert_kernel_order(&log);
	harness_log_free(&log);
	free(per);
	cr_assert_gt(recs, 0);
	after = reads_now();
	if (ring) {
		cr_assert_geq(after.uring - before.uring, recs,
			      "%zu reads logged, %" PRIu64 " over the ring",
			      recs, after.uring - before.uring);
		cr_assert_eq(after.dev, before.dev,
			     "%" PRIu64 " reads over /dev/fuse",
			     after.dev - before.dev);
	} else {
		cr_assert_geq(after.dev - before.dev, recs);
		cr_assert_eq(after.uring, 0);
	}
	harness_assert_log_matches_cache_evicting(&mnt, name, npages,
						  ra_evicted_fn, &evictions);
}

static void verify(const char *name, uint64_t off, const void *buf, size_t n)
{
	uint64_t bad = 0;

	cr_assert_eq(testfs_verify("stamp", name, off, buf, n, &bad), 0,
		     "%s: wrong data at %" PRIu64, name, bad);
}

Test(uring, transport_is_reported)
{
	char *cfg;

	if (ring) {
		cr_assert_geq(field(".testfs/config", "uring_queues"), 1);
		cr_assert_eq(field(".testfs/config", "uring_entries"), 32);
		cr_assert_eq(field(".testfs/stats", "dev_reads"), 0);
		return;
	}
	cfg = harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	cr_assert(strstr(cfg, "\"transport\":\"dev\""), "%s", cfg);
	cr_assert(strstr(cfg, "\"transport_requested\":\"uring\""));
	/* The kernel has the ring and testfs is root: it must have been
	 * taken. Otherwise the reason is named. */
	cr_assert(access(ENABLE_URING, F_OK) != 0 || geteuid() != 0,
		  "the kernel has FUSE over io_uring but testfs fell back: %s",
		  cfg);
	cr_assert(strstr(cfg, access(ENABLE_URING, F_OK) != 0
				      ? "no FUSE over io_uring"
				      : "as root"),
		  "%s", cfg);
	free(cfg);
}

static void read_stream(size_t step)
{
	struct counts before;
	char *buf = malloc(step);
	int fd;
	uint64_t off;

	cold("big.bin");
	before = reads_now();
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	for (off = 0; off < (uint64_t)BIG_PAGES * PAGE; off += step) {
		cr_assert_eq(pread(fd, buf, step, (off_t)off), (ssize_t)step);
		verify("big.bin", off, buf, step);
	}
	close(fd);
	free(buf);
	check_phase("big.bin", BIG_PAGES, before);
}

Test(uring, read_4k_stream_is_exact)
{
	read_stream(PAGE);
}

Test(uring, read_1m_stream_is_exact)
{
	read_stream(1u << 20);
}

/* A reader of its own share of big.bin, on one CPU (so one queue). */
struct cpu_reader {
	pthread_t th;
	int cpu;
	uint64_t first, npages;
	size_t step;
	int err;
	uint64_t bad; /* the first wrong offset, or UINT64_MAX */
};

static void *cpu_reader_main(void *arg)
{
	struct cpu_reader *r = arg;
	char *buf = malloc(r->step);
	cpu_set_t set;
	uint64_t off, end = (r->first + r->npages) * PAGE, bad;
	int fd;

	r->bad = UINT64_MAX;
	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		r->err = fd < 0 ? errno : ENOMEM;
		free(buf);
		return NULL;
	}
	for (off = r->first * PAGE; off < end; off += r->step) {
		if (pread(fd, buf, r->step, (off_t)off) != (ssize_t)r->step) {
			r->err = errno ? errno : EIO;
			break;
		}
		if (r->bad == UINT64_MAX &&
		    testfs_verify("stamp", "big.bin", off, buf, r->step,
				  &bad) != 0)
			r->bad = bad;
	}
	close(fd);
	free(buf);
	return NULL;
}

/*
 * Readers on every CPU at once, so every queue takes requests while the
 * others do (the kernel queues a request on its task's CPU): the log is
 * exact and in the kernel's order (check_phase()).
 */
static void read_on_every_cpu(size_t step, unsigned per_cpu)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n, i;
	struct cpu_reader *r;
	struct counts before;

	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > 8)
		ncpu = 8;
	n = (unsigned)ncpu * per_cpu;
	r = calloc(n, sizeof(*r));
	cr_assert(r);
	cold("big.bin");
	before = reads_now();
	for (i = 0; i < n; i++) {
		r[i].cpu = (int)(i % (unsigned)ncpu);
		r[i].npages = BIG_PAGES / n;
		r[i].first = i * r[i].npages;
		r[i].step = step;
		cr_assert_eq(
			pthread_create(&r[i].th, NULL, cpu_reader_main, &r[i]),
			0);
	}
	for (i = 0; i < n; i++)
		pthread_join(r[i].th, NULL);
	for (i = 0; i < n; i++) {
		cr_assert_eq(r[i].err, 0, "reader %u: %s", i,
			     strerror(r[i].err));
		cr_assert_eq(r[i].bad, UINT64_MAX,
			     "reader %u: wrong data at %" PRIu64, i, r[i].bad);
	}
	free(r);
	check_phase("big.bin", BIG_PAGES, before);
}

Test(uring, readers_on_every_queue_4k_in_kernel_order)
{
	read_on_every_cpu(PAGE, 2);
}

Test(uring, readers_on_every_queue_1m_in_kernel_order)
{
	read_on_every_cpu(1u << 20, 4);
}

/* Maps @npages from page @first; @split: alternate 4 MiB VMAs. */
static void read_mapping(uint64_t first, size_t npages, bool split)
{
	struct counts before;
	size_t len = npages * PAGE, i;
	char *map;
	int fd;

	cold("big.bin");
	before = reads_now();
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd,
		   (off_t)(first * PAGE));
	cr_assert_neq(map, MAP_FAILED);
	for (i = 1024; split && i < npages; i += 2048)
		cr_assert_eq(mprotect(map + i * PAGE, 1024 * PAGE,
				      PROT_READ | PROT_WRITE),
			     0);
	for (i = 0; i < npages; i++)
		verify("big.bin", (first + i) * PAGE, map + i * PAGE, PAGE);
	munmap(map, len);
	close(fd);
	check_phase("big.bin", BIG_PAGES, before);
}

Test(uring, mmap_slice_is_exact)
{
	read_mapping(4096, 2048, false);
}

Test(uring, mprotect_split_mapping_is_exact)
{
	read_mapping(0, 8192, true);
}

Test(uring, fadvise_willneed_is_exact)
{
	unsigned char *vec;
	struct counts before;
	size_t i;
	int fd;

	cold("big.bin");
	before = reads_now();
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	/* At most max(io_pages, ra_pages) = 32 pages with --ra-kb 128
	 * (mm/readahead.c force_page_cache_ra()): all of them. */
	cr_assert_eq(posix_fadvise(fd, 8 << 20, 32 * PAGE, POSIX_FADV_WILLNEED),
		     0);
	close(fd);
	check_phase("big.bin", BIG_PAGES, before);
	vec = malloc(BIG_PAGES);
	harness_resident(harness_path(&mnt, "big.bin"), vec, BIG_PAGES);
	for (i = 2048; i < 2048 + 32; i++)
		cr_assert(vec[i] & 1, "page %zu of the advice not cached", i);
	free(vec);
}

static void delays_and_errors(void)
{
	struct counts before;
	struct tfs_log log;
	char buf[PAGE];
	size_t i, slow = 0;
	int fd;

	cold("slow.bin");
	before = reads_now();
	fd = open(harness_path(&mnt, "slow.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	for (i = 0; i < 256; i++) {
		cr_assert_eq(pread(fd, buf, PAGE, (off_t)(i * PAGE)),
			     (ssize_t)PAGE);
		verify("slow.bin", i * PAGE, buf, PAGE);
	}
	close(fd);
	check_phase("slow.bin", 256, before);
	harness_log(&mnt, &log);
	for (i = 0; i < log.count; i++) {
		const struct log_record *r = &log.recs[i];

		if (r->kind != LOG_READ)
			continue;
		cr_assert_eq(r->read.delay_ns, SLOW_NS);
		cr_assert_geq(r->read.done_ns - r->t_ns, SLOW_NS);
		slow++;
	}
	harness_log_free(&log);
	cr_assert_gt(slow, 0);

	cold("bad.bin");
	fd = open(harness_path(&mnt, "bad.bin"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	errno = 0;
	cr_assert_eq(pread(fd, buf, PAGE, 0), -1);
	cr_assert_eq(errno, EIO);
	close(fd);
}

Test(uring, delays_and_errors_reach_the_reader)
{
	delays_and_errors();
}

Test(uring_input, bad_transport_exits_2, .timeout = 30)
{
	const char *const argv[] = { harness_bin(), "--transport", "foo",
				     "/nonexistent", NULL };
	char path[HARNESS_TMP_MAX + 32], *out = NULL;
	const char *const cargv[] = { harness_bin(), "--config", path,
				      "/nonexistent", NULL };
	FILE *f;

	cr_assert_eq(harness_run(argv, &out, 10), 2, "%s", out);
	cr_assert(strstr(out, "--transport 'foo'"), "%s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/testfs-uring-%d.conf",
		 harness_tmp_dir(), (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fputs("transport foo\n", f);
	fclose(f);
	cr_assert_eq(harness_run(cargv, &out, 10), 2, "%s", out);
	unlink(path);
	cr_assert(strstr(out, "transport 'foo'"), "%s", out);
	free(out);
}

/*
 * One SIGTERM while each queue holds a paused read: the daemon answers
 * both (through the delay queue and the rings) and exits 0.
 */
static struct tfs_mount held_mnt;

struct held_reader {
	pthread_t th;
	struct tfs_mount *m;
	const char *name;
	int cpu;
	uint64_t off;
	ssize_t got;
	int err;
	char buf[PAGE];
};

static void *held_main(void *arg)
{
	struct held_reader *r = arg;
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	/* The kernel queues a request on the ring of its task's CPU. */
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	fd = open(harness_path(r->m, r->name), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r->err = errno;
		return NULL;
	}
	r->got = pread(fd, r->buf, PAGE, (off_t)r->off);
	if (r->got < 0)
		r->err = errno;
	close(fd);
	return NULL;
}

static size_t held_now(struct tfs_mount *m)
{
	char *s = harness_read_file(harness_path(m, ".testfs/stats"), NULL);
	const char *p = strstr(s, "\"held\":["), *end;
	size_t n = 0;

	cr_assert(p, "%s", s);
	end = strstr(p, "\"slow\":");
	cr_assert(end, "%s", s);
	while ((p = strstr(p + 1, "\"held_ns\":")) && p < end)
		n++;
	free(s);
	return n;
}

/* Starts @n readers (held until resumed) and waits until all are held. */
static void hold(struct held_reader *r, unsigned n)
{
	unsigned i, tries;

	for (i = 0; i < n; i++)
		cr_assert_eq(pthread_create(&r[i].th, NULL, held_main, &r[i]),
			     0);
	/* A guard against a hang, not a time bound: held within ms. */
	for (tries = 0; held_now(r[0].m) < n && tries < 30000; tries++)
		usleep(1000);
	cr_assert_eq(held_now(r[0].m), n);
}

/* Joins the @n readers: each got its page, and the right data. */
static void held_done(struct held_reader *r, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		pthread_join(r[i].th, NULL);
		cr_assert_eq(r[i].got, (ssize_t)PAGE, "%s at %" PRIu64 ": %s",
			     r[i].name, r[i].off, strerror(r[i].err));
		verify(r[i].name, r[i].off, r[i].buf, PAGE);
	}
}

/* On a failure too: the daemon answers the held reads, the test ends. */
static void stop_held(void)
{
	harness_stop(&held_mnt);
}

TestSuite(uring_stop, .fini = stop_held, .timeout = 60);

Test(uring_stop, sigterm_answers_held_reads_on_every_queue)
{
	static const char *const args[] = {
		"--transport", "uring",	  "--file",  "a.bin:1M", "--file",
		"b.bin:1M",    "--pause", "pages=0", NULL,
	};
	struct held_reader r[2] = {
		{ .m = &held_mnt, .name = "a.bin", .cpu = 0 },
		{ .m = &held_mnt, .name = "b.bin", .cpu = 1 }
	};
	unsigned n = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;

	harness_start(&held_mnt, args);
	hold(r, n);
	cr_assert_eq(harness_stop(&held_mnt), 0);
	held_done(r, n);
}

/* --threads 4 over the ring: the threads per queue, named. */
Test(uring_threads, config_shows_the_threads)
{
	char path[320], comm[32], *cfg;
	uint64_t nq, per;
	unsigned named = 0;
	struct dirent *de;
	DIR *d;
	FILE *f;

	cfg = harness_read_file(harness_path(&mnt, ".testfs/config"), NULL);
	cr_assert(strstr(cfg, "\"threads\":4,"), "%s", cfg);
	cr_assert(!strstr(cfg, "CMD_REGISTER failed"), "%s", cfg);
	free(cfg);
	if (!ring) {
		cr_assert_eq(field(".testfs/config", "uring_threads"), 0);
		return;
	}
	nq = field(".testfs/config", "uring_queues");
	per = field(".testfs/config", "uring_threads");
	cr_assert_geq(nq, 1);
	cr_assert_eq(per, nq >= 4 ? 1 : (4 + nq - 1) / nq);
	/* 32 for a queue's only thread, 4 per thread for several. */
	cr_assert_eq(field(".testfs/config", "uring_entries"),
		     per == 1 ? 32 : 4 * per);
	/* Each thread names itself testfs-uqQ.I. */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)mnt.pid);
	d = opendir(path);
	cr_assert(d, "%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm",
			 (int)mnt.pid, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, "testfs-uq", 9))
			named++;
		fclose(f);
	}
	closedir(d);
	cr_assert_eq(named, nq * per, "%u ring threads, expected %" PRIu64,
		     named, nq * per);
}

/* 8 readers on each CPU: every thread of every queue takes requests. */
Test(uring_threads, readers_on_every_queue_4k_in_kernel_order)
{
	read_on_every_cpu(PAGE, 8);
}

Test(uring_threads, readers_on_every_queue_1m_in_kernel_order)
{
	read_on_every_cpu(1u << 20, 4);
}

/* Positions are handed out once each: no record lost, none pending. */
Test(uring_threads, log_is_gapless)
{
	struct tfs_log log;
	size_t i;

	read_on_every_cpu(PAGE, 8);
	harness_log(&mnt, &log);
	cr_assert_eq(log.lost, 0);
	cr_assert_gt(log.count, 0);
	for (i = 1; i < log.count; i++)
		cr_assert_eq(log.recs[i].seq, log.recs[i - 1].seq + 1,
			     "seq %" PRIu64 " follows %" PRIu64,
			     log.recs[i].seq, log.recs[i - 1].seq);
	harness_log_free(&log);
}

Test(uring_threads, delays_and_errors_reach_the_reader)
{
	delays_and_errors();
}

/*
 * More reads held at once on one queue than one of its threads has
 * entries (4 each), all but 2 of the queue's: the kernel hands the rest
 * to the queue's other threads. The 2 left take this test's own requests
 * (stats, resume) when it runs on that CPU: a queue whose entries all
 * hold a reply takes no new request. All are answered at `resume` (or
 * SIGTERM), the log exact and in the kernel's order. Over /dev/fuse (no
 * ring) 6.
 */
#define HELD_MAX 32 /* held.bin's MiB: one reader per MiB */

static unsigned fill_held(struct tfs_mount *m, struct held_reader *r)
{
	uint64_t n = field_of(m, ".testfs/config", "uring_entries");
	unsigned i;

	if (!n)
		n = 8;
	n -= 2;
	cr_assert_leq(n, HELD_MAX);
	for (i = 0; i < n; i++)
		r[i] = (struct held_reader){ .m = m,
					     .name = "held.bin",
					     .cpu = 0,
					     .off = (uint64_t)i << 20 };
	return (unsigned)n;
}

Test(uring_threads, held_reads_on_every_thread_of_a_queue)
{
	struct held_reader *r = calloc(HELD_MAX, sizeof(*r));
	struct counts before;
	unsigned n;

	cr_assert(r);
	cold("held.bin");
	before = reads_now();
	n = fill_held(&mnt, r);
	hold(r, n);
	cr_assert_eq(harness_ctl(&mnt, "resume"), 0);
	held_done(r, n);
	free(r);
	check_phase("held.bin", 8192, before);
}

/* The same held reads, answered by one SIGTERM: exit 0, no hang. */
TestSuite(uring_threads_stop, .fini = stop_held, .timeout = 60);

Test(uring_threads_stop, sigterm_answers_held_reads_on_every_thread)
{
	static const char *const args[] = { THREADS_ARGS, NULL };
	struct held_reader *r = calloc(HELD_MAX, sizeof(*r));
	unsigned n;

	cr_assert(r);
	harness_start(&held_mnt, args);
	n = fill_held(&held_mnt, r);
	hold(r, n);
	cr_assert_eq(harness_stop(&held_mnt), 0);
	held_done(r, n);
	free(r);
}
