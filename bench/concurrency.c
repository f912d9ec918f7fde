// SPDX-License-Identifier: MIT
/*
 * concurrency: throughput with 1, 4 and 16 concurrent readers, testfs
 * against the minimal FUSE server (one thread and several) and tmpfs,
 * every system measured next to the others in one run.
 *
 *   build/bench/concurrency [--rounds N] [--size MIB] [--threads N] [--raw]
 *                           [--pattern P] [--daemon-arg ARG]...
 *
 * Systems, each serving one file of SIZE MiB (default 256):
 *   testfs --threads 1   build/src/testfs ($TESTFS_BIN), stamp content
 *                        (--pattern: zero or random instead), its
 *                        defaults otherwise: the read log on, kernel tracing
 *                        on (root with tracefs);
 *   testfs --threads N   the same with N request threads (--threads, 4 by
 *                        default: on 2 CPUs one thread waits in read(2) of
 *                        /dev/fuse while the others answer, so 3 keep both
 *                        CPUs busy and the 4th covers a thread that is
 *                        preempted on a loaded machine);
 *   testfs --transport uring  the same, FUSE over io_uring, when the daemon
 *                        offers the option (its --help names it) and starts
 *                        with it; otherwise reported as skipped, with why;
 *   minimal 1 thread     bench/minimal_server ($MINIMAL_SERVER): libfuse
 *                        lowlevel, fuse_session_loop(), zeros from a static
 *                        buffer, keep_cache: the least a FUSE server does
 *                        for a read (no log, no generated data);
 *   minimal N threads    the same on libfuse's fuse_session_loop_mt(), at
 *                        most N threads (the same N as testfs);
 *   tmpfs                a file on a private tmpfs (detached at once, so it
 *                        goes away with this process): the ceiling, reads
 *                        of pages that are in the page cache.
 *
 * Workloads: R readers (1, 4, 16; threads of this process) each open the
 * file afresh (fresh readahead state) and read their own 1/R of it in
 * order with pread() of 1 MiB or 4 KiB. The clock runs from the moment
 * all readers have opened the file (a barrier) to the end of the last
 * read; MB/s = file size / that time (10^6 bytes per second).
 * read_ahead_kb is the kernel's default (128) on every FUSE mount.
 *
 * Cold data, the same way for every system: before every run the whole
 * file is evicted with posix_fadvise(POSIX_FADV_DONTNEED) and mincore()
 * must show no page of it cached (tried up to 50 times, 20 ms apart;
 * otherwise the run is left out and reported). The daemons keep their
 * files' cache (keep_cache), so nothing else refills or drops it. A tmpfs
 * file cannot be evicted (the page cache is its storage), so its runs
 * get the same step and check instead that every page is cached: tmpfs
 * is never cold and measures the page-cache copy path alone.
 *
 * Order: one warm-up round (not counted), then N rounds (7 by default).
 * In a round every workload runs on every system before the next
 * workload starts, so the systems alternate (ABCABC, not AAA BBB), in
 * forward order in even rounds and backward in odd ones; load that
 * drifts during the run hits all systems alike. The report gives per
 * cell the median over the rounds (min..max), and for testfs the median
 * (min..max) of the per-round ratios to the baseline of the same round:
 * minimal 1 thread for one reader, and for 4 and 16 readers the faster
 * minimal server of that round. Each target of the project's issue 17 is
 * printed as PASS or FAIL with that ratio:
 *   1 reader, 1 MiB and 4 KiB reads: testfs >= 1.0x minimal 1 thread;
 *   4 and 16 readers: testfs >= 1.0x the best minimal server.
 *
 * Needs root (mounts); exits 77 without it. Time limits: 10 s for a
 * server to start, 120 s per run; when one is exceeded, and on SIGINT,
 * SIGTERM and SIGHUP, the servers are stopped before this program ends
 * (they also unmount when it dies: testfs --watch-pid, the minimal
 * server's auto_unmount and PR_SET_PDEATHSIG). --raw prints every run on
 * stderr; --daemon-arg ARG is passed to every testfs (--no-trace, ...). Exit
 * status: 0 when it ran (whatever the targets say), 1 when it could not run, 2
 * on a bad command line, 128 + the signal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "fuse_reads.h"

#define MAX_ROUNDS 31
#define NREADERS 3
#define NBLOCKS 2
#define RUN_LIMIT_S 120
#define MAX_READERS 16

enum sys_id { T_ONE, T_MANY, T_URING, M_ONE, M_MANY, TMPFS, NSYS };

static const unsigned readers_of[NREADERS] = { 1, 4, MAX_READERS };
static const size_t block_of[NBLOCKS] = { 1u << 20, 4096 };
static const char *const block_name[NBLOCKS] = { "1 MiB", "4 KiB" };

struct sys {
	char name[48];
	const char *skip; /* why it is not measured, or NULL */
	volatile pid_t pid;
	char dir[128];
	char file[192];
	dev_t dev; /* the mount's st_dev (FUSE systems) */
};

