// SPDX-License-Identifier: MIT
#include "loop_uring.h"

#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "thread.h"
#include "fs_ops.h"
#include "fuse_uring_abi.h"

/* How long uring_transport_settle() waits for the queues to register. */
#define SETTLE_MS 10000
/* How often a busy queue thread reconsiders its CPU (queue_main()). */
#define PLACE_NS 2000000

struct uring_queue;

struct uring_ent {
	struct uring_queue *q;
	struct fuse_uring_req_header *hdr;
	char *payload;
	struct iovec iov[2]; /* what REGISTER hands the kernel */
	/* The request this entry holds in user space, 0 when none. */
	_Atomic uint64_t unique;
	uint64_t commit_id;	/* the reply being committed */
	struct uring_ent *next; /* on the queue's commit list */
	struct fs_claim claim;	/* its request, registered as it arrived */
};

struct uring_queue {
	struct uring_transport *u;
	unsigned qid;
	struct io_uring ring;
	bool ring_ok;
	pthread_t th;
	bool started;
	/* Wakes the thread: the ring signals it for each completion
	 * (io_uring_register_eventfd()), other threads for commits, quit. */
	int efd;
	pthread_mutex_t lock; /* commits */
	struct uring_ent *commits;
	struct uring_ent *ents;
	char *mem; /* headers, payloads, the reassembled request */
	size_t mem_size;
	char *req;
	unsigned live; /* entries the kernel holds (the thread's) */
	/* Requests taken; the other queues' threads read it (place()). */
	_Atomic uint64_t taken;
	/* Placement, the thread's own: pinned to qid, or (away) to every
	 * CPU but qid while no other queue takes requests. */
	bool placeable;
	bool away;
	uint64_t seen_own, seen_others, next_place;
};

struct uring_transport {
	struct testfs *t;
	int fd;
	unsigned nq;
	size_t payload;
	struct uring_queue *q;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gate;	   /* 0: before INIT, 1: register, -1: end */
	unsigned reported; /* queues done registering */
	unsigned ready;	   /* queues with entries */
	int err;	   /* the first REGISTER error */
	unsigned err_qid;
	atomic_bool quiesced;
	atomic_bool quit;
};

/* The queue whose thread this is, and the entry it is serving. */
static __thread struct uring_queue *self;
static __thread struct uring_ent *serving;

unsigned uring_possible_cpus(void)
{
	char buf[256], *p, *end;
	unsigned long hi = 0, v;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	size_t n;

	if (!f)
		return (unsigned)get_nprocs_conf();
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "0-3,6": the kernel numbers queues 0..num_possible_cpus()-1. */
	for (p = buf; *p;) {
		v = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (v + 1 > hi)
			hi = v + 1;
		p = end;
		while (*p == '-' || *p == ',' || *p == '\n')
			p++;
	}
	return hi ? (unsigned)hi : (unsigned)get_nprocs_conf();
}

unsigned uring_transport_queues(const struct uring_transport *u)
{
	return u ? u->nq : 0;
}

/* An SQE, submitting what is queued if the ring is full. */
static struct io_uring_sqe *get_sqe(struct uring_queue *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	if (!sqe) {
		io_uring_submit(&q->ring);
		sqe = io_uring_get_sqe(&q->ring);
	}
	return sqe;
}

/*
 * A URING_CMD SQE filled by hand: liburing 2.3 has no helper for it. The
 * command (struct fuse_uring_cmd_req) lives in the SQE's command area,
 * which the ring's 128-byte SQEs extend to 80 bytes.
 */
static bool prep_cmd(struct uring_queue *q, struct uring_ent *e, uint32_t op)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	struct fuse_uring_cmd_req *cmd;

	if (!sqe)
		return false;
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->u->fd;
	sqe->cmd_op = op;
	sqe->user_data = (uint64_t)(uintptr_t)e;
	if (op == FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)e->iov;
		sqe->len = 2;
	}
	cmd = (struct fuse_uring_cmd_req *)(void *)sqe->cmd;
	cmd->qid = (uint16_t)q->qid;
	cmd->commit_id =
		op == FUSE_IO_URING_CMD_COMMIT_AND_FETCH ? e->commit_id : 0;
	return true;
}

