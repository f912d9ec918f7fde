// SPDX-License-Identifier: MIT
/*
 * A contiguous run of records the ring overwrote is reported as one
 * {"lost":N,...} line, as testfs-log(5) says. The streamed .testfs/log walks
 * the ring 512 records at a time, and each step reported its own part of
 * a loss (one line per 512 lost records); the --log writer split a loss
 * that spanned two of its drains.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log/log_ring.h"
#include "log/log_writer.h"

#define CAPACITY 16
#define RECORDS 2000

static struct log_ring ring;

static void setup(void)
{
	cr_assert_eq(log_ring_init(&ring, CAPACITY), 0);
}

static void teardown(void)
{
	log_ring_destroy(&ring);
}

TestSuite(loss_line, .init = setup, .fini = teardown, .timeout = 30);

static void append_reads(uint64_t n)
{
	struct log_record rec;
	uint64_t i;

	for (i = 0; i < n; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.kind = LOG_READ;
		rec.read.ino = 2;
		rec.read.off = i * 4096;
		rec.read.len = 4096;
		log_ring_append(&ring, &rec);
	}
}

struct seen {
	unsigned losses;
	uint64_t first_seq, count;
	unsigned records;
};

static void on_record(void *arg, const struct log_record *rec)
{
	struct seen *s = arg;

	(void)rec;
	s->records++;
}

static void on_lost(void *arg, uint64_t first_seq, uint64_t count)
{
	struct seen *s = arg;

	if (!s->losses++)
		s->first_seq = first_seq;
	s->count += count;
}

/* The way .testfs/log streams: steps of at most 512 records. */
Test(loss_line, walk_in_steps_reports_one_loss)
{
	struct seen s = { 0 };
	uint64_t pos = 0, next;

	append_reads(RECORDS);
	for (;;) {
		next = log_ring_walk_range(&ring, pos, log_ring_head(&ring),
					   512, on_record, on_lost, &s);
		if (next == pos)
			break;
		pos = next;
	}
	cr_expect_eq(s.losses, 1, "%u loss reports for one contiguous loss",
		     s.losses);
	cr_expect_eq(s.first_seq, 1);
	cr_expect_eq(s.count, RECORDS - CAPACITY);
	cr_expect_eq(s.records, CAPACITY);
}

static uint64_t final_upto;

static uint64_t sync_upto(void *ctx)
{
	(void)ctx;
	return final_upto;
}

static const char *no_name(void *ctx, uint64_t ino)
{
	(void)ctx;
	(void)ino;
	return "a.bin";
}

/* A loss that two drains of the --log writer see in two parts. */
Test(loss_line, log_file_reports_one_loss_across_drains)
{
	char path[] = "/tmp/testfs-regress-loss.XXXXXX", buf[8192], *p;
	struct log_writer *w;
	unsigned losses = 0, records = 0;
	int fd = mkstemp(path), rfd;
	ssize_t n;

	cr_assert_geq(fd, 0);
	cr_assert_eq(log_writer_start(&w, &ring, fd, 4096, no_name, NULL), 0);
	log_writer_set_sync(w, sync_upto, NULL);
	append_reads(RECORDS);
	/* First drain: only the first half of the loss is final. */
	final_upto = RECORDS / 2;
	cr_assert_eq(log_writer_flush(w), 0);
	final_upto = UINT64_MAX;
	cr_assert_eq(log_writer_flush(w), 0);
	cr_assert_eq(log_writer_stop(w, NULL), 0);
	rfd = open(path, O_RDONLY);
	unlink(path);
	cr_assert_geq(rfd, 0);
	n = read(rfd, buf, sizeof(buf) - 1);
	close(rfd);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	for (p = buf; (p = strchr(p, '{')); p++) {
		if (!strncmp(p, "{\"lost\":", 8))
			losses++;
		else
			records++;
	}
	cr_expect_eq(losses, 1, "%u loss lines for one contiguous loss:\n%s",
		     losses, buf);
	cr_expect_not_null(strstr(buf, "{\"lost\":1984,\"first_seq\":1,"
				       "\"last_seq\":1984}"),
			   "%s", buf);
	cr_expect_eq(records, CAPACITY, "%s", buf);
}
