/* SPDX-License-Identifier: MIT */
/*
 * How requests reach testfs (--transport dev|uring).
 *
 * The session always runs on testfs's own I/O functions
 * (fuse_session_custom_io(), libfuse 3.14, installed on the fd that
 * fuse_session_mount() opened): read(2) and writev(2) on /dev/fuse as
 * libfuse would do them, counting requests per transport. With
 * --transport uring they also:
 * - add FUSE_OVER_IO_URING to the INIT reply's flags2 when the kernel
 *   offered it (libfuse 3.14 does not know the flag), after which the
 *   kernel holds new requests until every ring queue has an entry
 *   (fs/fuse/dev.c fuse_block_alloc());
 * - route a reply whose unique belongs to a request taken from a ring
 *   entry into that entry (daemon/loop_uring.h), not to /dev/fuse.
 * /dev/fuse keeps being served by the request loop (daemon/stop.c,
 * loop_mt.c): INIT, FORGET, INTERRUPT and, after a fallback, everything.
 */
#ifndef TESTFS_TRANSPORT_H
#define TESTFS_TRANSPORT_H

#include "testfs_core.h"

/*
 * Before mounting. With --transport uring: turns enable_uring on (root)
 * and prepares the rings; where that cannot be, t->transport.note says
 * why and serving stays on /dev/fuse. Never fails start-up.
 */
void transport_prepare(struct testfs *t);

/* After fuse_session_mount(): installs the I/O functions. 0 or -errno. */
int transport_install(struct testfs *t);

/*
 * Once the mount answers (the ready thread): waits for the rings to
 * register and records the transport in use, warning on a fallback.
 */
void transport_settle(struct testfs *t);

/* Serving ends (see uring_transport_quiesce()). */
void transport_quiesce(struct testfs *t);

/* Ends the rings, after the delay queue answered what it held. */
void transport_stop(struct testfs *t);

#endif
