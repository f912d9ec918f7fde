// SPDX-License-Identifier: MIT
/*
 * scale: testfs with huge files and with many files.
 *
 *   build/bench/scale [--quick]
 *   meson test --benchmark -C build
 *
 * Part 1, file size. One daemon per size, 1 MiB, 64 MiB, 1 GiB, 64 GiB,
 * 1 TiB and 2^62 bytes (the largest testfs serves), each serving one
 * stamp file, big.bin. Four pages at the start, the middle and the end
 * of it are read (pread() of 16 KiB, cold, readahead as the kernel
 * decides) and checked with testfs_verify(); the time of each read is
 * shown. Then the daemon's VmRSS and VmHWM (/proc/PID/status): testfs
 * holds no memory per byte of a file, so they must not grow with the
 * size.
 *
 * Part 2, file count. One daemon per count, 1 000, 10 000 and 100 000
 * files (--quick: 1 000 and 10 000) of 1 MiB, given in a --config file
 * (a command line of 100 000 --file arguments would pass ARG_MAX), in
 * directories of 1 000 files (d000/f000000.bin ...), and the largest
 * count once more in a single flat directory. In order:
 *   start    testfs_start() until the mount answers (parsing the
 *            config, building the namespace, mounting);
 *   lookup   stat() of every file, cold: one FUSE_LOOKUP each (and one
 *            per directory); per file;
 *   stat     the same again, warm: the kernel's caches answer (entries
 *            and attributes are valid for a day), no FUSE request;
 *   readdir  opendir()/readdir() of the whole tree, every entry
 *            counted; per entry;
 *   open     open() + close() of every file: FUSE_OPEN, and
 *            FUSE_RELEASE (sent when the file is closed); per file.
 * Then the daemon's VmRSS and VmHWM, and the memory per file:
 * (VmRSS - VmRSS of the 1 MiB daemon of part 1) / files.
 *
 * This program and the daemons it starts (which inherit it) are pinned
 * to one CPU: a lookup, an open or a read is a synchronous round trip,
 * and across the vCPUs of a VM its time jumps between about 10 and 50 us
 * with the wake-up of an idle vCPU. Progress lines go to stderr. It prints
 * figures and judges nothing (except that every read must verify and every
 * count must match). Every mount is made by libtestfs (testfs_start(), which
 * passes
 * --watch-pid, so a killed benchmark leaves no mount) and stopped on
 * every path. Exit status: 0; 1 with the reason; 77 when testfs cannot
 * mount here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <testfs.h>

#include "bench_common.h"

#define NAME "scale"

#define START_LIMIT_MS 120000u
#define PROBE_PAGES 4u
#define FILES_PER_DIR 1000u

static void format_size(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "B",   "KiB", "MiB", "GiB",
					     "TiB", "PiB", "EiB" };
	unsigned u = 0;

	while (u < 6 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, size, "%" PRIu64 " %s", bytes, units[u]);
}

/* ------------------------------------------------------------------ */
/* Part 1: file size                                                   */
/* ------------------------------------------------------------------ */

struct size_row {
	uint64_t size;
	double start_ms;
	double read_us[3]; /* start, middle, end */
	int64_t rss, hwm;
};

/* pread() of PROBE_PAGES pages at @off and the check; µs or < 0. */
static double probe(int fd, uint64_t off, char *buf)
{
	size_t len = PROBE_PAGES * TESTFS_PAGE_SIZE;
	uint64_t t0, t1, bad = 0;
	char what[160];
	ssize_t n;
	int err;

	t0 = bench_now_ns();
	n = pread(fd, buf, len, (off_t)off);
	t1 = bench_now_ns();
	if (n != (ssize_t)len) {
		snprintf(what, sizeof(what), "pread big.bin at %" PRIu64, off);
		return bench_fail(n < 0 ? -errno : -EIO, "%s", what);
	}
	err = testfs_verify("stamp", "big.bin", off, buf, len, &bad);
	if (err) {
		snprintf(what, sizeof(what),
			 "big.bin read at %" PRIu64 ": wrong byte at %" PRIu64,
			 off, bad);
		return bench_fail(err, "%s", what);
	}
	return (double)(t1 - t0) / 1e3;
}