static struct sys systems[NSYS];
static uint64_t file_size;
static bool raw;
/* --pattern: testfs's content (stamp, zero or random). */
static const char *pattern = "stamp";
static struct fuse_reads counter;
static bool counting;
/* --daemon-arg: passed to every testfs (at most MAX_DAEMON_ARGS). */
#define MAX_DAEMON_ARGS 8
static const char *daemon_args[MAX_DAEMON_ARGS];
static unsigned n_daemon_args;

/* Stops every server; async-signal-safe (the watchdog and signals). */
static void kill_servers(void)
{
	int k;

	for (k = 0; k < NSYS; k++)
		if (systems[k].pid > 0)
			kill(systems[k].pid, SIGTERM);
}

static void on_signal(int sig)
{
	static const char msg[] = "concurrency: stopped, servers told to "
				  "unmount\n";
	static const char late[] = "concurrency: a run took longer than 120 "
				   "s, servers told to unmount\n";

	kill_servers();
	/* rmdir(2) removes the tracefs instance, events and all. */
	if (counter.dir[0])
		rmdir(counter.dir);
	if (sig == SIGALRM) {
		(void)!write(2, late, sizeof(late) - 1);
		_exit(1);
	}
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(128 + sig);
}

/* Runs @argv (@FD: the write end of the ready pipe) until it says ready. */
static int start(struct sys *s, const char *const argv[], char *why,
		 size_t why_len)
{
	int pfd[2], ws;
	char buf[8];
	struct pollfd p;

	if (pipe(pfd))
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		const char *a[32];
		char fd[16];
		int i, null = open("/dev/null", O_WRONLY);

		close(pfd[0]);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* The uring probe may fail: its reason goes to why, not here.
		 */
		if (why && null >= 0)
			dup2(null, 2);
		snprintf(fd, sizeof(fd), "%d", pfd[1]);
		for (i = 0; argv[i] && i < 31; i++)
			a[i] = strcmp(argv[i], "@FD") ? argv[i] : fd;
		a[i] = NULL;
		execv(a[0], (char *const *)a);
		_exit(127);
	}
	close(pfd[1]);
	p.fd = pfd[0];
	p.events = POLLIN;
	if (poll(&p, 1, 10000) != 1 || read(pfd[0], buf, sizeof(buf)) <= 0) {
		close(pfd[0]);
		if (why)
			snprintf(why, why_len, "it did not start");
		else
			fprintf(stderr, "concurrency: %s did not start\n",
				s->name);
		kill(s->pid, SIGTERM);
		waitpid(s->pid, &ws, 0);
		s->pid = 0;
		return -1;
	}
	close(pfd[0]);
	return 0;
}

static void stop(struct sys *s)
{
	int i, ws;

	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		for (i = 0; i < 100; i++) {
			if (waitpid(s->pid, &ws, WNOHANG) == s->pid)
				break;
			usleep(100000);
		}
		if (i == 100) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &ws, 0);
		}
		s->pid = 0;
	}
	if (s->dir[0])
		rmdir(s->dir);
}

