// SPDX-License-Identifier: MIT
/*
 * transports: the same readahead workloads over /dev/fuse and over FUSE
 * over io_uring (testfs --transport uring), and what differs: the
 * requests the kernel sent (sizes, windows, order), how many of them the
 * server had at once (background readahead included), the reply
 * latencies and the throughput.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "transports.h"

#define FILE_NAME "transport.bin"

static const struct param_def params[] = {
	{ "size", PARAM_SIZE, "64M", "8M",
	  "file size; seq4k and seq1m read it whole, mmap maps its middle "
	  "third, split maps it whole",
	  1ull << 20, 1ull << 40, NULL },
	PARAM_DEF_RA,
	PARAM_DEF_MODEL("nvme", ": a model with some latency makes the "
				"requests the server holds at once visible"),
	{ "workloads", PARAM_CHOICE, "all", NULL,
	  "seq4k (read(2) of 4 KiB), seq1m (1 MiB), mmap (a slice touched "
	  "page by page), split (an mprotect-split mapping touched), or all",
	  0, 0, "all|seq4k|seq1m|mmap|split" },
	{ "vma", PARAM_UINT, "64", "16",
	  "pages per VMA of the split workload (alternately PROT_READ and "
	  "PROT_READ|PROT_WRITE, MAP_PRIVATE)",
	  1, 1u << 20, NULL },
	{ "rounds", PARAM_UINT, "1", NULL,
	  "each round runs every workload over dev, then over uring; "
	  "throughput and latency are the medians over the rounds, the "
	  "requests those of the first round",
	  1, MAX_ROUNDS, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* The workloads                                                       */
/* ------------------------------------------------------------------ */

static int read_all(struct session *s, size_t block, uint64_t *bytes)
{
	int fd = testfs_open(s->fs, s->file, O_RDONLY);
	int64_t n;

	if (fd < 0)
		return fd;
	n = testfs_read_pages(fd, 0, s->file_pages, block, TESTFS_ORDER_FORWARD,
			      0, NULL);
	close(fd);
	if (n < 0)
		return (int)n;
	*bytes = (uint64_t)n;
	return 0;
}

static int touch_map(struct session *s, uint64_t first, uint64_t npages,
		     uint64_t vma, uint64_t *bytes)
{
	struct testfs_map m;
	int64_t n;
	int err;

	err = testfs_map(s->fs, s->file, first, npages, PROT_READ, MAP_PRIVATE,
			 &m);
	if (err)
		return err;
	if (vma) {
		int nvma = testfs_split(&m, vma, PROT_READ,
					PROT_READ | PROT_WRITE);

		if (nvma < 0) {
			testfs_unmap(&m);
			return nvma;
		}
	}
	n = testfs_touch(&m, TESTFS_ORDER_FORWARD, 0, NULL);
	testfs_unmap(&m);
	if (n < 0)
		return (int)n;
	*bytes = (uint64_t)n * s->page_size;
	return 0;
}

static int run_workload(struct session *s, enum workload w, uint64_t vma,
			uint64_t *bytes)
{
	switch (w) {
	case W_SEQ4K:
		return read_all(s, 4096, bytes);
	case W_SEQ1M:
		return read_all(s, 1u << 20, bytes);
	case W_MMAP:
		return touch_map(s, s->file_pages / 3, s->file_pages / 3, 0,
				 bytes);
	default:
		return touch_map(s, 0, s->file_pages, vma, bytes);
	}
}

/* ------------------------------------------------------------------ */
/* What the log says                                                   */
/* ------------------------------------------------------------------ */

static void latencies(const struct read_list *reads, struct sample *out)
{
	uint64_t *v;
	size_t i;

	out->lat_med = out->lat_max = 0;
	if (!reads->n)
		return;
	v = malloc(reads->n * sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < reads->n; i++) {
		const struct testfs_record *r = reads->v[i];

		v[i] = r->done_ns > r->t_ns ? r->done_ns - r->t_ns : 0;
	}
	qsort(v, reads->n, sizeof(*v), u64_cmp);
	out->lat_med = v[reads->n / 2];
	out->lat_max = v[reads->n - 1];
	free(v);
}

