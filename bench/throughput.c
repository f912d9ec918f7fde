// SPDX-License-Identifier: MIT
/*
 * throughput: testfs against the floor and the ceiling of its own cost,
 * measured in the same run on the same machine.
 *
 *   build/bench/throughput [--quick] [--rounds N] [--raw]
 *                          [--daemon-arg ARG]...
 *   meson test --benchmark -C build
 *
 * Systems, each serving a 512 MiB file:
 *   testfs stamp  build/src/testfs (or $TESTFS_BIN), log on (its in-memory
 *                 read log is always on), file stamp.bin:512M:stamp;
 *   testfs zero   the same daemon, file zero.bin:512M:zero;
 *   minimal       bench/minimal_server ($MINIMAL_SERVER, or the one next
 *                 to this program): libfuse lowlevel, one thread, zeros
 *                 from a static buffer, keep_cache: the cost floor of FUSE;
 *   tmpfs         a 512 MiB file in a private tmpfs that is detached as
 *                 soon as the file is written (the kernel frees it when
 *                 this process ends, however it ends): the ceiling. A
 *                 tmpfs file cannot be evicted (the page cache is its only
 *                 storage), so its runs are never cold: they measure the
 *                 page-cache copy path (read(2) of cached pages, minor
 *                 faults), the upper bound for any file system.
 *
 * Workloads, each at read_ahead_kb 128 and 1024 (testfs: --ra-kb; the
 * minimal server: this program writes /sys/class/bdi/MAJ:MIN/read_ahead_kb
 * of its mount after the INIT exchange and before any file is opened; the
 * value is read back from sysfs for both):
 *   read 1 MiB    read(2) of the whole file in order, 1 MiB at a time;
 *   read 4 KiB    the same, 4 KiB at a time;
 *   mmap rand 4K  one byte of each of 20000 distinct random pages of a
 *                 MAP_SHARED mapping of the file (the same pages in every
 *                 run), i.e. 20000 page faults at most.
 *
 * Every run opens the file afresh (fresh readahead state) and, for the
 * FUSE systems, starts cold: posix_fadvise(POSIX_FADV_DONTNEED) on the
 * whole file, then cachestat(2) (or mincore() before Linux 6.5) must
 * count 0 cached pages, else it retries (testfs: its verified drop-cache
 * as a last resort); only then is the clock started. The pages a run
 * cached stay until that system's next run evicts them, just before
 * reading again: freed memory is handed out again at once, while memory
 * left free for seconds may be returned to a VM's host (free page
 * reporting) and cost host faults when the page cache takes it back,
 * which shows as noise in whichever run gets it. So up to 2 GiB of
 * memory is in use (three FUSE files and the tmpfs). For tmpfs the check
 * is that every page is cached.
 *
 * Order: per read_ahead_kb one warm-up round (every workload on every
 * system, not counted), then N rounds (11; --quick 3), each running every
 * workload on every system, in the order stamp, minimal, zero, tmpfs in
 * even rounds and reversed in odd rounds, so testfs and the minimal
 * server always run next to each other. The report gives, per cell, the
 * median over the rounds, and for testfs the median (and min, max) of
 * the per-round ratios testfs / minimal. MB/s is 10^6 bytes per second
 * of wall time around the read loop; for mmap, thousands of touched
 * pages per second. It also gives the CPU time each server spent per run
 * (/proc/PID/task/TID/schedstat) and the reader's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), as shares of the wall time of the run.
 *
 * It prints figures and judges nothing. It needs root (tmpfs mount,
 * read_ahead_kb) and exits 77 (skipped) without it. Time limits: server
 * start and stop 10 s, each run 120 s; a watchdog thread ends the run
 * when one is exceeded, and on SIGINT, SIGTERM or SIGHUP, after stopping
 * the servers and unmounting everything (the minimal server also gets
 * SIGTERM when this process dies: PR_SET_PDEATHSIG; testfs has
 * --watch-pid; so even a SIGKILL leaves no mount, only the minimal
 * server's empty mountpoint directory). --raw prints every run on stderr;
 * --daemon-arg ARG passes ARG to testfs (repeatable: --no-trace, ...).
 * Exit status: 0; 1 with the reason when it could not run; 128 + the
 * signal when stopped by one; 77 without root.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "throughput.h"

/* ------------------------------------------------------------------ */
/* Report                                                              */
/* ------------------------------------------------------------------ */

