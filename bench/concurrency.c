// SPDX-License-Identifier: MIT
/*
 * concurrency: throughput with 1, 4 and 16 concurrent readers, testfs
 * --threads 1 and --threads 4 against the minimal server, in one run.
 *
 *   build/bench/concurrency [--rounds N] [--size MIB]
 *
 * Each system serves one file of SIZE MiB (default 256): testfs with
 * stamp content (log on, tracing as by default), the minimal server with
 * zeros (bench/minimal_server.c, one thread). R readers (threads of this
 * process) each read their own 1/R of the file in order with read(2) of
 * 1 MiB or 4 KiB; the figure is the file size over the wall time from the
 * start of the first reader to the end of the last, in MB/s (10^6 bytes).
 * Every run starts cold: posix_fadvise(DONTNEED) on the whole file, then
 * mincore() must show no page cached (retried up to 50 times, else the
 * run is reported as not cold and left out). Each round runs every
 * workload on every system, in one order in even rounds and the reverse
 * in odd ones, so neighbours alternate; the report is the median over
 * the rounds (min..max) and testfs / minimal per round, as the median.
 * read_ahead_kb is the kernel's default (128) on every mount.
 *
 * Needs root (mounts); exits 77 without it. Every server runs with a
 * time limit through its own unmount-on-exit (testfs --watch-pid,
 * minimal server auto_unmount and PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

#define MAX_ROUNDS 31
#define NSYS 3
#define NREADERS 3
#define NBLOCKS 2

static const unsigned readers_of[NREADERS] = { 1, 4, 16 };
static const size_t block_of[NBLOCKS] = { 1u << 20, 4096 };

struct sys {
	const char *name;
	pid_t pid;
	char dir[128];
	char file[192];
};

static struct sys systems[NSYS] = {
	{ .name = "testfs --threads 1" },
	{ .name = "testfs --threads 4" },
	{ .name = "minimal (1 thread)" },
};

static uint64_t file_size;

static int start(struct sys *s, const char *const argv[])
{
	int pfd[2];
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
		int i;

		close(pfd[0]);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
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
		fprintf(stderr, "concurrency: %s did not start\n", s->name);
		return -1;
	}
	close(pfd[0]);
	return 0;
}

static void stop(struct sys *s)
{
	int i, ws;

	if (s->pid <= 0)
		return;
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
	rmdir(s->dir);
}

static bool cold(const char *path)
{
	int fd = open(path, O_RDONLY), tries;
	unsigned char *vec;
	size_t pages = file_size / 4096, i;
	void *map;
	bool ok = false;

	if (fd < 0)
		return false;
	map = mmap(NULL, file_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	for (tries = 0; map != MAP_FAILED && vec && tries < 50 && !ok;
	     tries++) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		ok = mincore(map, file_size, vec) == 0;
		for (i = 0; ok && i < pages; i++)
			ok = !(vec[i] & 1);
		if (!ok)
			usleep(20000);
	}
	if (map != MAP_FAILED)
		munmap(map, file_size);
	free(vec);
	close(fd);
	return ok;
}

struct reader {
	const char *path;
	uint64_t off, len;
	size_t block;
	int err;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char *buf = malloc(r->block);
	uint64_t done = 0;
	int fd = open(r->path, O_RDONLY);

	r->err = fd < 0 || !buf;
	while (!r->err && done < r->len) {
		ssize_t n = pread(fd, buf, r->block, (off_t)(r->off + done));

		if (n <= 0)
			r->err = 1;
		done += n > 0 ? (uint64_t)n : 0;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* MB/s, or a negative value when the run could not be made. */
static double run(struct sys *s, unsigned nreaders, size_t block)
{
	struct reader r[16];
	pthread_t th[16];
	uint64_t t0, t1, share = file_size / nreaders;
	unsigned i;
	int err = 0;

	if (!cold(s->file))
		return -1;
	t0 = bench_now_ns();
	for (i = 0; i < nreaders; i++) {
		r[i] = (struct reader){ s->file, i * share, share, block, 0 };
		if (pthread_create(&th[i], NULL, reader_main, &r[i]))
			return -1;
	}
	for (i = 0; i < nreaders; i++) {
		pthread_join(th[i], NULL);
		err |= r[i].err;
	}
	t1 = bench_now_ns();
	if (err)
		return -1;
	return (double)file_size / ((double)(t1 - t0) / 1e9) / 1e6;
}

