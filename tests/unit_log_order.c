// SPDX-License-Identifier: MIT
/*
 * The log's reorder stage (src/log/log_order.c): reads registered out of
 * order enter the ring in the order of their FUSE unique, whether their
 * owners publish before or after their turn; numbers that are not reads
 * order too; a gap is passed at once with one receiver, waited for with
 * several and given up by a flush; a request after its given-up gap is
 * placed at once; many threads at once lose nothing.
 */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "log/log_order.h"

static struct log_ring ring;
static struct log_order *order;

static void setup(unsigned receivers)
{
	cr_assert_eq(log_ring_init(&ring, 1u << 16), 0);
	cr_assert_eq(log_order_init(&order, &ring, receivers), 0);
}

static void teardown(void)
{
	log_order_destroy(order);
	order = NULL;
	log_ring_destroy(&ring);
}

static void setup_four(void)
{
	setup(4);
}

static void setup_one(void)
{
	setup(1);
}

static struct log_ticket *arrive(uint64_t unique, bool read)
{
	return log_order_arrive(order, unique, read, 1);
}

static void publish(struct log_ticket *tk, uint64_t unique)
{
	memset(&tk->rec, 0, sizeof(tk->rec));
	tk->rec.kind = LOG_READ;
	tk->rec.read.unique = unique;
	log_order_publish(order, tk);
}

/* The uniques of the published records from position 0, in order. */
static size_t uniques(uint64_t *out, size_t max)
{
	struct log_record rec;
	size_t n = 0;

	while (n < max && log_ring_read(&ring, n, &rec) == LOG_READ_OK)
		out[n++] = rec.read.unique;
	return n;
}

TestSuite(order, .init = setup_four, .fini = teardown);

Test(order, out_of_order_arrivals_enter_in_unique_order)
{
	struct log_ticket *t6, *t4, *t2, *t10;
	uint64_t u[8];

	t2 = arrive(2, true);
	t6 = arrive(6, true);
	t10 = arrive(10, true);
	/* 6 and 10 wait for 4 (and 8); they are published meanwhile. */
	publish(t6, 6);
	publish(t10, 10);
	cr_assert_eq(log_ring_head(&ring), 1);
	t4 = arrive(4, true);
	cr_assert_eq(log_ring_head(&ring), 3);
	arrive(8, false); /* not a read: orders, takes no position */
	cr_assert_eq(log_ring_head(&ring), 4);
	/* 2 and 4 have positions, not yet published: the view stops. */
	cr_assert_eq(uniques(u, 8), 0);
	publish(t4, 4);
	cr_assert_eq(uniques(u, 8), 0);
	publish(t2, 2);
	cr_assert_eq(uniques(u, 8), 4);
	cr_assert_eq(u[0], 2);
	cr_assert_eq(u[1], 4);
	cr_assert_eq(u[2], 6);
	cr_assert_eq(u[3], 10);
}

Test(order, flush_gives_up_a_gap_and_late_ones_go_in)
{
	struct log_order_stats st;
	struct log_ticket *tk;
	uint64_t u[8];

	publish(arrive(2, true), 2);
	publish(arrive(6, true), 6);
	log_order_stats(order, &st);
	cr_assert_eq(st.waiting, 1);
	cr_assert_eq(uniques(u, 8), 1);
	log_order_flush(order);
	cr_assert_eq(uniques(u, 8), 2);
	cr_assert_eq(u[1], 6);
	/* 4 comes after all: placed at once, counted. */
	tk = arrive(4, true);
	publish(tk, 4);
	cr_assert_eq(uniques(u, 8), 3);
	cr_assert_eq(u[2], 4);
	log_order_stats(order, &st);
	cr_assert_eq(st.gaps, 1);
	cr_assert_eq(st.late, 1);
	cr_assert_eq(st.waiting, 0);
}

Test(order, interrupts_and_unknown_numbers_do_not_wait)
{
	uint64_t u[8];

	publish(arrive(2, true), 2);
	/* Odd: an interrupt's number; 0: not known. Neither waits. */
	publish(arrive(7, true), 7);
	publish(arrive(0, true), 0);
	cr_assert_eq(uniques(u, 8), 3);
	/* The resend bit is not part of the number. */
	publish(arrive(4 | ORDER_UNIQUE_RESEND, true), 4);
	cr_assert_eq(uniques(u, 8), 4);
}

Test(order, settle_gives_up_a_gap_after_its_time, .timeout = 30)
{
	struct log_order_stats st;
	uint64_t u[8];

	publish(arrive(2, true), 2);
	publish(arrive(6, true), 6);
	log_order_settle(order, 0);
	cr_assert_eq(uniques(u, 8), 2);
	log_order_stats(order, &st);
	cr_assert_eq(st.gaps, 1);
}

Test(order, settle_below_a_number_does_not_wait_for_later_gaps)
{
	uint64_t u[8];

	publish(arrive(2, true), 2);
	publish(arrive(4, true), 4);
	publish(arrive(8, true), 8);
	/* Everything below 6 is in: no wait for 6. */
	log_order_settle(order, 6);
	cr_assert_eq(uniques(u, 8), 2);
}

TestSuite(order_one, .init = setup_one, .fini = teardown);

/* One receiver: nothing else can hold a missing number. */
Test(order_one, a_gap_is_passed_at_once)
{
	uint64_t u[8];

	publish(arrive(2, true), 2);
	publish(arrive(8, true), 8);
	cr_assert_eq(uniques(u, 8), 2);
	cr_assert_eq(u[1], 8);
}

#define THREADS 4
#define PER_THREAD 20000

static _Atomic uint64_t counter;

/* Takes numbers like the kernel hands them out; a third are not reads. */
static void *worker(void *arg)
{
	unsigned i;

	(void)arg;
	for (i = 0; i < PER_THREAD; i++) {
		uint64_t u = atomic_fetch_add(&counter, 2) + 2;
		struct log_ticket *tk = arrive(u, u % 3 != 0);

		if (tk)
			publish(tk, u);
	}
	return NULL;
}

Test(order, threads_at_once_lose_nothing_and_keep_the_order)
{
	pthread_t th[THREADS];
	struct log_record rec;
	uint64_t pos, last = 0, n = 0;
	unsigned i;

	for (i = 0; i < THREADS; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, worker, NULL), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	log_order_flush(order);
	for (pos = 0; pos < log_ring_head(&ring); pos++) {
		cr_assert_eq(log_ring_read(&ring, pos, &rec), LOG_READ_OK);
		cr_assert_gt(rec.read.unique, last);
		last = rec.read.unique;
		n++;
	}
	for (pos = 1; pos <= THREADS * PER_THREAD; pos++)
		n -= (2 * pos) % 3 != 0;
	cr_assert_eq(n, 0);
}