/*
 * Evicts the file and checks with mincore() that none of it is cached;
 * for tmpfs, that all of it is. Returns false if that cannot be reached.
 */
static bool prepare(const struct sys *s, bool want_cached)
{
	size_t pages = file_size / 4096, i;
	int fd = open(s->file, O_RDONLY), tries;
	unsigned char *vec = malloc(pages);
	void *map = MAP_FAILED;
	bool ok = false;

	if (fd >= 0)
		map = mmap(NULL, file_size, PROT_READ, MAP_SHARED, fd, 0);
	for (tries = 0; map != MAP_FAILED && vec && tries < 50 && !ok;
	     tries++) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		ok = mincore(map, file_size, vec) == 0;
		for (i = 0; ok && i < pages; i++)
			ok = (vec[i] & 1) == want_cached;
		if (!ok)
			usleep(20000);
	}
	if (map != MAP_FAILED)
		munmap(map, file_size);
	free(vec);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Readers wait at the gate until all of them have opened the file. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned waiting;
	bool open;
};

struct reader {
	const char *path;
	uint64_t off, len;
	size_t block;
	struct gate *gate;
	uint64_t end_ns;
	int err;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char *buf = malloc(r->block);
	uint64_t done = 0;
	int fd = open(r->path, O_RDONLY);

	r->err = fd < 0 || !buf;
	pthread_mutex_lock(&r->gate->lock);
	r->gate->waiting++;
	pthread_cond_broadcast(&r->gate->cond);
	while (!r->gate->open)
		pthread_cond_wait(&r->gate->cond, &r->gate->lock);
	pthread_mutex_unlock(&r->gate->lock);
	while (!r->err && done < r->len) {
		ssize_t n = pread(fd, buf, r->block, (off_t)(r->off + done));

		if (n <= 0)
			r->err = 1;
		done += n > 0 ? (uint64_t)n : 0;
	}
	r->end_ns = bench_now_ns();
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/*
 * MB/s, or a negative value when the run could not be made. The clock
 * starts before the gate opens (on 2 CPUs the readers would otherwise
 * run before this thread could read the clock) and stops at the end of
 * the last reader's last read.
 */
static double run(const struct sys *s, bool is_tmpfs, unsigned nreaders,
		  size_t block)
{
	struct gate gate = { PTHREAD_MUTEX_INITIALIZER,
			     PTHREAD_COND_INITIALIZER, 0, false };
	struct reader r[MAX_READERS];
	pthread_t th[MAX_READERS];
	uint64_t t0, t1 = 0, share = file_size / nreaders;
	unsigned i;
	int err = 0;

	if (!prepare(s, is_tmpfs))
		return -1;
	alarm(RUN_LIMIT_S);
	for (i = 0; i < nreaders; i++) {
		r[i] = (struct reader){ s->file, i * share, share, block,
					&gate,	 0,	    0 };
		if (pthread_create(&th[i], NULL, reader_main, &r[i])) {
			fprintf(stderr, "concurrency: cannot start readers\n");
			kill_servers();
			exit(1);
		}
	}
	pthread_mutex_lock(&gate.lock);
	while (gate.waiting < nreaders)
		pthread_cond_wait(&gate.cond, &gate.lock);
	t0 = bench_now_ns();
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
	for (i = 0; i < nreaders; i++) {
		pthread_join(th[i], NULL);
		err |= r[i].err;
		if (r[i].end_ns > t1)
			t1 = r[i].end_ns;
	}
	alarm(0);
	if (err)
		return -1;
	return (double)file_size / ((double)(t1 - t0) / 1e9) / 1e6;
}

/*
 * CPU time (ns) and times scheduled in, summed over the threads of @pid
 * (/proc/PID/task/TID/schedstat: run time, wait time, timeslices).
 */
static void sched_totals(pid_t pid, uint64_t *cpu_ns, uint64_t *slices)
{
	char path[320], line[128];
	struct dirent *d;
	DIR *dir;

	*cpu_ns = *slices = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		unsigned long long run, wait, n;
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
			 (int)pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%llu %llu %llu", &run, &wait, &n) == 3) {
			*cpu_ns += run;
			*slices += n;
		}
		fclose(f);
	}
	closedir(dir);
}