static void commit(struct uring_ent *e)
{
	struct uring_queue *q = e->q;
	uint64_t one = 1;

	if (self == q) {
		if (!prep_cmd(q, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH))
			q->live--;
		return;
	}
	pthread_mutex_lock(&q->lock);
	e->next = q->commits;
	q->commits = e;
	pthread_mutex_unlock(&q->lock);
	/* Cannot fail but on overflow, when the thread is woken anyway. */
	if (write(q->efd, &one, sizeof(one)) < 0)
		(void)0;
}

static struct uring_ent *find(struct uring_transport *u, uint64_t unique)
{
	unsigned i, j;

	if (serving && atomic_load(&serving->unique) == unique)
		return serving;
	for (i = 0; i < u->nq; i++)
		for (j = 0; j < URING_ENTRIES; j++)
			if (atomic_load(&u->q[i].ents[j].unique) == unique)
				return &u->q[i].ents[j];
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
	return serving && len <= self->u->payload ? serving->payload : NULL;
}

/* A request the kernel put in @e, as /dev/fuse would deliver it. */
static void take_request(struct uring_queue *q, struct uring_ent *e)
{
	struct uring_transport *u = q->u;
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
	memcpy(q->req, in, sizeof(*in));
	memcpy(q->req + sizeof(*in), e->hdr->op_in, op);
	memcpy(q->req + sizeof(*in) + op, e->payload, psz);
	atomic_fetch_add_explicit(&u->t->stats.uring_requests, 1,
				  memory_order_relaxed);
	if (in->opcode == FUSE_READ)
		atomic_fetch_add_explicit(&u->t->stats.uring_reads, 1,
					  memory_order_relaxed);
	atomic_store(&e->unique, in->unique);
	memset(&buf, 0, sizeof(buf));
	buf.mem = q->req;
	buf.size = in->len;
	serving = e;
	fuse_session_process_buf(u->t->se, &buf);
	serving = NULL;
	fs_claim_settle(u->t);
}

/* Queues the replies other threads sent for submission. */
static void take_commits(struct uring_queue *q)
{
	struct uring_ent *list, *e;

	pthread_mutex_lock(&q->lock);
	list = q->commits;
	q->commits = NULL;
	pthread_mutex_unlock(&q->lock);
	while (list) {
		e = list;
		list = e->next;
		if (!prep_cmd(q, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH))
			q->live--;
	}
}

/*
 * Handles the completions there are. The requests of a batch are all
 * registered with the log's reorder stage before the first is processed:
 * a read of another queue may wait for one of them.
 */
static void drain(struct uring_queue *q, int *first_err)
{
	struct io_uring_cqe *cqes[2 * URING_ENTRIES];
	struct uring_ent *got[2 * URING_ENTRIES];
	const struct fuse_in_header *in;
	unsigned n, i, ngot;
	struct uring_ent *e;
	int res;

	while ((n = io_uring_peek_batch_cqe(&q->ring, cqes,
					    2 * URING_ENTRIES))) {
		ngot = 0;
		for (i = 0; i < n; i++) {
			e = (struct uring_ent *)(uintptr_t)cqes[i]->user_data;
			res = cqes[i]->res;
			if (res < 0) {
				/* Refused, or ended: -ENOTCONN at teardown. */
				q->live--;
				if (first_err && !*first_err)
					*first_err = res;
				continue;
			}
			/* After quiescing, the kernel ends it with the
			 * connection. */
			if (atomic_load(&q->u->quiesced))
				continue;
			in = (const void *)e->hdr->in_out;
			fs_claim_take(q->u->t, in, e->hdr->op_in,
				      sizeof(e->hdr->op_in), &e->claim);
			got[ngot++] = e;
		}
		io_uring_cq_advance(&q->ring, n);
		atomic_fetch_add_explicit(&q->taken, ngot,
					  memory_order_relaxed);
		for (i = 0; i < ngot; i++)
			take_request(q, got[i]);
	}
}