static int size_run(struct size_row *row, char *buf)
{
	char spec[64], sz[32];
	const char *files[] = { spec, NULL };
	struct testfs_config cfg = { .files = files,
				     .timeout_ms = START_LIMIT_MS };
	uint64_t pages = row->size / TESTFS_PAGE_SIZE, t0, offs[3];
	struct testfs_mount *fs;
	double us;
	int fd, err = 0, i;

	snprintf(spec, sizeof(spec), "big.bin:%" PRIu64 ":stamp", row->size);
	format_size(sz, sizeof(sz), row->size);
	bench_progress(NAME, "file size %s", sz);
	t0 = bench_now_ns();
	err = testfs_start(&cfg, &fs);
	if (err)
		return err == -EIO ? err : bench_fail(err, "testfs_start");
	row->start_ms = (double)(bench_now_ns() - t0) / 1e6;
	fd = testfs_open(fs, "big.bin", O_RDONLY);
	if (fd < 0) {
		err = bench_fail(fd, "open big.bin");
		goto out;
	}
	offs[0] = 0;
	offs[1] = pages / 2 * TESTFS_PAGE_SIZE;
	offs[2] = (pages - PROBE_PAGES) * TESTFS_PAGE_SIZE;
	for (i = 0; i < 3; i++) {
		us = probe(fd, offs[i], buf);
		if (us < 0) {
			err = (int)us;
			break;
		}
		row->read_us[i] = us;
	}
	close(fd);
	row->rss = bench_status_bytes(testfs_pid(fs), "VmRSS");
	row->hwm = bench_status_bytes(testfs_pid(fs), "VmHWM");
out:
	testfs_stop(fs);
	return err;
}

static int part1(int64_t *base_rss)
{
	static const uint64_t sizes[] = { MIB,	    64 * MIB, GIB,
					  64 * GIB, TIB,      1ull << 62 };
	struct size_row rows[sizeof(sizes) / sizeof(sizes[0])];
	const size_t n = sizeof(sizes) / sizeof(sizes[0]);
	char sz[32], *buf;
	size_t i;
	int err = 0;

	buf = aligned_alloc(TESTFS_PAGE_SIZE, PROBE_PAGES * TESTFS_PAGE_SIZE);
	if (!buf)
		return bench_fail(-ENOMEM, "buffer");
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < n && !err; i++) {
		rows[i].size = sizes[i];
		err = size_run(&rows[i], buf);
	}
	free(buf);
	if (err)
		return err;
	*base_rss = rows[0].rss;
	printf("1. File size: one stamp file per daemon; %u pages read cold "
	       "at the start,\n   the middle and the end (one pread() each, "
	       "checked with testfs_verify()).\n\n",
	       PROBE_PAGES);
	printf("| file size | start ms | read at start us | middle us | "
	       "end us | daemon VmRSS | VmHWM    |\n");
	printf("|----------:|---------:|-----------------:|----------:|"
	       "-------:|-------------:|---------:|\n");
	for (i = 0; i < n; i++) {
		format_size(sz, sizeof(sz), rows[i].size);
		printf("| %9s | %8.1f | %16.0f | %9.0f | %6.0f | %8.2f MiB | "
		       "%4.2f MiB |\n",
		       sz, rows[i].start_ms, rows[i].read_us[0],
		       rows[i].read_us[1], rows[i].read_us[2],
		       (double)rows[i].rss / MIB, (double)rows[i].hwm / MIB);
	}
	printf("\nEvery read verified. VmRSS from the smallest to the largest "
	       "file: %+.2f MiB.\n\n",
	       (double)(rows[n - 1].rss - rows[0].rss) / MIB);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Part 2: file count                                                  */
/* ------------------------------------------------------------------ */

struct count_row {
	unsigned files;
	bool flat;
	double start_ms;
	double lookup_us, stat_us, readdir_us, open_us; /* per item */
	double lookup_s, readdir_s, open_s;
	uint64_t entries;
	int64_t rss_start, rss, hwm;
};

static void file_name(char *buf, size_t size, bool flat, unsigned i)
{
	if (flat)
		snprintf(buf, size, "f%06u.bin", i);
	else
		snprintf(buf, size, "d%03u/f%06u.bin", i / FILES_PER_DIR, i);
}

