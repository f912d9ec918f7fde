// SPDX-License-Identifier: MIT
#include "serve.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mountinfo.h"
#include "pagecache.h"
#include "thread.h"
#include "knobs.h"
#include "correlate.h"
#include "fs_ops.h"
#include "delay_queue.h"
#include "rules.h"
#include "mount_guard.h"
#include "startup.h"
#include "stop.h"
#include "transport.h"
#include "loop_uring.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * A drop-cache worker may be waiting for this loop: its open() goes
 * through the mount, and its eviction waits for pages under a read the
 * loop has yet to answer. So serving goes on until the last worker has
 * ended (it ends the loop again); only then may the device be closed and
 * the session destroyed, with nothing left to write to them. The wait is
 * short: a worker gives up its retries once stopping is set.
 */
static void drain_workers(struct testfs *t)
{
	struct timespec ts;

	pthread_mutex_lock(&t->workers_lock);
	atomic_store(&t->stopping, true);
	while (t->workers) {
		pthread_mutex_unlock(&t->workers_lock);
		stop_session_loop(t);
		pthread_mutex_lock(&t->workers_lock);
		if (!t->workers)
			break;
		/* The loop ended without them (the mount is gone): their
		 * requests fail now; wait for them without spinning. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 50 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->workers_done, &t->workers_lock, &ts);
	}
	pthread_mutex_unlock(&t->workers_lock);
}

/*
 * Whether the session error @ret just means the mount went away. libfuse
 * ends the loop quietly on ENODEV; but when the last file of a lazily
 * unmounted mount is closed while a read is in flight, the kernel ends the
 * connection with ECONNABORTED. An abort through
 * /sys/fs/fuse/connections gives that error too and is not an unmount:
 * there the mount is still in mountinfo.
 */
static bool unmounted(struct testfs *t, int ret)
{
	struct mount_entry me;
	bool ours;

	if (ret != -ECONNABORTED && ret != -ENODEV)
		return false;
	if (!mountinfo_find(t->mountpoint, &me) ||
	    strcmp(me.fstype, "fuse.testfs") != 0)
		return true;
	/* Another testfs mounted there since is not this one. */
	pthread_mutex_lock(&t->ctl_lock);
	ours = !t->knobs.bdi[0] ||
	       me.dev == makedev(t->knobs.dev_major, t->knobs.dev_minor);
	pthread_mutex_unlock(&t->ctl_lock);
	return !ours;
}

/*
 * The mount guard learns which mount to remove if the daemon dies, before
 * any ring command holds /dev/fuse (the INIT reply is not yet written).
 */
static void arm_guard(struct testfs *t)
{
	struct mount_entry me;

	if (mountinfo_find(t->mountpoint, &me) &&
	    strcmp(me.fstype, "fuse.testfs") == 0)
		mount_guard_arm(me.dev);
}

static uint64_t writer_sync(void *arg)
{
	struct testfs *t = arg;

	/* Reads held behind a number that never came go in after a while. */
	log_order_expire(t->order);
	if (!t->corr)
		return UINT64_MAX;
	correlator_sync(t->corr, 1000);
	return correlator_done_pos(t->corr);
}

/*
 * Kernel correlation, after the last fork (the tracer has a thread) and
 * once the device is known. Off is not an error unless --trace asked.
 */
static int start_tracing(struct testfs *t)
{
	struct correlator_options co = { 0 };
	struct correlator *c;
	struct mount_entry me;
	char why[256];

	if (t->opts->trace == OPT_TRACE_OFF) {
		snprintf(t->trace_why, sizeof(t->trace_why), "--no-trace");
		atomic_store(&t->trace_decided, true);
		return 0;
	}
	if (!mountinfo_find(t->mountpoint, &me) ||
	    strcmp(me.fstype, "fuse.testfs") != 0) {
		snprintf(t->trace_why, sizeof(t->trace_why),
			 "the mount is not in /proc/self/mountinfo");
		atomic_store(&t->trace_decided, true);
		return t->opts->trace == OPT_TRACE_REQUIRED ? -1 : 0;
	}
	co.log = &t->log;
	co.dev_major = major(me.dev);
	co.dev_minor = minor(me.dev);
	co.tracefs = t->opts->tracefs;
	co.trace_reads = t->opts->trace_reads;
	co.all_folios = t->opts->trace_folios;
	c = correlator_start(&co, why, sizeof(why));
	pthread_mutex_lock(&t->ctl_lock);
	t->corr = c;
	if (!c)
		snprintf(t->trace_why, sizeof(t->trace_why), "%s", why);
	pthread_mutex_unlock(&t->ctl_lock);
	atomic_store(&t->trace_decided, true);
	if (c && t->writer)
		log_writer_set_sync(t->writer, writer_sync, t);
	return !c && t->opts->trace == OPT_TRACE_REQUIRED ? -1 : 0;
}

/*
 * Opening the mount's root directory blocks until the kernel has processed
 * the INIT reply and is answered by the request loop: only then is the
 * mount usable, and only then may read_ahead_kb be raised (the INIT reply
 * would lower it again). Nothing else here sends a request to the mount:
 * tools like valgrind run syscalls they do not expect to block (stat)
 * while holding their own lock, which would starve the request loop.
 */
static void *ready_main(void *arg)
{
	struct testfs *t = arg;
	const struct options *o = t->opts;
	char warn[512], line[512];
	struct mount_entry me;
	int fd;

	fd = open(t->mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		startup_fail(1, "%s: mount not usable: %s", t->mountpoint,
			     strerror(errno));
		testfs_stop_serving(t);
		return NULL;
	}
	close(fd);
	/* The rings have registered (or failed) once the mount answers. */
	transport_settle(t);
	/* If serving already ended, this is the directory underneath. */
	if (!mountinfo_find(t->mountpoint, &me) ||
	    strcmp(me.fstype, "fuse.testfs") != 0 ||
	    fuse_session_exited(t->se) || atomic_load(&t->stopping)) {
		startup_fail(1, "%s: the mount went away during start-up",
			     t->mountpoint);
		testfs_stop_serving(t);
		return NULL;
	}
	/* .testfs/config may be read (and the knobs refreshed) meanwhile. */
	pthread_mutex_lock(&t->ctl_lock);
	knobs_apply(t, me.dev, warn, sizeof(warn));
	snprintf(
		line, sizeof(line),
		"%zu file%s at %s (bdi %s): read_ahead_kb %lld, max_pages %lld, max_background %lld, congestion_threshold %lld, log capacity %llu",
		t->files.nfiles, t->files.nfiles == 1 ? "" : "s", t->mountpoint,
		t->knobs.bdi, (long long)t->knobs.ra_kb,
		(long long)t->knobs.max_pages,
		(long long)t->knobs.max_background,
		(long long)t->knobs.congestion_threshold,
		(unsigned long long)t->log.capacity);
	pthread_mutex_unlock(&t->ctl_lock);
	if (warn[0])
		startup_warn("%s", warn);
	/* Said only when not the default, so the usual line stays short. */
	if (t->threads != OPTIONS_DEFAULT_THREADS)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 ", %u request thread%s", t->threads,
			 t->threads == 1 ? "" : "s");
	pthread_mutex_lock(&t->ctl_lock);
	if (t->transport.uring && t->transport.threads > 1)
		snprintf(
			line + strlen(line), sizeof(line) - strlen(line),
			", FUSE over io_uring: %u queues x %u threads x %u entries",
			t->transport.queues, t->transport.threads,
			t->transport.entries / t->transport.threads);
	else if (t->transport.uring)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 ", FUSE over io_uring: %u queues x %u entries",
			 t->transport.queues, t->transport.entries);
	pthread_mutex_unlock(&t->ctl_lock);
	if (o->ready_fd >= 0) {
		if (write(o->ready_fd, "ready\n", 6) < 0)
			startup_warn("--ready-fd %d: %s", o->ready_fd,
				     strerror(errno));
		close(o->ready_fd);
	}
	startup_ready(o->quiet ? NULL : line);
	return NULL;
}

