// SPDX-License-Identifier: MIT
/*
 * The correlator (see correlate.h for the rules). Everything here runs
 * under one mutex: on the tracer's thread for each run of events, and on
 * the caller's thread in correlator_sync().
 */
#include "correlate.h"
#include "correlate_i.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page_age.h"
#include "clock.h"
#include "tracer.h"

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

/* A fresh attribution of @ev's read with its task's decision; the cause. */
static unsigned decision_attr(struct correlator *c, const struct pid_ctx *p,
			      const struct trace_event *ev, struct log_attr *a)
{
	unsigned cause;

	corr_attr_none(a);
	cause = decide_cause(p, ev->ino, ev, c->have_order);
	a->cause = (uint8_t)cause;
	fill_decision(p, ev->ino, cause, a);
	return cause;
}

/* The window and folio order of ra_order event @o. */
static void order_window(struct log_attr *a, const struct trace_event *o)
{
	window_from(a, o->index, o->size, o->async_size);
	a->order = (int8_t)(o->order > 127 ? 127 : o->order);
	if (o->fields & TRACE_F_RA_PAGES)
		a->ra_pages = o->ra_pages;
}

static void on_order(struct correlator *c, struct pid_ctx *p,
		     const struct trace_event *ev)
{
	struct ino_state *st = corr_ino_get(c, ev->ino);
	struct log_attr a;

	if (!st)
		return;
	decision_attr(c, p, ev, &a);
	order_window(&a, ev);
	a.window = ++c->next_window;
	c->st.windows++;
	/*
	 * A window read with large folios has no ra_unbounded: this batch
	 * stands for it. When ra_unbounded follows, it takes the pages from
	 * its own start on (on_unbounded()).
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
	struct ino_state *st = corr_ino_get(c, ev->ino);
	struct log_attr a;
	unsigned cause;

	if (!st)
		return;
	cause = decision_attr(c, p, ev, &a);
	if (p->has_order && p->order.ino == ev->ino) {
		order_window(&a, &p->order);
		a.window = p->order_window;
		/*
		 * ra_unbounded is page_cache_ra_order()'s fallback for what
		 * it did not allocate: from its start (no large folios) or
		 * from the page where a folio could not be added (7.x: a
		 * page of the window already cached), after read_pages()
		 * sent what it had. The ra_order batch keeps the pages
		 * before that and gives the rest to this one.
		 */
		if (p->order_st &&
		    p->order_st->nbatches - p->order_batch <= BATCHES_PER_INO) {
			struct batch *ob =
				&p->order_st->batches[p->order_batch %
						      BATCHES_PER_INO];
			uint64_t end =
				ev->index < ob->end ? ev->index : ob->end;

			ob->end = end > ob->first ? end : ob->first;
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
	corr_forget_decision(p);
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

/*
 * The fields an access record and a folio record share, for a new one
 * from event @ev: the task's pages [@first, @last] of one file.
 */
#define PEND_SPAN(ev, first_, last_)                                           \
	.ino = (ev)->ino, .first = (first_), .last = (last_),                  \
	.end_ns = (ev)->ts_ns, .pid = (uint32_t)(ev)->pid

/*
 * Closes the task's open record in @slot (an access type or OPEN_FOLIO) and
 * opens a new one there, of @kind at @ev's time, otherwise zero: its id in
 * @id.
 */
static struct log_record *pend_open(struct correlator *c, struct pid_ctx *p,
				    unsigned slot, uint16_t kind,
				    const struct trace_event *ev, uint64_t *id)
{
	struct log_record *r;

	corr_pend_close(c, p, slot);
	*id = corr_pend_new(c);
	r = &c->pend[*id % PEND_MAX];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->t_ns = ev->ts_ns;
	p->open[slot] = *id + 1;
	return r;
}

static void on_access(struct correlator *c, struct pid_ctx *p,
		      const struct trace_event *ev, unsigned type)
{
	struct ino_state *st = corr_ino_get(c, ev->ino);
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
	r = p->open[type] ? corr_pend_get(c, p->open[type] - 1) : NULL;
	if (r && mergeable(r, ev, type, first, last)) {
		id = p->open[type] - 1;
		if (first < r->access.first)
			r->access.first = first;
		if (last > r->access.last)
			r->access.last = last;
		r->access.end_ns = ev->ts_ns;
		r->access.events++;
	} else {
		r = pend_open(c, p, type, LOG_ACCESS, ev, &id);
		r->access = (__typeof__(r->access)){ PEND_SPAN(ev, first, last),
						     .type = (uint16_t)type,
						     .events = 1 };
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

/*
 * A folio entered the page cache: it joins the task's open folio record
 * when of the same file and order, right after it, within the merge span.
 */
static void on_folio(struct correlator *c, struct pid_ctx *p,
		     const struct trace_event *ev)
{
	uint64_t first = ev->index, id;
	uint64_t last = first + (1ull << (ev->order < 32 ? ev->order : 31)) - 1;
	struct log_record *r;

	c->st.folio_events++;
	r = p->open[OPEN_FOLIO] ? corr_pend_get(c, p->open[OPEN_FOLIO] - 1)
				: NULL;
	if (r && r->folio.ino == ev->ino && r->folio.order == ev->order &&
	    first == r->folio.last + 1 && ev->ts_ns >= r->t_ns &&
	    ev->ts_ns - r->t_ns <= AGE_MERGE_SPAN_NS) {
		r->folio.last = last;
		r->folio.end_ns = ev->ts_ns;
		r->folio.folios++;
		return;
	}
	r = pend_open(c, p, OPEN_FOLIO, LOG_FOLIO, ev, &id);
	r->folio = (__typeof__(r->folio)){ PEND_SPAN(ev, first, last),
					   .order = (uint16_t)ev->order,
					   .folios = 1 };
}

/*
 * Whether @ev is the next step of @p's decision, however long after it:
 * the steps of one call chain follow within microseconds on hardware, but
 * a guest's vCPU can stop for longer than DECISION_HORIZON_NS between two
 * of them when its host is loaded (TCG). Only a step the kernel's code
 * can take there counts (7.x mm/filemap.c, mm/readahead.c):
 * - sync_ra or async_ra at the faulting page: do_sync_mmap_readahead()
 *   and do_async_mmap_readahead() after the fault;
 * - ra_order after sync_ra, async_ra or a fault: page_cache_ra_order()
 *   has no other callers, and every other path to it traces one of those
 *   first (so only when faults are traced);
 * - ra_unbounded that ends where the ra_order window ends (its fallback),
 *   or starts at sync_ra's page (forced or small random read).
 */
static bool continues_decision(const struct correlator *c,
			       const struct pid_ctx *p,
			       const struct trace_event *ev)
{
	bool fault = p->has_fault && p->fault_ino == ev->ino;
	bool sync = p->has_sync && p->sync.ino == ev->ino;
	bool async = p->has_async && p->async.ino == ev->ino;

	switch (ev->kind) {
	case TRACE_SYNC_RA:
	case TRACE_ASYNC_RA:
		return fault && !p->has_sync && !p->has_async &&
		       !p->has_order && ev->index == p->fault_index;
	case TRACE_RA_ORDER:
		return c->have_faults && !p->has_order &&
		       (sync || async || fault);
	case TRACE_RA_UNBOUNDED:
		if (p->has_order)
			return p->order.ino == ev->ino &&
			       ev->index + ev->nr_to_read ==
				       p->order.index + p->order.size;
		return sync && ev->index == p->sync.index;
	default:
		return false;
	}
}

/*
 * Remembers the pages a read(2) asked for when @ev is the readahead
 * decision of a read(2), not of a fault: filemap_get_pages() traces
 * page_cache_sync_ra() with the missing page and req_count = last_index -
 * index, filemap_readahead() page_cache_async_ra() with the marker page
 * and last_index - its index (7.3 mm/filemap.c); a fault's decision
 * (do_sync_mmap_readahead(), do_async_mmap_readahead()) covers the
 * faulting page, from it or from the start of its folio.
 */
static void note_read_ra(struct pid_ctx *p, const struct trace_event *ev)
{
	if (!(ev->fields & TRACE_F_REQ_COUNT) || !ev->req_count ||
	    (p->has_fault && p->fault_ino == ev->ino &&
	     p->fault_index >= ev->index &&
	     p->fault_index - ev->index < ev->req_count)) {
		p->has_read_ra = false;
		return;
	}
	p->has_read_ra = true;
	p->read_ra_ino = ev->ino;
	p->read_ra_first = ev->index;
	p->read_ra_last = ev->index + ev->req_count - 1;
}

/*
 * page_cache_sync_ra or page_cache_async_ra: a new decision starts, kept
 * in *@ra (*@has set).
 */
static void on_ra(struct pid_ctx *p, const struct trace_event *ev, bool *has,
		  struct trace_event *ra)
{
	corr_forget_decision(p);
	*has = true;
	*ra = *ev;
	note_read_ra(p, ev);
}

/*
 * The first page read(2) lookup @ev stands for. filemap_get_pages()
 * returns a batch that ends in a folio still being read without tracing
 * it (7.3 mm/filemap.c, its err: path after -EAGAIN or
 * AOP_TRUNCATED_PAGE with more than one folio in the batch): the read
 * copies those pages, and only its next lookup is traced, from the folio
 * it waited on. Every lookup of one read ends at the same last_index - 1,
 * so when the read's readahead decision ends where @ev ends, the read
 * also accessed the pages from the decision's page on. A read that made
 * no decision and ran into a folio another read was fetching still loses
 * its first pages: the kernel says nothing of them.
 */
static uint64_t read_first(const struct pid_ctx *p,
			   const struct trace_event *ev)
{
	if (p->has_read_ra && p->read_ra_ino == ev->ino &&
	    p->read_ra_last == ev->last_index && p->read_ra_first < ev->index)
		return p->read_ra_first;
	return ev->index;
}

/* The tracer delivers events in runs: the lock is taken once a run. */
static void on_batch(bool begin, void *arg)
{
	struct correlator *c = arg;

	if (begin)
		pthread_mutex_lock(&c->lock);
	else
		pthread_mutex_unlock(&c->lock);
}

/* Called with c->lock held (on_batch). */
static void on_event(const struct trace_event *ev, void *arg)
{
	struct correlator *c = arg;
	struct pid_ctx *p;

	c->st.events++;
	if (ev->ts_ns > c->limit)
		c->limit = ev->ts_ns;
	/* Every read answered before this event can be explained now. */
	corr_sweep(c, ev->ts_ns, false);
	p = corr_pid_get(c, ev->pid, ev->ts_ns);
	if (ev->kind == TRACE_ADD_FOLIO) {
		/* Not a decision: the folios a decision allocates. */
		on_folio(c, p, ev);
		corr_pend_write(c, false);
		return;
	}
	if (p->decision_ts &&
	    ev->ts_ns - p->decision_ts > DECISION_HORIZON_NS &&
	    ev->kind != TRACE_MAP_PAGES && ev->kind != TRACE_GET_PAGES) {
		if (continues_decision(c, p, ev)) {
			c->st.decision_gaps++;
		} else {
			corr_forget_decision(p);
			p->has_fault = false;
		}
	}
	if (ev->kind != TRACE_MAP_PAGES && ev->kind != TRACE_GET_PAGES)
		p->decision_ts = ev->ts_ns;
	switch (ev->kind) {
	case TRACE_SYNC_RA:
		on_ra(p, ev, &p->has_sync, &p->sync);
		break;
	case TRACE_ASYNC_RA:
		on_ra(p, ev, &p->has_async, &p->async);
		break;
	case TRACE_RA_ORDER:
		on_order(c, p, ev);
		break;
	case TRACE_RA_UNBOUNDED:
		on_unbounded(c, p, ev);
		break;
	case TRACE_FAULT:
		corr_forget_decision(p);
		p->has_fault = true;
		p->fault_ino = ev->ino;
		p->fault_index = ev->index;
		on_access(c, p, ev, LOG_ACCESS_FAULT);
		break;
	case TRACE_GET_PAGES: {
		struct trace_event whole = *ev;

		whole.index = read_first(p, ev);
		c->st.read_prefixes += whole.index != ev->index;
		on_access(c, p, &whole, LOG_ACCESS_READ);
		p->has_read_ra = false;
		corr_forget_decision(p);
		p->has_fault = false;
		break;
	}
	case TRACE_MAP_PAGES:
		on_access(c, p, ev, LOG_ACCESS_MAP);
		break;
	default:
		break;
	}
	corr_pend_write(c, false);
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
	c->sweep_head = UINT64_MAX;
	atomic_init(&c->done_pos, c->cursor);
	to.dev_major = o->dev_major;
	to.dev_minor = o->dev_minor;
	to.fn = on_event;
	to.batch = on_batch;
	to.arg = c;
	to.tracefs = o->tracefs;
	to.kinds = o->kinds ? o->kinds : (1u << TRACE_KIND_COUNT) - 1;
	to.large_folios = !o->all_folios;
	c->all_folios = o->all_folios;
	if (!o->trace_reads)
		to.kinds &= ~(1u << TRACE_GET_PAGES);
	c->trace_reads = o->trace_reads;
	c->tracer = tracer_start(&to, why, whylen);
	if (c->tracer) {
		/* The tracer's thread runs already: under its lock. */
		pthread_mutex_lock(&c->lock);
		c->have_order =
			tracer_kinds(c->tracer) & (1u << TRACE_RA_ORDER);
		c->have_folios =
			tracer_kinds(c->tracer) & (1u << TRACE_ADD_FOLIO);
		c->have_faults = tracer_kinds(c->tracer) & (1u << TRACE_FAULT);
		/* read(2) lookups are followed only where the kernel has
		 * filemap:mm_filemap_get_pages. */
		c->trace_reads = c->trace_reads && (tracer_kinds(c->tracer) &
						    (1u << TRACE_GET_PAGES));
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
	corr_sweep(c, c->limit, false);
	for (i = 0; i < PID_SLOTS; i++)
		corr_pend_close_all(c, &c->pids[i]);
	corr_pend_write(c, true);
	/* Past the access records just written: they are final too. */
	corr_sweep(c, c->limit, false);
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

bool correlator_traces_folios(const struct correlator *c)
{
	return c->have_folios;
}

bool correlator_traces_all_folios(const struct correlator *c)
{
	return c->have_folios && c->all_folios;
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
	st = corr_ino_find(c, ino);
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
