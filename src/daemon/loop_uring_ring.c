// SPDX-License-Identifier: MIT
#include "loop_uring_int.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"

/* How often a busy ring thread reconsiders its CPU (uring_ring_main()). */
#define PLACE_NS 2000000

/* The ring whose thread this is, and the entry it is serving. */
static __thread struct uring_ring *self;
static __thread struct uring_ent *serving;

/* An SQE, submitting what is queued if the ring is full. */
static struct io_uring_sqe *get_sqe(struct uring_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe) {
		io_uring_submit(&r->ring);
		sqe = io_uring_get_sqe(&r->ring);
	}
	return sqe;
}

/*
 * A URING_CMD SQE filled by hand: liburing 2.3 has no helper for it. The
 * command (struct fuse_uring_cmd_req) lives in the SQE's command area,
 * which the ring's 128-byte SQEs extend to 80 bytes.
 */
static bool prep_cmd(struct uring_ring *r, struct uring_ent *e, uint32_t op)
{
	struct io_uring_sqe *sqe = get_sqe(r);
	struct fuse_uring_cmd_req *cmd;

	if (!sqe)
		return false;
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = r->q->u->fd;
	sqe->cmd_op = op;
	sqe->user_data = (uint64_t)(uintptr_t)e;
	if (op == FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)e->iov;
		sqe->len = 2;
	}
	cmd = (struct fuse_uring_cmd_req *)(void *)sqe->cmd;
	cmd->qid = (uint16_t)r->q->qid;
	cmd->commit_id =
		op == FUSE_IO_URING_CMD_COMMIT_AND_FETCH ? e->commit_id : 0;
	return true;
}

/*
 * The entry's own thread submits its commit: the kernel hands the
 * entry's next request to the ring the commit came from, in the task
 * that submitted it.
 */
static void commit(struct uring_ent *e)
{
	struct uring_ring *r = e->r;
	uint64_t one = 1;

	if (self == r) {
		if (!prep_cmd(r, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH))
			r->live--;
		return;
	}
	pthread_mutex_lock(&r->lock);
	e->next = r->commits;
	r->commits = e;
	pthread_mutex_unlock(&r->lock);
	/* Cannot fail but on overflow, when the thread is woken anyway. */
	if (write(r->efd, &one, sizeof(one)) < 0)
		(void)0;
}

static struct uring_ent *find(struct uring_transport *u, uint64_t unique)
{
	struct uring_ring *r;
	unsigned i, j, k;

	if (serving && atomic_load(&serving->unique) == unique)
		return serving;
	for (i = 0; i < u->nq; i++)
		for (j = 0; j < u->per_queue; j++) {
			r = &u->q[i].rings[j];
			for (k = 0; k < r->nents; k++)
				if (atomic_load(&r->ents[k].unique) == unique)
					return &r->ents[k];
		}
	return NULL;
}

bool uring_transport_reply(struct uring_transport *u, const struct iovec *iov,
			   int count)
{
	const struct fuse_out_header *out = iov[0].iov_base;
	struct fuse_out_header *h;
	struct uring_ent *e;
	uint64_t want;
	size_t len = 0;
	int i;

	if (iov[0].iov_len < sizeof(*out) || !out->unique)
		return false;
	want = out->unique;
	e = find(u, want);
	/* Claimed once: a reply sent twice goes to /dev/fuse (ENOENT). */
	if (!e || !atomic_compare_exchange_strong(&e->unique, &want, 0))
		return false;
	h = (struct fuse_out_header *)(void *)e->hdr->in_out;
	*h = *out;
	for (i = 1; i < count; i++) {
		if (len + iov[i].iov_len > u->payload) {
			h->error = -EIO;
			len = 0;
			break;
		}
		/* Written in place (uring_transport_payload()): no copy. */
		if (iov[i].iov_base != e->payload + len)
			memcpy(e->payload + len, iov[i].iov_base,
			       iov[i].iov_len);
		len += iov[i].iov_len;
	}
	e->hdr->ring_ent_in_out.payload_sz = (uint32_t)len;
	e->commit_id = out->unique;
	commit(e);
	return true;
}

