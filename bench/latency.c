// SPDX-License-Identifier: MIT
/*
 * latency: how precisely testfs delays a read, and how close a sequential
 * read(2) stream comes to what a latency model predicts.
 *
 *   build/bench/latency [--quick]
 *   meson test --benchmark -C build
 *
 * Part 1, delay precision. For each D in 100us, 1ms, 10ms one testfs runs
 * with --latency fixed:D and a 1 GiB stamp file; for C = 1, 4, 12, after a
 * cold start, C threads pread() 4 KiB each from distinct pages in a
 * shuffled order (POSIX_FADV_RANDOM, so each pread is one FUSE_READ of one
 * page, and no page is read twice). For each log record the overshoot is
 * (done_ns - t_ns) - delay_ns: how much later than asked testfs answered,
 * counted from the request's arrival in testfs. The client's pread() time
 * is split by page into the way in (pread called to arrival in testfs:
 * the kernel, including a wait for one of FUSE's max_background slots),
 * the time in testfs (done_ns - t_ns) and the way back (reply sent to
 * pread returned); all are CLOCK_MONOTONIC on one machine.
 *
 * Part 2, throughput against the model. A 256 MiB file is read in order,
 * 1 MiB per read(2), with read_ahead_kb 1024, cold, under each model. The
 * prediction follows the models' documented semantics (src/slow/latency.h):
 * a transfer lasts len / bw, one transfer channel is shared, and with
 * requests in flight the access latency overlaps, so a stream costs the
 * first request's latency plus the sum of its transfers, computed from
 * the requests in the log: predicted = bytes / (lat + sum(len_i / bw)).
 * bw:RATE has no queue and no shared channel, so overlapping requests can
 * beat it; a model-less run shows what the daemon and the kernel manage
 * without any delay.
 *
 * It prints figures and judges nothing. Exit status: 0, or 1 with the
 * reason when it could not run (no FUSE, no daemon, a failed read).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <testfs.h>

#include "bench_common.h"
#include "latency.h"

/* Part 1: a 1 GiB file; 2^18 pages, so an odd multiplier permutes them. */
#define RAND_FILE "rand.bin"
#define RAND_SPEC "rand.bin:1G"
#define RAND_PAGES (1ull << 18)
#define MAX_CONC 12

/* The target of part 1. */
#define TARGET_CONC 12u
#define TARGET_US 50.0

struct delay_case {
	const char *model;
	uint64_t delay_ns;
	/* Samples per configuration (divided by 10 with --quick). */
	uint64_t samples;
};

static const struct delay_case delay_cases[] = {
	{ "fixed:100us", 100 * US, 2000 },
	{ "fixed:1ms", 1 * MS, 2000 },
	{ "fixed:10ms", 10 * MS, 400 },
};

static const unsigned concurrencies[] = { 1, 4, TARGET_CONC };

#define NDELAYS (sizeof(delay_cases) / sizeof(delay_cases[0]))
#define NCONCS (sizeof(concurrencies) / sizeof(concurrencies[0]))

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile @per_mille of @v[@n], sorted; in us. */
static double pct_us(const int64_t *v, size_t n, unsigned per_mille)
{
	size_t rank;

	if (!n)
		return 0.0;
	rank = (n * per_mille + 999) / 1000;
	if (rank < 1)
		rank = 1;
	return (double)v[rank - 1] / 1000.0;
}

/* ------------------------------------------------------------------ */
/* Part 1: delay precision                                             */
/* ------------------------------------------------------------------ */

/* Page number @k of a fixed shuffle of the file's pages (a bijection). */
static uint64_t shuffled_page(uint64_t k)
{
	return (k * 0x9e3779b1ull + 0x2545full) & (RAND_PAGES - 1);
}

/* When each page's pread() started and returned (0: not read). */
struct page_times {
	uint64_t *start;
	uint64_t *end;
};

/* Holds the readers until all are created (go 1) or one failed (go -1). */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;
};

struct reader {
	int fd;
	struct gate *gate;
	struct page_times *pt;
	/* Shuffle indices [first, first + count). */
	uint64_t first;
	uint64_t count;
	int err;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint64_t k, page, t0, t1;
	char buf[PAGE];
	ssize_t n;
	int go;

