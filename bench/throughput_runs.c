// SPDX-License-Identifier: MIT
/*
 * throughput's runs: the cold state before the clock starts, the timed
 * read(2) and mmap loops, the data check, rounds in alternating order.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pagecache.h"
#include "throughput.h"

struct sample results[NRA][NWORK][NSYS][MAX_ROUNDS];

/* Effective read_ahead_kb per ra block and system (-1 unknown). */
long effective_ra[NRA][NSYS];

/* --raw: print every run as it ends (stderr). */
bool raw;

/* How the cold state was reached, over all FUSE runs. */
struct eviction_counts eviction;

/* Even rounds run this order, odd rounds the reverse. */
static const enum system sys_order[NSYS] = { SYS_STAMP, SYS_MINIMAL, SYS_ZERO,
					     SYS_TMPFS };

/* Pages of @fd in the page cache: cachestat(2), else mincore(). */
static int64_t cached_pages(int fd)
{
	struct pagecache_stat cs;
	unsigned char *vec;
	int64_t n = 0;
	uint64_t i;
	void *p;

	if (!eviction.mincore) {
		int err = pagecache_stat(fd, 0, 0, &cs);

		if (err == 0)
			return (int64_t)cs.nr_cache;
		if (err != -ENOSYS)
			return err;
		eviction.mincore = true;
	}
	/* A fresh mapping faults nothing in; mincore() sees the cache. */
	p = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	vec = malloc(FILE_PAGES);
	if (!vec || mincore(p, FILE_BYTES, vec) != 0) {
		n = vec ? -errno : -ENOMEM;
	} else {
		for (i = 0; i < FILE_PAGES; i++)
			n += vec[i] & 1;
	}
	free(vec);
	munmap(p, FILE_BYTES);
	return n;
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */
/* ------------------------------------------------------------------ */

static int file_path(const struct mounts *m, enum system s, char *buf,
		     size_t size)
{
	switch (s) {
	case SYS_STAMP:
		return testfs_path(m->testfs, "stamp.bin", buf, size);
	case SYS_ZERO:
		return testfs_path(m->testfs, "zero.bin", buf, size);
	case SYS_MINIMAL:
		snprintf(buf, size, "%s/zero.bin", m->minimal);
		return 0;
	default:
		/* A fresh open of the detached tmpfs file. */
		snprintf(buf, size, "/proc/self/fd/%d", m->tmpfs_fd);
		return 0;
	}
}

static pid_t server_pid(const struct mounts *m, enum system s)
{
	if (s == SYS_STAMP || s == SYS_ZERO)
		return testfs_pid(m->testfs);
	return s == SYS_MINIMAL ? m->minimal_pid : 0;
}

/*
 * Brings the file of @fd into the state a run starts from: none of its
 * pages cached (FUSE), or all of them (tmpfs, which cannot be evicted).
 */
static int prepare(const struct mounts *m, enum system s, int fd)
{
	const char *name = s == SYS_STAMP ? "stamp.bin" : "zero.bin";
	int64_t cached = -1;
	unsigned i;
	int err;

	if (s == SYS_TMPFS) {
		cached = cached_pages(fd);
		if (cached != (int64_t)FILE_PAGES)
			return bench_fail(cached < 0 ? (int)cached : -EIO,
					  "tmpfs file has %" PRId64
					  " of %llu pages cached",
					  cached, FILE_PAGES);
		return 0;
	}
	eviction.runs++;
	for (i = 0; i < 100; i++) {
		if (i)
			eviction.retries++;
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (err)
			return bench_fail(err, "posix_fadvise(DONTNEED) on %s",
					  sys_names[s]);
		cached = cached_pages(fd);
		if (cached < 0)
			return bench_fail((int)cached, "cachestat/mincore");
		if (cached == 0)
			return 0;
		/* testfs's own, verified eviction as the last resort. */
		if (i == 20 && s != SYS_MINIMAL) {
			eviction.drop_cache++;
			err = testfs_drop_cache(m->testfs, name);
			if (err && err != -EBUSY)
				return bench_fail(err, "drop-cache %s", name);
		}
		/* Async readahead may still be filling pages; let it. */
		bench_sleep_ms(10);
	}
	return bench_fail(-EBUSY, "%s: %" PRId64 " pages stay cached",
			  sys_names[s], cached);
}

/* Page @k of a fixed shuffle of the file's pages (a bijection). */
static uint64_t shuffled_page(uint64_t k)
{
	return (k * 0x9e3779b1ull + 0x2545full) & (FILE_PAGES - 1);
}

/* Where a SIGBUS in the touch loop goes (a failed FUSE read). */
static sigjmp_buf touch_env;
static volatile sig_atomic_t touching;

void on_sigbus(int sig)
{
	(void)sig;
	/* The watchdog killed the server: let it finish and exit. */
	while (atomic_load(&stopping))
		pause();
	if (touching)
		siglongjmp(touch_env, 1);
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

/* One byte of each of TOUCHES shuffled pages; 0 or -errno. */
static int touch_random(int fd, unsigned *sum)
{
	volatile const unsigned char *p;
	volatile unsigned s = 0;
	volatile int err = 0;
	uint64_t k;
	void *map;

	map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	p = map;
	if (sigsetjmp(touch_env, 1) == 0) {
		touching = 1;
		for (k = 0; k < TOUCHES; k++)
			s += p[shuffled_page(k) * PAGE];
	} else {
		err = -EIO; /* SIGBUS: the page could not be read */
	}
	touching = 0;
	*sum = s;
	if (munmap(map, FILE_BYTES) && !err)
		err = -errno;
	return err;
}

/*
 * Checks a few pages of what was just read, from the page cache, outside
 * the timed loop: a benchmark of wrong data measures nothing.
 */
static int check_data(enum system s, int fd, char *buf)
{
	static const uint64_t pages[] = { 0, FILE_PAGES / 2 + 7,
					  FILE_PAGES - 1 };
	const char *pattern = s == SYS_STAMP ? "stamp" : "zero";
	const char *name = s == SYS_STAMP ? "stamp.bin" : "zero.bin";
	uint64_t bad = 0;
	size_t i;
	ssize_t n;
	int err;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		n = pread(fd, buf, PAGE, (off_t)(pages[i] * PAGE));
		if (n != PAGE)
			return bench_fail(n < 0 ? -errno : -EIO, "pread %s",
					  sys_names[s]);
		err = testfs_verify(pattern, name, pages[i] * PAGE, buf, PAGE,
				    &bad);
		if (err)
			return bench_fail(err,
					  "%s: wrong data at offset %" PRIu64,
					  sys_names[s], bad);
	}
	return 0;
}

static int run_one(const struct mounts *m, enum system s, enum workload w,
		   char *buf, struct sample *out)
{
	const struct workload_def *wd = &workloads[w];
	uint64_t t0, t1, c0, c1, s0, s1;
	pid_t pid = server_pid(m, s);
	char path[PATH_MAX];
	unsigned sum = 0;
	int64_t got = 0;
	int fd, err;

	err = file_path(m, s, path, sizeof(path));
	if (err)
		return bench_fail(err, "path of %s", sys_names[s]);
	/* Everything that can wait for the server has a time limit. */
	set_deadline(RUN_LIMIT_S);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_deadline(0);
		return bench_fail(-errno, "open %s", path);
	}
	err = prepare(m, s, fd);
	if (err)
		goto out;
	s0 = bench_sched_ns(pid, NULL);
	c0 = bench_thread_cpu_ns();
	t0 = bench_now_ns();
	if (wd->block)
		got = bench_read_all(fd, buf, wd->block);
	else
		err = touch_random(fd, &sum);
	t1 = bench_now_ns();
	c1 = bench_thread_cpu_ns();
	s1 = bench_sched_ns(pid, NULL);
	if (wd->block && got != (int64_t)FILE_BYTES) {
		err = bench_fail(got < 0 ? (int)got : -EIO,
				 "%s: read %" PRId64 " of %llu bytes",
				 sys_names[s], got, FILE_BYTES);
		goto out;
	}
	if (err) {
		err = bench_fail(err, "mmap touches on %s", sys_names[s]);
		goto out;
	}
	/* Byte 0 of a stamp page is the 't' of "testfs page N". */
	if (!wd->block && sum != (s == SYS_STAMP ? TOUCHES * 't' : 0)) {
		err = bench_fail(-EILSEQ,
				 "%s: wrong byte at a touched page start",
				 sys_names[s]);
		goto out;
	}
	err = check_data(s, fd, buf);
	if (err)
		goto out;
	out->wall_ns = t1 - t0;
	out->client_ns = c1 - c0;
	out->server_ns = s1 - s0;
	if (wd->block)
		out->value = (double)FILE_BYTES * 1000.0 / (double)out->wall_ns;
	else
		out->value = (double)TOUCHES * 1e6 / (double)out->wall_ns;
out:
	close(fd);
	set_deadline(0);
	return err;
}

