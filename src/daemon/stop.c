// SPDX-License-Identifier: MIT
#include "stop.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "thread.h"
#include "fs_ops.h"
#include "loop_mt.h"

#define WAKE_SIGNAL SIGURG

static const int stop_sigs[] = { SIGHUP, SIGINT, SIGTERM };
#define NSTOP (sizeof(stop_sigs) / sizeof(stop_sigs[0]))

/* Signal dispositions are per process, and so is this state. */
static struct {
	struct testfs *t;
	int efd;	  /* a stop signal was handled */
	atomic_bool quit; /* the helper thread ends */
	pthread_t thread;
	bool started;
	pthread_mutex_t lock; /* in_loop against the kicks */
	bool in_loop;
	void (*fuse_handler[NSTOP])(int);
	struct sigaction saved_wake;
} st = { .efd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static void on_stop_signal(int sig)
{
	int saved = errno;
	uint64_t one = 1;

	(void)sig;
	/* Not libfuse's handler: it would set the session's exit flag. */
	if (st.t)
		atomic_store(&st.t->stop_loop, true);
	/* Nothing to do if it fails: the counter is already non-zero. */
	if (write(st.efd, &one, sizeof(one)) < 0)
		(void)0;
	errno = saved;
}

/* Only interrupts a blocking system call; the loop does the rest. */
static void on_wake(int sig)
{
	(void)sig;
}

/* Whether the loop still runs with its exit flag set; kicks it if so. */
static bool kick(void)
{
	bool again;

	pthread_mutex_lock(&st.lock);
	again = st.in_loop && atomic_load(&st.t->stop_loop);
	if (again)
		pthread_kill(st.t->serving_thread, WAKE_SIGNAL);
	pthread_mutex_unlock(&st.lock);
	return again;
}

static void *kicker_main(void *arg)
{
	struct pollfd pfd = { .fd = st.efd, .events = POLLIN };
	bool kicking = false;
	uint64_t n;

	(void)arg;
	for (;;) {
		if (poll(&pfd, 1, kicking ? STOP_KICK_MS : -1) > 0 &&
		    read(st.efd, &n, sizeof(n)) == sizeof(n))
			kicking = true;
		if (atomic_load(&st.quit))
			break;
		/* A flag set outside the loop ends the next loop at once. */
		if (kicking)
			kicking = kick();
	}
	return NULL;
}

static void restore_handlers(void)
{
	struct sigaction sa;
	size_t i;

	for (i = 0; i < NSTOP; i++) {
		if (!st.fuse_handler[i])
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = st.fuse_handler[i];
		sigemptyset(&sa.sa_mask);
		sigaction(stop_sigs[i], &sa, NULL);
		st.fuse_handler[i] = NULL;
	}
	sigaction(WAKE_SIGNAL, &st.saved_wake, NULL);
}

/*
 * A background job of a non-interactive shell ("testfs ... &" in a
 * script) starts with SIGINT ignored, and libfuse leaves an ignored
 * signal alone: testfs would then ignore SIGINT for good. SIGINT and
 * SIGTERM always stop testfs; an ignored SIGHUP (nohup) stays ignored.
 */
static void unignore_stop_signals(void)
{
	static const int always[] = { SIGINT, SIGTERM };
	struct sigaction old;
	size_t i;

	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (sigaction(always[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			signal(always[i], SIG_DFL);
}

int stop_signals_install(struct testfs *t)
{
	struct sigaction sa, old;
	size_t i;
	int err;

	st.t = t;
	st.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (st.efd < 0)
		return -errno;
	unignore_stop_signals();
	if (fuse_set_signal_handlers(t->se) != 0) {
		close(st.efd);
		st.efd = -1;
		return -EINVAL;
	}
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the read of /dev/fuse must fail with EINTR. */
	sa.sa_flags = 0;
	sa.sa_handler = on_wake;
	sigaction(WAKE_SIGNAL, &sa, &st.saved_wake);
	for (i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_sigs[i]);
	sa.sa_handler = on_stop_signal;
	for (i = 0; i < NSTOP; i++) {
		/* libfuse leaves an ignored signal alone (only SIGHUP can
		 * be one here); so do we. */
		if (sigaction(stop_sigs[i], NULL, &old) != 0 ||
		    old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN)
			continue;
		st.fuse_handler[i] = old.sa_handler;
		sigaction(stop_sigs[i], &sa, NULL);
	}
	atomic_store(&st.quit, false);
	err = thread_start_quiet(&st.thread, kicker_main, NULL, false);
	if (err) {
		restore_handlers();
		fuse_remove_signal_handlers(t->se);
		close(st.efd);
		st.efd = -1;
		return -err;
	}
	st.started = true;
	return 0;
}

void stop_signals_remove(struct testfs *t)
{
	uint64_t one = 1;

	if (st.started) {
		atomic_store(&st.quit, true);
		if (write(st.efd, &one, sizeof(one)) < 0)
			(void)0;
		pthread_join(st.thread, NULL);
		st.started = false;
	}
	/* libfuse restores the defaults only over its own handlers. */
	restore_handlers();
	fuse_remove_signal_handlers(t->se);
	if (st.efd >= 0)
		close(st.efd);
	st.efd = -1;
	st.t = NULL;
}

/*
 * fuse_session_loop() without its exit flag: the flag is tested only here,
 * between requests, so every request taken off the device is answered.
 */
static int serve_requests(struct testfs *t)
{
	struct fuse_buf buf = { .mem = NULL };
	int res = 0;

	while (!atomic_load(&t->stop_loop)) {
		res = fuse_session_receive_buf(t->se, &buf);
		if (res == -EINTR) {
			res = 0; /* a signal: the flag decides */
			continue;
		}
		if (res <= 0)
			break;
		fs_claim(t, &buf);
		fuse_session_process_buf(t->se, &buf);
		fs_claim_settle(t);
		res = 0;
	}
	free(buf.mem);
	return res;
}

int stop_session_loop(struct testfs *t)
{
	int ret;

	pthread_mutex_lock(&st.lock);
	st.in_loop = true;
	pthread_mutex_unlock(&st.lock);
	ret = t->threads > 1 ? loop_mt_run(t) : serve_requests(t);
	/* As fuse_session_loop() does: the next loop starts afresh. */
	fuse_session_reset(t->se);
	pthread_mutex_lock(&st.lock);
	st.in_loop = false;
	atomic_store(&t->stop_loop, false);
	pthread_mutex_unlock(&st.lock);
	return ret;
}