static void loadavg(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "re");

	snprintf(buf, len, "?");
	if (f) {
		double a, b, c;

		if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
			snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
		fclose(f);
	}
}

/* Does the daemon's --help name --transport (with uring)? */
static bool testfs_has_uring(const char *testfs)
{
	char cmd[PATH_MAX + 32], line[512];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --help 2>&1", testfs);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "--transport") && strstr(line, "uring"))
			found = true;
	pclose(p);
	return found;
}

/* A private tmpfs with the file, detached at once: see the top. */
static int make_tmpfs(struct sys *s)
{
	char templ[] = "/tmp/testfs-bench-conc-tmpfs.XXXXXX", opts[64];
	uint64_t done = 0;
	char *buf = calloc(1, MIB);
	int fd = -1, err = -1;

	if (!buf || !mkdtemp(templ))
		goto out;
	snprintf(opts, sizeof(opts), "size=%llum,mode=0700",
		 (unsigned long long)(file_size / MIB + 16));
	if (mount("testfs-bench-conc", templ, "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, opts)) {
		fprintf(stderr, "concurrency: mount tmpfs on %s: %s\n", templ,
			strerror(errno));
		rmdir(templ);
		goto out;
	}
	snprintf(s->file, sizeof(s->file), "%s/f.bin", templ);
	fd = open(s->file, O_RDWR | O_CREAT | O_EXCL, 0600);
	/* Not all zeros: tmpfs would keep those too, but be fair anyway. */
	memset(buf, 0x5a, MIB);
	while (fd >= 0 && done < file_size && write(fd, buf, MIB) == MIB)
		done += MIB;
	if (done == file_size)
		err = 0;
	else
		fprintf(stderr, "concurrency: writing the tmpfs file failed\n");
	umount2(templ, MNT_DETACH);
	rmdir(templ);
	/* Runs open the file afresh through this descriptor. */
	snprintf(s->file, sizeof(s->file), "/proc/%d/fd/%d", (int)getpid(), fd);
out:
	free(buf);
	return err;
}

static int start_all(const char *testfs, const char *minimal, unsigned threads)
{
	char file_arg[64], watch[16], size_m[32], nthr[16], why[128];
	unsigned k;

	snprintf(file_arg, sizeof(file_arg), "f.bin:%lluM:%s",
		 (unsigned long long)(file_size / MIB), pattern);
	snprintf(size_m, sizeof(size_m), "%lluM",
		 (unsigned long long)(file_size / MIB));
	snprintf(watch, sizeof(watch), "%d", (int)getpid());
	snprintf(nthr, sizeof(nthr), "%u", threads);
	snprintf(systems[T_ONE].name, 48, "testfs --threads 1");
	snprintf(systems[T_MANY].name, 48, "testfs --threads %u", threads);
	snprintf(systems[T_URING].name, 48, "testfs --transport uring");
	snprintf(systems[M_ONE].name, 48, "minimal 1 thread");
	snprintf(systems[M_MANY].name, 48, "minimal %u threads", threads);
	snprintf(systems[TMPFS].name, 48, "tmpfs");
	for (k = 0; k < TMPFS; k++) {
		snprintf(systems[k].dir, sizeof(systems[k].dir),
			 "/tmp/testfs-bench-conc.%d.%u", (int)getpid(), k);
		if (mkdir(systems[k].dir, 0755)) {
			fprintf(stderr, "concurrency: mkdir %s: %s\n",
				systems[k].dir, strerror(errno));
			return -1;
		}
		snprintf(systems[k].file, sizeof(systems[k].file), "%s/%s",
			 systems[k].dir, k < M_ONE ? "f.bin" : "zero.bin");
	}
	for (k = 0; k < M_ONE; k++) {
		const char *th_opt = k == T_URING ? "--transport" : "--threads";
		const char *th_val = k == T_URING ? "uring"
				     : k == T_ONE ? "1"
						  : nthr;
		const char *a[] = { testfs,	  "-f",	    "-q",
				    "--ready-fd", "@FD",    "--watch-pid",
				    watch,	  "--file", file_arg,
				    th_opt,	  th_val,   systems[k].dir,
				    NULL };

		if (k == T_URING && !testfs_has_uring(testfs)) {
			systems[k].skip = "testfs has no --transport uring";
			continue;
		}
		if (start(&systems[k], a, k == T_URING ? why : NULL,
			  sizeof(why))) {
			if (k != T_URING)
				return -1;
			systems[k].skip = "testfs --transport uring did not "
					  "start (is enable_uring set?)";
		}
	}
	for (k = M_ONE; k <= M_MANY; k++) {
		const char *a[] = { minimal,	    "-f",
				    "--size",	    size_m,
				    "--threads",    k == M_ONE ? "1" : nthr,
				    "--fill",	    "memset",
				    "--ready-fd",   "@FD",
				    systems[k].dir, NULL };

		if (start(&systems[k], a, NULL, 0))
			return -1;
	}
	for (k = 0; k < TMPFS; k++) {
		struct stat st;

		if (!systems[k].skip && stat(systems[k].dir, &st) == 0)
			systems[k].dev = st.st_dev;
	}
	return make_tmpfs(&systems[TMPFS]);
}

static double mbs[NSYS][NREADERS][NBLOCKS][MAX_ROUNDS];
/* The server's CPU ms and times scheduled in per run (FUSE systems). */
static double cpu_ms[NSYS][NREADERS][NBLOCKS][MAX_ROUNDS];
static double switches[NSYS][NREADERS][NBLOCKS][MAX_ROUNDS];
/* FUSE_READs of each run, -1 when not counted (see fuse_reads.h). */
static double nreads[NSYS][NREADERS][NBLOCKS][MAX_ROUNDS];
static double ratio[NSYS][NREADERS][NBLOCKS][MAX_ROUNDS];
static double load1[MAX_ROUNDS];

static bool measured(unsigned k)
{
	return !systems[k].skip;
}

/* Baseline of a cell in one round: see the top. */
static double baseline(unsigned w, unsigned b, unsigned r)
{
	double one = mbs[M_ONE][w][b][r], many = mbs[M_MANY][w][b][r];

	if (readers_of[w] == 1)
		return one;
	return many > one ? many : one;
}

/* Median (min..max) of v[0..n), n <= MAX_ROUNDS; false if a run failed. */
static bool summary(const double *v, unsigned n, double *med, double *lo,
		    double *hi)
{
	double c[MAX_ROUNDS];
	unsigned i;

	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return false;
		c[i] = v[i];
	}
	*med = bench_median(c, n, lo, hi);
	return true;
}