	pthread_mutex_lock(&r->gate->lock);
	while (!r->gate->go)
		pthread_cond_wait(&r->gate->cond, &r->gate->lock);
	go = r->gate->go;
	pthread_mutex_unlock(&r->gate->lock);
	if (go < 0)
		return NULL;
	for (k = r->first; k < r->first + r->count; k++) {
		page = shuffled_page(k);
		t0 = bench_now_ns();
		n = pread(r->fd, buf, PAGE, (off_t)(page * PAGE));
		t1 = bench_now_ns();
		if (n != PAGE) {
			r->err = n < 0 ? -errno : -EIO;
			break;
		}
		r->pt->start[page] = t0;
		r->pt->end[page] = t1;
	}
	return NULL;
}

static void gate_open(struct gate *g, int go)
{
	pthread_mutex_lock(&g->lock);
	g->go = go;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* @conc readers over shuffle indices [@first, @first + @n); 0 or -errno. */
static int run_readers(int fd, unsigned conc, uint64_t first, uint64_t n,
		       struct page_times *pt)
{
	struct gate gate = { PTHREAD_MUTEX_INITIALIZER,
			     PTHREAD_COND_INITIALIZER, 0 };
	struct reader readers[MAX_CONC];
	pthread_t th[MAX_CONC];
	unsigned i, started;
	int err = 0;

	for (i = 0; i < conc; i++) {
		uint64_t count = n / conc + (i < n % conc);

		readers[i] = (struct reader){ fd, &gate, pt, first, count, 0 };
		first += count;
	}
	for (started = 0; started < conc; started++) {
		err = -pthread_create(&th[started], NULL, reader_main,
				      &readers[started]);
		if (err)
			break;
	}
	gate_open(&gate, err ? -1 : 1);
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		if (!err)
			err = readers[i].err;
	}
	return err;
}

/* Per-read figures of one configuration, in ns, n of each. */
struct samples {
	int64_t *overshoot;
	int64_t *client;
	int64_t *way_in;
	int64_t *way_back;
	size_t n;
	/* Records that were not one delayed page read by this run. */
	size_t odd;
};

static void samples_free(struct samples *s)
{
	free(s->overshoot);
	free(s->client);
	free(s->way_in);
	free(s->way_back);
}

