// SPDX-License-Identifier: MIT
/*
 * The transports scenario's report: per workload a table of both
 * transports and the request lists, then what differs, in words.
 */
#include <stdlib.h>
#include <string.h>

#include "transports.h"

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

/* The median of the rounds' @field (ns or latency) of a cell. */
static uint64_t median(const struct cell *c, unsigned rounds, int field)
{
	uint64_t v[MAX_ROUNDS];
	unsigned i, n = 0;

	for (i = 0; i < rounds; i++) {
		if (!c->s[i].done)
			continue;
		v[n++] = field == 0   ? c->s[i].ns
			 : field == 1 ? c->s[i].lat_med
				      : c->s[i].lat_max;
	}
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), u64_cmp);
	return v[n / 2];
}

static uint64_t largest(const struct read_list *reads)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < reads->n; i++)
		if (reads->v[i]->pages > m)
			m = reads->v[i]->pages;
	return m;
}

/*
 * Compares the two transports' request sequences as page sets in
 * arrival order: the index of the first read that differs, or n when
 * they are the same sequence.
 */
static size_t first_difference(const struct read_list *a,
			       const struct read_list *b)
{
	size_t i, n = a->n < b->n ? a->n : b->n;

	for (i = 0; i < n; i++)
		if (a->v[i]->page != b->v[i]->page ||
		    a->v[i]->pages != b->v[i]->pages)
			return i;
	return a->n == b->n ? SIZE_MAX : n;
}

static int cmp_read(const void *a, const void *b)
{
	const struct testfs_record *x = *(const struct testfs_record *const *)a;
	const struct testfs_record *y = *(const struct testfs_record *const *)b;

	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->pages < y->pages ? -1 : x->pages > y->pages;
}

/*
 * Whether @a and @b hold the same reads (first page and size) in some
 * order. Over io_uring each CPU's queue has its own thread, so reads
 * queued on two CPUs at about the same time reach the log in either
 * order.
 */
static bool same_reads(const struct read_list *a, const struct read_list *b)
{
	const struct testfs_record **x, **y;
	bool same = a->n == b->n;
	size_t i;

	if (!same || !a->n)
		return same;
	x = malloc(a->n * sizeof(*x));
	y = malloc(b->n * sizeof(*y));
	if (!x || !y) {
		free(x);
		free(y);
		return false;
	}
	memcpy(x, a->v, a->n * sizeof(*x));
	memcpy(y, b->v, b->n * sizeof(*y));
	qsort(x, a->n, sizeof(*x), cmp_read);
	qsort(y, b->n, sizeof(*y), cmp_read);
	for (i = 0; i < a->n && same; i++)
		same = x[i]->page == y[i]->page && x[i]->pages == y[i]->pages;
	free(x);
	free(y);
	return same;
}

static void row_for(struct rnode *table, const struct transports *tp,
		    enum transport t, enum workload w)
{
	const struct cell *c = &tp->cell[t][w];
	const struct requests *q = &c->req;
	uint64_t ns = median(c, tp->rounds, 0);
	struct rnode *row = rep_row(table);

	rep_str(row, "transport", NULL, "%s", transport_name[t]);
	rep_uint(row, "requests", "FUSE reads", q->reads.n, NULL);
	rep_uint(row, "pages_fetched", "pages", q->fetched, NULL);
	rep_uint(row, "common_pages", "usual size",
		 read_list_usual_pages(&q->reads, NULL), NULL);
	rep_uint(row, "largest_pages", "largest", largest(&q->reads), NULL);
	rep_uint(row, "windows", NULL, q->windows, NULL);
	rep_uint(row, "async", NULL, q->causes[TESTFS_CAUSE_ASYNC], NULL);
	rep_uint(row, "max_in_server", "held at once", q->max_inflight, NULL);
	rep_uint(row, "max_async_in_server", "async at once",
		 q->max_inflight_bg, NULL);
	rep_num(row, "reply_us_median", "reply us (med)",
		median(c, tp->rounds, 1) / 1e3, 1, NULL);
	rep_num(row, "reply_us_max", "reply us (max)",
		median(c, tp->rounds, 2) / 1e3, 1, NULL);
	rep_num(row, "MB_s", "MB/s", mb_per_s(c->s[0].bytes, ns), 1, NULL);
	if (q->counted) {
		rep_uint(row, "over_ring", "over ring", q->served_uring, NULL);
		rep_uint(row, "over_dev", "over dev", q->served_dev, NULL);
	}
}