static void *watch_main(void *arg)
{
	struct testfs *t = arg;
	struct pollfd pfd;
	int fd;

	fd = (int)syscall(SYS_pidfd_open, (pid_t)t->opts->watch_pid, 0);
	if (fd < 0) {
		startup_warn("--watch-pid %lld: %s; unmounting",
			     (long long)t->opts->watch_pid, strerror(errno));
		testfs_stop_serving(t);
		return NULL;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	close(fd);
	testfs_stop_serving(t);
	return NULL;
}

/* Helper threads block every signal, so signals reach the request loop. */
static int start_helper(pthread_t *th, void *(*fn)(void *), void *arg)
{
	return thread_start_quiet(th, fn, arg, false);
}

static int make_args(struct testfs *t, struct fuse_args *args)
{
	const struct options *o = t->opts;
	char opts[256];

	snprintf(opts, sizeof(opts),
		 "fsname=testfs,subtype=testfs,default_permissions%s",
		 o->auto_unmount ? ",auto_unmount" : "");
	if (o->max_pages != OPT_UNSET)
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
			 ",max_read=%lld",
			 (long long)o->max_pages * t->page_size);
	if (fuse_opt_add_arg(args, "testfs") || fuse_opt_add_arg(args, "-o") ||
	    fuse_opt_add_arg(args, opts))
		return -ENOMEM;
	if (o->debug && fuse_opt_add_arg(args, "-d"))
		return -ENOMEM;
	return 0;
}

