// SPDX-License-Identifier: MIT
/*
 * seqread (story 3): sequential reads of a whole file with 4 KiB and
 * 1 MiB blocks through read(2), io_uring and POSIX AIO, under a storage
 * model: throughput and the window sequence (the log's requests in
 * order) of each run. This file runs them and analyses the logs into a
 * struct seqread_result; seqread_report.c renders it.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seqread.h"

#define FILE_NAME "seq.bin"
/* In-flight bytes of the async engines are capped at this. */
#define MAX_INFLIGHT_BYTES (32u << 20)

static const struct param_def params[] = {
	{ "size", PARAM_SIZE, "64M", "4M", "file size, read whole by each run",
	  1ull << 20, 1ull << 40, NULL },
	PARAM_DEF_RA,
	PARAM_DEF_MODEL("nvme", ""),
	{ "engines", PARAM_CHOICE, "all", NULL,
	  "which engines to run: read(2), io_uring, POSIX AIO, or all", 0, 0,
	  "all|read|io_uring|posix_aio" },
	{ "iodepth", PARAM_UINT, "128", "16",
	  "reads in flight for io_uring and POSIX AIO (the story's fio "
	  "runs: 128; capped at 32 MiB in flight)",
	  1, 4096, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static int read_sync(int fd, uint64_t size, size_t block, char *buf)
{
	uint64_t off;

	for (off = 0; off < size; off += block) {
		ssize_t n = read(fd, buf, block);

		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
	}
	return 0;
}

static int read_uring(int fd, uint64_t size, size_t block, unsigned qd,
		      char *buf)
{
	struct io_uring ring;
	uint64_t next = 0, done = 0;
	unsigned i, inflight = 0;
	int err;

	err = io_uring_queue_init(qd, &ring, 0);
	if (err)
		return err;
	while (done < size) {
		for (i = 0; inflight < qd && next < size; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			unsigned slot = (unsigned)((next / block) % qd);

			if (!sqe)
				break;
			io_uring_prep_read(sqe, fd, buf + (size_t)slot * block,
					   (unsigned)block, next);
			next += block;
			inflight++;
		}
		err = io_uring_submit_and_wait(&ring, 1);
		if (err < 0)
			break;
		err = 0;
		for (;;) {
			struct io_uring_cqe *cqe;

			if (io_uring_peek_cqe(&ring, &cqe))
				break;
			if (cqe->res <= 0)
				err = cqe->res < 0 ? cqe->res : -EIO;
			done += block;
			inflight--;
			io_uring_cqe_seen(&ring, cqe);
		}
		if (err)
			break;
	}
	io_uring_queue_exit(&ring);
	return err;
}

static int read_aio(int fd, uint64_t size, size_t block, unsigned qd, char *buf)
{
	struct aiocb *cb = calloc(qd, sizeof(*cb));
	const struct aiocb **list = calloc(qd, sizeof(*list));
	uint64_t next = 0, done = 0;
	unsigned i;
	int err = 0;

	if (!cb || !list) {
		free(cb);
		free(list);
		return -ENOMEM;
	}
	while (done < size && !err) {
		for (i = 0; i < qd; i++) {
			if (list[i] || next >= size)
				continue;
			memset(&cb[i], 0, sizeof(cb[i]));
			cb[i].aio_fildes = fd;
			cb[i].aio_buf = buf + (size_t)i * block;
			cb[i].aio_nbytes = block;
			cb[i].aio_offset = (off_t)next;
			if (aio_read(&cb[i])) {
				err = -errno;
				break;
			}
			list[i] = &cb[i];
			next += block;
		}
		if (err)
			break;
		if (aio_suspend(list, (int)qd, NULL) && errno != EINTR) {
			err = -errno;
			break;
		}
		for (i = 0; i < qd; i++) {
			ssize_t n;

			if (!list[i] || aio_error(&cb[i]) == EINPROGRESS)
				continue;
			n = aio_return(&cb[i]);
			if (n <= 0)
				err = n < 0 ? -EIO : -EIO;
			list[i] = NULL;
			done += block;
		}
	}
	/* Wait for what is still in flight before freeing the buffers. */
	for (i = 0; i < qd; i++)
		if (list[i]) {
			while (aio_error(&cb[i]) == EINPROGRESS)
				aio_suspend(&list[i], 1, NULL);
			aio_return(&cb[i]);
		}
	free(cb);
	free(list);
	return err;
}

static int do_run(struct scenario_ctx *ctx, struct session *s, struct run *r)
{
	uint64_t size = s->file_pages * s->page_size, t0;
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	char phase[64], *buf;
	int fd, err;

	snprintf(phase, sizeof(phase), "%s bs=%zuk", engine_name[r->engine],
		 r->block / 1024);
	err = session_phase(ctx, s, phase);
	if (err)
		return err;
	progress("seqread: %s, iodepth %u", phase, r->qd);
	buf = aligned_alloc(4096, (size_t)r->qd * r->block);
	if (!buf)
		return scenario_fail(ctx, -ENOMEM, "%s", phase);
	fd = testfs_open(s->fs, s->file, O_RDONLY);
	if (fd < 0) {
		free(buf);
		return scenario_fail(ctx, fd, "%s: open", phase);
	}
	t0 = now_ns();
	if (r->engine == ENGINE_READ)
		err = read_sync(fd, size, r->block, buf);
	else if (r->engine == ENGINE_URING)
		err = read_uring(fd, size, r->block, r->qd, buf);
	else
		err = read_aio(fd, size, r->block, r->qd, buf);
	r->ns = now_ns() - t0;
	close(fd);
	free(buf);
	if (err)
		return scenario_fail(ctx, err, "%s", phase);
	err = session_snapshot(ctx, s, phase, &r->log);
	if (err)
		return err;
	err = log_reads(r->log, s->file, &r->reads);
	if (!err)
		err = testfs_log_fetched(r->log, s->file, &fetched);
	r->fetched = fetched.pages;
	testfs_extents_free(&fetched);
	return err ? scenario_fail(ctx, err, "%s: the log", phase) : 0;
}

/*
 * Whether the first requests equal the model's, with the model's text;
 * the model's io_pages in @res.
 */
static bool model_matches(struct seqread_result *res, const struct run *r,
			  char *text, size_t size)
{
	const struct session *s = res->s;
	struct ra_model m;
	size_t i, k = 0, used = 0;
	bool same = true;

	text[0] = '\0';
	if (session_ra_model(s, RA_POLICY_CURRENT, &m))
		return false;
	res->io_pages = m.io_pages;
	/* A block smaller than a page still reads one page at a time. */
	ra_model_read(&m, 0, s->file_pages,
		      (uint32_t)((r->block + s->page_size - 1) / s->page_size));
	for (i = 0; i < m.nwindows && k < 12; i++) {
		uint64_t p = m.windows[i].first, left = m.windows[i].pages;

		while (left && k < 12) {
			uint64_t n = left < s->max_pages ? left : s->max_pages;

			if (k >= r->reads.n || r->reads.v[k]->page != p ||
			    r->reads.v[k]->pages != n)
				same = false;
			if (used < size)
				used += (size_t)snprintf(
					text + used, size - used,
					"%s(%llu,%llu)", k ? " " : "",
					(unsigned long long)p,
					(unsigned long long)n);
			p += n;
			left -= n;
			k++;
		}
	}
	ra_model_free(&m);
	return same;
}

/* Everything the report shows, from the runs. */
static int analyse(struct scenario_ctx *ctx, void *result)
{
	struct seqread_result *r = result;
	struct run *run;
	size_t i, k;

	(void)ctx;
	r->fuse_io_pages = ra_fuse_io_pages_of_release(r->s->kernel);
	for (i = 0; i < r->nruns; i++) {
		run = &r->runs[i];
		for (k = 0; k < run->reads.n; k++)
			if (run->reads.v[k]->pages > r->biggest)
				r->biggest = run->reads.v[k]->pages;
		if (run->ns < r->runs[r->fast].ns)
			r->fast = i;
		if (run->ns > r->runs[r->slow].ns)
			r->slow = i;
		run->steady = read_list_usual_pages(&run->reads, NULL);
		run->modelled = run->engine == ENGINE_READ;
		if (run->modelled)
			run->model_same =
				model_matches(r, run, run->model_text,
					      sizeof(run->model_text));
	}
	return 0;
}

/* The runs: each engine asked for, with 4 KiB and 1 MiB blocks. */
static int measure(struct scenario_ctx *ctx, void *result)
{
	static const size_t blocks[] = { 4096, 1u << 20 };
	const char *which = param_s(ctx, "engines");
	struct seqread_result *r = result;
	struct session *s;
	int err = 0, e;
	size_t i;

	err = session_start_params(ctx, &s, FILE_NAME);
	if (err)
		return err;
	r->s = s;
	for (e = 0; e < NENGINES && !err; e++) {
		if (strcmp(which, "all") && strcmp(which, engine_name[e]))
			continue;
		for (i = 0; i < 2 && !err; i++) {
			struct run *run = &r->runs[r->nruns++];
			uint64_t qd =
				e == ENGINE_READ ? 1 : param_u(ctx, "iodepth");

			if (qd * blocks[i] > MAX_INFLIGHT_BYTES)
				qd = MAX_INFLIGHT_BYTES / blocks[i];
			run->engine = (enum engine)e;
			run->block = blocks[i];
			run->qd = (unsigned)qd;
			err = do_run(ctx, s, run);
		}
	}
	return err;
}

static void release(void *result)
{
	struct seqread_result *r = result;
	size_t i;

	for (i = 0; i < r->nruns; i++) {
		read_list_free(&r->runs[i].reads);
		testfs_log_free(r->runs[i].log);
	}
}

const struct scenario seqread_scenario = {
	.name = "seqread",
	.summary = "sequential 4K/1M reads via read, io_uring, POSIX AIO: "
		   "MB/s and windows",
	.description =
		"Story 3 of READAHEAD.md: a readahead series changed "
		"sequential 4 KiB throughput by +14..22% depending on the "
		"engine, 1 MiB reads not at all. Reads a file (64 MiB by "
		"default) in order with 4 KiB and 1 MiB blocks through "
		"read(2), io_uring (liburing) and POSIX AIO (librt), each from "
		"a cold cache under a storage model, and reports the "
		"throughput and the window sequence (the log's requests in "
		"order), with the sequence current kernels produce for "
		"read(2) worked out from mm/readahead.c.",
	.params = params,
	SCENARIO_STEPS(struct seqread_result, measure, analyse, seqread_report,
		       release),
};