char *uring_transport_payload(size_t len)
{
	return serving && len <= self->q->u->payload ? serving->payload : NULL;
}

/* A request the kernel put in @e, as /dev/fuse would deliver it. */
static void take_request(struct uring_ring *r, struct uring_ent *e)
{
	struct uring_transport *u = r->q->u;
	const struct fuse_in_header *in = (const void *)e->hdr->in_out;
	uint32_t psz = e->hdr->ring_ent_in_out.payload_sz;
	struct fuse_buf buf;
	struct iovec iov;
	struct fuse_out_header out;
	size_t op;

	fs_claim_use(&e->claim);
	/* The first argument is in op_in, the others in the payload. */
	if (psz > u->payload || in->len < sizeof(*in) + psz ||
	    in->len - sizeof(*in) - psz > FUSE_URING_OP_IN_OUT_SZ) {
		atomic_store(&e->unique, in->unique);
		out = (struct fuse_out_header){ sizeof(out), -EIO, in->unique };
		iov = (struct iovec){ &out, sizeof(out) };
		uring_transport_reply(u, &iov, 1);
		fs_claim_settle(u->t);
		return;
	}
	op = in->len - sizeof(*in) - psz;
	memcpy(r->req, in, sizeof(*in));
	memcpy(r->req + sizeof(*in), e->hdr->op_in, op);
	memcpy(r->req + sizeof(*in) + op, e->payload, psz);
	atomic_fetch_add_explicit(&u->t->stats.uring_requests, 1,
				  memory_order_relaxed);
	if (in->opcode == FUSE_READ)
		atomic_fetch_add_explicit(&u->t->stats.uring_reads, 1,
					  memory_order_relaxed);
	atomic_store(&e->unique, in->unique);
	memset(&buf, 0, sizeof(buf));
	buf.mem = r->req;
	buf.size = in->len;
	serving = e;
	fuse_session_process_buf(u->t->se, &buf);
	serving = NULL;
	fs_claim_settle(u->t);
}

/* Queues the replies other threads sent for submission. */
static void take_commits(struct uring_ring *r)
{
	struct uring_ent *list, *e;

	pthread_mutex_lock(&r->lock);
	list = r->commits;
	r->commits = NULL;
	pthread_mutex_unlock(&r->lock);
	while (list) {
		e = list;
		list = e->next;
		if (!prep_cmd(r, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH))
			r->live--;
	}
}

/*
 * Handles the completions there are. The requests of a batch are all
 * registered with the log's reorder stage before the first is processed:
 * a read of another ring may wait for one of them.
 */
static void drain(struct uring_ring *r, int *first_err)
{
	struct io_uring_cqe *cqes[2 * URING_ENTRIES];
	struct uring_ent *got[2 * URING_ENTRIES];
	struct uring_transport *u = r->q->u;
	const struct fuse_in_header *in;
	unsigned n, i, ngot;
	struct uring_ent *e;
	int res;

	while ((n = io_uring_peek_batch_cqe(&r->ring, cqes,
					    2 * URING_ENTRIES))) {
		ngot = 0;
		for (i = 0; i < n; i++) {
			e = (struct uring_ent *)(uintptr_t)cqes[i]->user_data;
			res = cqes[i]->res;
			if (res < 0) {
				/* Refused, or ended: -ENOTCONN at teardown. */
				r->live--;
				if (first_err && !*first_err)
					*first_err = res;
				continue;
			}
			/* After quiescing, the kernel ends it with the
			 * connection. */
			if (atomic_load(&u->quiesced))
				continue;
			in = (const void *)e->hdr->in_out;
			fs_claim_take(u->t, in, e->hdr->op_in,
				      sizeof(e->hdr->op_in), &e->claim);
			got[ngot++] = e;
		}
		io_uring_cq_advance(&r->ring, n);
		atomic_fetch_add_explicit(&r->q->taken, ngot,
					  memory_order_relaxed);
		for (i = 0; i < ngot; i++)
			take_request(r, got[i]);
	}
}