static int write_config(const char *path, unsigned files, bool flat)
{
	char name[64];
	unsigned i;
	FILE *f;

	f = fopen(path, "we");
	if (!f)
		return bench_fail(-errno, "config file");
	fprintf(f, "# scale benchmark: %u files\n", files);
	for (i = 0; i < files; i++) {
		file_name(name, sizeof(name), flat, i);
		fprintf(f, "file %s:1M\n", name);
	}
	if (fclose(f) != 0)
		return bench_fail(-errno, "config file");
	return 0;
}

/* stat() of every file; seconds, or < 0. */
static double stat_all(struct testfs_mount *fs, const struct count_row *row)
{
	char name[64], path[PATH_MAX];
	struct stat st;
	uint64_t t0 = bench_now_ns();
	unsigned i;

	for (i = 0; i < row->files; i++) {
		file_name(name, sizeof(name), row->flat, i);
		if (testfs_path(fs, name, path, sizeof(path)))
			return bench_fail(-ENAMETOOLONG, "path");
		if (stat(path, &st) != 0)
			return bench_fail(-errno, "stat");
		if (st.st_size != (off_t)MIB)
			return bench_fail(-EPROTO, "stat: wrong size");
	}
	return (double)(bench_now_ns() - t0) / 1e9;
}

/* Entries below @path, "." and ".." left out; or -errno. */
static int64_t count_tree(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *de;
	int64_t n = 0, m;
	DIR *d;

	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, ".testfs") == 0)
			continue;
		n++;
		if (de->d_type != DT_DIR)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		m = count_tree(sub);
		if (m < 0) {
			n = m;
			break;
		}
		n += m;
	}
	closedir(d);
	return n;
}

static double open_all(struct testfs_mount *fs, const struct count_row *row)
{
	uint64_t t0 = bench_now_ns();
	char name[64];
	unsigned i;
	int fd;

	for (i = 0; i < row->files; i++) {
		file_name(name, sizeof(name), row->flat, i);
		fd = testfs_open(fs, name, O_RDONLY);
		if (fd < 0)
			return bench_fail(fd, "open");
		close(fd);
	}
	return (double)(bench_now_ns() - t0) / 1e9;
}

static int count_run(struct count_row *row, const char *dir)
{
	char config[PATH_MAX];
	const char *extra[] = { "--config", config, NULL };
	struct testfs_config cfg = { .extra_args = extra,
				     .timeout_ms = START_LIMIT_MS };
	unsigned dirs =
		row->flat ? 0
			  : (row->files + FILES_PER_DIR - 1) / FILES_PER_DIR;
	struct testfs_mount *fs;
	uint64_t t0;
	int64_t entries;
	double s;
	int err;

	snprintf(config, sizeof(config), "%s/files.conf", dir);
	err = write_config(config, row->files, row->flat);
	if (err)
		return err;
	bench_progress(NAME, "%u files%s: starting testfs", row->files,
		       row->flat ? " in one directory" : "");
	t0 = bench_now_ns();
	err = testfs_start(&cfg, &fs);
	unlink(config);
	if (err)
		return err == -EIO ? err : bench_fail(err, "testfs_start");
	row->start_ms = (double)(bench_now_ns() - t0) / 1e6;
	row->rss_start = bench_status_bytes(testfs_pid(fs), "VmRSS");

	bench_progress(NAME, "%u files: lookup (stat, cold)", row->files);
	s = stat_all(fs, row);
	if (s < 0)
		goto out_fail;
	row->lookup_s = s;
	row->lookup_us = s * 1e6 / row->files;
	s = stat_all(fs, row);
	if (s < 0)
		goto out_fail;
	row->stat_us = s * 1e6 / row->files;

	bench_progress(NAME, "%u files: readdir of the tree", row->files);
	t0 = bench_now_ns();
	entries = count_tree(testfs_mountpoint(fs));
	if (entries < 0) {
		s = bench_fail((int)entries, "readdir");
		goto out_fail;
	}
	row->readdir_s = (double)(bench_now_ns() - t0) / 1e9;
	row->entries = (uint64_t)entries;
	row->readdir_us = row->readdir_s * 1e6 / (double)entries;
	if (row->entries != row->files + dirs) {
		s = bench_fail(-EPROTO, "readdir: wrong number of entries");
		goto out_fail;
	}

	bench_progress(NAME, "%u files: open + close", row->files);
	s = open_all(fs, row);
	if (s < 0)
		goto out_fail;
	row->open_s = s;
	row->open_us = s * 1e6 / row->files;
	row->rss = bench_status_bytes(testfs_pid(fs), "VmRSS");
	row->hwm = bench_status_bytes(testfs_pid(fs), "VmHWM");
	testfs_stop(fs);
	return 0;

out_fail:
	testfs_stop(fs);
	return (int)s;
}