/* The FUSE_READs of system @k's run just made, or -1. */
static double count_reads(unsigned k, bool ran)
{
	uint64_t n;

	if (!counting || k == TMPFS)
		return -1;
	if (fuse_reads_take(&counter, &systems[k].dev, 1, &n) || !ran)
		return -1;
	return (double)n;
}

static void one_round(unsigned round, bool counted)
{
	unsigned w, b, n, k;

	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++)
			for (n = 0; n < NSYS; n++) {
				uint64_t c0, c1, s0, s1;
				double v, reads;

				k = round % 2 ? NSYS - 1 - n : n;
				if (!measured(k))
					continue;
				sched_totals(systems[k].pid, &c0, &s0);
				v = run(&systems[k], k == TMPFS, readers_of[w],
					block_of[b]);
				sched_totals(systems[k].pid, &c1, &s1);
				/* Also after the warm-up: it starts from 0. */
				reads = count_reads(k, v >= 0);
				if (counted) {
					nreads[k][w][b][round] = reads;
					cpu_ms[k][w][b][round] =
						(double)(c1 - c0) / 1e6;
					switches[k][w][b][round] =
						(double)(s1 - s0);
				}
				if (raw)
					fprintf(stderr,
						"concurrency: raw: round %u%s "
						"%u readers %s %s %.0f MB/s\n",
						round + 1,
						counted ? "" : " (warm-up)",
						readers_of[w], block_name[b],
						systems[k].name, v);
				if (counted)
					mbs[k][w][b][round] = v;
			}
}