/* Every workload on every system once, in the round's order. */
static int run_round(const struct mounts *m, unsigned ra, int round, char *buf)
{
	struct sample scratch;
	struct sample *dst;
	unsigned w, i;
	enum system s;
	int err;

	for (w = 0; w < NWORK; w++) {
		for (i = 0; i < NSYS; i++) {
			s = sys_order[round % 2 ? NSYS - 1 - i : i];
			dst = round < 0 ? &scratch : &results[ra][w][s][round];
			err = run_one(m, s, (enum workload)w, buf, dst);
			if (err)
				return err;
			if (raw)
				fprintf(stderr,
					"raw: ra %u round %d %-12s %-12s "
					"%8.1f %s wall %7.1f ms server "
					"%7.1f ms reader %7.1f ms\n",
					ra_values[ra], round + 1,
					workloads[w].name, sys_names[s],
					dst->value, workloads[w].unit,
					(double)dst->wall_ns / 1e6,
					(double)dst->server_ns / 1e6,
					(double)dst->client_ns / 1e6);
		}
	}
	return 0;
}

int run_ra(struct mounts *m, unsigned ra, int rounds, char *buf)
{
	unsigned kb = ra_values[ra];
	int err, err2, r;

	fprintf(stderr,
		"throughput: read_ahead_kb %u: starting testfs and "
		"the minimal server\n",
		kb);
	err = start_testfs(m, kb);
	if (!err)
		err = start_minimal(m, kb);
	if (err)
		goto out;
	effective_ra[ra][SYS_STAMP] = testfs_ra_kb(m->testfs);
	effective_ra[ra][SYS_ZERO] = effective_ra[ra][SYS_STAMP];
	effective_ra[ra][SYS_MINIMAL] = read_ra_kb(m->minimal);
	fprintf(stderr, "throughput: read_ahead_kb %u: warm-up round\n", kb);
	err = run_round(m, ra, -1, buf);
	for (r = 0; !err && r < rounds; r++) {
		fprintf(stderr,
			"throughput: read_ahead_kb %u: round %d of %d\n", kb,
			r + 1, rounds);
		err = run_round(m, ra, r, buf);
	}
out:
	err2 = stop_minimal(m);
	if (!err)
		err = err2;
	err2 = stop_testfs(m);
	if (!err)
		err = err2;
	return err;
}