static int part2(bool quick, int64_t base_rss)
{
	struct count_row rows[] = {
		{ .files = 1000 },
		{ .files = 10000 },
		{ .files = quick ? 0 : 100000 },
		{ .files = quick ? 10000 : 100000, .flat = true },
	};
	const size_t n = sizeof(rows) / sizeof(rows[0]);
	char dir[] = "/tmp/testfs-scale.XXXXXX";
	size_t i;
	int err = 0;

	if (!mkdtemp(dir))
		return bench_fail(-errno, "mkdtemp");
	for (i = 0; i < n && !err; i++)
		if (rows[i].files)
			err = count_run(&rows[i], dir);
	rmdir(dir);
	if (err)
		return err;
	printf("2. File count: files of 1 MiB from a --config file, in "
	       "directories of %u\n   (tree) or all in the root (flat). "
	       "Times per file (readdir: per entry),\n   totals in "
	       "seconds in brackets.\n\n",
	       FILES_PER_DIR);
	printf("| files   | layout | start ms | lookup us        | stat "
	       "warm us | readdir us       | open+close us    | VmRSS start "
	       "| VmRSS end | VmHWM    | bytes per file |\n");
	printf("|--------:|--------|---------:|------------------|------"
	       "-------:|------------------|------------------|-----------"
	       ":|----------:|---------:|---------------:|\n");
	for (i = 0; i < n; i++) {
		if (!rows[i].files)
			continue;
		printf("| %7u | %-6s | %8.1f | %5.1f (%6.2f s) | %12.2f | "
		       "%5.2f (%6.2f s) | %5.1f (%6.2f s) | %7.1f MiB | "
		       "%5.1f MiB | %4.1f MiB | %14.0f |\n",
		       rows[i].files, rows[i].flat ? "flat" : "tree",
		       rows[i].start_ms, rows[i].lookup_us, rows[i].lookup_s,
		       rows[i].stat_us, rows[i].readdir_us, rows[i].readdir_s,
		       rows[i].open_us, rows[i].open_s,
		       (double)rows[i].rss_start / MIB,
		       (double)rows[i].rss / MIB, (double)rows[i].hwm / MIB,
		       (double)(rows[i].rss - base_rss) / rows[i].files);
	}
	printf("\nbytes per file = (VmRSS at the end - VmRSS of the 1 MiB "
	       "daemon of part 1) / files.\n\n");
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t t0 = bench_now_ns();
	int64_t base_rss = 0;
	bool quick = false;
	struct utsname u;
	cpu_set_t one;
	int err, cpu;

	if (argc == 2 && strcmp(argv[1], "--quick") == 0) {
		quick = true;
	} else if (argc != 1) {
		fprintf(stderr,
			"usage: " NAME " [--quick]\n"
			"testfs with files of 1 MiB to 2^62 bytes and with "
			"1 000 to 100 000 files:\nread times, lookup, "
			"readdir and open times, daemon memory.\n");
		return strcmp(argv[1], "--help") == 0 ? 0 : 1;
	}
	/* One CPU for this program and the daemons (see the top). */
	cpu = sched_getcpu();
	CPU_ZERO(&one);
	if (cpu >= 0)
		CPU_SET(cpu, &one);
	if (cpu < 0 || sched_setaffinity(0, sizeof(one), &one) != 0)
		cpu = -1;
	if (uname(&u) != 0)
		strcpy(u.release, "unknown");
	printf("testfs scale benchmark%s: Linux %s %s, nproc %ld\n\n",
	       quick ? " (--quick)" : "", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("This program and the daemons it starts %s.\n\n",
	       cpu >= 0 ? "run on one CPU"
			: "are not pinned (sched_setaffinity failed)");
	fflush(stdout);
	err = part1(&base_rss);
	fflush(stdout);
	if (!err)
		err = part2(quick, base_rss);
	if (err == -EIO) {
		printf("skipped: testfs could not mount here\n");
		return 77;
	}
	if (err) {
		fprintf(stderr, NAME ": could not run: %s\n", bench_failure);
		return 1;
	}
	printf("Total time %.1f s.\n", (double)(bench_now_ns() - t0) / 1e9);
	return 0;
}
