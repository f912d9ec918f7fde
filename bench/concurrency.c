// SPDX-License-Identifier: MIT
/*
 * concurrency: throughput with 1, 4 and 16 concurrent readers, testfs
 * against the minimal FUSE server (one thread and several) and tmpfs,
 * every system measured next to the others in one run.
 *
 *   build/bench/concurrency [--rounds N] [--size MIB] [--threads N] [--raw]
 *                           [--pattern P] [--fill-line] [--no-log]
 *                           [--daemon-arg ARG]...
 *
 * Systems, each serving one file of SIZE MiB (default 256):
 *   testfs --threads 1   build/src/testfs ($TESTFS_BIN), zero content
 *                        (from one buffer written once, as the minimal
 *                        server's: the same work on the data; --pattern
 *                        stamp or random generate every page, about
 *                        300 ns a page, bench/pattern_speed), its
 *                        defaults otherwise: the read log on, written to a
 *                        file as a user's run would (--log, one file per
 *                        testfs in a private directory under /tmp, removed
 *                        at the end; --no-log: none), kernel tracing on
 *                        (root with tracefs);
 *   testfs --threads N   the same with N request threads (--threads, 4 by
 *                        default: on 2 CPUs one thread waits in read(2) of
 *                        /dev/fuse while the others answer, so 3 keep both
 *                        CPUs busy and the 4th covers a thread that is
 *                        preempted on a loaded machine);
 *   testfs --transport uring --threads N  the same, FUSE over io_uring,
 *                        with the same N (ceil(N / queues) threads serve
 *                        each of the kernel's queues, one per CPU; a
 *                        daemon from before that serves each with one),
 *                        when the daemon offers the option (its --help
 *                        names it) and starts with it; otherwise reported
 *                        as skipped, with why;
 *   testfs --threads 1 --no-trace  testfs --threads 1 without kernel
 *                        correlation: what tracing costs (skipped, with
 *                        why, if it does not start);
 *   minimal 1 thread     bench/minimal_server ($MINIMAL_SERVER): libfuse
 *                        lowlevel, fuse_session_loop(), keep_cache,
 *                        replying from a static buffer it already has
 *                        (--fill static), as the smallest real server
 *                        does: no log, no pattern, no work on the data.
 *                        This is the floor testfs is measured against;
 *   minimal N threads    the same on libfuse's fuse_session_loop_mt(), at
 *                        most N threads (the same N as testfs);
 *   minimal 1 thread, memset  with --fill-line only: the minimal server
 *                        memset()ing each reply's bytes first (--fill
 *                        memset), a second line for comparison, never a
 *                        baseline;
 *   tmpfs                a file on a private tmpfs (detached at once, so it
 *                        goes away with this process): the ceiling, reads
 *                        of pages that are in the page cache.
 *
 * Workloads: R readers (1, 4, 16; threads of this process) each open the
 * file afresh (fresh readahead state) and read their own 1/R of it in
 * order with pread() of 1 MiB or 4 KiB. The clock runs from the moment
 * all readers have opened the file (they wait at a gate) to the end of
 * the last read; MB/s = file size / that time (10^6 bytes per second).
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
 * Order: one warm-up round (not counted), then N rounds (9 by default).
 * In a round every workload runs on every system before the next
 * workload starts, so the systems alternate (ABCABC, not AAA BBB), in
 * forward order in even rounds and backward in odd ones; load that
 * drifts during the run hits all systems alike. The report gives per
 * cell the median over the rounds (min..max), and for testfs the median
 * (min..max) of the per-round ratios to the baseline of the same round:
 * the better of the two minimal servers (1 and N threads, static buffer)
 * in that cell, the one with the higher median. (Not the faster of the
 * two in each round: with two servers that do alike, as at one reader,
 * the larger of two noisy figures is above both medians, a baseline no
 * server reaches.) The targets, each printed with its median
 * (min..max) and PASS or FAIL (a benchmark's verdict, never a test's):
 *   /dev/fuse: testfs (tracing on; the better of --threads 1 and N, by
 *     the cell's median, as for the minimal servers) >= 1.00x the best
 *     minimal server, at 1, 4 and 16 readers, 1 MiB and 4 KiB reads;
 *   io_uring: testfs --transport uring --threads N >= 1.00x the better
 *     testfs over /dev/fuse (--threads 1 or N, the higher median) in the
 *     same round at 4
 * and 16 readers, >= 0.95x at 1; server CPU per 128 KiB of data read (the size
 * of a FUSE_READ at read_ahead_kb 128) <= 42 us, for every testfs system and
 * cell; tracing: testfs --threads 1 reads at most 3% slower than with
 *     --no-trace (1 - on/off, per round, the median).
 * --rounds 1 --size 16 is a short run that checks the benchmark works
 * (tests/bench_conc_short.sh); its figures mean nothing.
 *
 * Why a system is where it is: the FUSE_READs of every run, counted from
 * the fuse:fuse_request_send tracepoint in a tracefs instance of this
 * program (fuse_reads.c; the instance adds the same small cost to every
 * FUSE system), and each server's CPU time and wakeups per run from
 * /proc/PID/task/TID/schedstat, per FUSE_READ.
 *
 * Needs root (mounts, tracefs); exits 77 without it. Time limits: 10 s
 * for a server to start, 120 s per run; when one is exceeded, and on
 * SIGINT, SIGTERM and SIGHUP, the servers are stopped before this
 * program ends (they also unmount when it dies: testfs --watch-pid, the
 * minimal server's auto_unmount and PR_SET_PDEATHSIG). --raw prints
 * every run on stderr; --daemon-arg ARG is passed to every testfs
 * (--no-trace, ...). Exit status: 0 when it ran (whatever the targets
 * say), 1 when it could not run, 2 on a bad command line, 128 + the
 * signal.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "conc_run.h"
#include "fuse_reads.h"

#define MAX_ROUNDS 31
#define NREADERS 3
#define NBLOCKS 2

static const unsigned readers_of[NREADERS] = { 1, 4, CONC_MAX_READERS };
static const size_t block_of[NBLOCKS] = { 1u << 20, 4096 };
static const char *const block_name[NBLOCKS] = { "1 MiB", "4 KiB" };

static uint64_t file_size;
static bool raw;
/* --fill-line: the minimal server filling each reply, a second line. */
static bool fill_line;
static bool no_log;
/* --pattern: testfs's content (stamp, zero or random). */
static const char *pattern = "zero";
static struct fuse_reads counter;
static bool counting;
/* --daemon-arg: passed to every testfs (at most CONC_MAX_DAEMON_ARGS). */
static const char *daemon_args[CONC_MAX_DAEMON_ARGS];
static unsigned n_daemon_args;