/* "median (min..max)" of a cell's FUSE_READs, or "-". */
static void print_reads(const double *v, unsigned rounds)
{
	double med, lo, hi;

	if (!summary(v, rounds, &med, &lo, &hi))
		printf("- |");
	else
		printf("%.0f (%.0f..%.0f) | %.0f |", med, lo, hi,
		       (double)file_size / 1024.0 / med);
}

static void report_table(unsigned rounds)
{
	unsigned w, b, k, r;
	double med, lo, hi;

	printf("| readers | read size | system | MB/s median (min..max) | "
	       "vs baseline (min..max) | FUSE_READs (min..max) | KiB per "
	       "FUSE_READ |\n");
	printf("|--:|--:|---|--:|--:|--:|--:|\n");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++)
			for (k = 0; k < NSYS; k++) {
				if (!measured(k))
					continue;
				printf("| %u | %s | %s | ", readers_of[w],
				       block_name[b], systems[k].name);
				if (!summary(mbs[k][w][b], rounds, &med, &lo,
					     &hi)) {
					printf("not measured (a run was not "
					       "cold or failed) | | | |\n");
					continue;
				}
				printf("%.0f (%.0f..%.0f) | ", med, lo, hi);
				if (k >= M_ONE) {
					printf(k == TMPFS ? "| | |\n" : "| ");
					if (k != TMPFS) {
						print_reads(nreads[k][w][b],
							    rounds);
						printf("\n");
					}
					continue;
				}
				for (r = 0; r < rounds; r++)
					ratio[k][w][b][r] = mbs[k][w][b][r] /
							    baseline(w, b, r);
				summary(ratio[k][w][b], rounds, &med, &lo, &hi);
				printf("%.2fx (%.2f..%.2f) | ", med, lo, hi);
				print_reads(nreads[k][w][b], rounds);
				printf("\n");
			}
}

/* Server CPU per run and per request: where a FUSE system's time went. */
static void report_cpu(unsigned rounds)
{
	double per_req[MAX_ROUNDS], sw[MAX_ROUNDS], med, lo, hi;
	unsigned w, b, k, r;
	bool ok;

	printf("\nServer CPU time (all its threads, from schedstat) per run, "
	       "and per FUSE_READ\nwith the times its threads were "
	       "scheduled in per FUSE_READ (medians over\nthe rounds):\n\n");
	printf("| readers | read size | system | CPU ms per run | CPU us per "
	       "FUSE_READ | scheduled in per FUSE_READ |\n");
	printf("|--:|--:|---|--:|--:|--:|\n");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++)
			for (k = 0; k < TMPFS; k++) {
				if (!measured(k))
					continue;
				ok = summary(mbs[k][w][b], rounds, &med, &lo,
					     &hi) &&
				     summary(nreads[k][w][b], rounds, &med, &lo,
					     &hi);
				printf("| %u | %s | %s | ", readers_of[w],
				       block_name[b], systems[k].name);
				if (!ok) {
					printf("- | - | - |\n");
					continue;
				}
				for (r = 0; r < rounds; r++) {
					double n = nreads[k][w][b][r];

					per_req[r] = cpu_ms[k][w][b][r] * 1e3 /
						     (n > 0 ? n : 1);
					sw[r] = switches[k][w][b][r] /
						(n > 0 ? n : 1);
				}
				summary(cpu_ms[k][w][b], rounds, &med, &lo,
					&hi);
				printf("%.0f | ", med);
				summary(per_req, rounds, &med, &lo, &hi);
				printf("%.1f | ", med);
				summary(sw, rounds, &med, &lo, &hi);
				printf("%.2f |\n", med);
			}
}

