// SPDX-License-Identifier: MIT
/*
 * The correlator (see correlate.h for the rules). Everything here runs
 * under one mutex: on the tracer's thread for each event, and on the
 * caller's thread in correlator_sync().
 */
#include "correlate.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page_age.h"
#include "../common/clock.h"
#include "../trace/tracer.h"

/* Recent history kept per inode: enough for the reads still in flight. */
#define BATCHES_PER_INO 256
#define ACCESSES_PER_INO 256
#define READS_PER_INO 256
/* Tasks whose decision state is followed at once. */
#define PID_SLOTS 64
/* Access records waiting to be written to the log. */
#define PEND_MAX 4096
/* Reads still unpublished this far behind the newest are given up. */
#define GIVE_UP_SPAN (1u << 16)
/* A fault explains a one-page read without a batch this long after it. */
#define SINGLE_HORIZON_NS (10ull * 1000 * 1000 * 1000)
/*
 * A decision's events (fault, sync/async_ra, ra_order, ra_unbounded)
 * follow each other within microseconds in one task; state older than
 * this belongs to an access that read nothing, and is forgotten.
 */
#define DECISION_HORIZON_NS (10ull * 1000 * 1000)

struct batch {
	uint64_t ts;
	uint32_t pid;
	uint64_t first;
	uint64_t end; /* exclusive; first == end: dead */
	struct log_attr a;
};

struct access_ev {
	uint64_t ts;
	uint64_t first;
	uint64_t last;
	uint64_t pend; /* id of its access record */
	uint32_t pid;
	uint8_t type;
};

struct recent_read {
	uint64_t pos;
	uint64_t first;
	uint64_t last;
	uint64_t done_ns;
	uint64_t batch_ts; /* 0: no batch */
	struct log_attr a;
};

struct ino_state {
	uint64_t ino;
	uint64_t nbatches; /* written so far; ring index = n % size */
	uint64_t naccesses;
	uint64_t nreads;
	struct batch batches[BATCHES_PER_INO];
	struct access_ev accesses[ACCESSES_PER_INO];
	struct recent_read reads[READS_PER_INO];
};

struct pid_ctx {
	int32_t pid;
	bool used;
	uint64_t used_ts;
	bool has_sync, has_async, has_order, has_fault;
	uint64_t decision_ts; /* the last decision or fault event */
	struct trace_event sync;
	struct trace_event async;
	struct trace_event order;
	uint32_t order_window;
	struct ino_state *order_st; /* the batch made from the ra_order */
	uint64_t order_batch;
	uint64_t fault_ino;
	uint64_t fault_index;
	uint64_t last_access_end;
	uint64_t open[4]; /* id + 1 of the open access record per type */
};

struct correlator {
	struct log_ring *log;
	struct tracer *tracer;
	bool trace_reads;
	bool have_order; /* the kernel has readahead:page_cache_ra_order */
	/*
	 * The kernel traces its readahead decisions (sync_ra, async_ra and
	 * ra_unbounded): only then can a cause be proven. Without them
	 * (6.12 has the filemap events only) a read in no batch says
	 * nothing about why it was sent, and stays unknown.
	 */
	bool have_ra;
	char causes_why[160];
	uint32_t page_shift;
	pthread_mutex_t lock;

	uint64_t cursor; /* first log position not known to be done */
	uint64_t limit;	 /* newest event time seen */
	_Atomic uint64_t done_pos;
	uint32_t next_window;

	struct ino_state **inos; /* open addressing on ino */
	size_t ino_cap;
	size_t ino_count;

	struct pid_ctx pids[PID_SLOTS];

	struct log_record pend[PEND_MAX];
	/* Still growing: a task's latest record of its type. */
	bool pend_open[PEND_MAX];
	uint64_t pend_head; /* next id */
	uint64_t pend_tail; /* oldest not written */

	struct correlator_stats st;
};

/* ---- per-inode state ---- */