static void on_signal(int sig)
{
	static const char msg[] = "concurrency: stopped, servers told to "
				  "unmount\n";
	static const char late[] = "concurrency: a run took longer than 120 "
				   "s, servers told to unmount\n";

	conc_kill_servers();
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

static unsigned n_rounds; /* counted rounds */

static bool summary(const double *v, unsigned n, double *med, double *lo,
		    double *hi);

/*
 * Of @a and @b, the one with the higher median MB/s in a cell (@a when
 * @b's runs are incomplete): the better configuration, see the top.
 */
static unsigned better(unsigned a, unsigned b, unsigned w, unsigned bl)
{
	double ma, mb, lo, hi;

	if (!summary(mbs[b][w][bl], n_rounds, &mb, &lo, &hi))
		return a;
	if (!summary(mbs[a][w][bl], n_rounds, &ma, &lo, &hi))
		return b;
	return mb > ma ? b : a;
}

/* In round @r, the MB/s of the better of @a and @b in the cell. */
static double best_of(unsigned a, unsigned b, unsigned w, unsigned bl,
		      unsigned r)
{
	return mbs[better(a, b, w, bl)][w][bl][r];
}

/* Baseline of a cell in one round: the better minimal server's run. */
static double baseline(unsigned w, unsigned b, unsigned r)
{
	return best_of(M_ONE, M_MANY, w, b, r);
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
				c0 = bench_sched_ns(systems[k].pid, &s0);
				v = conc_run(&systems[k], k == TMPFS,
					     readers_of[w], block_of[b]);
				c1 = bench_sched_ns(systems[k].pid, &s1);
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

/*
 * The head of a table with a row per cell and system: the three keys,
 * then @columns (four, each ending in '|'), and the alignment row.
 */
static void table_head(const char *columns)
{
	printf("| readers | read size | system | %s\n", columns);
	printf("|--:|--:|---|--:|--:|--:|--:|\n");
}

/* The keys that start a row of such a table. */
static void row_keys(unsigned w, unsigned b, unsigned k)
{
	printf("| %u | %s | %s | ", readers_of[w], block_name[b],
	       systems[k].name);
}

static void report_table(unsigned rounds)
{
	unsigned w, b, k, r;
	double med, lo, hi;

	table_head("MB/s median (min..max) | vs baseline (min..max) | "
		   "FUSE_READs (min..max) | KiB per FUSE_READ |");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++)
			for (k = 0; k < NSYS; k++) {
				if (!measured(k))
					continue;
				row_keys(w, b, k);
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

/* Median server CPU us per 128 KiB read in a cell, -1 if not measured. */
static double cpu128[NSYS][NREADERS][NBLOCKS];

/* Server CPU per run and per request: where a FUSE system's time went. */
static void report_cpu(unsigned rounds)
{
	double per_req[MAX_ROUNDS], per128[MAX_ROUNDS], sw[MAX_ROUNDS];
	double units = (double)file_size / (128.0 * 1024.0), med, lo, hi;
	unsigned w, b, k, r;

	printf("\nServer CPU time (all its threads, from schedstat) per run, "
	       "per FUSE_READ and\nper 128 KiB read, with the times its "
	       "threads were scheduled in per FUSE_READ\n(medians over the "
	       "rounds):\n\n");
	table_head("CPU ms per run | CPU us per FUSE_READ | CPU us per 128 KiB "
		   "| scheduled in per FUSE_READ |");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++)
			for (k = 0; k < TMPFS; k++) {
				cpu128[k][w][b] = -1;
				if (!measured(k))
					continue;
				row_keys(w, b, k);
				if (!summary(mbs[k][w][b], rounds, &med, &lo,
					     &hi) ||
				    !summary(nreads[k][w][b], rounds, &med, &lo,
					     &hi)) {
					printf("- | - | - | - |\n");
					continue;
				}
				for (r = 0; r < rounds; r++) {
					double n = nreads[k][w][b][r];

					per_req[r] = cpu_ms[k][w][b][r] * 1e3 /
						     (n > 0 ? n : 1);
					per128[r] = cpu_ms[k][w][b][r] * 1e3 /
						    units;
					sw[r] = switches[k][w][b][r] /
						(n > 0 ? n : 1);
				}
				summary(cpu_ms[k][w][b], rounds, &med, &lo,
					&hi);
				printf("%.0f | ", med);
				summary(per_req, rounds, &med, &lo, &hi);
				printf("%.1f | ", med);
				summary(per128, rounds, &med, &lo, &hi);
				cpu128[k][w][b] = med;
				printf("%.1f | ", med);
				summary(sw, rounds, &med, &lo, &hi);
				printf("%.2f |\n", med);
			}
}

/*
 * Per round, @num's MB/s over @den's (@den2 >= 0: the better of @den and
 * @den2); false if a run of that cell was not made.
 */
static bool ratios(unsigned num, unsigned den, int den2, unsigned w, unsigned b,
		   unsigned rounds, double *v)
{
	unsigned r;
	double d;

	for (r = 0; r < rounds; r++) {
		d = den2 >= 0 ? best_of(den, (unsigned)den2, w, b, r)
			      : mbs[den][w][b][r];
		if (mbs[num][w][b][r] < 0 || mbs[den][w][b][r] < 0 ||
		    (den2 >= 0 && mbs[den2][w][b][r] < 0) || d <= 0)
			return false;
		v[r] = mbs[num][w][b][r] / d;
	}
	return true;
}

/*
 * Over io_uring against /dev/fuse: testfs --transport uring over testfs
 * --threads 1, --threads N and the better of the two (higher median), per round
 * and then the median, as the targets are.
 */
static void report_uring(unsigned rounds)
{
	static const int dens[][2] = { { T_ONE, -1 },
				       { T_MANY, -1 },
				       { T_ONE, T_MANY } };
	double v[MAX_ROUNDS], med, lo, hi;
	unsigned w, b, i;

	if (!measured(T_URING))
		return;
	printf("\nFUSE over io_uring against /dev/fuse (testfs --transport "
	       "uring over testfs\non /dev/fuse, per-round ratios: median "
	       "(min..max)):\n\n");
	printf("| readers | read size | uring / --threads 1 | uring / "
	       "--threads N | uring / better of both |\n"
	       "|--:|--:|--:|--:|--:|\n");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++) {
			printf("| %u | %s |", readers_of[w], block_name[b]);
			for (i = 0; i < 3; i++) {
				if (!ratios(T_URING, (unsigned)dens[i][0],
					    dens[i][1], w, b, rounds, v) ||
				    !summary(v, rounds, &med, &lo, &hi)) {
					printf(" - |");
					continue;
				}
				printf(" %.2fx (%.2f..%.2f) |", med, lo, hi);
			}
			printf("\n");
		}
}

/* One target's line: "median (min..max) PASS|FAIL" (>= @goal). */
static void verdict(const double *v, unsigned rounds, double goal,
		    unsigned *pass, unsigned *fail)
{
	double med, lo, hi;

	if (!v || !summary(v, rounds, &med, &lo, &hi)) {
		printf("not measured FAIL\n");
		(*fail)++;
		return;
	}
	printf("%.2fx (%.2f..%.2f) %s\n", med, lo, hi,
	       med >= goal ? "PASS" : "FAIL");
	if (med >= goal)
		(*pass)++;
	else
		(*fail)++;
}

static void report_targets(unsigned rounds)
{
	unsigned w, b, k, pass = 0, fail = 0;
	double v[MAX_ROUNDS];
	bool ok;

	printf("\nTargets (medians of the per-round figures, (min..max) "
	       "over the rounds):\n\n/dev/fuse, tracing on: the better "
	       "testfs (%s or %s, the higher\nmedian of the cell) >= 1.00x "
	       "the better minimal server (minimal 1 thread or %s,\nthe "
	       "higher median of the cell) in each round; the other testfs "
	       "in brackets, no verdict\n",
	       systems[T_ONE].name, systems[T_MANY].name, systems[M_MANY].name);
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++) {
			unsigned other;

			k = better(T_ONE, T_MANY, w, b);
			other = k == T_ONE ? T_MANY : T_ONE;
			printf("- %2u reader%s, %s, %s", readers_of[w],
			       readers_of[w] > 1 ? "s" : "", block_name[b],
			       systems[k].name);
			if (measured(other) &&
			    ratios(other, M_ONE, M_MANY, w, b, rounds, v)) {
				double med, lo, hi;

				summary(v, rounds, &med, &lo, &hi);
				printf(" (%s %.2fx)", systems[other].name, med);
			}
			printf(": ");
			ok = measured(k) &&
			     ratios(k, M_ONE, M_MANY, w, b, rounds, v);
			verdict(ok ? v : NULL, rounds, 1.0, &pass, &fail);
		}
	printf("\nio_uring: testfs --transport uring --threads N >= 1.00x "
	       "(4 and 16 readers), >= 0.95x\n(1 reader) the better testfs over "
	       "/dev/fuse (the higher median of the cell) in each round\n");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++) {
			printf("- %2u reader%s, %s: ", readers_of[w],
			       readers_of[w] > 1 ? "s" : "", block_name[b]);
			if (!measured(T_URING)) {
				printf("not measured (%s) FAIL\n",
				       systems[T_URING].skip);
				fail++;
				continue;
			}
			ok = ratios(T_URING, T_ONE, T_MANY, w, b, rounds, v);
			verdict(ok ? v : NULL, rounds,
				readers_of[w] == 1 ? 0.95 : 1.0, &pass, &fail);
		}
	printf("\nServer CPU per 128 KiB read <= 42 us, every cell "
	       "(1/4/16 readers x 1 MiB/4 KiB):\n");
	for (k = T_ONE; k <= T_URING; k++) {
		double worst = 0;
		bool missing = false;

		if (!measured(k))
			continue;
		printf("- %s:", systems[k].name);
		for (w = 0; w < NREADERS; w++)
			for (b = 0; b < NBLOCKS; b++) {
				double c = cpu128[k][w][b];

				printf(" %.1f", c);
				missing |= c < 0;
				if (c > worst)
					worst = c;
			}
		if (missing) {
			printf(": not measured (no CPU figures) FAIL\n");
			fail++;
			continue;
		}
		printf(" us: worst %.1f us %s\n", worst,
		       worst <= 42.0 ? "PASS" : "FAIL");
		if (worst <= 42.0)
			pass++;
		else
			fail++;
	}
	printf("\nTracing: testfs --threads 1 with tracing on reads at most "
	       "3%% slower than\nwith --no-trace (on / off >= 0.97x)\n");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++) {
			printf("- %2u reader%s, %s: ", readers_of[w],
			       readers_of[w] > 1 ? "s" : "", block_name[b]);
			ok = measured(T_NOTRACE) &&
			     ratios(T_ONE, T_NOTRACE, -1, w, b, rounds, v);
			verdict(ok ? v : NULL, rounds, 0.97, &pass, &fail);
		}
	printf("\n%u passed, %u failed.\n", pass, fail);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: concurrency [--rounds N] [--size MIB] [--threads N] "
		"[--raw]\n"
		"                   [--pattern P] [--fill-line] [--no-log] "
		"[--daemon-arg ARG]...\n"
		"Throughput of 1, 4 and 16 concurrent readers (read(2) of 1 "
		"MiB and 4 KiB, cold)\n"
		"on testfs --threads 1, testfs --threads N, testfs "
		"--transport uring --threads N\n"
		"(if the daemon has it), testfs --no-trace, the minimal FUSE server "
		"(static buffer) on\n"
		"1 and N threads and tmpfs, alternating;\n"
		"prints medians, ratios and PASS/FAIL against the targets."
		"\n"
		"  --rounds N   counted rounds after one warm-up (1..%d, "
		"default 9)\n"
		"  --size MIB   file size in MiB (16..4096, default 256)\n"
		"  --threads N  N for testfs and the minimal server (2..256, "
		"default 4)\n"
		"  --raw        every run on stderr\n"
		"  --pattern P  testfs's content: zero (default: the minimal "
		"server's bytes),\n"
		"               stamp or random (generated per page: not the "
		"floor's work)\n"
		"  --fill-line  also the minimal server memset()ing each reply "
		"(not a baseline)\n"
		"  --no-log     testfs without its log file (default: each "
		"testfs writes\n"
		"               --log /tmp/testfs-bench-conc-logs.XXXXXX/K.jsonl, "
		"removed at the end)\n"
		"  --daemon-arg ARG  pass ARG to every testfs (repeatable, "
		"up to %d)\n"
		"Environment: TESTFS_BIN, MINIMAL_SERVER (default: the ones "
		"of this build tree).\n"
		"Needs root; exit 77 without it.\n",
		MAX_ROUNDS, CONC_MAX_DAEMON_ARGS);
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
		if (!strcmp(argv[i], "--fill-line")) {
			fill_line = true;
			continue;
		}
		if (!strcmp(argv[i], "--no-log")) {
			no_log = true;
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
			if (i + 1 >= argc ||
			    n_daemon_args == CONC_MAX_DAEMON_ARGS) {
				fprintf(stderr,
					"concurrency: --daemon-arg needs an "
					"argument (at most %d of them)\n",
					CONC_MAX_DAEMON_ARGS);
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
	char *testfs = NULL, *minimal = NULL;
	unsigned rounds = 9, size_mib = 256, threads = 4, round, k;
	struct conc_setup setup;
	struct sigaction sa;
	char la[64], date[64];
	uint64_t t0 = bench_now_ns(), t;
	time_t now = time(NULL);
	int ret = 1, err;

	if (parse_args(argc, argv, &rounds, &size_mib, &threads))
		return 2;
	n_rounds = rounds;
	if (geteuid() != 0) {
		printf("concurrency: skipped: needs root (mounts)\n");
		return 77;
	}
	testfs = bench_find_binary("TESTFS_BIN", "../src/testfs");
	minimal = bench_find_binary("MINIMAL_SERVER", "minimal_server");
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
	setup = (struct conc_setup){ testfs,	    minimal,   file_size,
				     threads,	    pattern,   daemon_args,
				     n_daemon_args, fill_line, no_log };
	if (conc_start_all(&setup))
		goto out;
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	loadavg(la, sizeof(la));
	printf("concurrency: %s, %u rounds after a warm-up, a %u MiB file "
	       "(testfs: %s, %s), read_ahead_kb 128, N = %u\n",
	       date, rounds, size_mib, pattern,
	       no_log ? "no log file (--no-log)"
		      : "each with its log file (--log)",
	       threads);
	if (n_daemon_args) {
		printf("testfs runs with");
		for (k = 0; k < n_daemon_args; k++)
			printf(" %s", daemon_args[k]);
		printf("\n");
	}
	if (conc_log_dir()[0])
		printf("testfs log files in %s (removed at the end)\n",
		       conc_log_dir());
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
	report_uring(rounds);
	report_targets(rounds);
	printf("\nTotal time %.1f s.\n", (double)(bench_now_ns() - t0) / 1e9);
	ret = 0;
out:
	fuse_reads_close(&counter);
	conc_stop_all();
	free(testfs);
	free(minimal);
	return ret;
}