static double median_of(unsigned ra, unsigned w, enum system s, int rounds,
			int field)
{
	double v[MAX_ROUNDS];
	const struct sample *x;
	int r;

	for (r = 0; r < rounds; r++) {
		x = &results[ra][w][s][r];
		if (field == 0)
			v[r] = x->value;
		else if (field == 1)
			v[r] = 100.0 * (double)x->server_ns /
			       (double)x->wall_ns;
		else
			v[r] = 100.0 * (double)x->client_ns /
			       (double)x->wall_ns;
	}
	return bench_median(v, (size_t)rounds, NULL, NULL);
}

/* Median, min and max over the rounds of testfs @s / minimal. */
static double ratio_of(unsigned ra, unsigned w, enum system s, int rounds,
		       double *min, double *max)
{
	double v[MAX_ROUNDS];
	int r;

	for (r = 0; r < rounds; r++)
		v[r] = results[ra][w][s][r].value /
		       results[ra][w][SYS_MINIMAL][r].value;
	return bench_median(v, (size_t)rounds, min, max);
}

/* @v right-aligned in @width columns, whole numbers from 100 up. */
static void print_value(double v, int width)
{
	printf(" %*.*f |", width, v >= 100.0 ? 0 : 1, v);
}

/* The target: ra 1 MiB, 1 MiB and 4 KiB reads, >= 0.90. */
#define TARGET_RA 1
#define TARGET_RATIO 0.95
#define BAR_RATIO 0.90