static size_t ino_hash(uint64_t ino, size_t cap)
{
	return (size_t)((ino * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static struct ino_state *ino_find(struct correlator *c, uint64_t ino)
{
	size_t i;

	if (!c->ino_cap)
		return NULL;
	for (i = ino_hash(ino, c->ino_cap); c->inos[i];
	     i = (i + 1) & (c->ino_cap - 1))
		if (c->inos[i]->ino == ino)
			return c->inos[i];
	return NULL;
}

static int ino_grow(struct correlator *c)
{
	size_t cap = c->ino_cap ? c->ino_cap * 2 : 64, i, j;
	struct ino_state **v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->ino_cap; i++) {
		if (!c->inos[i])
			continue;
		for (j = ino_hash(c->inos[i]->ino, cap); v[j];
		     j = (j + 1) & (cap - 1))
			;
		v[j] = c->inos[i];
	}
	free(c->inos);
	c->inos = v;
	c->ino_cap = cap;
	return 0;
}

static struct ino_state *ino_get(struct correlator *c, uint64_t ino)
{
	struct ino_state *st = ino_find(c, ino);
	size_t i;

	if (st)
		return st;
	if ((c->ino_count + 1) * 2 > c->ino_cap && ino_grow(c))
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->ino = ino;
	for (i = ino_hash(ino, c->ino_cap); c->inos[i];
	     i = (i + 1) & (c->ino_cap - 1))
		;
	c->inos[i] = st;
	c->ino_count++;
	return st;
}

/*
 * The batch a read of [@first, @last] by task @pid that arrived at @t
 * belongs to: the newest live batch traced before @t that holds the whole
 * read, preferring the task's own (FUSE names the task that issued the
 * readahead, and two tasks reading one file have overlapping batches).
 */
static struct batch *batch_find(struct ino_state *st, uint64_t first,
				uint64_t last, uint32_t pid, uint64_t t)
{
	uint64_t n = st->nbatches, k;
	struct batch *other = NULL;

	for (k = 0; k < BATCHES_PER_INO && k < n; k++) {
		struct batch *b = &st->batches[(n - 1 - k) % BATCHES_PER_INO];

		if (b->ts > t || first < b->first || last >= b->end)
			continue;
		if (b->pid == pid)
			return b;
		if (!other)
			other = b;
	}
	return other;
}

/* ---- pids ---- */

static void pend_close_all(struct correlator *c, struct pid_ctx *p);

static struct pid_ctx *pid_get(struct correlator *c, int32_t pid, uint64_t ts)
{
	struct pid_ctx *oldest = &c->pids[0];
	unsigned i;

	for (i = 0; i < PID_SLOTS; i++) {
		struct pid_ctx *p = &c->pids[i];

		if (p->used && p->pid == pid) {
			p->used_ts = ts;
			return p;
		}
		if (!p->used || (oldest->used && p->used_ts < oldest->used_ts))
			oldest = p;
	}
	pend_close_all(c, oldest);
	memset(oldest, 0, sizeof(*oldest));
	oldest->used = true;
	oldest->pid = pid;
	oldest->used_ts = ts;
	return oldest;
}

static void forget_decision(struct pid_ctx *p)
{
	p->has_sync = p->has_async = p->has_order = false;
	p->order_st = NULL;
}

/* ---- access records ---- */

static struct log_record *pend_get(struct correlator *c, uint64_t id)
{
	if (id < c->pend_tail || id >= c->pend_head)
		return NULL;
	return &c->pend[id % PEND_MAX];
}

static void pend_write_one(struct correlator *c)
{
	c->pend_open[c->pend_tail % PEND_MAX] = false;
	log_ring_append(c->log, &c->pend[c->pend_tail % PEND_MAX]);
	c->pend_tail++;
	c->st.access_records++;
}

/*
 * Writes the access records whose lateness is settled: every read that
 * arrived before their last event is attributed. @all: every one.
 */
static void pend_write(struct correlator *c, bool all)
{
	uint64_t oldest = c->limit;
	struct log_record rec;

	if (!all && c->cursor < log_ring_head(c->log)) {
		switch (log_ring_read(c->log, c->cursor, &rec)) {
		case LOG_READ_OK:
			oldest = rec.t_ns;
			break;
		case LOG_READ_PENDING:
			oldest = 0;
			break;
		case LOG_READ_LOST:
			break;
		}
	}
	while (c->pend_tail < c->pend_head) {
		struct log_record *r = &c->pend[c->pend_tail % PEND_MAX];

		if (!all && (r->access.end_ns >= oldest ||
			     c->pend_open[c->pend_tail % PEND_MAX]))
			break;
		pend_write_one(c);
	}
}

static uint64_t pend_new(struct correlator *c)
{
	if (c->pend_head - c->pend_tail == PEND_MAX)
		pend_write_one(c);
	c->pend_open[c->pend_head % PEND_MAX] = true;
	return c->pend_head++;
}

/* The task's open record of @type takes no more events. */
static void pend_close(struct correlator *c, struct pid_ctx *p, unsigned type)
{
	if (p->open[type] && pend_get(c, p->open[type] - 1))
		c->pend_open[(p->open[type] - 1) % PEND_MAX] = false;
	p->open[type] = 0;
}

static void pend_close_all(struct correlator *c, struct pid_ctx *p)
{
	unsigned type;

	for (type = 0; type < 4; type++)
		pend_close(c, p, type);
}

/* ---- attribution of reads ---- */

static void attr_none(struct log_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ra_marker = LOG_NO_PAGE;
	a->trigger_page = LOG_NO_PAGE;
	a->order = -1;
	a->alloc_order = -1;
}

/*
 * The time of the newest fault of task @pid on @page shortly before @t,
 * or 0.
 */
static uint64_t fault_before(struct ino_state *st, uint32_t pid, uint64_t page,
			     uint64_t t)
{
	uint64_t n = st->naccesses, k;

	for (k = 0; k < ACCESSES_PER_INO && k < n; k++) {
		struct access_ev *e =
			&st->accesses[(n - 1 - k) % ACCESSES_PER_INO];

		if (e->ts > t)
			continue;
		if (t - e->ts > SINGLE_HORIZON_NS)
			break;
		if (e->type == LOG_ACCESS_FAULT && e->pid == pid &&
		    e->first == page)
			return e->ts;
	}
	return 0;
}

/* Faults between @from and @to on [first, last]: they waited on a read. */
static unsigned late_faults(struct correlator *c, struct ino_state *st,
			    uint64_t from, uint64_t to, uint64_t first,
			    uint64_t last)
{
	uint64_t n = st->naccesses, k;
	unsigned late = 0;

	for (k = 0; k < ACCESSES_PER_INO && k < n; k++) {
		struct access_ev *e =
			&st->accesses[(n - 1 - k) % ACCESSES_PER_INO];
		struct log_record *r;

		if (e->ts < from)
			break;
		if (e->ts >= to || e->type != LOG_ACCESS_FAULT ||
		    e->first < first || e->first > last)
			continue;
		late++;
		r = pend_get(c, e->pend);
		if (r)
			r->access.late++;
		c->st.late_accesses++;
	}
	return late;
}

/*
 * A one-page read whose task faulted on that page after batch @b was
 * traced: the fault read its page without a readahead decision
 * (MADV_RANDOM, mmap_miss), since a decision would have made a newer
 * batch. @b is an older window that never read that page (it was cached
 * then) and must not claim it.
 */
static bool single_after(struct ino_state *st, const struct log_record *rec,
			 uint64_t first, uint64_t last, const struct batch *b)
{
	uint64_t f;

	if (first != last)
		return false;
	f = fault_before(st, rec->read.pid, first, rec->t_ns);
	return f && f > b->ts;
}

static void attribute(struct correlator *c, uint64_t pos,
		      const struct log_record *rec)
{
	uint64_t first = rec->read.off >> c->page_shift;
	uint64_t last = rec->read.len ? (rec->read.off + rec->read.len - 1) >>
						c->page_shift
				      : first;
	struct ino_state *st = ino_find(c, rec->read.ino);
	struct recent_read *rr;
	uint64_t batch_ts = 0;
	struct batch *b;
	struct log_attr a;

	attr_none(&a);
	if (rec->flags & LOG_FLAG_DIRECT) {
		a.cause = LOG_CAUSE_DIRECT;
		a.trigger_page = first;
	} else if (c->have_ra && st &&
		   (b = batch_find(st, first, last, rec->read.pid,
				   rec->t_ns)) &&
		   !single_after(st, rec, first, last, b)) {
		a = b->a;
		batch_ts = b->ts;
		/*
		 * A batch's reads arrive in page order and never twice: what
		 * lies before the end of this read is done with, so a later
		 * read of those pages (after eviction) is not taken for it.
		 * With several request threads a later read of the batch may
		 * be answered, and attributed, before an earlier one: only a
		 * read at the start of what is left moves the start, so the
		 * earlier one still finds its batch.
		 */
		if (first <= b->first && last + 1 > b->first)
			b->first = last + 1 < b->end ? last + 1 : b->end;
	} else if (c->have_ra && st &&
		   fault_before(st, rec->read.pid, first, rec->t_ns)) {
		a.cause = LOG_CAUSE_SINGLE;
		a.trigger_page = first;
		a.ra_start = first;
		a.ra_size = (uint32_t)(last - first + 1);
		a.window = ++c->next_window;
		c->st.windows++;
	}
	if (st && a.cause != LOG_CAUSE_DIRECT &&
	    late_faults(c, st, batch_ts ? batch_ts : rec->t_ns,
			rec->read.done_ns, first, last)) {
		a.flags |= LOG_ATTR_LATE;
		c->st.late_reads++;
	}
	if (log_ring_attribute(c->log, pos, &a))
		return;
	c->st.reads_by_cause[a.cause < LOG_CAUSE_COUNT ? a.cause : 0]++;
	if (!st)
		return;
	rr = &st->reads[st->nreads++ % READS_PER_INO];
	rr->pos = pos;
	rr->first = first;
	rr->last = last;
	rr->done_ns = rec->read.done_ns;
	rr->batch_ts = batch_ts;
	rr->a = a;
}

/*
 * Attributes the published reads answered before @limit (all published
 * reads with @all) and moves the cursor past the done prefix.
 */
static void sweep(struct correlator *c, uint64_t limit, bool all)
{
	uint64_t head = log_ring_head(c->log), pos = c->cursor;
	uint64_t undone = UINT64_MAX;
	struct log_record rec;

	if (head > c->log->capacity && pos < head - c->log->capacity)
		pos = head - c->log->capacity;
	for (; pos < head; pos++) {
		enum log_read_result r = log_ring_read(c->log, pos, &rec);

		if (r == LOG_READ_LOST)
			continue;
		if (r == LOG_READ_PENDING) {
			if (undone == UINT64_MAX)
				undone = pos;
			continue;
		}
		if (rec.kind != LOG_READ || log_ring_attributed(c->log, pos))
			continue;
		if (!all && rec.read.done_ns >= limit) {
			if (rec.t_ns >= limit)
				break;
			if (undone == UINT64_MAX)
				undone = pos;
			continue;
		}
		attribute(c, pos, &rec);
	}
	if (undone != UINT64_MAX && pos - undone > GIVE_UP_SPAN) {
		c->st.given_up++;
		undone = UINT64_MAX;
	}
	c->cursor = undone != UINT64_MAX ? undone : pos;
	atomic_store_explicit(&c->done_pos, c->cursor, memory_order_release);
}

/* ---- events ---- */

static unsigned decide_cause(const struct pid_ctx *p, uint64_t ino,
			     const struct trace_event *ev, bool have_order)
{
	if (p->has_async && p->async.ino == ino)
		return LOG_CAUSE_ASYNC;
	if (p->has_sync && p->sync.ino == ino) {
		if (p->has_order || ev->kind == TRACE_RA_ORDER)
			return LOG_CAUSE_SYNC;
		return ev->nr_to_read == 1 && !ev->lookahead_size
			       ? LOG_CAUSE_SINGLE
			       : LOG_CAUSE_SYNC;
	}
	if ((p->has_order && p->order.ino == ino) || ev->kind == TRACE_RA_ORDER)
		return LOG_CAUSE_READAROUND;
	/* A kernel without the page_cache_ra_order event: the fault tells. */
	if (!have_order && p->has_fault && p->fault_ino == ino)
		return LOG_CAUSE_READAROUND;
	return LOG_CAUSE_FORCED;
}

static void fill_decision(const struct pid_ctx *p, uint64_t ino, unsigned cause,
			  struct log_attr *a)
{
	const struct trace_event *in = NULL;

	if (cause == LOG_CAUSE_ASYNC)
		in = &p->async;
	else if (cause == LOG_CAUSE_SYNC || cause == LOG_CAUSE_SINGLE)
		in = p->has_sync ? &p->sync : NULL;
	if (in) {
		/* No fault before it: read(2), splice, sendfile... */
		if (!(p->has_fault && p->fault_ino == ino))
			a->flags |= LOG_ATTR_READ_TRIGGER;
		a->trigger_page = in->index;
		a->ra_pages = in->ra_pages;
		a->mmap_miss =
			(uint16_t)(in->mmap_miss > UINT16_MAX ? UINT16_MAX
							      : in->mmap_miss);
	} else if (cause == LOG_CAUSE_READAROUND && p->has_fault &&
		   p->fault_ino == ino) {
		a->trigger_page = p->fault_index;
	}
}

static struct batch *batch_add(struct correlator *c, struct ino_state *st,
			       uint64_t ts, int32_t pid, uint64_t first,
			       uint64_t end, const struct log_attr *a)
{
	struct batch *b = &st->batches[st->nbatches++ % BATCHES_PER_INO];

	b->ts = ts;
	b->pid = (uint32_t)pid;
	b->first = first;
	b->end = end;
	b->a = *a;
	c->st.batches++;
	return b;
}

static void window_from(struct log_attr *a, uint64_t start, uint64_t size,
			uint64_t async)
{
	a->ra_start = start;
	a->ra_size = (uint32_t)size;
	a->ra_async = (uint32_t)async;
	a->ra_marker =
		async && async <= size ? start + size - async : LOG_NO_PAGE;
}

static void on_order(struct correlator *c, struct pid_ctx *p,
		     const struct trace_event *ev)
{
	struct ino_state *st = ino_get(c, ev->ino);
	struct log_attr a;
	unsigned cause;

	if (!st)
		return;
	attr_none(&a);
	cause = decide_cause(p, ev->ino, ev, c->have_order);
	a.cause = (uint8_t)cause;
	fill_decision(p, ev->ino, cause, &a);
	window_from(&a, ev->index, ev->size, ev->async_size);
	a.order = (int8_t)(ev->order > 127 ? 127 : ev->order);
	if (ev->fields & TRACE_F_RA_PAGES)
		a.ra_pages = ev->ra_pages;
	a.window = ++c->next_window;
	c->st.windows++;
	/*
	 * A window read with large folios has no ra_unbounded: this batch
	 * stands for it. When ra_unbounded follows, it replaces it.
	 */
	batch_add(c, st, ev->ts_ns, ev->pid, ev->index, ev->index + ev->size,
		  &a);
	p->has_order = true;
	p->order = *ev;
	p->order_window = a.window;
	p->order_st = st;
	p->order_batch = st->nbatches - 1;
}

static void on_unbounded(struct correlator *c, struct pid_ctx *p,
			 const struct trace_event *ev)
{
	struct ino_state *st = ino_get(c, ev->ino);
	struct log_attr a;
	unsigned cause;

	if (!st)
		return;
	attr_none(&a);
	cause = decide_cause(p, ev->ino, ev, c->have_order);
	a.cause = (uint8_t)cause;
	fill_decision(p, ev->ino, cause, &a);
	if (p->has_order && p->order.ino == ev->ino) {
		window_from(&a, p->order.index, p->order.size,
			    p->order.async_size);
		a.order = (int8_t)(p->order.order > 127 ? 127 : p->order.order);
		if (p->order.fields & TRACE_F_RA_PAGES)
			a.ra_pages = p->order.ra_pages;
		a.window = p->order_window;
		/* The ra_order batch is replaced by this one. */
		if (p->order_st &&
		    p->order_st->nbatches - p->order_batch <= BATCHES_PER_INO) {
			struct batch *ob =
				&p->order_st->batches[p->order_batch %
						      BATCHES_PER_INO];
			ob->end = ob->first;
		}
	} else {
		window_from(&a, ev->index, ev->nr_to_read, ev->lookahead_size);
		a.window = ++c->next_window;
		c->st.windows++;
	}
	if (cause == LOG_CAUSE_FORCED)
		a.trigger_page = ev->index;
	/*
	 * page_cache_ra_unbounded() allocates folios of the mapping's
	 * minimum order, which is 0 for FUSE.
	 */
	a.alloc_order = 0;
	batch_add(c, st, ev->ts_ns, ev->pid, ev->index,
		  ev->index + ev->nr_to_read, &a);
	forget_decision(p);
}

/* read(2) ended at @ev: did it wait on reads sent before it began? */
static unsigned late_read(struct correlator *c, struct ino_state *st,
			  const struct pid_ctx *p, const struct trace_event *ev)
{
	uint64_t n = st->nreads, k, began = p->last_access_end;
	unsigned late = 0;

	if (!began)
		return 0;
	for (k = 0; k < READS_PER_INO && k < n; k++) {
		struct recent_read *r = &st->reads[(n - 1 - k) % READS_PER_INO];

		if (r->done_ns <= began)
			break;
		if (r->done_ns > ev->ts_ns || !r->batch_ts ||
		    r->batch_ts >= began || r->last < ev->index ||
		    r->first > ev->last_index)
			continue;
		late++;
		if (!(r->a.flags & LOG_ATTR_LATE)) {
			r->a.flags |= LOG_ATTR_LATE;
			if (!log_ring_attribute(c->log, r->pos, &r->a))
				c->st.late_reads++;
		}
	}
	return late;
}

/*
 * Whether event @ev on [@first, @last] extends the open record @r: same
 * file, adjacent pages, and the record still spans at most
 * AGE_MERGE_SPAN_NS, so that each page's first access is known within it
 * (the page age's resolution, src/analysis/page_age.h). A fault-around of one
 * page is the page faulted on, an access of its own: it is kept alone.
 */
static bool mergeable(const struct log_record *r, const struct trace_event *ev,
		      unsigned type, uint64_t first, uint64_t last)
{
	if (r->access.ino != ev->ino || first > r->access.last + 1 ||
	    last + 1 < r->access.first)
		return false;
	if (ev->ts_ns < r->t_ns || ev->ts_ns - r->t_ns > AGE_MERGE_SPAN_NS)
		return false;
	return type != LOG_ACCESS_MAP ||
	       (first != last && r->access.first != r->access.last);
}

static void on_access(struct correlator *c, struct pid_ctx *p,
		      const struct trace_event *ev, unsigned type)
{
	struct ino_state *st = ino_get(c, ev->ino);
	uint64_t first = ev->index, last = ev->index, id;
	struct access_ev *e;
	struct log_record *r;
	unsigned late = 0;

	if (!st)
		return;
	if (type != LOG_ACCESS_FAULT && ev->last_index >= ev->index)
		last = ev->last_index;
	if (type == LOG_ACCESS_READ) {
		late = late_read(c, st, p, ev);
		c->st.late_accesses += late ? 1 : 0;
	}
	c->st.access_events++;
	r = p->open[type] ? pend_get(c, p->open[type] - 1) : NULL;
	if (r && mergeable(r, ev, type, first, last)) {
		id = p->open[type] - 1;
		if (first < r->access.first)
			r->access.first = first;
		if (last > r->access.last)
			r->access.last = last;
		r->access.end_ns = ev->ts_ns;
		r->access.events++;
	} else {
		pend_close(c, p, type);
		id = pend_new(c);
		r = &c->pend[id % PEND_MAX];
		memset(r, 0, sizeof(*r));
		r->kind = LOG_ACCESS;
		r->t_ns = ev->ts_ns;
		r->access.ino = ev->ino;
		r->access.first = first;
		r->access.last = last;
		r->access.end_ns = ev->ts_ns;
		r->access.pid = (uint32_t)ev->pid;
		r->access.type = (uint16_t)type;
		r->access.events = 1;
		p->open[type] = id + 1;
	}
	r->access.late += late ? 1 : 0;
	e = &st->accesses[st->naccesses++ % ACCESSES_PER_INO];
	e->ts = ev->ts_ns;
	e->first = first;
	e->last = last;
	e->pend = id;
	e->pid = (uint32_t)ev->pid;
	e->type = (uint8_t)type;
	if (type != LOG_ACCESS_MAP)
		p->last_access_end = ev->ts_ns;
}

static void on_event(const struct trace_event *ev, void *arg)
{
	struct correlator *c = arg;
	struct pid_ctx *p;

	pthread_mutex_lock(&c->lock);
	c->st.events++;
	if (ev->ts_ns > c->limit)
		c->limit = ev->ts_ns;
	/* Every read answered before this event can be explained now. */
	sweep(c, ev->ts_ns, false);
	p = pid_get(c, ev->pid, ev->ts_ns);
	if (p->decision_ts &&
	    ev->ts_ns - p->decision_ts > DECISION_HORIZON_NS &&
	    ev->kind != TRACE_MAP_PAGES && ev->kind != TRACE_GET_PAGES) {
		forget_decision(p);
		p->has_fault = false;
	}
	if (ev->kind != TRACE_MAP_PAGES && ev->kind != TRACE_GET_PAGES)
		p->decision_ts = ev->ts_ns;
	switch (ev->kind) {
	case TRACE_SYNC_RA:
		forget_decision(p);
		p->has_sync = true;
		p->sync = *ev;
		break;
	case TRACE_ASYNC_RA:
		forget_decision(p);
		p->has_async = true;
		p->async = *ev;
		break;
	case TRACE_RA_ORDER:
		on_order(c, p, ev);
		break;
	case TRACE_RA_UNBOUNDED:
		on_unbounded(c, p, ev);
		break;
	case TRACE_FAULT:
		forget_decision(p);
		p->has_fault = true;
		p->fault_ino = ev->ino;
		p->fault_index = ev->index;
		on_access(c, p, ev, LOG_ACCESS_FAULT);
		break;
	case TRACE_GET_PAGES:
		on_access(c, p, ev, LOG_ACCESS_READ);
		forget_decision(p);
		p->has_fault = false;
		break;
	case TRACE_MAP_PAGES:
		on_access(c, p, ev, LOG_ACCESS_MAP);
		break;
	default:
		break;
	}
	pend_write(c, false);
	pthread_mutex_unlock(&c->lock);
}

/* ---- life cycle ---- */

static void set_have_ra(struct correlator *c, unsigned kinds)
{
	static const unsigned need[] = { TRACE_SYNC_RA, TRACE_ASYNC_RA,
					 TRACE_RA_UNBOUNDED };
	unsigned i;

	c->have_ra = true;
	c->causes_why[0] = '\0';
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (kinds & (1u << need[i]))
			continue;
		c->have_ra = false;
		snprintf(c->causes_why, sizeof(c->causes_why),
			 "this kernel has no readahead:%s tracepoint: its "
			 "events cannot prove why a read was sent",
			 trace_kind_name(need[i]));
		return;
	}
}

struct correlator *correlator_start(const struct correlator_options *o,
				    char *why, size_t whylen)
{
	struct tracer_options to = { 0 };
	struct correlator *c;
	long ps = sysconf(_SC_PAGESIZE);

	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	c->log = o->log;
	c->page_shift =
		(uint32_t)__builtin_ctzl(ps > 0 ? (unsigned long)ps : 4096ul);
	pthread_mutex_init(&c->lock, NULL);
	/* Reads before tracing began stay unknown. */
	c->cursor = log_ring_head(o->log);
	atomic_init(&c->done_pos, c->cursor);
	to.dev_major = o->dev_major;
	to.dev_minor = o->dev_minor;
	to.fn = on_event;
	to.arg = c;
	to.tracefs = o->tracefs;
	to.kinds = o->kinds ? o->kinds : (1u << TRACE_KIND_COUNT) - 1;
	if (!o->trace_reads)
		to.kinds &= ~(1u << TRACE_GET_PAGES);
	c->trace_reads = o->trace_reads;
	c->tracer = tracer_start(&to, why, whylen);
	if (c->tracer) {
		/* The tracer's thread runs already: under its lock. */
		pthread_mutex_lock(&c->lock);
		c->have_order =
			tracer_kinds(c->tracer) & (1u << TRACE_RA_ORDER);
		set_have_ra(c, tracer_kinds(c->tracer));
		pthread_mutex_unlock(&c->lock);
	}
	if (!c->tracer) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return NULL;
	}
	return c;
}

