// SPDX-License-Identifier: MIT
/*
 * The fio matrix of story 1 without fio: 4 KiB reads through an mmap
 * (each page copied out of the mapping, as fio's mmap engine does) and
 * through pread(2), sequential and random, each run from a cold cache
 * under the session's storage model.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scenario.h"

static uint64_t *permutation(uint64_t n, uint64_t seed)
{
	uint64_t *v = malloc((n ? n : 1) * sizeof(*v)), i, x = seed * 2 + 1;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		v[i] = i;
	for (i = n; i > 1; i--) {
		uint64_t j;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % i;
		uint64_t tmp = v[i - 1];

		v[i - 1] = v[j];
		v[j] = tmp;
	}
	return v;
}

/* Every second or so: "PHASE, DONE/TOTAL x 4 KiB (P%)". */
static void cell_progress(const char *phase, uint64_t done, uint64_t total,
			  uint64_t *next_ns)
{
	uint64_t now;

	if (done % 64)
		return;
	now = now_ns();
	if (now < *next_ns)
		return;
	*next_ns = now + 1000000000ull;
	progress("throughput: %s, %llu/%llu x 4 KiB (%llu%%)", phase,
		 (unsigned long long)done, (unsigned long long)total,
		 (unsigned long long)(total ? done * 100 / total : 100));
}

static int run_cell(struct scenario_ctx *ctx, struct session *s,
		    struct fio_cell *c, uint64_t first, uint64_t npages,
		    const uint64_t *order)
{
	/* 4 KiB at the start of each page, whatever the page size (fio's
	 * bs=4k of the patch's matrix). */
	static char buf[4096];
	struct testfs_extents fetched = TESTFS_EXTENTS_INIT;
	struct testfs_log *log = NULL;
	volatile unsigned sum = 0;
	char phase[64];
	uint64_t i, t0, next_ns;
	int err;

	snprintf(phase, sizeof(phase), "%s %s", c->engine, c->rw);
	err = session_phase(ctx, s, phase);
	if (err)
		return err;
	progress("throughput: %s, %llu x 4 KiB", phase,
		 (unsigned long long)npages);
	if (strcmp(c->engine, "mmap") == 0) {
		struct testfs_map map;

		err = testfs_map(s->fs, s->file, first, npages, PROT_READ,
				 MAP_SHARED, &map);
		if (err)
			return scenario_fail(ctx, err, "%s: mmap", phase);
		t0 = now_ns();
		next_ns = t0 + 1000000000ull;
		for (i = 0; i < npages; i++) {
			uint64_t p = order ? order[i] : i;

			cell_progress(phase, i, npages, &next_ns);
			memcpy(buf, map.addr + p * s->page_size, sizeof(buf));
			sum += (unsigned char)buf[i % sizeof(buf)];
		}
		c->ns = now_ns() - t0;
		testfs_unmap(&map);
	} else {
		int fd = testfs_open(s->fs, s->file, O_RDONLY);

		if (fd < 0)
			return scenario_fail(ctx, fd, "%s: open", phase);
		t0 = now_ns();
		next_ns = t0 + 1000000000ull;
		for (i = 0; i < npages; i++) {
			uint64_t p = first + (order ? order[i] : i);

			cell_progress(phase, i, npages, &next_ns);
			if (pread(fd, buf, sizeof(buf),
				  (off_t)(p * s->page_size)) !=
			    (ssize_t)sizeof(buf)) {
				err = -EIO;
				break;
			}
			sum += (unsigned char)buf[0];
		}
		c->ns = now_ns() - t0;
		close(fd);
		if (err)
			return scenario_fail(ctx, err, "%s: pread", phase);
	}
	err = session_snapshot(ctx, s, phase, &log);
	if (err)
		return err;
	c->requests = testfs_log_requests(log, s->file);
	if (!testfs_log_fetched(log, s->file, &fetched))
		c->fetched = fetched.pages;
	testfs_extents_free(&fetched);
	testfs_log_free(log);
	(void)sum;
	return 0;
}

int fio_matrix_run(struct scenario_ctx *ctx, struct session *s, uint64_t first,
		   uint64_t npages, struct fio_matrix *out)
{
	static const char *const cells[FIO_CELLS][2] = {
		{ "mmap", "read" },
		{ "mmap", "randread" },
		{ "psync", "read" },
		{ "psync", "randread" },
	};
	uint64_t *order = permutation(npages, param_u(ctx, "seed"));
	unsigned i;
	int err = 0;

	if (!order)
		return scenario_fail(ctx, -ENOMEM, "throughput");
	out->npages = npages;
	for (i = 0; i < FIO_CELLS && !err; i++) {
		bool rnd = strcmp(cells[i][1], "randread") == 0;

		out->cell[i].engine = cells[i][0];
		out->cell[i].rw = cells[i][1];
		err = run_cell(ctx, s, &out->cell[i], first, npages,
			       rnd ? order : NULL);
	}
	free(order);
	return err;
}

void fio_matrix_report(struct rnode *sec, const struct fio_matrix *fm)
{
	uint64_t npages = fm->npages;
	struct rnode *table;
	unsigned i;

	rep_text(sec, "what",
		 "The patch's fio runs, without fio: mmap and psync, rw=read "
		 "and randread (each page once, shuffled), bs=4k, over the "
		 "VMA's pages (offset=size/3, size=size/3), one job, each run "
		 "from a cold cache under the storage model. mmap maps exactly "
		 "those pages and copies each one out of the mapping (fio's "
		 "mmap engine maps from the file's start instead: see "
		 "examples/fio/README.md). The patch reported these within "
		 "+-2%% of the unpatched kernel (not modelled here).");
	table = rep_table(sec, "runs", NULL);
	for (i = 0; i < FIO_CELLS; i++) {
		const struct fio_cell *c = &fm->cell[i];
		struct rnode *row = rep_row(table);

		rep_str(row, "engine", NULL, "%s", c->engine);
		rep_str(row, "rw", NULL, "%s", c->rw);
		rep_uint(row, "ios", NULL, npages, NULL);
		rep_num(row, "ms", NULL, c->ns / 1e6, 1, "ms");
		rep_num(row, "MB_s", "MB/s",
			mb_per_s(npages * TESTFS_PAGE_SIZE, c->ns), 1, "MB/s");
		rep_num(row, "kiops", "kIOPS", c->ns ? npages * 1e6 / c->ns : 0,
			1, NULL);
		rep_uint(row, "requests", "FUSE reads", c->requests, NULL);
		rep_uint(row, "pages_fetched", "pages fetched", c->fetched,
			 NULL);
	}
}
