/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/instance.h
 *
 * libtestfs, part of <testfs.h> (include that): instances: start a testfs
 * daemon or attach to one, and the paths of its files.
 */
#ifndef TESTFS_INSTANCE_H
#define TESTFS_INSTANCE_H

#include <testfs/common.h>

TESTFS_BEGIN_DECLS

/**
 * A testfs mount this process talks to: one it started (testfs_start(),
 * the daemon and the mountpoint are its own) or one it attached to
 * (testfs_attach()).
 */
struct testfs_mount;

/**
 * How to start an instance. Zero means "default" for every field, and
 * struct_size 0 reads the fields of TESTFS_0.5 (all of these).
 */
struct testfs_config {
	/**
	 * sizeof this struct as the caller's header declares it (a sized
	 * struct, see <testfs.h>); TESTFS_CONFIG_INIT sets it.
	 */
	size_t struct_size;
	/**
	 * Files to serve, "NAME:SIZE[:PATTERN]" as for --file, ending with
	 * NULL. NULL serves the daemon's default set (testfs(8), --file).
	 */
	const char *const *files;
	/** read_ahead_kb of the mount; 0 keeps the kernel's (128). */
	unsigned ra_kb;
	/** Largest FUSE_READ in pages (1..256); 0: 256. */
	unsigned max_pages;
	/** FUSE max_background; 0: the kernel's (12). */
	unsigned max_background;
	/** FUSE congestion_threshold; 0: the kernel's (9). */
	unsigned congestion_threshold;
	/** In-memory log capacity in records; 0: the daemon's (1 Mi). */
	uint64_t log_capacity;
	/** Also write the log as JSON Lines to this path; NULL: no. */
	const char *log_path;
	/**
	 * The testfs daemon to run: a path, or a name looked up in $PATH.
	 * NULL: the first of
	 *  1. $TESTFS_BIN (a path or a name, as above);
	 *  2. when this library runs from the build tree it was built in
	 *     (a program of that tree, or the uninstalled libtestfs.so):
	 *     that build's daemon, so a test runs the daemon it was built
	 *     with;
	 *  3. the installed daemon (PREFIX/bin/testfs of this library's
	 *     installation, e.g. /usr/local/bin/testfs);
	 *  4. "testfs" in $PATH.
	 * testfs_find_daemon() says which one that is.
	 */
	const char *daemon;
	/**
	 * Default latency model of data reads (as for --latency, e.g.
	 * "fixed:2ms" or "ufs4:qd=8"); NULL: none.
	 */
	const char *latency;
	/** Latency rules as for --rule, ending with NULL; NULL: none. */
	const char *const *rules;
	/** Error rules as for --error, ending with NULL; NULL: none. */
	const char *const *errors;
	/** More daemon arguments, ending with NULL; NULL: none. */
	const char *const *extra_args;
	/** Limit for start-up and for stopping, in ms; 0: 10000. */
	unsigned timeout_ms;
	/**
	 * Kernel tracing: 0 the daemon's default (on when root and tracefs
	 * allow it), 1 passes --trace (required: the start fails without
	 * it), -1 passes --no-trace (off). Any other value: -EINVAL.
	 */
	int trace;
	/**
	 * Also trace read(2) page-cache lookups (--trace-reads): read(2)
	 * accesses, their lateness and the wasted pages of read(2) streams.
	 * Costs about 250 ns per read(2) call. Not with trace = -1.
	 */
	bool trace_reads;
	/**
	 * The directory in which testfs_start() creates the private
	 * mountpoint, DIR/testfs.XXXXXX (it must exist; a relative path is
	 * made absolute). NULL: $TMPDIR if set and not empty, else /tmp.
	 * "" is -EINVAL.
	 */
	const char *mount_dir;
};

/** A testfs_config with every default. */
#define TESTFS_CONFIG_INIT TESTFS_SIZED_INIT(struct testfs_config)

/**
 * Creates a private mountpoint, testfs.XXXXXX in @cfg->mount_dir (default
 * $TMPDIR, else /tmp), starts the daemon on it in a separate process and
 * waits until the mount is ready. @cfg NULL: every default.
 *
 * @return 0 and the instance in *@out; -ENOENT (no daemon found, or
 *	   mount_dir does not exist), -ETIMEDOUT (not ready in time), -EIO
 *	   (the daemon exited: bad arguments or no FUSE), -EINVAL (bad @cfg),
 *	   or another -errno. testfs_strerror() of the error gives the
 *	   reason, e.g. the daemon's message.
 */