static void report(struct uring_queue *q, int err)
{
	struct uring_transport *u = q->u;

	pthread_mutex_lock(&u->lock);
	u->reported++;
	if (q->live)
		u->ready++;
	if (err && !u->err) {
		u->err = err;
		u->err_qid = q->qid;
	}
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

/* Pins the thread to its queue's CPU, or (@away) to every other one. */
static bool pin(struct uring_queue *q, bool away)
{
	cpu_set_t set;
	unsigned i;

	CPU_ZERO(&set);
	for (i = 0; i < q->u->nq; i++)
		if ((i == q->qid) != away)
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

/*
 * Where the thread runs (queue_main()): looked at after serving, at most
 * once per PLACE_NS and only while this queue takes requests. Away while
 * no other queue took one since the last look, home as soon as one did.
 * After a pause (no look for 3 * PLACE_NS) a look only takes the counts.
 * sched_setaffinity() runs only when the answer changes.
 */
static void place(struct uring_queue *q)
{
	struct uring_transport *u = q->u;
	uint64_t now, own, others = 0;
	bool away = q->away;
	unsigned i;

	if (!q->placeable)
		return;
	own = atomic_load_explicit(&q->taken, memory_order_relaxed);
	if (own == q->seen_own)
		return;
	now = clock_now_ns();
	if (now < q->next_place)
		return;
	for (i = 0; i < u->nq; i++)
		if (i != q->qid)
			others += atomic_load_explicit(&u->q[i].taken,
						       memory_order_relaxed);
	if (now - q->next_place < 2 * PLACE_NS)
		away = others == q->seen_others;
	q->seen_own = own;
	q->seen_others = others;
	q->next_place = now + PLACE_NS;
	if (away != q->away && pin(q, away))
		q->away = away;
}

static void *queue_main(void *arg)
{
	struct uring_queue *q = arg;
	struct uring_transport *u = q->u;
	unsigned i;
	int gate, ret, err = 0;
	uint64_t n;

	self = q;
	/*
	 * Placement. The kernel queues a request on the queue of the CPU its
	 * task runs on (fs/fuse/dev_uring.c, fuse_uring_task_to_queue():
	 * task_cpu(current)), and copies it into an entry in the task that
	 * submitted the entry's SQE (io_uring_cmd_complete_in_task()): this
	 * thread does all of the queue's server work, wherever it runs.
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
	q->placeable = pin(q, false) && u->nq > 1;
	pthread_mutex_lock(&u->lock);
	while (!u->gate)
		pthread_cond_wait(&u->cond, &u->lock);
	gate = u->gate;
	pthread_mutex_unlock(&u->lock);
	if (gate < 0)
		return NULL;
	for (i = 0; i < URING_ENTRIES; i++)
		if (prep_cmd(q, &q->ents[i], FUSE_IO_URING_CMD_REGISTER))
			q->live++;
	ret = io_uring_submit(&q->ring);
	if (ret < 0) {
		q->live = 0;
		report(q, ret);
		return NULL;
	}
	/* A REGISTER the kernel refuses has completed when submit returns;
	 * one it takes completes when a request arrives. */
	drain(q, &err);
	report(q, err);
	/*
	 * The thread waits in read(2) on the eventfd, not in io_uring_enter:
	 * valgrind holds its lock across a system call it does not expect to
	 * block, and would stop every other thread. The kernel's work for an
	 * entry (it runs in this task) still runs: it interrupts the read.
	 */
	for (;;) {
		/* A completion posted by the submit signals the eventfd. */
		take_commits(q);
		drain(q, NULL);
		io_uring_submit(&q->ring);
		if (atomic_load(&u->quit))
			break;
		place(q);
		while (read(q->efd, &n, sizeof(n)) < 0 && errno == EINTR)
			;
	}
	/* The delay queue has answered all it held before quit was set. */
	take_commits(q);
	io_uring_submit(&q->ring);
	return NULL;
}

static int queue_init(struct uring_transport *u, struct uring_queue *q,
		      unsigned qid)
{
	size_t hdrs =
		(URING_ENTRIES * sizeof(struct fuse_uring_req_header) + 4095) &
		~(size_t)4095;
	size_t i;
	int ret;

	q->u = u;
	q->qid = qid;
	q->efd = -1;
	pthread_mutex_init(&q->lock, NULL);
	q->ents = calloc(URING_ENTRIES, sizeof(*q->ents));
	if (!q->ents)
		return -ENOMEM;
	/* Anonymous memory: pages cost only once the kernel or a reply
	 * writes them, and they are defined for valgrind. */
	q->mem_size = hdrs + (URING_ENTRIES + 1) * u->payload + 4096;
	q->mem = mmap(NULL, q->mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q->mem == MAP_FAILED) {
		q->mem = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < URING_ENTRIES; i++) {
		struct uring_ent *e = &q->ents[i];

		e->q = q;
		e->hdr = (struct fuse_uring_req_header *)(void *)(q->mem) + i;
		e->payload = q->mem + hdrs + i * u->payload;
		e->iov[0] = (struct iovec){ e->hdr, sizeof(*e->hdr) };
		e->iov[1] = (struct iovec){ e->payload, u->payload };
	}
	q->req = q->mem + hdrs + URING_ENTRIES * u->payload;
	q->efd = eventfd(0, EFD_CLOEXEC);
	if (q->efd < 0)
		return -errno;
	/* One SQE per entry at most: REGISTER, then each commit. */
	ret = io_uring_queue_init(2 * URING_ENTRIES, &q->ring,
				  IORING_SETUP_SQE128);
	if (ret < 0)
		return ret;
	q->ring_ok = true;
	return io_uring_register_eventfd(&q->ring, q->efd);
}

static void queue_free(struct uring_queue *q)
{
	if (q->ring_ok)
		io_uring_queue_exit(&q->ring);
	if (q->efd >= 0)
		close(q->efd);
	if (q->mem)
		munmap(q->mem, q->mem_size);
	free(q->ents);
	pthread_mutex_destroy(&q->lock);
}

int uring_transport_prepare(struct testfs *t, size_t payload,
			    struct uring_transport **out, char *why,
			    size_t whylen)
{
	struct uring_transport *u = calloc(1, sizeof(*u));
	unsigned i;
	int ret = -ENOMEM;

	*out = NULL;
	if (!u) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	u->t = t;
	u->fd = -1;
	u->payload = payload;
	u->nq = uring_possible_cpus();
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	u->q = calloc(u->nq ? u->nq : 1, sizeof(*u->q));
	if (!u->q || !u->nq) {
		snprintf(why, whylen, "cannot count the possible CPUs");
		goto fail;
	}
	for (i = 0; i < u->nq; i++) {
		ret = queue_init(u, &u->q[i], i);
		if (ret < 0) {
			snprintf(why, whylen,
				 "cannot set up the io_uring of queue %u: %s",
				 i, strerror(-ret));
			u->nq = i + 1;
			goto fail;
		}
	}
	for (i = 0; i < u->nq; i++) {
		ret = thread_start_quiet(&u->q[i].th, queue_main, &u->q[i],
					 false);
		if (ret) {
			snprintf(why, whylen, "cannot start a thread: %s",
				 strerror(ret));
			ret = -ret;
			goto fail;
		}
		u->q[i].started = true;
	}
	*out = u;
	return 0;
fail:
	uring_transport_stop(u);
	return ret < 0 ? ret : -EINVAL;
}

void uring_transport_go(struct uring_transport *u, int fd, bool go)
{
	pthread_mutex_lock(&u->lock);
	if (!u->gate) {
		u->fd = fd;
		u->gate = go ? 1 : -1;
	}
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

bool uring_transport_settle(struct uring_transport *u, char *why, size_t whylen)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += SETTLE_MS / 1000;
	pthread_mutex_lock(&u->lock);
	while (!u->gate || (u->gate == 1 && u->reported < u->nq))
		if (pthread_cond_timedwait(&u->cond, &u->lock, &ts) ==
		    ETIMEDOUT)
			break;
	ok = u->gate == 1 && u->ready == u->nq;
	if (u->gate != 1)
		snprintf(
			why, whylen,
			"the kernel did not offer FUSE_OVER_IO_URING at FUSE_INIT");
	else if (u->err)
		snprintf(why, whylen,
			 "FUSE_IO_URING_CMD_REGISTER failed on queue %u: %s",
			 u->err_qid, strerror(-u->err));
	else if (!ok)
		snprintf(why, whylen, "%u of %u queues registered within %d ms",
			 u->ready, u->nq, SETTLE_MS);
	pthread_mutex_unlock(&u->lock);
	return ok;
}

void uring_transport_quiesce(struct uring_transport *u)
{
	if (u)
		atomic_store(&u->quiesced, true);
}

void uring_transport_stop(struct uring_transport *u)
{
	uint64_t one = 1;
	unsigned i;

	if (!u)
		return;
	atomic_store(&u->quiesced, true);
	atomic_store(&u->quit, true);
	uring_transport_go(u, u->fd, false);
	for (i = 0; i < u->nq; i++) {
		if (!u->q[i].started)
			continue;
		if (write(u->q[i].efd, &one, sizeof(one)) < 0)
			(void)0;
		pthread_join(u->q[i].th, NULL);
	}
	for (i = 0; i < u->nq; i++)
		queue_free(&u->q[i]);
	free(u->q);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	free(u);
}
