// SPDX-License-Identifier: MIT
/*
 * The core of the daemon without a mount: the registry of open control
 * handles (each freed by the release its owner registered, once) and the
 * count of workers that serving waits for.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/testfs_core.h"

static struct testfs t;

static void setup(void)
{
	memset(&t, 0, sizeof(t));
	testfs_init(&t);
}

static void teardown(void)
{
	testfs_destroy(&t);
}

TestSuite(core, .init = setup, .fini = teardown);

struct handle {
	struct handle_link link;
	int released;
};

/* As ctl's releases do: untrack, then free. */
static void release(struct testfs *fs, struct handle_link *link)
{
	struct handle *h = container_of(link, struct handle, link);

	testfs_untrack(fs, link);
	h->released++;
}

Test(core, free_handles_releases_each_open_handle_once)
{
	struct handle h[4];
	size_t i;

	memset(h, 0, sizeof(h));
	for (i = 0; i < 4; i++)
		testfs_track(&t, &h[i].link, release);
	/* Closed before serving ended: not released again. */
	testfs_untrack(&t, &h[1].link);
	testfs_untrack(&t, &h[1].link);
	testfs_free_handles(&t);
	for (i = 0; i < 4; i++)
		cr_expect_eq(h[i].released, i == 1 ? 0 : 1,
			     "handle %zu released %d times", i, h[i].released);
	cr_expect_eq(t.handles.next, &t.handles, "the registry is not empty");
	/* Nothing left: a second call releases nothing. */
	testfs_free_handles(&t);
	cr_expect_eq(h[0].released, 1);
}

Test(core, no_worker_starts_once_serving_ends)
{
	cr_assert(testfs_worker_begin(&t));
	cr_assert(testfs_worker_begin(&t));
	cr_expect_eq(t.workers, 2u);
	testfs_worker_end(&t);
	cr_expect_eq(t.workers, 1u);
	testfs_worker_end(&t);
	cr_expect_eq(t.workers, 0u);
	atomic_store(&t.stopping, true);
	cr_expect_not(testfs_worker_begin(&t));
	cr_expect_eq(t.workers, 0u, "a refused worker was counted");
}

Test(core, correlation_off_makes_every_record_final)
{
	/* Without a correlator nothing waits for the kernel's events. */
	cr_expect_eq(testfs_correlate_sync(&t), UINT64_MAX);
	atomic_store(&t.trace_decided, true);
	cr_expect_eq(testfs_correlate_sync(&t), UINT64_MAX);
	testfs_correlate_forget(&t, 2);
}