int serve(struct testfs *t)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	pthread_t ready_th, watch_th;
	bool watching = false, readying = false;
	int ret, status = 1;

	t->serving_thread = pthread_self();
	t->threads = (unsigned)t->opts->threads;
	if (make_args(t, &args)) {
		startup_fail(1, "out of memory");
		return 1;
	}
	t->se = fuse_session_new(&args, &testfs_ops, sizeof(testfs_ops), t);
	fuse_opt_free_args(&args);
	if (!t->se) {
		startup_fail(1, "cannot create the FUSE session");
		return 1;
	}
	ret = delay_queue_start(&t->delays, pagecache_read_max());
	if (ret) {
		startup_fail(1, "cannot start the delay queue: %s",
			     strerror(-ret));
		goto out_destroy;
	}
	ret = stop_signals_install(t);
	if (ret) {
		startup_fail(1, "cannot install signal handlers: %s",
			     strerror(-ret));
		goto out_destroy;
	}
	/* The rings and their threads exist before the INIT reply asks
	 * the kernel for them: nothing can fail between the two. */
	transport_prepare(t);
	/* The threads that take requests, each in its own order. */
	log_order_set_receivers(
		t->order,
		t->threads +
			(t->transport.ring
				 ? uring_transport_queues(t->transport.ring) *
					   uring_transport_threads(
						   t->transport.ring)
				 : 0));
	if (t->writer)
		log_writer_set_sync(t->writer, writer_sync, t);
	/* Over /dev/fuse, auto_unmount is enough (daemon/mount_guard.h). */
	if (!t->transport.ring)
		mount_guard_release();
	if (fuse_session_mount(t->se, t->mountpoint) != 0) {
		startup_fail(
			1,
			"cannot mount at %s (is /dev/fuse usable and fusermount3 installed? libfuse printed the reason above)",
			t->mountpoint);
		goto out_handlers;
	}
	arm_guard(t);
	ret = transport_install(t);
	if (ret) {
		startup_fail(1, "cannot install the FUSE I/O functions: %s",
			     strerror(-ret));
		goto out_unmount;
	}
	/*
	 * The tracer starts before the first request is served, so no read
	 * goes unexplained: mount(2) is done, so mountinfo has the device.
	 */
	if (start_tracing(t) != 0) {
		startup_fail(1, "--trace: %s", t->trace_why);
		goto out_unmount;
	}
	ret = start_helper(&ready_th, ready_main, t);
	if (ret) {
		startup_fail(1, "cannot start a thread: %s", strerror(ret));
		goto out_unmount;
	}
	readying = true;
	if (t->opts->watch_pid > 0) {
		ret = start_helper(&watch_th, watch_main, t);
		if (ret)
			startup_warn("--watch-pid: cannot start a thread: %s",
				     strerror(ret));
		else
			watching = true;
	}
	ret = stop_session_loop(t);
	/* A worker may wait for a held page: nothing is held from here on. */
	rules_resume(t->rules);
	delay_queue_release_held(t->delays);
	drain_workers(t);
	/* The rings take no new request; what they hold is answered. */
	transport_quiesce(t);
	/* Delayed replies still queued are answered before unmounting. */
	delay_queue_stop(t->delays);
	t->delays = NULL;
	transport_stop(t);
	/* No request is being taken: a read waiting for a number goes in. */
	log_order_flush(t->order);
	/* A stop request ends the loop with 0; an unmount is not an error. */
	if (unmounted(t, ret))
		ret = 0;
	status = ret == 0 ? 0 : 1;
	/* Start-up failed after mounting (the ready thread ended it). */
	if (startup_failed())
		status = startup_failed();
	if (ret != 0 && !startup_done())
		startup_fail(1, "the FUSE session failed: %s",
			     strerror(ret < 0 ? -ret : ret));
	else if (ret != 0)
		startup_warn("the FUSE session ended with an error: %s",
			     strerror(ret < 0 ? -ret : ret));
out_unmount:
	transport_stop(t);
	fuse_session_unmount(t->se);
	if (status != 0 && !startup_done())
		startup_fail(1, "the mount ended before it was ready");
	if (readying)
		pthread_join(ready_th, NULL);
	log_order_flush(t->order);
	if (t->writer)
		log_writer_set_sync(t->writer, NULL, NULL);
	if (t->corr) {
		correlator_sync(t->corr, 1000);
		correlator_stop(t->corr);
		t->corr = NULL;
	}
	if (watching) {
		pthread_cancel(watch_th);
		pthread_join(watch_th, NULL);
	}
out_handlers:
	transport_stop(t);
	testfs_free_handles(t);
	stop_signals_remove(t);
out_destroy:
	delay_queue_stop(t->delays);
	t->delays = NULL;
	fuse_session_destroy(t->se);
	t->se = NULL;
	return status;
}