int testfs_start(const struct testfs_config *cfg, struct testfs_mount **out);

/**
 * A sentence for @err, a negative errno a libtestfs call returned (a
 * positive errno is taken as its negative): strerror(-@err), followed by
 * the reason the last call of this thread that failed with @err left, if
 * it left one. testfs_start() leaves one for every failure it can explain:
 * the daemon's own message when the daemon exits before the mount is
 * ready (the last line it printed on stderr, which still goes to stderr
 * too), the field of @cfg that is wrong, the daemon it could not find.
 * For example, with extra_args "--max-pages", "999":
 *
 *     Input/output error: the daemon /usr/local/bin/testfs exited with
 *     status 2 before the mount was ready: --max-pages '999': ...
 *
 * testfs_start() forgets the previous reason when it begins. The text
 * belongs to this thread and is valid until its next testfs_strerror();
 * never NULL. testfs_assert_ok() (testfs/criterion.h) prints it.
 */
const char *testfs_strerror(int err);

/**
 * Stops the daemon (SIGTERM, then SIGKILL after the time limit), makes
 * sure the mount is gone, removes the mountpoint and frees @fs. For an
 * instance from testfs_attach() it only frees @fs (testfs_detach()): the
 * daemon is not this process's to stop.
 *
 * @return the daemon's exit status (0 clean, 1 failure, ...), -EINTR if it
 *	   had to be killed, 0 for an attached instance, or -errno; @fs is
 *	   freed in every case.
 */
int testfs_stop(struct testfs_mount *fs);

/**
 * Attaches to a testfs mount that runs already (started by hand, by a
 * script or by another process): every function that takes an instance
 * then works on it as on one from testfs_start(). @path is the
 * mountpoint or any file or directory on the mount (the nearest testfs
 * mountpoint above it is taken). Nothing is sent to the daemon but a
 * read of MOUNT/.testfs/config, which must be a testfs daemon's.
 *
 * @return 0 and the instance in *@out; -EINVAL (NULL or empty @path),
 *	   -ENODEV (@path is not on a testfs mount), -EPROTO (the mount's
 *	   config is not a testfs daemon's), -ENOMEM, or the -errno of
 *	   resolving @path or reading the config.
 */
int testfs_attach(const char *path, struct testfs_mount **out);

/** Whether @fs came from testfs_attach(). */
bool testfs_attached(const struct testfs_mount *fs);

/**
 * Frees @fs without stopping its daemon. For an instance from
 * testfs_start() the daemon keeps running until this process exits (it
 * watches this process) and then unmounts and removes its mountpoint.
 * NULL is ignored.
 */
void testfs_detach(struct testfs_mount *fs);

/**
 * The path of the daemon testfs_start(@cfg) would run, by the order
 * documented at testfs_config.daemon, into @buf of @size bytes. @cfg may
 * be NULL (no daemon named).
 *
 * @return 0; -ENOENT (none found), -EINVAL (NULL @buf, @size 0, or an
 *	   empty @cfg->daemon), -ENAMETOOLONG (does not fit), or -errno.
 */
int testfs_find_daemon(const struct testfs_config *cfg, char *buf, size_t size);

/** The mountpoint (absolute path). */
const char *testfs_mountpoint(const struct testfs_mount *fs);

/**
 * The daemon's pid. For an attached instance, the pid its config gives
 * (in the daemon's pid namespace); -1 when it gives none.
 */
pid_t testfs_pid(const struct testfs_mount *fs);

/**
 * Writes the absolute path of file @name (relative to the mount) into
 * @buf of @size bytes.
 *
 * @return 0, or -ENAMETOOLONG if it does not fit.
 */
int testfs_path(const struct testfs_mount *fs, const char *name, char *buf,
		size_t size);

/**
 * Opens file @name of the mount with @flags (O_CLOEXEC is added).
 *
 * @return a file descriptor, or -errno.
 */
int testfs_open(const struct testfs_mount *fs, const char *name, int flags);

/** The size of file @name in bytes, or -errno. */
int64_t testfs_file_size(const struct testfs_mount *fs, const char *name);

TESTFS_END_DECLS

#endif