/* Adds what differs between the transports for workload @w, in words. */
static void differences(struct rnode *sec, const struct transports *tp,
			enum workload w)
{
	const struct requests *d = &tp->cell[T_DEV][w].req;
	const struct requests *u = &tp->cell[T_URING][w].req;
	char key[64], text[1024];
	size_t used = 0, k = first_difference(&d->reads, &u->reads);
	double md = mb_per_s(tp->cell[T_DEV][w].s[0].bytes,
			     median(&tp->cell[T_DEV][w], tp->rounds, 0));
	double mu = mb_per_s(tp->cell[T_URING][w].s[0].bytes,
			     median(&tp->cell[T_URING][w], tp->rounds, 0));

#define SAY(...)                                                               \
	do {                                                                   \
		if (used < sizeof(text))                                       \
			used += (size_t)snprintf(text + used,                  \
						 sizeof(text) - used,          \
						 __VA_ARGS__);                 \
	} while (0)
	if (k == SIZE_MAX)
		SAY("The kernel sent the same %zu reads over both "
		    "transports, in the same order. ",
		    d->reads.n);
	else if (same_reads(&d->reads, &u->reads))
		SAY("The kernel sent the same %zu reads over both "
		    "transports; they reached the server in another order "
		    "from read %zu on (/dev/fuse (%llu,%llu), io_uring "
		    "(%llu,%llu)): over io_uring each CPU's queue is served "
		    "by its own thread. ",
		    d->reads.n, k + 1, (unsigned long long)d->reads.v[k]->page,
		    (unsigned long long)d->reads.v[k]->pages,
		    (unsigned long long)u->reads.v[k]->page,
		    (unsigned long long)u->reads.v[k]->pages);
	else if (k < d->reads.n && k < u->reads.n)
		SAY("The requests differ from read %zu on: /dev/fuse got "
		    "(%llu,%llu), io_uring (%llu,%llu); %zu reads against "
		    "%zu. ",
		    k + 1, (unsigned long long)d->reads.v[k]->page,
		    (unsigned long long)d->reads.v[k]->pages,
		    (unsigned long long)u->reads.v[k]->page,
		    (unsigned long long)u->reads.v[k]->pages, d->reads.n,
		    u->reads.n);
	else
		SAY("The first %zu reads are the same; then one transport "
		    "got more (%zu against %zu). ",
		    k, d->reads.n, u->reads.n);
	if (d->fetched != u->fetched)
		SAY("Pages fetched: %llu over /dev/fuse, %llu over io_uring. ",
		    (unsigned long long)d->fetched,
		    (unsigned long long)u->fetched);
	if (d->max_inflight != u->max_inflight ||
	    d->max_inflight_bg != u->max_inflight_bg)
		SAY("The server held up to %llu reads at once over /dev/fuse "
		    "(%llu async) and %llu over io_uring (%llu async). ",
		    (unsigned long long)d->max_inflight,
		    (unsigned long long)d->max_inflight_bg,
		    (unsigned long long)u->max_inflight,
		    (unsigned long long)u->max_inflight_bg);
	if (md > 0)
		SAY("Throughput: io_uring at %.2fx of /dev/fuse (%.0f against "
		    "%.0f MB/s%s).",
		    mu / md, mu, md,
		    tp->rounds > 1 ? ", medians of the rounds" : ", one run");
#undef SAY
	snprintf(key, sizeof(key), "%s", workload_name[w]);
	rep_text(sec, key, "%s: %s", workload_name[w], text);
}

void transports_report(struct scenario_ctx *ctx, const void *result)
{
	const struct transports *tp = result;
	struct rnode *sec, *obj, *table;
	bool both = !tp->skipped[T_URING][0] && !tp->skipped[T_DEV][0];
	unsigned w, t;
	char key[64];

	sec = rep_section(ctx->rep, "done", "What was done");
	rep_text(sec, "what",
		 "Started testfs once over /dev/fuse and once over FUSE over "
		 "io_uring (testfs --transport uring) with the same file, "
		 "read_ahead_kb and storage model, and ran the same workloads "
		 "on each from a cold cache: read(2) of the whole file with "
		 "4 KiB and with 1 MiB blocks (seq4k, seq1m), its middle "
		 "third mapped and touched page by page (mmap), and the whole "
		 "file mapped, split into VMAs of %llu pages by mprotect and "
		 "touched (split). The requests are the log's; \"held at "
		 "once\" is the most reads the server had between arrival and "
		 "reply; \"over ring\" and \"over dev\" are the daemon's own "
		 "counts of the FUSE reads each transport carried during the "
		 "workload, the reads of its control files included.",
		 (unsigned long long)param_u(ctx, "vma"));
	for (t = 0; t < NTRANSPORTS; t++)
		if (tp->skipped[t][0])
			rep_text(sec, transport_name[t],
				 "Over %s nothing ran: %s.", transport_name[t],
				 tp->skipped[t]);
	sec = rep_section(ctx->rep, "workloads", "Per workload");
	for (w = 0; w < NWORKLOADS; w++) {
		if (!tp->wanted[w])
			continue;
		snprintf(key, sizeof(key), "%s", workload_name[w]);
		obj = rep_obj(sec, key, key);
		table = rep_table(obj, "transports", NULL);
		for (t = 0; t < NTRANSPORTS; t++)
			if (!tp->skipped[t][0])
				row_for(table, tp, (enum transport)t,
					(enum workload)w);
		for (t = 0; t < NTRANSPORTS; t++) {
			if (tp->skipped[t][0])
				continue;
			snprintf(key, sizeof(key), "%s_requests",
				 transport_name[t]);
			report_requests(rep_obj(obj, key, key),
					&tp->cell[t][w].req.reads, 10);
		}
	}
	sec = rep_section(ctx->rep, "differences", "What differs");
	if (!both) {
		rep_text(sec, "none",
			 "Only one transport ran, so nothing is compared.");
		return;
	}
	for (w = 0; w < NWORKLOADS; w++)
		if (tp->wanted[w])
			differences(sec, tp, (enum workload)w);
	rep_text(sec, "why",
		 "What the transports change (docs/design-transport.md): over "
		 "io_uring the kernel queues each request on the ring of the "
		 "CPU its task runs on, and testfs answers it on a thread "
		 "pinned to that CPU, so one reader and the thread answering "
		 "it take turns on one CPU where over /dev/fuse the server "
		 "runs beside the reader; each queue may also have one "
		 "background request in flight beyond max_background (%u "
		 "here), so async readahead is congested differently. The "
		 "readahead windows themselves are decided before a request "
		 "is queued and do not depend on the transport.",
		 tp->max_background);
}