int main(int argc, char **argv)
{
	static double mbs[NSYS][NREADERS][NBLOCKS][MAX_ROUNDS];
	static double ratio[2][NREADERS][NBLOCKS][MAX_ROUNDS];
	const char *testfs = getenv("TESTFS_BIN");
	const char *minimal = getenv("MINIMAL_SERVER");
	char file_arg[64], watch[16], size_m[32];
	unsigned rounds = 5, size_mib = 256, round, k, w, b, i, n;
	int ret = 1;

	for (i = 1; i < (unsigned)argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < (unsigned)argc)
			rounds = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < (unsigned)argc)
			size_mib = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: concurrency [--rounds N] "
					"[--size MIB]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || size_mib < 16 ||
	    size_mib > 4096) {
		fprintf(stderr,
			"concurrency: --rounds 1..%d, --size 16..4096\n",
			MAX_ROUNDS);
		return 2;
	}
	if (geteuid() != 0)
		return 77;
	if (!testfs || !minimal) {
		fprintf(stderr, "concurrency: set TESTFS_BIN and "
				"MINIMAL_SERVER\n");
		return 1;
	}
	file_size = (uint64_t)size_mib << 20;
	snprintf(file_arg, sizeof(file_arg), "f.bin:%uM", size_mib);
	snprintf(size_m, sizeof(size_m), "%uM", size_mib);
	snprintf(watch, sizeof(watch), "%d", (int)getpid());
	for (k = 0; k < NSYS; k++) {
		snprintf(systems[k].dir, sizeof(systems[k].dir),
			 "/tmp/testfs-bench-conc.%d.%u", (int)getpid(), k);
		if (mkdir(systems[k].dir, 0755))
			goto out;
		snprintf(systems[k].file, sizeof(systems[k].file), "%s/%s",
			 systems[k].dir, k < 2 ? "f.bin" : "zero.bin");
	}
	{
		const char *t1[] = { testfs,	   "-f",     "-q",
				     "--ready-fd", "@FD",    "--watch-pid",
				     watch,	   "--file", file_arg,
				     "--threads",  "1",	     systems[0].dir,
				     NULL };
		const char *t4[] = { testfs,	   "-f",     "-q",
				     "--ready-fd", "@FD",    "--watch-pid",
				     watch,	   "--file", file_arg,
				     "--threads",  "4",	     systems[1].dir,
				     NULL };
		const char *mn[] = { minimal,	     "-f",	   "--size",
				     size_m,	     "--ready-fd", "@FD",
				     systems[2].dir, NULL };

		if (start(&systems[0], t1) || start(&systems[1], t4) ||
		    start(&systems[2], mn))
			goto out;
	}
	for (round = 0; round < rounds; round++) {
		for (n = 0; n < NSYS; n++) {
			k = round % 2 ? NSYS - 1 - n : n;
			for (w = 0; w < NREADERS; w++)
				for (b = 0; b < NBLOCKS; b++)
					mbs[k][w][b][round] =
						run(&systems[k], readers_of[w],
						    block_of[b]);
		}
		for (k = 0; k < 2; k++)
			for (w = 0; w < NREADERS; w++)
				for (b = 0; b < NBLOCKS; b++)
					ratio[k][w][b][round] =
						mbs[k][w][b][round] /
						mbs[2][w][b][round];
		bench_progress("concurrency", "round %u of %u done", round + 1,
			       rounds);
	}
	printf("| readers | read size | system | MB/s median (min..max) | vs minimal (median of rounds) |\n");
	printf("|--:|--:|---|--:|--:|\n");
	for (w = 0; w < NREADERS; w++)
		for (b = 0; b < NBLOCKS; b++)
			for (k = 0; k < NSYS; k++) {
				double lo, hi, med, rlo, rhi, rmed = 0;

				for (i = 0; i < rounds; i++)
					if (mbs[k][w][b][i] < 0)
						break;
				if (i < rounds) {
					printf("| %u | %s | %s | not cold | |\n",
					       readers_of[w],
					       b ? "4 KiB" : "1 MiB",
					       systems[k].name);
					continue;
				}
				med = bench_median(mbs[k][w][b], rounds, &lo,
						   &hi);
				if (k < 2)
					rmed = bench_median(ratio[k][w][b],
							    rounds, &rlo, &rhi);
				printf("| %u | %s | %s | %.0f (%.0f..%.0f) | ",
				       readers_of[w], b ? "4 KiB" : "1 MiB",
				       systems[k].name, med, lo, hi);
				if (k < 2)
					printf("%.2fx (%.2f..%.2f) |\n", rmed,
					       rlo, rhi);
				else
					printf("1.00x |\n");
			}
	ret = 0;
out:
	for (k = 0; k < NSYS; k++)
		stop(&systems[k]);
	return ret;
}
