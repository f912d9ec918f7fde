// SPDX-License-Identifier: MIT
/*
 * latency's part 2 (bench/latency.c says what the benchmark measures):
 * a 256 MiB file read in order under each latency model, against what
 * the model predicts from the requests in the log; and the instance
 * helpers both parts use.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <testfs.h>

#include "bench_common.h"
#include "latency.h"

/* Part 2: a 256 MiB file read 1 MiB at a time. */
#define SEQ_FILE "seq.bin"
#define SEQ_SPEC "seq.bin:256M"
#define SEQ_BYTES (256 * MIB)
#define SEQ_BLOCK MIB
#define SEQ_RA_KB 1024u

/*
 * The models of part 2 and their parameters, as documented in
 * src/slow/latency.h (device defaults from src/slow/devices.c); the
 * daemon's canonical spec is printed after the table to show they agree.
 */
struct model_case {
	const char *model; /* NULL: no latency, the daemon's ceiling */
	const char *label;
	uint64_t lat_ns;
	uint64_t bw; /* bytes per second; 0 for none */
};

static const struct model_case model_cases[] = {
	{ NULL, "none", 0, 0 },
	{ "bw:1000MB/s", "bw:1000MB/s", 0, 1000000000ull },
	{ "ufs4", "ufs4", 100 * US, 4200000000ull },
	{ "ufs4:lat=80us,bw=1600MB/s,qd=32", "ufs4:lat=80us,bw=1600MB/s",
	  80 * US, 1600000000ull },
};

#define NMODELS (sizeof(model_cases) / sizeof(model_cases[0]))

int latency_start(const struct testfs_config *cfg, const char *model,
		  struct testfs_mount **fs, struct testfs_settings *set)
{
	int err = testfs_start(cfg, fs);

	if (err == -ENOENT)
		return bench_fail(err, "%s",
				  "no testfs daemon (set TESTFS_BIN)");
	if (err == -EIO)
		return bench_fail(
			err,
			"testfs (--latency %s) exited at start (no usable "
			"FUSE, or it refused its arguments)",
			model);
	if (err)
		return bench_fail(err, "testfs_start(--latency %s)", model);
	err = testfs_settings(*fs, set);
	if (err) {
		testfs_stop(*fs);
		return bench_fail(err, "%s", "reading .testfs/config");
	}
	return 0;
}

long latency_knob(unsigned v)
{
	return v ? (long)v : -1;
}

