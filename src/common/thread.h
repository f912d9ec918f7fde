/* SPDX-License-Identifier: MIT */
/*
 * Helper threads of the daemon (log writer, delay queue, tracer reader,
 * start-up, ctl workers) take no signal: SIGTERM and SIGINT must reach
 * the request loop, whose read() they interrupt.
 */
#ifndef TESTFS_THREAD_H
#define TESTFS_THREAD_H

#include <pthread.h>
#include <stdbool.h>

/*
 * pthread_create() with every signal blocked in the new thread (the
 * caller's mask is unchanged); @detached makes it a detached thread.
 * Returns 0 or a positive errno, as pthread_create() does.
 */
int thread_start_quiet(pthread_t *th, void *(*fn)(void *), void *arg,
		       bool detached);

/* A condition variable whose timed waits take CLOCK_MONOTONIC deadlines. */
void cond_init_monotonic(pthread_cond_t *cond);

/* The value of @v (a counter, a size) read under @lock, which guards it. */
#define locked_read(lock, v)                                                   \
	__extension__({                                                        \
		__typeof__(v) locked_v_;                                       \
		pthread_mutex_lock(lock);                                      \
		locked_v_ = (v);                                               \
		pthread_mutex_unlock(lock);                                    \
		locked_v_;                                                     \
	})

#endif
