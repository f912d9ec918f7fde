/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/control.h
 *
 * libtestfs, part of <testfs.h> (include that): control: commands to a running
 * instance and what it says about itself.
 */
#ifndef TESTFS_CONTROL_H
#define TESTFS_CONTROL_H

#include <testfs/common.h>
#include <testfs/instance.h>

TESTFS_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Control                                                             */
/* ------------------------------------------------------------------ */

/**
 * Sends one command line to MOUNT/.testfs/ctl. On failure the daemon's
 * explanation is copied to @why (if non-NULL, @whylen bytes).
 *
 * @return 0, -EINVAL (rejected command), -EBUSY (drop-cache could not
 *	   evict every page) or another -errno.
 */
int testfs_ctl(struct testfs_mount *fs, const char *command, char *why,
	       size_t whylen);

/** Forgets the records so far (seq numbers keep counting). */
int testfs_clear(struct testfs_mount *fs);

/** Inserts a marker record; @text up to 103 bytes, one line. */
int testfs_mark(struct testfs_mount *fs, const char *text);

/**
 * Evicts file @name's pages from the page cache (every file read so far
 * when @name is NULL) and verifies that none remain.
 */
int testfs_drop_cache(struct testfs_mount *fs, const char *name);

/**
 * drop-cache @name, then clear: a cold start for the next measurement.
 */
int testfs_cold(struct testfs_mount *fs, const char *name);

/**
 * Sets the default latency model at run time ("latency MODEL").
 *
 * @return 0, or -EINVAL for a bad model (why: testfs_ctl()).
 */
int testfs_set_latency(struct testfs_mount *fs, const char *model);

/**
 * Adds a latency rule, "file=NAME,pages=A-B,latency=MODEL" (file= and
 * pages= optional, latency= last); the first matching rule wins.
 */
int testfs_add_rule(struct testfs_mount *fs, const char *spec);

/**
 * Adds an error rule, "file=NAME,pages=A-B,errno=EIO[,times=N|prob=P]":
 * reads touching the range are answered with that errno.
 */
int testfs_add_error(struct testfs_mount *fs, const char *spec);

/** Removes every latency and error rule (the default latency stays). */
int testfs_clear_rules(struct testfs_mount *fs);

/**
 * Waits until the kernel has no request of this mount in flight (async
 * readahead may still be on its way after the access that caused it).
 *
 * @return 0, or -ETIMEDOUT after @timeout_ms (0: 5000).
 */
int testfs_settle(struct testfs_mount *fs, unsigned timeout_ms);

/**
 * Whether the daemon traces the kernel (causes, windows, accesses), from
 * the "trace" object of MOUNT/.testfs/config. When it does not, the
 * reason (e.g. "not root" or "--no-trace"; "daemon does not report
 * tracing" for a daemon without kernel correlation) is copied to @why if
 * non-NULL (@whylen bytes, cut to fit).
 *
 * @return 1 on, 0 off, or -errno (-EPROTO for a config it cannot parse).
 */
int testfs_tracing(struct testfs_mount *fs, char *why, size_t whylen);

/** What a running instance says about itself (MOUNT/.testfs/config). */
struct testfs_settings {
	/**
	 * sizeof this struct as the caller's header declares it (a sized
	 * struct, see <testfs.h>); TESTFS_SETTINGS_INIT sets it.
	 * testfs_settings() sets it to the bytes it filled.
	 */
	size_t struct_size;
	/** The daemon's version, e.g. "0.1.0". */
	char version[32];
	/** The kernel release the daemon runs on (uname -r). */
	char kernel[128];
	/** The mount's backing device name in /sys/class/bdi, "MAJ:MIN". */
	char bdi[32];
	/**
	 * The knobs in effect on the mount (what the kernel took, which can
	 * differ from what was asked: raising read_ahead_kb needs root);
	 * 0 when the daemon could not read one.
	 */
	unsigned ra_kb;
	unsigned max_pages;
	unsigned max_background;
	unsigned congestion_threshold;
	/** The in-memory log's capacity in records. */
	uint64_t log_capacity;
	/**
	 * The default latency model as the daemon writes it (e.g.
	 * "fixed:2ms"), "none" without one; cut to fit.
	 */
	char latency[128];
	/**
	 * Kernel tracing: 1 on, 0 off, -1 the daemon does not say (one
	 * without kernel correlation). As testfs_tracing().
	 */
	int tracing;
	/** It traces read(2) page-cache lookups too (--trace-reads). */
	bool trace_reads;
	/** Why tracing is off ("" when on); cut to fit. */
	char trace_why[256];
	/** The number of files the daemon serves. */
	size_t files;
	/** The daemon's process id (its pid namespace's); -1 if not said. */
	pid_t pid;
	/**
	 * How requests reach the daemon: "dev" (/dev/fuse) or "uring" (FUSE
	 * over io_uring); "dev" for a daemon that does not say.
	 */
	char transport[8];
	/**
	 * The daemon's note on the transport (why it fell back to
	 * /dev/fuse), "" without one; cut to fit.
	 */
	char transport_note[256];
};

#define TESTFS_SETTINGS_INIT TESTFS_SIZED_INIT(struct testfs_settings)

/**
 * Reads the settings of @fs (one read of MOUNT/.testfs/config) into
 * @out. The one way in-tree programs read a mount's settings.
 *
 * @return 0; -EINVAL (NULL argument), -EPROTO (a config it cannot parse),
 *	   -ENOMEM, or the -errno of reading the config (e.g. -ENOTCONN when
 *	   the daemon is gone). On error @out is zeroed.
 */
int testfs_settings(const struct testfs_mount *fs, struct testfs_settings *out);

/* (testfs_settings)(...) calls the function as declared. */
TESTFS_SIZED_OUT_(testfs_settings)
#ifndef testfs_settings
#define testfs_settings(fs, out) testfs_settings(fs, testfs_settings_out_(out))
#endif

TESTFS_END_DECLS

#endif