/* What the log says about one sequential run. */
struct stream {
	size_t requests;
	uint64_t max_pages;
	/* Bytes the kernel asked for, as the model saw them. */
	uint64_t bytes;
	/* The prediction: first latency + sum of len / bw, in ns. */
	uint64_t predicted_ns;
	/* Without any overlap: sum of (latency + len / bw), in ns. */
	uint64_t serial_ns;
	/* Time with at least one request in testfs, in ns. */
	uint64_t busy_ns;
	unsigned max_in_flight;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Reads the log of a sequential run. Busy time and requests in flight
 * come from the records' [t_ns, done_ns] intervals: arrivals and replies
 * are sorted separately and merged (a reply at the same instant as an
 * arrival counts first).
 */
static int stream_from_log(const struct testfs_log *log,
			   const struct model_case *mc, struct stream *st)
{
	const struct testfs_record *r;
	uint64_t *t, *done, begin = 0, xfer;
	size_t i, a, d, n = 0;
	unsigned in_flight = 0;

	memset(st, 0, sizeof(*st));
	t = calloc(testfs_log_count(log) + 1, sizeof(uint64_t));
	done = calloc(testfs_log_count(log) + 1, sizeof(uint64_t));
	if (!t || !done) {
		free(t);
		free(done);
		return -ENOMEM;
	}
	st->predicted_ns = mc->lat_ns;
	for (i = 0; (r = testfs_log_at(log, i)); i++) {
		if (r->kind != TESTFS_RECORD_READ || !r->file ||
		    strcmp(r->file, SEQ_FILE) != 0)
			continue;
		st->requests++;
		st->bytes += r->len;
		if (r->pages > st->max_pages)
			st->max_pages = r->pages;
		/* floor(len * 10^9 / bw), as the models compute it. */
		xfer = 0;
		if (mc->bw)
			xfer = (uint64_t)((unsigned __int128)r->len * NS_PER_S /
					  mc->bw);
		st->predicted_ns += xfer;
		st->serial_ns += mc->lat_ns + xfer;
		t[n] = r->t_ns;
		done[n] = r->done_ns;
		n++;
	}
	qsort(t, n, sizeof(uint64_t), cmp_u64);
	qsort(done, n, sizeof(uint64_t), cmp_u64);
	for (a = 0, d = 0; a < n || d < n;) {
		if (a < n && (d == n || t[a] < done[d])) {
			if (!in_flight++)
				begin = t[a];
			if (in_flight > st->max_in_flight)
				st->max_in_flight = in_flight;
			a++;
		} else {
			if (!--in_flight)
				st->busy_ns += done[d] - begin;
			d++;
		}
	}
	free(t);
	free(done);
	return 0;
}

/* read(2)s the whole file in SEQ_BLOCK blocks; bytes read or -errno. */
static int64_t read_stream(int fd)
{
	int64_t total;
	char *buf;

	buf = aligned_alloc(PAGE, SEQ_BLOCK);
	if (!buf)
		return -ENOMEM;
	total = bench_read_all(fd, buf, SEQ_BLOCK);
	free(buf);
	return total;
}

static void throughput_header(void)
{
	printf("%-25s%5s%5s%6s%6s%7s%7s%6s%7s\n", "", "bw", "", "max", "max",
	       "obs.", "pred.", "", "serial");
	printf("%-25s%5s%5s%6s%6s%7s%7s%6s%7s%5s\n", "model", "MB/s", "reqs",
	       "pages", "inflt", "MB/s", "MB/s", "ratio", "MB/s", "busy");
}

/* One model on its own instance: a cold sequential read and a row. */
static int throughput_model(const struct model_case *mc, char *spec,
			    size_t spec_size, long *ra_kb)
{
	static const char *const files[] = { SEQ_SPEC, NULL };
	struct testfs_config cfg = { .files = files,
				     .ra_kb = SEQ_RA_KB,
				     .latency = mc->model };
	double observed, predicted;
	struct testfs_log *log;
	struct stream st;
	struct testfs_settings set;
	uint64_t t0, wall;
	struct testfs_mount *fs;
	int64_t got;
	int fd, err;

	err = latency_start(&cfg, mc->label, &fs, &set);
	if (err)
		return err;
	*ra_kb = latency_knob(set.ra_kb);
	snprintf(spec, spec_size, "%s", set.latency);
	fd = testfs_open(fs, SEQ_FILE, O_RDONLY);
	if (fd < 0) {
		err = bench_fail(fd, "open(%s)", SEQ_FILE);
		goto out_stop;
	}
	err = testfs_cold(fs, SEQ_FILE);
	if (err) {
		err = bench_fail(err, "testfs_cold(%s)", SEQ_FILE);
		goto out_close;
	}
	t0 = bench_now_ns();
	got = read_stream(fd);
	wall = bench_now_ns() - t0;
	if (got != (int64_t)SEQ_BYTES) {
		err = bench_fail(got < 0 ? (int)got : -EIO, "read(2) of %s",
				 SEQ_FILE);
		goto out_close;
	}
	err = testfs_log_snapshot(fs, &log);
	if (err) {
		err = bench_fail(err, "testfs_log_snapshot(%s)", mc->label);
		goto out_close;
	}
	err = stream_from_log(log, mc, &st);
	testfs_log_free(log);
	if (err) {
		err = bench_fail(err, "%s", "log analysis");
		goto out_close;
	}
	/* Bytes per ns times 1000: MB/s (10^6 bytes), as the models. */
	observed = (double)SEQ_BYTES * 1000.0 / (double)wall;
	printf("%-25s", mc->label);
	if (mc->bw)
		printf("%5.0f", (double)mc->bw / 1e6);
	else
		printf("%5s", "-");
	printf("%5zu%6" PRIu64 "%6u%7.0f", st.requests, st.max_pages,
	       st.max_in_flight, observed);
	if (mc->bw) {
		predicted = (double)st.bytes * 1000.0 / (double)st.predicted_ns;
		printf("%7.0f%6.2f%7.0f", predicted, observed / predicted,
		       (double)st.bytes * 1000.0 / (double)st.serial_ns);
	} else {
		printf("%7s%6s%7s", "-", "-", "-");
	}
	printf("%4.0f%%\n", 100.0 * (double)st.busy_ns / (double)wall);
	fflush(stdout);
out_close:
	close(fd);
out_stop:
	testfs_stop(fs);
	return err;
}

int latency_throughput(void)
{
	char specs[NMODELS][128];
	long ra_kb = -1;
	unsigned i;
	int err;

	printf("\n2. Throughput against the model: read(2) of a 256 MiB file "
	       "in order, 1 MiB\n"
	       "   blocks, read_ahead_kb %u, cold; MB/s = 10^6 bytes/s.\n"
	       "   obs.   = observed: file size / time of the read(2) loop;\n"
	       "   pred.  = predicted: bytes / (first request's lat + sum of "
	       "len / bw) over\n"
	       "            the requests in the log; ratio = obs. / pred.;\n"
	       "   serial = bytes / sum of (lat + len / bw), as if no two "
	       "requests overlapped;\n"
	       "   bw     = the model's plain bandwidth; reqs, max pages and "
	       "max inflt (requests\n"
	       "            in testfs at once) from the log; busy = share of "
	       "the run with a\n"
	       "            request in testfs. 'none' is the ceiling without "
	       "a model.\n\n",
	       SEQ_RA_KB);
	throughput_header();
	for (i = 0; i < NMODELS; i++) {
		err = throughput_model(&model_cases[i], specs[i],
				       sizeof(specs[i]), &ra_kb);
		if (err)
			return err;
	}
	printf("\nThe models as the daemon reports them:\n");
	for (i = 0; i < NMODELS; i++)
		printf("  %-25s %s\n", model_cases[i].label, specs[i]);
	if (ra_kb != (long)SEQ_RA_KB)
		printf("Note: read_ahead_kb is %ld, not %u (raising it needs "
		       "root).\n",
		       ra_kb, SEQ_RA_KB);
	return 0;
}
