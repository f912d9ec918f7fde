// SPDX-License-Identifier: MIT
/*
 * The ring's first lap, touched ahead of the producers: a thread writes
 * one word of every page 1-2 MiB before the producers reach it, so that
 * a request never takes the page fault of a fresh slot page itself.
 *
 * Why: on this project's machine (a 2-vCPU guest whose hypervisor keeps
 * shadow page tables) the first access to a page of anonymous memory costs
 * 30-50 us, whether or not the kernel had populated it (MAP_POPULATE, huge
 * pages: the same), while a page another thread of the process touched
 * first costs nothing more (0.06 us). A slot is 144 bytes: one fault every
 * 28 records. With 16 readers of 4 KiB (10,000 FUSE_READs of a 256 MiB file)
 * the request thread spent 200-218 ms a run against 167-189 ms with a ring
 * small enough never to take a fresh page (--log-capacity 4096), and 168-178
 * ms for the minimal libfuse server (docs/benchmarks.md). On hardware a fault
 * costs about a microsecond; the thread costs nothing there either.
 *
 * The producers stay lock-free and never wait: a producer that reaches
 * kick_at (the touched end minus TOUCH_LOW) tells the thread through an
 * eventfd once (the first to swap kick_at out), and faults by itself if the
 * thread is behind. The write is an atomic add of 0 to a slot's state word:
 * it changes nothing a producer or a reader can see. After the first lap
 * every page has been touched and the thread ends.
 */
#include "log_ring.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "thread.h"

/* Touched ahead of the head; a kick when the head is TOUCH_LOW short. */
#define TOUCH_AHEAD (2u << 20)
#define TOUCH_LOW (1u << 20)

struct log_ring_toucher {
	struct log_ring *ring;
	pthread_t thread;
	int efd;
	size_t page;
	size_t touched; /* bytes of the map touched, from its start */
	_Atomic bool quit;
};

/* Writes a word of every page of [t->touched, @end) of the map. */
static void touch_to(struct log_ring_toucher *t, size_t end)
{
	struct log_ring *ring = t->ring;
	const size_t slot = sizeof(struct log_slot);
	size_t off;

	for (off = t->touched; off < end; off += t->page) {
		/* The first slot that starts in this page: its state word
		 * is in the page (slots are 8-byte aligned, 144 < a page). */
		uint64_t i = (off + slot - 1) / slot;

		if (i >= ring->capacity)
			break;
		atomic_fetch_add_explicit(&ring->slots[i].state, 0,
					  memory_order_relaxed);
	}
	t->touched = end;
}

static void *toucher_main(void *arg)
{
	struct log_ring_toucher *t = arg;
	struct log_ring *ring = t->ring;
	uint64_t n, head;
	size_t end;

	while (!atomic_load(&t->quit)) {
		head = log_ring_head(ring);
		end = (size_t)head * sizeof(struct log_slot) + TOUCH_AHEAD;
		end = (end + t->page - 1) / t->page * t->page;
		if (end > ring->map_len)
			end = ring->map_len;
		touch_to(t, end);
		if (end == ring->map_len)
			break;
		atomic_store_explicit(&ring->kick_at,
				      (end - TOUCH_LOW) /
					      sizeof(struct log_slot),
				      memory_order_release);
		/* A producer past it already: another pass at once. */
		if (log_ring_head(ring) >=
		    (end - TOUCH_LOW) / sizeof(struct log_slot))
			continue;
		while (read(t->efd, &n, sizeof(n)) < 0 && errno == EINTR)
			;
	}
	atomic_store_explicit(&ring->kick_at, UINT64_MAX, memory_order_release);
	return NULL;
}

int log_ring_touch_start(struct log_ring *ring)
{
	struct log_ring_toucher *t;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	if (ring->toucher)
		return 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ring = ring;
	t->page = page > 0 ? (size_t)page : 4096;
	t->efd = eventfd(0, EFD_CLOEXEC);
	if (t->efd < 0) {
		err = -errno;
		free(t);
		return err;
	}
	atomic_init(&t->quit, false);
	ring->kick_efd = t->efd;
	err = thread_start_quiet(&t->thread, toucher_main, t, false);
	if (err) {
		ring->kick_efd = -1;
		close(t->efd);
		free(t);
		return -err;
	}
	ring->toucher = t;
	return 0;
}

void log_ring_touch_stop(struct log_ring *ring)
{
	struct log_ring_toucher *t = ring->toucher;
	uint64_t one = 1;

	if (!t)
		return;
	atomic_store(&t->quit, true);
	if (write(t->efd, &one, sizeof(one)) < 0)
		(void)0;
	pthread_join(t->thread, NULL);
	atomic_store(&ring->kick_at, UINT64_MAX);
	ring->kick_efd = -1;
	close(t->efd);
	free(t);
	ring->toucher = NULL;
}

void log_ring_kick(struct log_ring *ring, uint64_t pos)
{
	uint64_t at =
		atomic_load_explicit(&ring->kick_at, memory_order_relaxed);
	uint64_t one = 1;

	/* The first producer past the mark tells the thread, once. */
	if (pos < at ||
	    !atomic_compare_exchange_strong(&ring->kick_at, &at, UINT64_MAX))
		return;
	if (write(ring->kick_efd, &one, sizeof(one)) < 0)
		(void)0;
}