static void report_targets(unsigned rounds)
{
	unsigned w, b, k, pass = 0, fail = 0;
	double med, lo, hi;

	printf("\nTargets (issue 17): testfs >= 1.0x the baseline, the median "
	       "of the per-round\nratios; baseline: minimal 1 thread for 1 "
	       "reader, the faster minimal server\nof each round for 4 and "
	       "16 readers.\n\n");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++)
			for (k = T_ONE; k <= T_URING; k++) {
				const char *base = readers_of[w] == 1
							   ? "minimal 1 thread"
							   : "best minimal";

				if (!measured(k))
					continue;
				printf("- %2u reader%s, %s: %s / %s: ",
				       readers_of[w],
				       readers_of[w] > 1 ? "s" : "",
				       block_name[b], systems[k].name, base);
				if (!summary(mbs[k][w][b], rounds, &med, &lo,
					     &hi) ||
				    !summary(mbs[M_ONE][w][b], rounds, &med,
					     &lo, &hi) ||
				    !summary(mbs[M_MANY][w][b], rounds, &med,
					     &lo, &hi)) {
					printf("not measured\n");
					fail++;
					continue;
				}
				summary(ratio[k][w][b], rounds, &med, &lo, &hi);
				printf("%.2fx (%.2f..%.2f) %s\n", med, lo, hi,
				       med >= 1.0 ? "PASS" : "FAIL");
				if (med >= 1.0)
					pass++;
				else
					fail++;
			}
	printf("\n%u passed, %u failed.\n", pass, fail);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: concurrency [--rounds N] [--size MIB] [--threads N] "
		"[--raw]\n"
		"                   [--pattern P] [--daemon-arg ARG]...\n"
		"Throughput of 1, 4 and 16 concurrent readers (read(2) of 1 "
		"MiB and 4 KiB, cold)\n"
		"on testfs --threads 1, testfs --threads N, testfs "
		"--transport uring (if the\n"
		"daemon has it), the minimal FUSE server on 1 and N threads "
		"and tmpfs, alternating;\n"
		"prints medians, ratios and PASS/FAIL for issue 17's targets."
		"\n"
		"  --rounds N   counted rounds after one warm-up (1..%d, "
		"default 7)\n"
		"  --size MIB   file size in MiB (16..4096, default 256)\n"
		"  --threads N  N for testfs and the minimal server (2..256, "
		"default 4)\n"
		"  --raw        every run on stderr\n"
		"  --pattern P  testfs's content: stamp (default), zero or "
		"random\n"
		"  --daemon-arg ARG  pass ARG to every testfs (repeatable, "
		"up to %d)\n"
		"Environment: TESTFS_BIN, MINIMAL_SERVER (default: the ones "
		"of this build tree).\n"
		"Needs root; exit 77 without it.\n",
		MAX_ROUNDS, MAX_DAEMON_ARGS);
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, unsigned *rounds,
		      unsigned *size_mib, unsigned *threads)
{
	static const struct {
		const char *name;
		unsigned lo, hi;
	} opt[] = { { "--rounds", 1, MAX_ROUNDS },
		    { "--size", 16, 4096 },
		    { "--threads", 2, 256 } };
	unsigned *val[] = { rounds, size_mib, threads };
	int i;
	unsigned o;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(argv[i], "--raw")) {
			raw = true;
			continue;
		}
		if (!strcmp(argv[i], "--pattern")) {
			if (i + 1 >= argc || (strcmp(argv[i + 1], "stamp") &&
					      strcmp(argv[i + 1], "zero") &&
					      strcmp(argv[i + 1], "random"))) {
				fprintf(stderr, "concurrency: --pattern needs "
						"stamp, zero or random\n");
				return 2;
			}
			pattern = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--daemon-arg")) {
			if (i + 1 >= argc || n_daemon_args == MAX_DAEMON_ARGS) {
				fprintf(stderr,
					"concurrency: --daemon-arg needs an "
					"argument (at most %d of them)\n",
					MAX_DAEMON_ARGS);
				return 2;
			}
			daemon_args[n_daemon_args++] = argv[++i];
			continue;
		}
		for (o = 0; o < 3 && strcmp(argv[i], opt[o].name); o++)
			;
		if (o == 3) {
			fprintf(stderr,
				"concurrency: unknown argument '%s' (try "
				"--help)\n",
				argv[i]);
			return 2;
		}
		if (i + 1 >= argc ||
		    parse_uint(argv[i + 1], opt[o].lo, opt[o].hi, val[o])) {
			fprintf(stderr,
				"concurrency: %s needs a number from %u to "
				"%u\n",
				opt[o].name, opt[o].lo, opt[o].hi);
			return 2;
		}
		i++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *testfs = bench_find_binary("TESTFS_BIN", "../src/testfs");
	char *minimal = bench_find_binary("MINIMAL_SERVER", "minimal_server");
	unsigned rounds = 7, size_mib = 256, threads = 4, round, k;
	struct sigaction sa;
	char la[64], date[64];
	uint64_t t0 = bench_now_ns(), t;
	time_t now = time(NULL);
	int ret = 1, err;

	if (parse_args(argc, argv, &rounds, &size_mib, &threads))
		return 2;
	if (geteuid() != 0) {
		printf("concurrency: skipped: needs root (mounts)\n");
		return 77;
	}
	if (!testfs || !minimal) {
		fprintf(stderr,
			"concurrency: no %s: set TESTFS_BIN and "
			"MINIMAL_SERVER\n",
			testfs ? "minimal server" : "testfs");
		free(testfs);
		free(minimal);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	file_size = (uint64_t)size_mib * MIB;
	bench_progress("concurrency", "starting the servers");
	if (start_all(testfs, minimal, threads))
		goto out;
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	loadavg(la, sizeof(la));
	printf("concurrency: %s, %u rounds after a warm-up, a %u MiB file "
	       "(testfs: %s), read_ahead_kb 128, N = %u\n",
	       date, rounds, size_mib, pattern, threads);
	if (n_daemon_args) {
		printf("testfs runs with");
		for (k = 0; k < n_daemon_args; k++)
			printf(" %s", daemon_args[k]);
		printf("\n");
	}
	printf("load average (1, 5, 15 min) at start: %s\n", la);
	for (k = 0; k < NSYS; k++)
		if (systems[k].skip)
			printf("%s: skipped: %s\n", systems[k].name,
			       systems[k].skip);
	printf("\n");
	fflush(stdout);
	err = fuse_reads_open(&counter);
	counting = err == 0;
	if (!counting)
		printf("FUSE_READ counts: not available (tracefs instance: "
		       "%s)\n",
		       strerror(-err));
	bench_progress("concurrency", "warm-up round");
	one_round(0, false);
	for (round = 0; round < rounds; round++) {
		one_round(round, true);
		loadavg(la, sizeof(la));
		load1[round] = atof(la);
		t = bench_now_ns();
		bench_progress("concurrency",
			       "round %u of %u done, %.0f s so far, about "
			       "%.0f s left, load average %s",
			       round + 1, rounds, (double)(t - t0) / 1e9,
			       (double)(t - t0) / 1e9 / (round + 2) *
				       (rounds - round - 1),
			       la);
	}
	report_table(rounds);
	loadavg(la, sizeof(la));
	printf("\nload average (1, 5, 15 min) at the end: %s; 1-min load "
	       "after each round:",
	       la);
	for (round = 0; round < rounds; round++)
		printf(" %.2f", load1[round]);
	printf("\n");
	if (counting)
		report_cpu(rounds);
	report_targets(rounds);
	printf("\nTotal time %.1f s.\n", (double)(bench_now_ns() - t0) / 1e9);
	ret = 0;
out:
	fuse_reads_close(&counter);
	for (k = 0; k < NSYS; k++)
		stop(&systems[k]);
	free(testfs);
	free(minimal);
	return ret;
}