/* The ring registered what it could (@err: the first refusal, 0 if none):
 * uring_transport_settle() waits for every ring's report. */
static void report(struct uring_ring *r, int err)
{
	struct uring_transport *u = r->q->u;

	pthread_mutex_lock(&u->lock);
	u->reported++;
	r->registered = r->live > 0;
	u->ready += r->registered;
	if (err && !u->err) {
		u->err = err;
		u->err_qid = r->q->qid;
		u->err_ring = r->idx;
	}
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

/* Pins the thread to its queue's CPU, or (@away) to every other one. */
static bool pin(struct uring_ring *r, bool away)
{
	cpu_set_t set;
	unsigned i;

	CPU_ZERO(&set);
	for (i = 0; i < r->q->u->nq; i++)
		if ((i == r->q->qid) != away)
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

/*
 * Where the thread runs (uring_ring_main()): looked at after serving, at
 * most once per PLACE_NS and only while its queue takes requests. Away
 * while no other queue took one since the last look, home as soon as one
 * did. After a pause (no look for 3 * PLACE_NS) a look only takes the
 * counts. sched_setaffinity() runs only when the answer changes. Every
 * ring of a queue decides for itself by the same rule, on the queue's
 * count: a ring that gets no request never looks (it stays where it was).
 */
static void place(struct uring_ring *r)
{
	struct uring_queue *q = r->q;
	struct uring_transport *u = q->u;
	uint64_t now, own, others = 0;
	bool away = r->away;
	unsigned i;

	if (!r->placeable)
		return;
	own = atomic_load_explicit(&q->taken, memory_order_relaxed);
	if (own == r->seen_own)
		return;
	now = clock_now_ns();
	if (now < r->next_place)
		return;
	for (i = 0; i < u->nq; i++)
		if (i != q->qid)
			others += atomic_load_explicit(&u->q[i].taken,
						       memory_order_relaxed);
	if (now - r->next_place < 2 * PLACE_NS)
		away = others == r->seen_others;
	r->seen_own = own;
	r->seen_others = others;
	r->next_place = now + PLACE_NS;
	if (away != r->away && pin(r, away))
		r->away = away;
}

void *uring_ring_main(void *arg)
{
	struct uring_ring *r = arg;
	struct uring_transport *u = r->q->u;
	unsigned i;
	int gate, ret, err = 0;
	char name[16];
	uint64_t n;

	self = r;
	/* top -H, /proc/PID/task: testfs-uqQ.I, thread I of queue Q. */
	snprintf(name, sizeof(name), "testfs-uq%u.%u", r->q->qid, r->idx);
	pthread_setname_np(pthread_self(), name);
	/*
	 * Placement. The kernel queues a request on the queue of the CPU its
	 * task runs on (fs/fuse/dev_uring.c, fuse_uring_task_to_queue():
	 * task_cpu(current)), and copies it into an entry in the task that
	 * submitted the entry's SQE (io_uring_cmd_complete_in_task()): this
	 * thread does all the server work of its entries, wherever it runs.
	 * It starts pinned to the queue's CPU (home): while requests arrive
	 * on every queue, each CPU has requesters, and answering them on
	 * their own CPU beats crossing over (no cross-CPU wake-ups, warm
	 * caches; several readers were 20-30% slower crossed). While this
	 * queue is the only one taking requests, one task (a sequential
	 * reader) sends them all, and a thread on its CPU takes turns with
	 * it; so place() pins the thread to every CPU but its queue's
	 * (away), where it answers while the reader copies, as a /dev/fuse
	 * thread does, and pins it home again as soon as another queue takes
	 * requests (docs/design-transport.md). A CPU that is not online
	 * refuses the pinning, and the thread then runs anywhere.
	 */
	r->placeable = pin(r, false) && u->nq > 1;
	pthread_mutex_lock(&u->lock);
	while (!u->gate)
		pthread_cond_wait(&u->cond, &u->lock);
	gate = u->gate;
	pthread_mutex_unlock(&u->lock);
	if (gate < 0)
		return NULL;
	for (i = 0; i < r->nents; i++)
		if (prep_cmd(r, &r->ents[i], FUSE_IO_URING_CMD_REGISTER))
			r->live++;
	ret = io_uring_submit(&r->ring);
	if (ret < 0) {
		r->live = 0;
		report(r, ret);
		return NULL;
	}
	/* A REGISTER the kernel refuses has completed when submit returns;
	 * one it takes completes when a request arrives. */
	drain(r, &err);
	report(r, err);
	/*
	 * The thread waits in read(2) on the eventfd, not in io_uring_enter:
	 * valgrind holds its lock across a system call it does not expect to
	 * block, and would stop every other thread. The kernel's work for an
	 * entry (it runs in this task) still runs: it interrupts the read.
	 */
	for (;;) {
		/* A completion posted by the submit signals the eventfd. */
		take_commits(r);
		drain(r, NULL);
		io_uring_submit(&r->ring);
		if (atomic_load(&u->quit))
			break;
		place(r);
		while (read(r->efd, &n, sizeof(n)) < 0 && errno == EINTR)
			;
	}
	/* The delay queue has answered all it held before quit was set. */
	take_commits(r);
	io_uring_submit(&r->ring);
	return NULL;
}

int uring_ring_init(struct uring_queue *q, struct uring_ring *r, unsigned nents,
		    unsigned idx)
{
	struct uring_transport *u = q->u;
	size_t hdrs, i;
	int ret;

	r->q = q;
	r->idx = idx;
	r->nents = nents;
	r->efd = -1;
	pthread_mutex_init(&r->lock, NULL);
	r->ents = calloc(r->nents, sizeof(*r->ents));
	if (!r->ents)
		return -ENOMEM;
	hdrs = (r->nents * sizeof(struct fuse_uring_req_header) + 4095) &
	       ~(size_t)4095;
	/* Anonymous memory: pages cost only once the kernel or a reply
	 * writes them, and they are defined for valgrind. */
	r->mem_size = hdrs + (r->nents + 1) * u->payload + 4096;
	r->mem = mmap(NULL, r->mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < r->nents; i++) {
		struct uring_ent *e = &r->ents[i];

		e->r = r;
		e->hdr = (struct fuse_uring_req_header *)(void *)(r->mem) + i;
		e->payload = r->mem + hdrs + i * u->payload;
		e->iov[0] = (struct iovec){ e->hdr, sizeof(*e->hdr) };
		e->iov[1] = (struct iovec){ e->payload, u->payload };
	}
	r->req = r->mem + hdrs + r->nents * u->payload;
	r->efd = eventfd(0, EFD_CLOEXEC);
	if (r->efd < 0)
		return -errno;
	/* One SQE per entry at most: REGISTER, then each commit. */
	ret = io_uring_queue_init(2 * r->nents, &r->ring, IORING_SETUP_SQE128);
	if (ret < 0)
		return ret;
	r->ring_ok = true;
	return io_uring_register_eventfd(&r->ring, r->efd);
}

void uring_ring_free(struct uring_ring *r)
{
	if (r->ring_ok)
		io_uring_queue_exit(&r->ring);
	if (r->efd >= 0)
		close(r->efd);
	if (r->mem)
		munmap(r->mem, r->mem_size);
	free(r->ents);
	pthread_mutex_destroy(&r->lock);
}