static void report(int rounds)
{
	static const int widths[NSYS] = { 12, 11, 7, 7 };
	double lo, hi, ratio;
	unsigned ra, w;
	int s;

	printf("Medians over %d rounds. The ratios are the median of the "
	       "per-round ratios\ntestfs / minimal, with [min, max] over "
	       "the rounds. MB/s = 10^6 bytes/s of\nwall time; k pages/s = "
	       "thousands of pages touched per second.\n\n",
	       rounds);
	printf("| ra KiB | workload     | unit      | testfs stamp | "
	       "testfs zero | minimal | tmpfs   | stamp / minimal   | "
	       "zero / minimal    |\n");
	printf("|-------:|--------------|-----------|-------------:|"
	       "------------:|--------:|--------:|-------------------|"
	       "-------------------|\n");
	for (ra = 0; ra < NRA; ra++) {
		for (w = 0; w < NWORK; w++) {
			printf("| %6u | %-12s | %-9s |", ra_values[ra],
			       workloads[w].name, workloads[w].unit);
			for (s = 0; s < NSYS; s++)
				print_value(median_of(ra, w, (enum system)s,
						      rounds, 0),
					    widths[s]);
			for (s = SYS_STAMP; s <= SYS_ZERO; s++) {
				ratio = ratio_of(ra, w, (enum system)s, rounds,
						 &lo, &hi);
				printf(" %.2f [%.2f, %.2f] |", ratio, lo, hi);
			}
			printf("\n");
		}
	}
	printf("\nCPU time per run (median) as a share of the run's wall "
	       "time: of the server\nprocess (all its threads, from "
	       "schedstat) and of the reading thread (its\nsystem time "
	       "included: the copies out of the page cache, the "
	       "faults).\n\n");
	printf("| ra KiB | workload     | server: stamp | zero | minimal | "
	       "reader: stamp | zero | minimal | tmpfs |\n");
	printf("|-------:|--------------|--------------:|-----:|--------:|"
	       "--------------:|-----:|--------:|------:|\n");
	for (ra = 0; ra < NRA; ra++) {
		for (w = 0; w < NWORK; w++) {
			printf("| %6u | %-12s | %12.0f%% | %3.0f%% | %6.0f%% |",
			       ra_values[ra], workloads[w].name,
			       median_of(ra, w, SYS_STAMP, rounds, 1),
			       median_of(ra, w, SYS_ZERO, rounds, 1),
			       median_of(ra, w, SYS_MINIMAL, rounds, 1));
			printf(" %12.0f%% | %3.0f%% | %6.0f%% | %4.0f%% |\n",
			       median_of(ra, w, SYS_STAMP, rounds, 2),
			       median_of(ra, w, SYS_ZERO, rounds, 2),
			       median_of(ra, w, SYS_MINIMAL, rounds, 2),
			       median_of(ra, w, SYS_TMPFS, rounds, 2));
		}
	}
	printf("\nTarget (issue 7): testfs / minimal >= %.2f (aiming at "
	       "1.0; %.2f is the bar)\nat read_ahead_kb %u with 1 MiB and "
	       "4 KiB reads (medians of the per-round\nratios):\n\n",
	       TARGET_RATIO, BAR_RATIO, ra_values[TARGET_RA]);
	for (s = SYS_STAMP; s <= SYS_ZERO; s++) {
		for (w = W_READ_1M; w <= W_READ_4K; w++) {
			ratio = ratio_of(TARGET_RA, w, (enum system)s, rounds,
					 NULL, NULL);
			printf("- %s, %s: %.2f, %s\n", sys_names[s],
			       workloads[w].name, ratio,
			       ratio >= TARGET_RATIO ? "met"
			       : ratio >= BAR_RATIO  ? "missed (above the bar)"
						    : "missed (below the bar)");
		}
	}
	printf("\nEffective read_ahead_kb, read back from sysfs (tmpfs has "
	       "no readahead):\n");
	for (ra = 0; ra < NRA; ra++)
		printf("%u: testfs %ld, minimal %ld%s", ra_values[ra],
		       effective_ra[ra][SYS_STAMP],
		       effective_ra[ra][SYS_MINIMAL],
		       ra + 1 < NRA ? "; " : ".\n");
	printf("Cold starts: %u FUSE runs, each evicted with "
	       "posix_fadvise(DONTNEED) and verified\nby %s to have 0 "
	       "pages cached before the clock started; %u extra\n"
	       "attempts, %u testfs drop-cache fallbacks.\n",
	       eviction.runs, eviction.mincore ? "mincore()" : "cachestat(2)",
	       eviction.retries, eviction.drop_cache);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

/* $NAME, else @sibling next to this program if it exists, else NULL. */
/* @path relative to the working directory when it lies below it. */
static const char *shown(const char *path)
{
	static char cwd[PATH_MAX];
	size_t n;

	if (!path)
		return "(libtestfs default)";
	if (!cwd[0] && !getcwd(cwd, sizeof(cwd)))
		return path;
	n = strlen(cwd);
	if (strncmp(path, cwd, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: throughput [--quick] [--rounds N] [--raw] "
		"[--daemon-arg ARG]...\n"
		"Compares testfs with a minimal FUSE server and tmpfs: cold "
		"sequential read(2)\n"
		"of a 512 MiB file (1 MiB and 4 KiB reads) and random 4 KiB "
		"mmap touches, at\n"
		"read_ahead_kb 128 and 1024, alternating. --rounds N: N "
		"rounds (default %d,\n"
		"--quick %d, at most %d); --raw: every run on stderr "
		"(round 0: warm-up);\n"
		"--daemon-arg ARG: pass ARG to testfs (e.g. --no-trace), "
		"up to %d.\n"
		"Needs root. Environment: TESTFS_BIN, MINIMAL_SERVER.\n",
		DEFAULT_ROUNDS, QUICK_ROUNDS, MAX_ROUNDS, MAX_DAEMON_ARGS);
}

int main(int argc, char **argv)
{
	struct mounts m = { .tmpfs_fd = -1 };
	int rounds = DEFAULT_ROUNDS, i, err = 0;
	uint64_t t0 = bench_now_ns();
	pthread_t watchdog;
	struct utsname u;
	sigset_t sigs;
	unsigned ra;
	char *end, *buf, daemon_path[PATH_MAX];
	long v;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			rounds = QUICK_ROUNDS;
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
			v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > MAX_ROUNDS) {
				fprintf(stderr,
					"throughput: --rounds '%s': expected "
					"1..%d\n",
					argv[i], MAX_ROUNDS);
				return 1;
			}
			rounds = (int)v;
		} else if (strcmp(argv[i], "--raw") == 0) {
			raw = true;
		} else if (strcmp(argv[i], "--daemon-arg") == 0 &&
			   i + 1 < argc && ndaemon_args < MAX_DAEMON_ARGS) {
			daemon_args[ndaemon_args++] = argv[++i];
		} else {
			return bench_not_an_option(argv[i], usage);
		}
	}
	if (geteuid() != 0) {
		printf("throughput: skipped: needs root (it mounts a tmpfs and "
		       "sets read_ahead_kb)\n");
		return 77;
	}
	/* The daemon libtestfs runs (TESTFS_BIN, else this build's). */
	if (testfs_find_daemon(NULL, daemon_path, sizeof(daemon_path)) == 0)
		m.testfs_bin = realpath(daemon_path, NULL);
	m.minimal_bin = bench_find_binary("MINIMAL_SERVER", "minimal_server");
	if (!m.minimal_bin) {
		fprintf(stderr, "throughput: could not run: no minimal server "
				"(set MINIMAL_SERVER)\n");
		return 1;
	}
	buf = aligned_alloc(PAGE, MIB);
	if (!buf) {
		fprintf(stderr, "throughput: out of memory\n");
		return 1;
	}

	/* A page of a dead FUSE server faults with SIGBUS. */
	signal(SIGBUS, on_sigbus);
	/* Signals go to the watchdog only; children unblock them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	err = pthread_create(&watchdog, NULL, watchdog_main, &sigs);
	if (err) {
		fprintf(stderr, "throughput: watchdog thread: %s\n",
			strerror(err));
		return 1;
	}

	if (uname(&u) != 0)
		strcpy(u.release, "unknown");
	printf("testfs throughput benchmark%s: Linux %s %s, nproc %ld\n\n",
	       rounds == QUICK_ROUNDS ? " (--quick)" : "", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("- testfs: %s, log on (its in-memory ring; no --log file), ",
	       shown(m.testfs_bin));
	if (!ndaemon_args)
		printf("its default arguments\n");
	for (i = 0; i < ndaemon_args; i++)
		printf("%s%s", i ? " " : "arguments: ", daemon_args[i]);
	if (ndaemon_args)
		printf("\n");
	printf("- minimal: %s\n"
	       "- tmpfs: page-cache hits (a tmpfs file cannot be evicted): "
	       "the ceiling\n"
	       "- files of 512 MiB; mmap: %u distinct random pages; "
	       "FUSE runs cold (verified)\n"
	       "- %d rounds after a warm-up round, in the order stamp, "
	       "minimal, zero, tmpfs,\n"
	       "  reversed every other round\n\n",
	       shown(m.minimal_bin), TOUCHES, rounds);
	fflush(stdout);

	fprintf(stderr, "throughput: mounting tmpfs and writing its file\n");
	err = mount_tmpfs(&m);
	for (ra = 0; !err && ra < NRA; ra++)
		err = run_ra(&m, ra, rounds, buf);
	if (m.tmpfs_fd >= 0)
		close(m.tmpfs_fd);
	if (err) {
		wait_if_stopping();
		/* Whatever failed, nothing stays mounted. */
		cleanup_slots();
		fflush(stdout);
		fprintf(stderr, "throughput: could not run: %s\n",
			bench_failure);
		return 1;
	}
	report(rounds);
	printf("\nTotal time %.1f s.\n", (double)(bench_now_ns() - t0) / 1e9);
	free(buf);
	free((char *)m.testfs_bin);
	free((char *)m.minimal_bin);
	return 0;
}