void correlator_sync(struct correlator *c, int timeout_ms)
{
	uint64_t now;
	bool flushed;
	unsigned i;

	if (!c)
		return;
	now = clock_now_ns();
	/*
	 * Every read answered before @now had its events fired before it;
	 * once they are delivered, all of them can be attributed. If the
	 * tracer is late, only those answered before its last event are:
	 * the others wait for the next event or sync rather than being
	 * called unknown for good.
	 */
	flushed = tracer_flush(c->tracer, timeout_ms) == 0;
	pthread_mutex_lock(&c->lock);
	if (flushed && now > c->limit)
		c->limit = now;
	else if (!flushed)
		c->st.flush_timeouts++;
	sweep(c, c->limit, false);
	for (i = 0; i < PID_SLOTS; i++)
		pend_close_all(c, &c->pids[i]);
	pend_write(c, true);
	/* Past the access records just written: they are final too. */
	sweep(c, c->limit, false);
	pthread_mutex_unlock(&c->lock);
}

bool correlator_causes(struct correlator *c, char *why, size_t whylen)
{
	bool on;

	pthread_mutex_lock(&c->lock);
	on = c->have_ra;
	if (why && whylen)
		snprintf(why, whylen, "%s", c->causes_why);
	pthread_mutex_unlock(&c->lock);
	return on;
}

