// SPDX-License-Identifier: MIT
#define FUSE_USE_VERSION 312

#include "loop_mt.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* <linux/fuse.h>: attach this fd to the connection of the fd given. */
#ifndef FUSE_DEV_IOC_CLONE
#define FUSE_DEV_IOC_CLONE _IOR(229, 0, uint32_t)
#endif

bool loop_mt_clone_works(struct fuse_session *se)
{
	uint32_t master = (uint32_t)fuse_session_fd(se);
	bool ok;
	int fd;

	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = ioctl(fd, FUSE_DEV_IOC_CLONE, &master) == 0;
	close(fd);
	return ok;
}

int loop_mt_run(struct fuse_session *se, unsigned threads, bool clone_fd)
{
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	int ret;

	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_max_threads(cfg, threads);
	/*
	 * Idle threads are kept (no more than @threads can be idle): ending
	 * one when a burst is over and starting another on the next would
	 * cost a thread creation per readahead window.
	 */
	fuse_loop_cfg_set_idle_threads(cfg, threads);
	fuse_loop_cfg_set_clone_fd(cfg, clone_fd);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}
