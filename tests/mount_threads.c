// SPDX-License-Identifier: MIT
/*
 * --threads 4 (and 1) with 16 concurrent readers: the log stays exact (the
 * pages it says were fetched are the pages the page cache holds, none twice,
 * the data right, nothing lost) and in the kernel's order (the reads'
 * FUSE uniques increase) though the threads read /dev/fuse at once, and
 * every way of ending the daemon still ends all of its request threads
 * with today's exit status.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <testfs/pattern.h>

#include "mount_harness.h"
#include "ra_evict.h"

#define PAGE 4096u
#define READERS 16
#define BIG_PAGES 16384u /* big.bin: 64 MiB */
/* Each reader's share of big.bin: 4 MiB, a multiple of the 1 MiB window. */
#define SHARE (BIG_PAGES / READERS)

static struct tfs_mount mnt;
/* Evictions of big.bin from cold() on: see check_fetched(). */
static struct ra_evictions evictions;

/*
 * --max-pages 32 splits each 1 MiB readahead batch into 8 requests, which
 * the kernel queues together: the threads take them in any order.
 */
static void start_threads(void)
{
	static const char *const args[] = {
		"--file", "big.bin:64M", "--threads", "4", "--ra-kb",
		"1024",	  "--max-pages", "32",	      NULL
	};

	harness_start(&mnt, args);
}

static void stop(void)
{
	ra_evictions_free(&evictions);
	harness_stop_checked(&mnt);
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
 * harness_assert_log_matches_cache() that lets reclaim take pages: a page
 * evicted after a fetch may be fetched again or be missing from the
 * cache. 16 readers with a slow (sanitizer-built) daemon leave pages read
 * ahead long enough for DAMON or kswapd to take some: kdamond evicted the
 * page between its two fetches in 3 of 20 runs with a ThreadSanitizer
 * daemon (tracefs, mm_filemap_delete_from_page_cache).
 */
static size_t check_fetched(const char *name, size_t npages)
{
	struct tfs_log log;
	size_t fetched;

	fetched = harness_assert_log_matches_cache_evicting(
		&mnt, name, npages, ra_evicted_fn, &evictions);
	/* The threads took the requests at once; the log has the kernel's
	 * order all the same. */
	harness_log(&mnt, &log);
	cr_assert_gt(harness_assert_kernel_order(&log), 0);
	harness_log_free(&log);
	return fetched;
}

enum access { ACCESS_PREAD_4K, ACCESS_PREAD_1M, ACCESS_MMAP };

struct reader {
	const char *path;
	enum access how;
	unsigned index;
	/* The first offset whose data was wrong, or UINT64_MAX; -errno. */
	uint64_t bad;
	int err;
};

static void check(struct reader *r, uint64_t off, const void *buf, size_t len)
{
	uint64_t bad = 0;

	if (r->bad == UINT64_MAX &&
	    testfs_verify("stamp", "big.bin", off, buf, len, &bad) != 0)
		r->bad = bad;
}

/* Reads its own share of big.bin, checking every byte. */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint64_t base = (uint64_t)r->index * SHARE * PAGE, off;
	size_t step = r->how == ACCESS_PREAD_1M ? 1u << 20 : PAGE;
	char *buf = NULL, *map;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);

	r->bad = UINT64_MAX;
	if (fd < 0) {
		r->err = -errno;
		return NULL;
	}
	if (r->how == ACCESS_MMAP) {
		map = mmap(NULL, (size_t)SHARE * PAGE, PROT_READ, MAP_SHARED,
			   fd, (off_t)base);
		if (map == MAP_FAILED) {
			r->err = -errno;
		} else {
			for (off = 0; off < (uint64_t)SHARE * PAGE; off += PAGE)
				check(r, base + off, map + off, PAGE);
			munmap(map, (size_t)SHARE * PAGE);
		}
		close(fd);
		return NULL;
	}
	buf = malloc(step);
	for (off = 0; buf && off < (uint64_t)SHARE * PAGE; off += step) {
		ssize_t n = pread(fd, buf, step, (off_t)(base + off));

		if (n != (ssize_t)step) {
			r->err = n < 0 ? -errno : -EIO;
			break;
		}
		check(r, base + off, buf, step);
	}
	free(buf);
	close(fd);
	return NULL;
}

