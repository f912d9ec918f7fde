// SPDX-License-Identifier: MIT
#include "loop_mt.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fs_ops.h"

struct loop_mt {
	struct testfs *t;
	pthread_mutex_t lock;
	sem_t ended; /* posted by a thread that saw the session end */
	int error;   /* under lock */
	pthread_t *th;
	unsigned started;	  /* threads in th[], under lock */
	_Atomic unsigned waiting; /* threads in (or about to enter) read(2) */
};

/* testfs's stop flag (set by stop signals), or the session ended. */
static bool loop_mt_stopping(struct testfs *t)
{
	return atomic_load(&t->stop_loop) || fuse_session_exited(t->se);
}

static int start_thread(pthread_t *th, struct loop_mt *l);

/*
 * Called by a thread that took a request: when no other thread waits
 * for the next one, one more does (up to --threads). A thread that
 * cannot be created is not an error: the others serve.
 */
static void grow(struct loop_mt *l)
{
	if (atomic_load_explicit(&l->waiting, memory_order_relaxed))
		return;
	pthread_mutex_lock(&l->lock);
	if (l->started < l->t->threads && !loop_mt_stopping(l->t) &&
	    !atomic_load(&l->waiting) &&
	    start_thread(&l->th[l->started], l) == 0) {
		atomic_fetch_add(&l->waiting, 1);
		l->started++;
	}
	pthread_mutex_unlock(&l->lock);
}

static void free_buf(void *arg)
{
	free(((struct fuse_buf *)arg)->mem);
}

static void *request_thread(void *arg)
{
	struct loop_mt *l = arg;
	struct fuse_session *se = l->t->se;
	struct fuse_buf buf;
	int res;

	memset(&buf, 0, sizeof(buf));
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cleanup_push(free_buf, &buf);
	/* Checked only between requests: a request read is answered. */
	while (!loop_mt_stopping(l->t)) {
		/*
		 * Every thread reads at once; ending the loop cancels the
		 * ones waiting in read(2), the others finish their request.
		 */
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		res = fuse_session_receive_buf(se, &buf);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (res == -EINTR)
			continue;
		atomic_fetch_sub(&l->waiting, 1);
		if (res > 0)
			grow(l);
		if (res <= 0) {
			pthread_mutex_lock(&l->lock);
			if (res < 0 && !l->error)
				l->error = res;
			pthread_mutex_unlock(&l->lock);
			/* 0: unmounted (libfuse has ended the session). */
			fuse_session_exit(se);
			break;
		}
		/* Registered before anything else: the log's order. */
		fs_claim(l->t, &buf);
		fuse_session_process_buf(se, &buf);
		fs_claim_settle(l->t);
		atomic_fetch_add(&l->waiting, 1);
	}
	pthread_cleanup_pop(1);
	sem_post(&l->ended);
	return NULL;
}

/* Request threads take no signal: they reach the waiting thread. */
static int start_thread(pthread_t *th, struct loop_mt *l)
{
	sigset_t set, old;
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	err = pthread_create(th, NULL, request_thread, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int loop_mt_run(struct testfs *t)
{
	struct loop_mt l = { .t = t };
	unsigned n, i;
	int ret = 0;

	l.th = calloc(t->threads, sizeof(*l.th));
	if (!l.th)
		return -ENOMEM;
	pthread_mutex_init(&l.lock, NULL);
	sem_init(&l.ended, 0, 0);
	atomic_init(&l.waiting, 1);
	pthread_mutex_lock(&l.lock);
	ret = start_thread(&l.th[0], &l);
	l.started = ret ? 0 : 1;
	pthread_mutex_unlock(&l.lock);
	if (ret) {
		ret = -ret;
		goto out;
	}
	/* Interrupted by the signal that ends the session. */
	while (!loop_mt_stopping(t))
		sem_wait(&l.ended);
	/* No thread starts once stopping is seen under the lock. */
	pthread_mutex_lock(&l.lock);
	n = l.started;
	pthread_mutex_unlock(&l.lock);
	for (i = 0; i < n; i++)
		pthread_cancel(l.th[i]);
	for (i = 0; i < n; i++)
		pthread_join(l.th[i], NULL);
	ret = l.error;
out:
	sem_destroy(&l.ended);
	pthread_mutex_destroy(&l.lock);
	free(l.th);
	fuse_session_reset(t->se);
	return ret;
}