static int samples_alloc(struct samples *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->overshoot = calloc(n, sizeof(int64_t));
	s->client = calloc(n, sizeof(int64_t));
	s->way_in = calloc(n, sizeof(int64_t));
	s->way_back = calloc(n, sizeof(int64_t));
	if (!s->overshoot || !s->client || !s->way_in || !s->way_back) {
		samples_free(s);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Matches the log's records to the client's pread() times by page; @cap
 * samples at most. A page is matched once, so a page fetched twice, a
 * read of more than one page, an error or a different delay is odd.
 */
static void collect(const struct testfs_log *log, uint64_t delay_ns,
		    struct page_times *pt, struct samples *s, size_t cap)
{
	const struct testfs_record *r;
	int64_t start, end, t, done;
	size_t i;

	for (i = 0; (r = testfs_log_at(log, i)); i++) {
		if (r->kind != TESTFS_RECORD_READ)
			continue;
		if (!r->file || strcmp(r->file, RAND_FILE) != 0 ||
		    r->pages != 1 || r->err || r->delay_ns != delay_ns ||
		    r->page >= RAND_PAGES || !pt->start[r->page] ||
		    s->n == cap) {
			s->odd++;
			continue;
		}
		start = (int64_t)pt->start[r->page];
		end = (int64_t)pt->end[r->page];
		t = (int64_t)r->t_ns;
		done = (int64_t)r->done_ns;
		pt->start[r->page] = 0;
		s->overshoot[s->n] = done - t - (int64_t)delay_ns;
		s->client[s->n] = end - start;
		s->way_in[s->n] = t - start;
		s->way_back[s->n] = end - done;
		s->n++;
	}
	qsort(s->overshoot, s->n, sizeof(int64_t), cmp_i64);
	qsort(s->client, s->n, sizeof(int64_t), cmp_i64);
	qsort(s->way_in, s->n, sizeof(int64_t), cmp_i64);
	qsort(s->way_back, s->n, sizeof(int64_t), cmp_i64);
}

/* Across part 1. */
struct totals {
	/* Log records that were not one delayed page of the run. */
	size_t odd;
	/* Reads without a record. */
	size_t unmatched;
	long max_background;
};

static void precision_header(void)
{
	printf("%17s %-20s %-13s %-13s %s\n", "", "overshoot", "pread()",
	       "way in", "way back");
	printf("%5s %5s %5s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n", "delay",
	       "conc", "reads", "p50", "p99", "max", "p50", "p99", "p50", "p99",
	       "p50", "p99");
}

/*
 * What this machine's timers give any process: @n absolute
 * clock_nanosleep()s of the delay with 1 ns timer slack, as testfs's
 * timer thread sets it, and how late each woke up; a row "timer".
 */
static int timer_floor(const struct delay_case *dc, uint64_t n, double *p99)
{
	int64_t *late = calloc(n, sizeof(int64_t));
	int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	struct timespec ts;
	uint64_t i, due;

	if (!late)
		return bench_fail(-ENOMEM, "%s", "timer samples");
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (i = 0; i < n; i++) {
		due = bench_now_ns() + dc->delay_ns;
		ts.tv_sec = (time_t)(due / NS_PER_S);
		ts.tv_nsec = (long)(due % NS_PER_S);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		late[i] = (int64_t)(bench_now_ns() - due);
	}
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	qsort(late, n, sizeof(int64_t), cmp_i64);
	printf("%5s %5s %5" PRIu64 " %6.1f %6.1f %6.1f %6s %6s %6s %6s %6s "
	       "%6s\n",
	       dc->model + strlen("fixed:"), "timer", n, pct_us(late, n, 500),
	       pct_us(late, n, 990), pct_us(late, n, 1000), "-", "-", "-", "-",
	       "-", "-");
	fflush(stdout);
	*p99 = pct_us(late, n, 990);
	free(late);
	return 0;
}

/*
 * One configuration: cold start, @conc readers over @n shuffle indices
 * from @first, one table row; *@p99 gets the p99 overshoot in us.
 */
static int precision_run(struct testfs_mount *fs, int fd,
			 const struct delay_case *dc, unsigned conc,
			 uint64_t first, uint64_t n, struct page_times *pt,
			 double *p99, struct totals *tot)
{
	struct testfs_log *log;
	struct samples s;
	int err;

	err = testfs_cold(fs, RAND_FILE);
	if (err)
		return bench_fail(err, "testfs_cold(%s)", RAND_FILE);
	memset(pt->start, 0, RAND_PAGES * sizeof(uint64_t));
	memset(pt->end, 0, RAND_PAGES * sizeof(uint64_t));
	err = run_readers(fd, conc, first, n, pt);
	if (err)
		return bench_fail(err, "pread() of %s", RAND_FILE);
	err = testfs_log_snapshot(fs, &log);
	if (err)
		return bench_fail(err, "testfs_log_snapshot(%s)", dc->model);
	err = samples_alloc(&s, n);
	if (err) {
		testfs_log_free(log);
		return bench_fail(err, "%s", "samples");
	}
	collect(log, dc->delay_ns, pt, &s, n);
	testfs_log_free(log);
	printf("%5s %5u %5zu %6.1f %6.1f %6.1f %6.0f %6.0f %6.1f %6.1f %6.1f "
	       "%6.1f\n",
	       dc->model + strlen("fixed:"), conc, s.n,
	       pct_us(s.overshoot, s.n, 500), pct_us(s.overshoot, s.n, 990),
	       pct_us(s.overshoot, s.n, 1000), pct_us(s.client, s.n, 500),
	       pct_us(s.client, s.n, 990), pct_us(s.way_in, s.n, 500),
	       pct_us(s.way_in, s.n, 990), pct_us(s.way_back, s.n, 500),
	       pct_us(s.way_back, s.n, 990));
	fflush(stdout);
	*p99 = pct_us(s.overshoot, s.n, 990);
	tot->odd += s.odd;
	tot->unmatched += n - s.n;
	samples_free(&s);
	return 0;
}

/* Every concurrency for one delay, on one instance. */
static int precision_delay(const struct delay_case *dc, uint64_t divisor,
			   struct page_times *pt, double *p99_target,
			   double *floor_p99, struct totals *tot)
{
	static const char *const files[] = { RAND_SPEC, NULL };
	struct testfs_config cfg = { .files = files, .latency = dc->model };
	uint64_t n = dc->samples / divisor, first = 0;
	struct testfs_settings set;
	struct testfs_mount *fs;
	double p99 = 0.0;
	unsigned i;
	int fd, err;

	err = latency_start(&cfg, dc->model, &fs, &set);
	if (err)
		return err;
	tot->max_background = latency_knob(set.max_background);
	fd = testfs_open(fs, RAND_FILE, O_RDONLY);
	if (fd < 0) {
		err = bench_fail(fd, "open(%s)", RAND_FILE);
		goto out_stop;
	}
	/* One page per pread(): no readahead around it. */
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	if (err) {
		err = bench_fail(err, "posix_fadvise(%s, RANDOM)", RAND_FILE);
		goto out_close;
	}
	err = timer_floor(dc, n, floor_p99);
	for (i = 0; !err && i < NCONCS; i++) {
		err = precision_run(fs, fd, dc, concurrencies[i], first, n, pt,
				    &p99, tot);
		if (err)
			break;
		first += n;
		if (concurrencies[i] == TARGET_CONC)
			*p99_target = p99;
	}
out_close:
	close(fd);
out_stop:
	testfs_stop(fs);
	return err;
}

static int precision(uint64_t divisor)
{
	struct page_times pt = { calloc(RAND_PAGES, sizeof(uint64_t)),
				 calloc(RAND_PAGES, sizeof(uint64_t)) };
	struct totals tot = { 0, 0, -1 };
	double p99[NDELAYS], floor_p99[NDELAYS];
	unsigned i;
	int err = 0;

	if (!pt.start || !pt.end) {
		err = bench_fail(-ENOMEM, "%s", "page times");
		goto out;
	}
	printf("1. Delay precision: --latency fixed:DELAY, CONC threads "
	       "pread() distinct random\n"
	       "   4 KiB pages of a 1 GiB file (POSIX_FADV_RANDOM: one "
	       "FUSE_READ of one page\n"
	       "   each), cold. All times in us, per read:\n"
	       "   overshoot = (done_ns - t_ns) - delay_ns from the log "
	       "(late reply, counted\n"
	       "               from arrival in testfs);\n"
	       "   pread()   = what the client saw; way in = pread() called "
	       "to t_ns (kernel,\n"
	       "               FUSE queues); way back = done_ns to pread() "
	       "returned;\n"
	       "   timer     = this machine's floor, no testfs: how late a "
	       "clock_nanosleep()\n"
	       "               of DELAY wakes with 1 ns timer slack (as "
	       "testfs's timer thread).\n\n");
	precision_header();
	for (i = 0; i < NDELAYS; i++) {
		p99[i] = floor_p99[i] = 0;
		err = precision_delay(&delay_cases[i], divisor, &pt, &p99[i],
				      &floor_p99[i], &tot);
		if (err)
			goto out;
	}
	printf("\nTarget: p99 overshoot at %u concurrent <= %.0f us.\n",
	       TARGET_CONC, TARGET_US);
	for (i = 0; i < NDELAYS; i++)
		printf("  %-5s p99 %6.1f us: %s by %.1f us (timer floor: "
		       "p99 %.1f us)\n",
		       delay_cases[i].model + strlen("fixed:"), p99[i],
		       p99[i] <= TARGET_US ? "met" : "missed",
		       p99[i] <= TARGET_US ? TARGET_US - p99[i]
					   : p99[i] - TARGET_US,
		       floor_p99[i]);
	printf("At %u concurrent the reads in flight fill FUSE's "
	       "max_background (%ld here; the\n"
	       "kernel's default is 12): any more would wait in the kernel "
	       "before reaching\n"
	       "testfs. Such waits, and %u threads sharing %ld CPUs, show in "
	       "'way in' and\n"
	       "pread(), not in the overshoot, which is counted from arrival "
	       "in testfs and is\n"
	       "what the target is about.\n",
	       TARGET_CONC, tot.max_background, TARGET_CONC,
	       sysconf(_SC_NPROCESSORS_ONLN));
	if (tot.odd || tot.unmatched)
		printf("Note: %zu log records were not one delayed page of "
		       "this run, %zu reads had\nno record; both are left "
		       "out.\n",
		       tot.odd, tot.unmatched);
out:
	free(pt.start);
	free(pt.end);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: latency [--quick]\n"
		   "Measures testfs's delay precision and its throughput "
		   "against latency models.\n"
		   "--quick takes a tenth of the samples.\n");
}

int main(int argc, char **argv)
{
	uint64_t divisor = 1;
	struct utsname u;
	uint64_t t0 = bench_now_ns();
	int i, err;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			divisor = 10;
		} else {
			return bench_not_an_option(argv[i], usage);
		}
	}
	if (uname(&u) != 0)
		strcpy(u.release, "unknown");
	printf("testfs latency benchmark%s: Linux %s %s, nproc %ld\n\n",
	       divisor > 1 ? " (--quick)" : "", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN));
	err = precision(divisor);
	if (!err)
		err = latency_throughput();
	if (err) {
		fflush(stdout);
		fprintf(stderr, "latency: could not run: %s\n", bench_failure);
		return 1;
	}
	printf("\nTotal time %.1f s.\n", (double)(bench_now_ns() - t0) / 1e9);
	return 0;
}