bool correlator_traces_reads(const struct correlator *c)
{
	return c->trace_reads;
}

void correlator_forget(struct correlator *c, uint64_t ino, int timeout_ms)
{
	struct ino_state *st;
	unsigned i;

	if (!c)
		return;
	correlator_sync(c, timeout_ms);
	pthread_mutex_lock(&c->lock);
	st = ino_find(c, ino);
	for (i = 0; st && i < BATCHES_PER_INO; i++)
		st->batches[i].first = st->batches[i].end;
	pthread_mutex_unlock(&c->lock);
}

uint64_t correlator_done_pos(struct correlator *c)
{
	return atomic_load_explicit(&c->done_pos, memory_order_acquire);
}

void correlator_get_stats(struct correlator *c, struct correlator_stats *st)
{
	struct tracer_stats ts;

	tracer_get_stats(c->tracer, &ts);
	pthread_mutex_lock(&c->lock);
	*st = c->st;
	pthread_mutex_unlock(&c->lock);
	st->events_lost = ts.lost;
}

int correlator_describe(struct correlator *c, char *buf, size_t len)
{
	return tracer_describe(c->tracer, buf, len);
}

void correlator_stop(struct correlator *c)
{
	size_t i;

	if (!c)
		return;
	tracer_stop(c->tracer, NULL);
	for (i = 0; i < c->ino_cap; i++)
		free(c->inos[i]);
	free(c->inos);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