/*
 * The most reads the server held at once: each read is in the server
 * from its arrival (t_ns) to its reply (done_ns). A sweep over the
 * arrivals and replies in time order; a reply at the very time of an
 * arrival ends first. @bg counts only async readahead (the kernel's
 * background requests).
 */
static uint64_t max_inflight(const struct read_list *reads, bool bg)
{
	uint64_t *ev, best = 0, cur = 0;
	size_t i, n = 0;

	ev = malloc(2 * reads->n * sizeof(*ev) + 1);
	if (!ev)
		return 0;
	for (i = 0; i < reads->n; i++) {
		const struct testfs_record *r = reads->v[i];

		if (bg && r->cause != TESTFS_CAUSE_ASYNC)
			continue;
		/* Time in the upper bits, 1 for an arrival, 0 a reply. */
		ev[n++] = (r->t_ns << 1) | 1;
		ev[n++] = (r->done_ns > r->t_ns ? r->done_ns : r->t_ns) << 1;
	}
	qsort(ev, n, sizeof(*ev), u64_cmp);
	for (i = 0; i < n; i++) {
		if (ev[i] & 1) {
			if (++cur > best)
				best = cur;
		} else if (cur) {
			cur--;
		}
	}
	free(ev);
	return best;
}

static void count_requests(struct requests *q)
{
	uint32_t *win;
	size_t i, n = 0;

	q->max_inflight = max_inflight(&q->reads, false);
	q->max_inflight_bg = max_inflight(&q->reads, true);
	win = malloc(q->reads.n * sizeof(*win) + 1);
	for (i = 0; i < q->reads.n; i++) {
		const struct testfs_record *r = q->reads.v[i];

		if ((unsigned)r->cause < NCAUSES)
			q->causes[r->cause]++;
		if (win && r->window)
			win[n++] = r->window;
	}
	if (win) {
		uint64_t distinct = 0;
		size_t j;

		for (i = 0; i < n; i++) {
			for (j = 0; j < i && win[j] != win[i]; j++)
				;
			distinct += j == i;
		}
		q->windows = distinct;
		free(win);
	}
}

/* FUSE_READs served per transport so far (the daemon's counters). */
static bool served(struct session *s, uint64_t *dev, uint64_t *uring)
{
	return session_control_number(s, "stats", "dev_reads", dev) == 0 &&
	       session_control_number(s, "stats", "uring_reads", uring) == 0;
}

static int do_cell(struct scenario_ctx *ctx, struct session *s,
		   struct transports *tp, enum transport t, enum workload w,
		   unsigned round)
{
	struct cell *c = &tp->cell[t][w];
	struct sample *smp = &c->s[round];
	uint64_t t0, dev0 = 0, ring0 = 0, dev1, ring1;
	struct testfs_log *log = NULL;
	struct read_list reads = { 0 };
	char phase[64];
	bool counted;
	int err;

	snprintf(phase, sizeof(phase), "%s %s round %u", transport_name[t],
		 workload_name[w], round + 1);
	err = session_phase(ctx, s, phase);
	if (err)
		return err;
	progress("transports: %s", phase);
	counted = served(s, &dev0, &ring0);
	t0 = now_ns();
	err = run_workload(s, w, param_u(ctx, "vma"), &smp->bytes);
	smp->ns = now_ns() - t0;
	if (err)
		return scenario_fail(ctx, err, "%s", phase);
	err = session_snapshot(ctx, s, phase, &log);
	if (err)
		return err;
	err = log_reads(log, s->file, &reads);
	if (err) {
		testfs_log_free(log);
		return scenario_fail(ctx, err, "%s: the log", phase);
	}
	latencies(&reads, smp);
	smp->done = true;
	if (round) {
		read_list_free(&reads);
		testfs_log_free(log);
		return 0;
	}
	c->req.log = log;
	c->req.reads = reads;
	{
		struct testfs_extents fetched = TESTFS_EXTENTS_INIT;

		if (!testfs_log_fetched(log, s->file, &fetched))
			c->req.fetched = fetched.pages;
		testfs_extents_free(&fetched);
	}
	count_requests(&c->req);
	if (counted && served(s, &dev1, &ring1)) {
		c->req.counted = true;
		c->req.served_dev = dev1 - dev0;
		c->req.served_uring = ring1 - ring0;
	}
	return 0;
}

