// SPDX-License-Identifier: MIT
#include "testfs_core.h"

#include <signal.h>

#include "thread.h"
#include "correlate.h"

void testfs_init(struct testfs *t)
{
	pthread_mutex_init(&t->ctl_lock, NULL);
	pthread_mutex_init(&t->handles_lock, NULL);
	pthread_mutex_init(&t->workers_lock, NULL);
	cond_init_monotonic(&t->workers_done);
	t->handles.next = t->handles.prev = &t->handles;
}

void testfs_destroy(struct testfs *t)
{
	pthread_mutex_destroy(&t->ctl_lock);
	pthread_mutex_destroy(&t->handles_lock);
	pthread_mutex_destroy(&t->workers_lock);
	pthread_cond_destroy(&t->workers_done);
}

__thread uint64_t testfs_request_unique;

uint64_t testfs_correlate_sync(struct testfs *t)
{
	if (t->order)
		log_order_settle(t->order, testfs_request_unique);
	if (!atomic_load(&t->trace_decided) || !t->corr)
		return UINT64_MAX;
	correlator_sync(t->corr, 1000);
	return correlator_done_pos(t->corr);
}

void testfs_correlate_forget(struct testfs *t, uint64_t ino)
{
	if (atomic_load(&t->trace_decided) && t->corr)
		correlator_forget(t->corr, ino, 1000);
}

void testfs_track(struct testfs *t, struct handle_link *link,
		  void (*release)(struct testfs *t, struct handle_link *link))
{
	link->release = release;
	pthread_mutex_lock(&t->handles_lock);
	link->next = t->handles.next;
	link->prev = &t->handles;
	t->handles.next->prev = link;
	t->handles.next = link;
	pthread_mutex_unlock(&t->handles_lock);
}

void testfs_untrack(struct testfs *t, struct handle_link *link)
{
	pthread_mutex_lock(&t->handles_lock);
	if (link->next) {
		link->prev->next = link->next;
		link->next->prev = link->prev;
		link->next = link->prev = NULL;
	}
	pthread_mutex_unlock(&t->handles_lock);
}

void testfs_free_handles(struct testfs *t)
{
	/* Each release untracks its handle, so the list shrinks. */
	while (t->handles.next && t->handles.next != &t->handles) {
		struct handle_link *link = t->handles.next;

		link->release(t, link);
	}
}

void testfs_stop_serving(struct testfs *t)
{
	atomic_store(&t->stop_loop, true);
	pthread_kill(t->serving_thread, SIGTERM);
}

bool testfs_worker_begin(struct testfs *t)
{
	bool stopping;

	pthread_mutex_lock(&t->workers_lock);
	stopping = atomic_load(&t->stopping);
	if (!stopping)
		t->workers++;
	pthread_mutex_unlock(&t->workers_lock);
	return !stopping;
}

void testfs_worker_end(struct testfs *t)
{
	pthread_mutex_lock(&t->workers_lock);
	/* Under the lock: serve() destroys the session once it sees 0. */
	if (--t->workers == 0 && atomic_load(&t->stopping))
		testfs_stop_serving(t);
	pthread_cond_broadcast(&t->workers_done);
	pthread_mutex_unlock(&t->workers_lock);
}
