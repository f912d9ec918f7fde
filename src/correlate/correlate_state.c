// SPDX-License-Identifier: MIT
/*
 * The correlator's state (correlate_i.h): the per-inode history of
 * batches, accesses and reads, the tasks' decision state, the access
 * records waiting for the log, and the attribution of the log's reads
 * (sweep). Called under the correlator's mutex.
 */
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "correlate_i.h"
#include "page_age.h"

/* corr_pend_write() reads any pending record's end as access.end_ns. */
_Static_assert(offsetof(struct log_record, folio.end_ns) ==
		       offsetof(struct log_record, access.end_ns),
	       "folio and access records end alike");

/* ---- per-inode state ---- */

static size_t ino_hash(uint64_t ino, size_t cap)
{
	return (size_t)((ino * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

struct ino_state *corr_ino_find(struct correlator *c, uint64_t ino)
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

struct ino_state *corr_ino_get(struct correlator *c, uint64_t ino)
{
	struct ino_state *st = corr_ino_find(c, ino);
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

struct pid_ctx *corr_pid_get(struct correlator *c, int32_t pid, uint64_t ts)
{
	struct pid_ctx *oldest = &c->pids[0], *last = c->last_pid;
	unsigned i;

	/* Events come in runs of one task's. */
	if (last && last->used && last->pid == pid) {
		last->used_ts = ts;
		return last;
	}
	for (i = 0; i < PID_SLOTS; i++) {
		struct pid_ctx *p = &c->pids[i];

		if (p->used && p->pid == pid) {
			p->used_ts = ts;
			c->last_pid = p;
			return p;
		}
		if (!p->used || (oldest->used && p->used_ts < oldest->used_ts))
			oldest = p;
	}
	corr_pend_close_all(c, oldest);
	memset(oldest, 0, sizeof(*oldest));
	oldest->used = true;
	oldest->pid = pid;
	oldest->used_ts = ts;
	c->last_pid = oldest;
	return oldest;
}

void corr_forget_decision(struct pid_ctx *p)
{
	p->has_sync = p->has_async = p->has_order = false;
	p->order_st = NULL;
}

/* ---- access records ---- */

struct log_record *corr_pend_get(struct correlator *c, uint64_t id)
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
void corr_pend_write(struct correlator *c, bool all)
{
	uint64_t oldest = c->limit;
	struct log_record rec;

	/* Nothing to write, or the oldest record still grows. */
	if (c->pend_tail == c->pend_head ||
	    (!all && c->pend_open[c->pend_tail % PEND_MAX]))
		return;
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

uint64_t corr_pend_new(struct correlator *c)
{
	if (c->pend_head - c->pend_tail == PEND_MAX)
		pend_write_one(c);
	c->pend_open[c->pend_head % PEND_MAX] = true;
	return c->pend_head++;
}

/* The task's open record of @type takes no more events. */
void corr_pend_close(struct correlator *c, struct pid_ctx *p, unsigned type)
{
	if (p->open[type] && corr_pend_get(c, p->open[type] - 1))
		c->pend_open[(p->open[type] - 1) % PEND_MAX] = false;
	p->open[type] = 0;
}

void corr_pend_close_all(struct correlator *c, struct pid_ctx *p)
{
	unsigned type;

	for (type = 0; type <= OPEN_FOLIO; type++)
		corr_pend_close(c, p, type);
}

/* ---- attribution of reads ---- */

void corr_attr_none(struct log_attr *a)
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
		r = corr_pend_get(c, e->pend);
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
	struct ino_state *st = corr_ino_find(c, rec->read.ino);
	struct recent_read *rr;
	uint64_t batch_ts = 0;
	struct batch *b;
	struct log_attr a;

	corr_attr_none(&a);
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
void corr_sweep(struct correlator *c, uint64_t limit, bool all)
{
	uint64_t head = log_ring_head(c->log), pos = c->cursor;
	uint64_t undone = UINT64_MAX, wake = UINT64_MAX;
	struct log_record rec;
	bool publishing = false;

	/*
	 * Nothing new in the log, and @limit has not reached what stopped
	 * the last sweep: it would find the same (most events come here).
	 */
	if (!all && head == c->sweep_head && limit <= c->sweep_wake)
		return;
	if (head > c->log->capacity && pos < head - c->log->capacity)
		pos = head - c->log->capacity;
	for (; pos < head; pos++) {
		enum log_read_result r = log_ring_read(c->log, pos, &rec);

		if (r == LOG_READ_LOST)
			continue;
		if (r == LOG_READ_PENDING) {
			publishing = true;
			if (undone == UINT64_MAX)
				undone = pos;
			continue;
		}
		if (rec.kind != LOG_READ || log_ring_attributed(c->log, pos))
			continue;
		if (!all && rec.read.done_ns >= limit) {
			if (rec.t_ns >= limit) {
				wake = wake < rec.t_ns ? wake : rec.t_ns;
				break;
			}
			wake = wake < rec.read.done_ns ? wake
						       : rec.read.done_ns;
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
	/* A record still being published may become readable any time. */
	c->sweep_head = publishing || all ? UINT64_MAX : head;
	c->sweep_wake = wake;
	atomic_store_explicit(&c->done_pos, c->cursor, memory_order_release);
}