/* One session over transport @t: every wanted workload once. */
static int do_round(struct scenario_ctx *ctx, struct transports *tp,
		    enum transport t, unsigned round)
{
	struct session *s;
	int err, status;
	unsigned w;

	ctx->transport = transport_name[t];
	err = session_start(ctx, &s, FILE_NAME, param_u(ctx, "size"),
			    (unsigned)param_u(ctx, "ra"),
			    param_s(ctx, "model"));
	ctx->transport = NULL;
	if (err)
		return err;
	if (round == 0 && t == T_DEV) {
		session_report_settings(s, ctx->rep);
		tp->file_pages = s->file_pages;
		tp->ra_pages = s->ra_pages;
		tp->max_pages = s->max_pages;
		tp->max_background = s->max_background;
		tp->congestion_threshold = s->congestion_threshold;
		snprintf(tp->kernel, sizeof(tp->kernel), "%s", s->kernel);
		snprintf(tp->model, sizeof(tp->model), "%s", s->model);
	}
	if (strcmp(s->transport, transport_name[t])) {
		/* The daemon fell back: nothing to compare over it. */
		snprintf(tp->skipped[t], sizeof(tp->skipped[t]),
			 "testfs serves %s instead: %s", s->transport,
			 s->transport_note[0] ? s->transport_note
					      : "the daemon gave no reason");
		session_stop(s);
		return 0;
	}
	for (w = 0; w < NWORKLOADS && !err; w++)
		if (tp->wanted[w])
			err = do_cell(ctx, s, tp, t, (enum workload)w, round);
	status = session_stop(s);
	if (!err && status)
		return scenario_fail(ctx, 0,
				     "testfs (%s) exited with status %d",
				     transport_name[t], status);
	return err;
}

/* Every round: each workload wanted over dev, then over uring. */
static int measure(struct scenario_ctx *ctx, void *result)
{
	const char *which = param_s(ctx, "workloads");
	struct transports *tp = result;
	unsigned round, t, w;
	int err = 0;

	for (w = 0; w < NWORKLOADS; w++)
		tp->wanted[w] = !strcmp(which, "all") ||
				!strcmp(which, workload_name[w]);
	tp->rounds = (unsigned)param_u(ctx, "rounds");
	for (round = 0; round < tp->rounds && !err; round++)
		for (t = 0; t < NTRANSPORTS && !err; t++)
			if (!tp->skipped[t][0])
				err = do_round(ctx, tp, (enum transport)t,
					       round);
	return err;
}

static void release(void *result)
{
	struct transports *tp = result;
	unsigned t, w;

	for (t = 0; t < NTRANSPORTS; t++)
		for (w = 0; w < NWORKLOADS; w++) {
			read_list_free(&tp->cell[t][w].req.reads);
			testfs_log_free(tp->cell[t][w].req.log);
		}
}

const struct scenario transports_scenario = {
	.name = "transports",
	.summary = "the same readahead workloads over /dev/fuse and FUSE "
		   "over io_uring: what differs",
	.description =
		"Runs read(2) of a whole file with 4 KiB and 1 MiB blocks, a "
		"mapped slice touched page by page and an mprotect-split "
		"mapping touched, each from a cold cache, once with testfs "
		"serving /dev/fuse and once serving FUSE over io_uring "
		"(testfs --transport uring), and reports per workload the "
		"requests (count, sizes, windows, the sequence), how many "
		"reads the server held at once (async readahead apart), the "
		"reply latencies and the throughput, then what differs in "
		"words. Where the kernel has no FUSE over io_uring the "
		"io_uring half says why and only /dev/fuse is reported. The "
		"PARAM transport= is ignored: this scenario runs both.",
	.params = params,
	SCENARIO_STEPS(struct transports, measure, NULL, transports_report,
		       release),
};