static void run_readers(enum access how)
{
	struct reader r[READERS];
	pthread_t th[READERS];
	unsigned i;

	for (i = 0; i < READERS; i++) {
		r[i] = (struct reader){ harness_path(&mnt, "big.bin"), how, i,
					0, 0 };
		cr_assert_eq(pthread_create(&th[i], NULL, reader_main, &r[i]),
			     0);
	}
	for (i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < READERS; i++) {
		cr_assert_eq(r[i].err, 0, "reader %u: %s", i,
			     strerror(-r[i].err));
		cr_assert_eq(r[i].bad, UINT64_MAX,
			     "reader %u: data differs at offset %llu", i,
			     (unsigned long long)r[i].bad);
	}
}

/*
 * READERS readers of big.bin, cold: every page read while nothing was
 * cached, the log exact and in the kernel's order (check_fetched()).
 */
static void read_all(enum access how)
{
	size_t fetched;

	cold("big.bin");
	run_readers(how);
	fetched = check_fetched("big.bin", BIG_PAGES);
	cr_assert_geq(fetched, BIG_PAGES, "only %zu pages fetched", fetched);
}

static unsigned count_tasks(pid_t pid)
{
	char path[64];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	cr_assert_not_null(d, "%s: %s", path, strerror(errno));
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

TestSuite(threads, .init = start_threads, .fini = stop, .timeout = 120);

Test(threads, config_says_threads)
{
	char path[512], *text;

	snprintf(path, sizeof(path), "%s/.testfs/config", mnt.dir);
	text = harness_read_file(path, NULL);
	cr_assert_not_null(strstr(text, "\"threads\":4,"), "%s", text);
	free(text);
	/* The main thread waits while 4 request threads serve. */
	cr_assert_geq(count_tasks(mnt.pid), 5, "fewer threads than expected");
}

Test(threads, sixteen_sequential_readers_4k)
{
	read_all(ACCESS_PREAD_4K);
}

Test(threads, sixteen_sequential_readers_1m)
{
	read_all(ACCESS_PREAD_1M);
}

Test(threads, sixteen_mmap_readers)
{
	read_all(ACCESS_MMAP);
}

/* Positions are handed out once each: no record lost, none pending. */
Test(threads, log_is_gapless)
{
	struct tfs_log log;
	size_t i;

	cold("big.bin");
	run_readers(ACCESS_PREAD_4K);
	harness_settle(&mnt);
	harness_log(&mnt, &log);
	cr_assert_eq(log.lost, 0);
	cr_assert_gt(log.count, 0);
	for (i = 1; i < log.count; i++)
		cr_assert_eq(log.recs[i].seq, log.recs[i - 1].seq + 1,
			     "seq %llu follows %llu",
			     (unsigned long long)log.recs[i].seq,
			     (unsigned long long)log.recs[i - 1].seq);
	harness_log_free(&log);
}

/* --threads 1: the loop on the main thread, as before threads. */
static void start_one(void)
{
	static const char *const args[] = {
		"--file", "big.bin:64M", "--threads", "1", "--ra-kb",
		"1024",	  "--max-pages", "32",	      NULL
	};

	harness_start(&mnt, args);
}

TestSuite(one_thread, .init = start_one, .fini = stop, .timeout = 120);

Test(one_thread, config_says_one)
{
	char path[512], *text;

	snprintf(path, sizeof(path), "%s/.testfs/config", mnt.dir);
	text = harness_read_file(path, NULL);
	cr_assert_not_null(strstr(text, "\"threads\":1,"), "%s", text);
	free(text);
}

Test(one_thread, sixteen_sequential_readers_4k)
{
	read_all(ACCESS_PREAD_4K);
}

Test(one_thread, sixteen_sequential_readers_1m)
{
	read_all(ACCESS_PREAD_1M);
}

/* ---- ending the daemon while its threads are busy ---- */

struct busy {
	pthread_t th[READERS];
	atomic_bool stop;
	char path[512];
};

/* O_DIRECT: every read reaches the daemon, whatever is cached. */
static void *busy_main(void *arg)
{
	struct busy *b = arg;
	void *buf = NULL;
	unsigned seed = (unsigned)(uintptr_t)pthread_self();
	int fd = open(b->path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0 || posix_memalign(&buf, PAGE, 128u << 10))
		goto out;
	while (!atomic_load(&b->stop))
		if (pread(fd, buf, 128u << 10,
			  (off_t)(rand_r(&seed) % 512) * (128 << 10)) < 0)
			break;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static void busy_start(struct busy *b, struct tfs_mount *m)
{
	unsigned i;

	atomic_store(&b->stop, false);
	snprintf(b->path, sizeof(b->path), "%s/a.bin", m->dir);
	for (i = 0; i < READERS; i++)
		cr_assert_eq(pthread_create(&b->th[i], NULL, busy_main, b), 0);
}

static void busy_stop(struct busy *b)
{
	unsigned i;

	atomic_store(&b->stop, true);
	for (i = 0; i < READERS; i++)
		pthread_join(b->th[i], NULL);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The daemon's exit status, waiting at most 10 s (-1: still running). */
static int wait_daemon(struct tfs_mount *m)
{
	int i, ws;

	for (i = 0; i < 1000; i++) {
		if (waitpid(m->pid, &ws, WNOHANG) == m->pid) {
			m->stopped = true;
			m->status = WIFEXITED(ws) ? WEXITSTATUS(ws)
						  : 128 + WTERMSIG(ws);
			return m->status;
		}
		sleep_ms(10);
	}
	return -1;
}

static const char *const busy_args[] = { "--file", "a.bin:64M", "--threads",
					 "4",	   "--latency", "fixed:200us",
					 NULL };

TestSuite(threads_end, .timeout = 120);

Test(threads_end, sigterm_under_load_exits_0)
{
	struct tfs_mount m;
	struct busy b;
	int status;

	harness_start(&m, busy_args);
	busy_start(&b, &m);
	sleep_ms(300);
	kill(m.pid, SIGTERM);
	status = wait_daemon(&m);
	busy_stop(&b);
	harness_stop(&m);
	cr_assert_eq(status, 0, "exit status %d after SIGTERM", status);
	cr_assert(!harness_is_mounted(m.dir));
}

Test(threads_end, lazy_unmount_under_load_exits_0)
{
	const char *um[] = { "/usr/bin/fusermount3", "-u", "-z", NULL, NULL };
	struct tfs_mount m;
	struct busy b;
	char *out;
	int status, umstatus;

	harness_start(&m, busy_args);
	busy_start(&b, &m);
	sleep_ms(300);
	um[3] = m.dir;
	umstatus = harness_run(um, &out, 10);
	/* The detached mount ends when the readers close their files. */
	busy_stop(&b);
	status = wait_daemon(&m);
	harness_stop(&m);
	cr_assert_eq(umstatus, 0, "fusermount3 -u -z: %s", out);
	free(out);
	cr_assert_eq(status, 0, "exit status %d after a lazy unmount", status);
}

/* --watch-pid: the watched process ends, testfs unmounts and exits 0. */
Test(threads_end, watched_pid_exit_exits_0)
{
	const char *args[] = { "--file",      "a.bin:64M", "--threads",
			       "4",	      "--latency", "fixed:200us",
			       "--watch-pid", NULL,	   NULL };
	struct tfs_mount m;
	char watched[16];
	struct busy b;
	int status, ws;
	pid_t child;

	child = fork();
	cr_assert_neq(child, -1);
	if (child == 0) {
		pause(); /* killed below */
		_exit(0);
	}
	snprintf(watched, sizeof(watched), "%d", (int)child);
	/* After the harness's own --watch-pid: the last one counts. */
	args[7] = watched;
	harness_start(&m, args);
	busy_start(&b, &m);
	sleep_ms(300);
	kill(child, SIGKILL);
	waitpid(child, &ws, 0);
	status = wait_daemon(&m);
	busy_stop(&b);
	harness_stop(&m);
	cr_assert_eq(status, 0, "exit status %d after the watched pid ended",
		     status);
	cr_assert(!harness_is_mounted(m.dir));
}
