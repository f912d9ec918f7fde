/* SPDX-License-Identifier: MIT */
/**
 * @file testfs.h
 *
 * libtestfs: readahead extents as test data.
 *
 * Start a testfs daemon on a private mountpoint (or attach to one that
 * runs already), map, mprotect-split and read its files, and ask which
 * pages the kernel fetched. Link with `pkg-config --cflags --libs testfs`.
 *
 * Conventions, as in liburing: every function that can fail returns 0 (or
 * a count, or a file descriptor) on success and a negative errno on
 * failure; none of them prints, exits or touches errno's meaning for the
 * caller. Pages are 4096-byte units of the file (page 0 is bytes
 * 0..4095); page ranges are inclusive [first, last].
 *
 * The daemon always runs in a separate process: a page fault on the mount
 * blocks the faulting task until the daemon answers, so a server in the
 * same process could deadlock its own client.
 *
 * Cleanup: testfs_start() passes the caller's pid to the daemon
 * (--watch-pid), so when the test process exits or is killed, even by
 * SIGKILL or a crash in a Criterion-forked test, the daemon unmounts and
 * exits by itself; and the daemon mounts with auto_unmount, so a killed
 * daemon leaves no mount either. testfs_stop() is still the normal way.
 */
#ifndef TESTFS_H
#define TESTFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <testfs/pattern.h>
#include <testfs/folios.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes per page in every page number this library takes or returns. */
#define TESTFS_PAGE_SIZE 4096u

/* ------------------------------------------------------------------ */
/* Instances                                                           */
/* ------------------------------------------------------------------ */

/**
 * A testfs mount this process talks to: one it started (testfs_start(),
 * the daemon and the mountpoint are its own) or one it attached to
 * (testfs_attach()).
 */
struct testfs_mount;

/** How to start an instance. Zero means "default" for every field. */
struct testfs_config {
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

/**
 * Reads the settings of @fs (one read of MOUNT/.testfs/config) into
 * @out. The one way in-tree programs read a mount's settings.
 *
 * @return 0; -EINVAL (NULL argument), -EPROTO (a config it cannot parse),
 *	   -ENOMEM, or the -errno of reading the config (e.g. -ENOTCONN when
 *	   the daemon is gone). On error @out is zeroed.
 */
int testfs_settings(const struct testfs_mount *fs, struct testfs_settings *out);

/* ------------------------------------------------------------------ */
/* The log                                                             */
/* ------------------------------------------------------------------ */

enum testfs_record_kind {
	TESTFS_RECORD_READ = 1,
	TESTFS_RECORD_MARK = 2,
};

/** "No page": the value of page fields that do not apply. */
#define TESTFS_NO_PAGE UINT64_MAX

/**
 * Why the kernel sent a read (kernel correlation: the daemon follows the
 * readahead and filemap tracepoints of its mount; needs root and tracefs,
 * see testfs_tracing()).
 */
enum testfs_cause {
	/** Tracing off, or no kernel event explains the read. */
	TESTFS_CAUSE_UNKNOWN = 0,
	/** Synchronous readahead on a miss (page_cache_sync_ra). */
	TESTFS_CAUSE_SYNC,
	/** Asynchronous readahead on a PG_readahead marker page. */
	TESTFS_CAUSE_ASYNC,
	/** mmap read-around on a fault (window centred on the fault). */
	TESTFS_CAUSE_READAROUND,
	/** readahead(2), fadvise or madvise WILLNEED. */
	TESTFS_CAUSE_FORCED,
	/** One page read without readahead (MADV_RANDOM, ra off). */
	TESTFS_CAUSE_SINGLE,
	/** An O_DIRECT read: no page cache, no readahead. */
	TESTFS_CAUSE_DIRECT,
};

/**
 * The cause's name as the JSON log writes it: "sync", "async",
 * "readaround", "forced", "single", "direct"; "unknown" for
 * TESTFS_CAUSE_UNKNOWN and any value out of range. Never NULL.
 */
const char *testfs_cause_name(enum testfs_cause cause);

/** One FUSE_READ (or mark) the daemon recorded. */
struct testfs_record {
	uint64_t seq;
	enum testfs_record_kind kind;
	/** File name relative to the mount (reads); NULL for marks. */
	const char *file;
	uint64_t ino;
	/** Byte range the kernel asked for. */
	uint64_t off;
	uint32_t len;
	/** The same in pages. */
	uint64_t page;
	uint64_t pages;
	uint64_t t_ns;
	uint64_t done_ns;
	uint64_t delay_ns;
	uint32_t pid;
	/** 0, or the errno the daemon answered with (no page was cached). */
	int32_t err;
	/**
	 * The read came from an O_DIRECT open: it bypassed the page cache,
	 * so the set queries below leave it out.
	 */
	bool direct;
	/** The mark's text (marks); NULL for reads. */
	const char *mark;

	/*
	 * Kernel correlation (reads), filled when the cause is known. With
	 * TESTFS_CAUSE_UNKNOWN: window and the ra_* counts 0, ra_marker and
	 * trigger_page TESTFS_NO_PAGE, folio_order and alloc_order -1, late
	 * false.
	 */

	/** Why the kernel sent it. */
	enum testfs_cause cause;
	/**
	 * The kernel batch (window) it belongs to: the reads one readahead
	 * decision was split into share this id. 0: none.
	 */
	uint32_t window;
	/** The window: first page, size, async (lookahead) size. */
	uint64_t ra_start;
	uint32_t ra_size;
	uint32_t ra_async;
	/** The PG_readahead marker page, or TESTFS_NO_PAGE. */
	uint64_t ra_marker;
	/** The file's readahead maximum (read_ahead_kb in pages). */
	uint32_t ra_pages;
	/** The file's mmap_miss counter at the decision. */
	uint32_t mmap_miss;
	/**
	 * The access that caused it: the faulting page, the page read(2)
	 * missed, the marker page hit, the readahead(2) offset;
	 * TESTFS_NO_PAGE if none.
	 */
	uint64_t trigger_page;
	/** Folio order the window asked for; -1 if none was traced. */
	int folio_order;
	/**
	 * Order of the folios the kernel allocated for it; -1 unknown.
	 * 0 when the window went through page_cache_ra_unbounded(), which
	 * is every window of a file system without large folios.
	 */
	int alloc_order;
	/** An access waited on this read while it was in flight. */
	bool late;
	/**
	 * The decision was made on a read(2)-style access (read, splice,
	 * sendfile: no fault before it in the same task).
	 */
	bool by_read;
};

/** A snapshot of the log since the last clear. */
struct testfs_log;

/**
 * Settles (testfs_settle()) and takes a snapshot of the log through the
 * binary view (.testfs/log.bin; no JSON parsing).
 *
 * @return 0 and the snapshot in *@out, or -errno.
 */
int testfs_log_snapshot(struct testfs_mount *fs, struct testfs_log **out);

void testfs_log_free(struct testfs_log *log);

/**
 * Records in the snapshot: reads and marks (access records are apart, see
 * testfs_log_access_count()).
 */
size_t testfs_log_count(const struct testfs_log *log);

/** Record @i (0-based), or NULL past the end. */
const struct testfs_record *testfs_log_at(const struct testfs_log *log,
					  size_t i);

/**
 * Every record of the snapshot as one array, in seq order (reads and
 * marks; testfs_log_at(log, i) is &array[i]):
 *
 *	size_t n;
 *	const struct testfs_record *r = testfs_log_records(log, &n);
 *	for (size_t i = 0; i < n; i++)
 *		if (r[i].kind == TESTFS_RECORD_READ) ...
 *
 * @return the array, which belongs to @log (valid until
 *	   testfs_log_free()), with its length in *@count if non-NULL; NULL
 *	   and 0 for an empty snapshot or a NULL @log.
 */
const struct testfs_record *testfs_log_records(const struct testfs_log *log,
					       size_t *count);

/**
 * Records written since the last clear that the daemon's ring no longer
 * held (its --log-capacity was exceeded). Any loss makes the set queries
 * below unreliable; the Criterion assertions fail on it.
 */
uint64_t testfs_log_lost(const struct testfs_log *log);

/**
 * Whether the daemon was tracing the kernel when the snapshot was taken
 * (the TRACED flag of log.bin's header): causes, windows and accesses are
 * filled only then.
 */
bool testfs_log_traced(const struct testfs_log *log);

/** The reads of file @name in the snapshot. */
size_t testfs_log_requests(const struct testfs_log *log, const char *name);

/** The largest read of file @name, in pages (0 if none). */
uint64_t testfs_log_max_request(const struct testfs_log *log, const char *name);

/* ------------------------------------------------------------------ */
/* Extents: sets of pages as sorted, coalesced inclusive ranges         */
/* ------------------------------------------------------------------ */

struct testfs_extent {
	uint64_t first;
	uint64_t last;
};

struct testfs_extents {
	struct testfs_extent *v;
	size_t n;
	size_t cap;
	/** Pages in all extents. */
	uint64_t pages;
};

/** Initialiser for an empty set. */
#define TESTFS_EXTENTS_INIT                                                    \
	{                                                                      \
		NULL, 0, 0, 0                                                  \
	}

/** Frees the ranges; @e is empty and reusable afterwards. */
void testfs_extents_free(struct testfs_extents *e);

/**
 * Adds pages [@first, @last], merging with neighbours.
 *
 * @return 0, -EINVAL if @first > @last, -ENOMEM.
 */
int testfs_extents_add(struct testfs_extents *e, uint64_t first, uint64_t last);

/** Whether page @page is in @e. */
bool testfs_extents_contains(const struct testfs_extents *e, uint64_t page);

/** Whether @a and @b hold the same pages. */
bool testfs_extents_equal(const struct testfs_extents *a,
			  const struct testfs_extents *b);

/**
 * Writes @e as "[a, b] [c, d] ..." (or "(none)") into @buf of @size
 * bytes, abbreviated with "..." when it does not fit.
 *
 * @return the length written (excluding the NUL).
 */
size_t testfs_extents_format(const struct testfs_extents *e, char *buf,
			     size_t size);

/**
 * Pages of @a not in @b, into @out (which is emptied first).
 *
 * @return 0 or -ENOMEM.
 */
int testfs_extents_subtract(const struct testfs_extents *a,
			    const struct testfs_extents *b,
			    struct testfs_extents *out);

/* ------------------------------------------------------------------ */
/* Set queries on a snapshot                                            */
/* ------------------------------------------------------------------ */

/** Pages of file @name the kernel fetched, into @out (emptied first). */
int testfs_log_fetched(const struct testfs_log *log, const char *name,
		       struct testfs_extents *out);

/** Pages of file @name fetched more than once. */
int testfs_log_refetched(const struct testfs_log *log, const char *name,
			 struct testfs_extents *out);

/**
 * Pages of file @name fetched outside [@first, @last]: the count before
 * @first in *@before and after @last in *@after (either may be NULL).
 *
 * @return the total outside, or -errno.
 */
int64_t testfs_log_outside(const struct testfs_log *log, const char *name,
			   uint64_t first, uint64_t last, uint64_t *before,
			   uint64_t *after);

/**
 * Pages of @accessed that were never fetched, into @out (emptied first):
 * an access that found its page already cached, or an access of a page
 * that the log lost.
 */
int testfs_log_never_fetched(const struct testfs_log *log, const char *name,
			     const struct testfs_extents *accessed,
			     struct testfs_extents *out);

/* ------------------------------------------------------------------ */
/* Kernel correlation: accesses, windows, usage, histograms            */
/* ------------------------------------------------------------------ */

/*
 * The daemon follows the kernel's readahead and filemap tracepoints of its
 * mount (root and tracefs; testfs_tracing() says whether it does and why
 * not), gives every read its cause and window (struct testfs_record) and
 * records the pages the kernel accessed. Without tracing a snapshot has no
 * accesses and no windows, and every cause is unknown. Like the set
 * queries, everything here works on page ranges, never page by page.
 */

/** How an access was seen. */
enum testfs_access_type {
	/** A page fault on a mapping (filemap:mm_filemap_fault). */
	TESTFS_ACCESS_FAULT = 1,
	/** A read(2)-style page-cache lookup (mm_filemap_get_pages). */
	TESTFS_ACCESS_READ = 2,
	/** Pages mapped by fault-around (mm_filemap_map_pages). */
	TESTFS_ACCESS_MAP = 3,
};

/**
 * Pages the kernel accessed: consecutive events of one task on one file,
 * of one type and on adjacent pages, merged.
 */
struct testfs_access {
	/** File name relative to the mount ("" if the daemon lists none). */
	const char *file;
	/** Pages [first, last]. */
	uint64_t first;
	uint64_t last;
	enum testfs_access_type type;
	uint32_t pid;
	/** CLOCK_MONOTONIC of the first and of the last event merged. */
	uint64_t t_ns;
	uint64_t end_ns;
	/** Events merged, and how many of them waited on a read. */
	uint32_t events;
	uint32_t late;
};

/**
 * Access records in the snapshot (none without tracing). They are kept
 * apart from the reads and marks: testfs_log_count() does not count them.
 */
size_t testfs_log_access_count(const struct testfs_log *log);

/**
 * Access record @i (0-based, ordered by t_ns), or NULL past the end. It
 * belongs to @log.
 */
const struct testfs_access *testfs_log_access_at(const struct testfs_log *log,
						 size_t i);

/**
 * One kernel readahead decision and the reads it became: the reads of the
 * snapshot that share a window id (unique per mount). The decision's
 * fields are those of its first read.
 */
struct testfs_window {
	/** The window id (never 0). */
	uint32_t id;
	const char *file;
	enum testfs_cause cause;
	/**
	 * As in struct testfs_record: trigger_page; start, size, async_size
	 * and marker are ra_start, ra_size, ra_async and ra_marker.
	 */
	uint64_t trigger_page;
	uint64_t start;
	uint32_t size;
	uint32_t async_size;
	uint64_t marker;
	uint32_t ra_pages;
	uint32_t mmap_miss;
	int folio_order;
	/** The first alloc_order of its reads that is known; -1: none. */
	int alloc_order;
	/**
	 * The reads: how many, the seq of the first, the span of the pages
	 * they asked for, [first_page, last_page], and the sum of their
	 * pages (reads the daemon answered with an error included).
	 */
	size_t requests;
	uint64_t first_seq;
	uint64_t first_page;
	uint64_t last_page;
	uint64_t pages;
	/** When the first read arrived. */
	uint64_t t_ns;
	/** Some access waited on one of its reads. */
	bool late;
};

/**
 * Windows in the snapshot, in the order their first read arrived
 * (computed once, when the snapshot is taken). 0 without tracing.
 */
size_t testfs_log_window_count(const struct testfs_log *log);

/** Window @i (0-based), or NULL past the end. It belongs to @log. */
const struct testfs_window *testfs_log_window_at(const struct testfs_log *log,
						 size_t i);

/**
 * The window that fetched page @page of file @name into the page cache:
 * of the reads that contain the page, are neither O_DIRECT nor answered
 * with an error, and have a window, the last one's window (for a page
 * fetched twice, the second fetch).
 *
 * @return the window (it belongs to @log), or NULL if there is no such
 *	   read (the page was never fetched, tracing was off, or only reads
 *	   of unknown cause fetched it).
 */
const struct testfs_window *testfs_log_window_of(const struct testfs_log *log,
						 const char *name,
						 uint64_t page);

/**
 * Per file: what was fetched, accessed, wasted and late. Page counts
 * count a page once however often it was fetched or accessed.
 */
struct testfs_usage {
	/** Pages fetched: as testfs_log_fetched() (no O_DIRECT, no errors). */
	uint64_t fetched;
	/**
	 * Pages accessed: the union of the FAULT and READ accesses and of
	 * the MAP accesses of one page (a fault-around of one page is the
	 * touched page).
	 */
	uint64_t accessed;
	/** Pages mapped by a fault-around (MAP) of several pages, not
	 * accessed. */
	uint64_t mapped;
	/** Fetched and neither accessed nor mapped: wasted readahead. */
	uint64_t wasted;
	/** The sum of the accesses' late counts: accesses that waited. */
	uint64_t late_accesses;
	/** Reads an access waited on (testfs_record.late), as fetched. */
	uint64_t late_reads;
	/**
	 * Whether @wasted means anything: false without tracing, and for a
	 * file whose readahead read(2) started when read(2) lookups were not
	 * traced (testfs_config.trace_reads): its read(2) accesses are
	 * unknown, @accessed leaves them out and @wasted is 0.
	 */
	bool wasted_known;
};

/**
 * Computes @out for file @name. If @wasted is non-NULL, it receives the
 * wasted pages (emptied first). Without tracing only @out->fetched is
 * filled: with no accesses recorded, nothing can be called wasted.
 *
 * @return 0, -EINVAL (a NULL @log, @name or @out), -ENOENT (the daemon
 *	   does not serve @name and no record mentions it) or -ENOMEM.
 */
int testfs_log_usage(const struct testfs_log *log, const char *name,
		     struct testfs_usage *out, struct testfs_extents *wasted);

/** Buckets of the histograms. */
#define TESTFS_HIST_BUCKETS 16

/**
 * Request sizes and folio orders. request_pages[i] counts reads of 2^i to
 * 2^(i+1) - 1 pages (every read with pages, as testfs_log_requests()
 * counts them); order_asked[i] counts windows whose page_cache_ra_order
 * asked for folio order i; order_allocated[i] windows whose folios were
 * allocated at order i (see testfs_record.alloc_order); *_unknown the
 * windows without it. The last bucket also counts everything larger.
 */
struct testfs_histograms {
	uint64_t request_pages[TESTFS_HIST_BUCKETS];
	uint64_t order_asked[TESTFS_HIST_BUCKETS];
	uint64_t order_asked_unknown;
	uint64_t order_allocated[TESTFS_HIST_BUCKETS];
	uint64_t order_allocated_unknown;
};

/**
 * Fills @out (zeroed first) with the histograms of file @name, or of every
 * file if @name is NULL. The order histograms are empty without tracing.
 * On kernels where FUSE uses only order-0 folios, order_allocated[0] holds
 * every window: the histogram says so rather than guessing.
 *
 * @return 0, or -EINVAL for a NULL @log or @out.
 */
int testfs_log_histograms(const struct testfs_log *log, const char *name,
			  struct testfs_histograms *out);

/** Buckets of the page-age histogram (struct testfs_page_age). */
#define TESTFS_AGE_BUCKETS 26

/**
 * Page age: for each page a read fetched (not O_DIRECT, not failed), the
 * time from the read's reply (testfs_record.done_ns) to the page's first
 * access after it, on CLOCK_MONOTONIC. A page fetched again after an
 * eviction counts once per fetch, each fetch aging from its own reply.
 *
 * - Accesses are faults, read(2) lookups (with trace_reads) and
 *   fault-around mappings of one page (the page faulted on: a one-page
 *   mapping or a VMA's edge). A fault-around of more pages maps them
 *   without saying which one was touched: those pages are @mapped.
 *   A mapped page the program touches later faults no more, so mmap
 *   accesses to pages fault-around mapped are not seen.
 * - A fetch owns the accesses from 100 ms before its read arrived (the
 *   access that made the kernel send it) to 100 ms before the next fetch
 *   of the page arrived.
 * - Resolution: the daemon merges access events into one record only
 *   while it spans at most 1 ms, and a page's access time is its
 *   record's first event: an age is at most 1 ms short of the truth
 *   (@resolution_ns is the widest record that decided an age here).
 * - @late: the first access came before the reply, so it waited on the
 *   read (a fault on a page in flight, or the fault that caused the
 *   read): its access record ended before the reply. A record that spans
 *   the reply gives age 0 (within the resolution). A read(2) lookup is
 *   traced when it ends, after the read it waited on was answered: it
 *   shows a small age, not late.
 *
 * bucket[0] counts ages under 1 us, bucket[i] ages of 2^(i-1) to 2^i us
 * (testfs_age_bucket_us()); the last bucket also counts every larger age.
 */
struct testfs_page_age {
	/** Page fetches: the buckets + @late + @never + @mapped. */
	uint64_t pages;
	uint64_t bucket[TESTFS_AGE_BUCKETS];
	/** First access before the reply: it waited on the read. */
	uint64_t late;
	/** Neither accessed nor mapped before the next fetch (or the end). */
	uint64_t never;
	/** Mapped by fault-around (of several pages), not seen accessed. */
	uint64_t mapped;
	/** The widest access record that gave an age or a late, in ns. */
	uint64_t resolution_ns;
	/**
	 * read(2) started readahead of this file (testfs_record.by_read)
	 * while read(2) page-cache lookups were not traced
	 * (testfs_config.trace_reads, the daemon's --trace-reads): the
	 * program's read(2) accesses were not seen, so the pages only read(2)
	 * touched count as @never and their ages are unknown. Not that
	 * nothing read them: trace reads to know.
	 */
	bool reads_untraced;
};

/**
 * The lower bound in microseconds of page-age bucket @bucket: 0 for
 * bucket 0, 2^(bucket-1) after it, UINT64_MAX past the last bucket.
 */
uint64_t testfs_age_bucket_us(unsigned bucket);

/**
 * Fills @out (zeroed first) with the page ages of file @name.
 *
 * @return 0, -EINVAL (a NULL argument), -ENOENT (the daemon does not
 *	   serve @name and no record mentions it), -ENODATA (tracing was
 *	   off: no access was seen, so no age is known) or -ENOMEM.
 */
int testfs_log_page_age(const struct testfs_log *log, const char *name,
			struct testfs_page_age *out);

/** Values of testfs_log_page_ages() that are not ages. */
#define TESTFS_AGE_NOT_FETCHED (-1)
#define TESTFS_AGE_NEVER (-2)
#define TESTFS_AGE_MAPPED (-3)
#define TESTFS_AGE_LATE (-4)

/** The most pages testfs_log_page_ages() takes at once (1 GiB of pages). */
#define TESTFS_AGE_MAX_PAGES (1u << 18)

/**
 * The age of each page of [@first_page, @first_page + @npages) of file
 * @name, from its latest fetch, into @ages[0 .. @npages - 1]: in ns (>= 0),
 * or TESTFS_AGE_NOT_FETCHED, TESTFS_AGE_NEVER, TESTFS_AGE_MAPPED or
 * TESTFS_AGE_LATE, by the rules of struct testfs_page_age. When
 * testfs_log_page_age() says reads_untraced, a page only read(2) touched
 * is TESTFS_AGE_NEVER: its access was not traced.
 *
 * @return 0, -EINVAL (a NULL argument, @npages 0 or above
 *	   TESTFS_AGE_MAX_PAGES, or a range past the last page number),
 *	   -ENOENT, -ENODATA or -ENOMEM as testfs_log_page_age().
 */
int testfs_log_page_ages(const struct testfs_log *log, const char *name,
			 uint64_t first_page, uint64_t npages, int64_t *ages);

/* ------------------------------------------------------------------ */
/* Client helpers                                                      */
/* ------------------------------------------------------------------ */

/** A mapping of a page range of a testfs file. */
struct testfs_map {
	char *addr;
	size_t len;
	/** First file page mapped and the number of pages. */
	uint64_t first_page;
	uint64_t npages;
	int fd;
	int prot;
};

/**
 * Maps pages [@first_page, @first_page + @npages) of file @name with
 * @prot and @flags (MAP_SHARED or MAP_PRIVATE, ...).
 *
 * @return 0, or -errno (-EINVAL for an empty or out-of-file range).
 */
int testfs_map(struct testfs_mount *fs, const char *name, uint64_t first_page,
	       uint64_t npages, int prot, int flags, struct testfs_map *out);

/** Unmaps and closes; @m may be unmapped twice. */
int testfs_unmap(struct testfs_map *m);

/**
 * Splits @m into VMAs of @vma_pages pages by mprotect(): the first keeps
 * @prot_a, the second gets @prot_b, alternating (e.g. PROT_READ and
 * PROT_READ | PROT_WRITE, which needs MAP_PRIVATE).
 *
 * @return the number of VMAs, or -errno.
 */
int testfs_split(struct testfs_map *m, uint64_t vma_pages, int prot_a,
		 int prot_b);

/** madvise() over the whole mapping. */
int testfs_madvise(const struct testfs_map *m, int advice);

enum testfs_order {
	/** Pages first to last. */
	TESTFS_ORDER_FORWARD,
	/** Pages last to first. */
	TESTFS_ORDER_REVERSE,
	/** Every @arg-th page from the first (arg >= 1). */
	TESTFS_ORDER_STRIDE,
	/** Every page once, shuffled by seed @arg (reproducible). */
	TESTFS_ORDER_RANDOM,
};

/**
 * Reads one byte of each mapped page in @order, and adds the file pages
 * touched to @touched if non-NULL. Pages that cannot be read are skipped
 * (left out of the count and of @touched) instead of faulting: those
 * whose VMA lacks PROT_READ (e.g. after testfs_split(..., PROT_NONE)) and
 * holes the caller unmapped, as /proc/self/maps shows them.
 *
 * @return pages touched; -EACCES if no page of @m can be read, -EINVAL
 *	   (NULL or unmapped @m, bad order or stride), -ENOMEM, or -errno.
 */
int64_t testfs_touch(const struct testfs_map *m, enum testfs_order order,
		     uint64_t arg, struct testfs_extents *touched);

/**
 * read(2)s pages [@first_page, @first_page + @npages) of @fd in @order,
 * @block bytes at a time (a multiple of 4096 dividing the range, or 0
 * for one page), and adds the pages read to @touched if non-NULL.
 *
 * @return bytes read, or -errno.
 */
int64_t testfs_read_pages(int fd, uint64_t first_page, uint64_t npages,
			  size_t block, enum testfs_order order, uint64_t arg,
			  struct testfs_extents *touched);

/**
 * posix_fadvise() over pages [@first_page, @first_page + @npages).
 *
 * @npages 0 means from @first_page to the end of the file (posix_fadvise()
 * with len 0), whatever the file's size. What the kernel does with that
 * range depends on @advice (mm/fadvise.c):
 *  - POSIX_FADV_WILLNEED reads at most max(ra_pages, io_pages) pages from
 *    @first_page per call (force_page_cache_ra()), not the whole file:
 *    measured on 6.18 with a 64 MiB file and @first_page 100, pages
 *    [100, 131] at read_ahead_kb 128, [100, 355] at 1024 and [100, 1123]
 *    at 4096; a range given with @npages is capped the same way.
 *  - POSIX_FADV_DONTNEED evicts the clean cached pages of the range (to
 *    the end with @npages 0).
 *  - POSIX_FADV_SEQUENTIAL, POSIX_FADV_RANDOM and POSIX_FADV_NORMAL apply
 *    to the whole open file whatever the range (SEQUENTIAL doubles its
 *    ra_pages, RANDOM switches readahead off).
 *
 * @return 0, -EOVERFLOW (a range past the largest off_t), or the -errno
 *	   of posix_fadvise() (-EBADF, -EINVAL for an unknown @advice,
 *	   -ESPIPE).
 */
int testfs_fadvise(int fd, uint64_t first_page, uint64_t npages, int advice);

/**
 * The pages of file @name resident in the page cache, by mincore() on a
 * fresh mapping (which faults nothing in), into @out (emptied first).
 */
int testfs_resident(struct testfs_mount *fs, const char *name,
		    struct testfs_extents *out);

/** Page-cache totals of a file, from cachestat(2) (Linux 6.5). */
struct testfs_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/**
 * cachestat(2) over pages [@first_page, @first_page + @npages) of file
 * @name (@npages 0: to the end of the file).
 *
 * @return 0, -ENOSYS on kernels without cachestat, or -errno.
 */
int testfs_cachestat(struct testfs_mount *fs, const char *name,
		     uint64_t first_page, uint64_t npages,
		     struct testfs_cachestat *out);

/* ------------------------------------------------------------------ */
/* Checks with readable explanations (used by testfs/criterion.h)        */
/* ------------------------------------------------------------------ */

/**
 * Each check returns 0 when it holds and 1 when it does not, with a
 * malloc'd explanation in *@why that shows expected and observed extents
 * side by side (free() it); or a negative errno when it could not check.
 * A snapshot that lost records fails every check.
 */

/** No page of @name fetched outside [@first, @last]. */
int testfs_check_within(const struct testfs_log *log, const char *name,
			uint64_t first, uint64_t last, char **why);

/**
 * Every page of [@first, @last] of @name was fetched (pages besides them
 * may have been too). The explanation gives the range, the fetched pages
 * and the pages of the range not fetched, e.g.
 *
 *     big.bin: 128 of the 1024 pages of [0, 1023] were not fetched:
 *     expected covering [0, 1023], observed [0, 895] (896 pages in 4
 *     requests); not fetched: [896, 1023]
 *
 * @return as the other checks; -EINVAL if @first > @last.
 */
int testfs_check_covers(const struct testfs_log *log, const char *name,
			uint64_t first, uint64_t last, char **why);

/** The fetched pages of @name equal @expected. */
int testfs_check_fetched(const struct testfs_log *log, const char *name,
			 const struct testfs_extents *expected, char **why);

/**
 * Every page of @touched was fetched, and at most @max_extra pages
 * besides.
 */
int testfs_check_touched_plus(const struct testfs_log *log, const char *name,
			      const struct testfs_extents *touched,
			      uint64_t max_extra, char **why);

/**
 * The invariants that hold on any kernel: no record lost, no page of
 * @name fetched twice, the fetched pages equal the resident pages
 * (mincore), and no request larger than @max_pages (0: skip).
 */
int testfs_check_consistent(struct testfs_mount *fs,
			    const struct testfs_log *log, const char *name,
			    uint64_t max_pages, char **why);

/**
 * The window that fetched page @page of @name (testfs_log_window_of()) has
 * cause @cause and, unless @start is TESTFS_NO_PAGE, starts at page
 * @start (its ra_start). Fails too when the log was not traced or no
 * window fetched the page. The explanation lists the windows of @name
 * around the page: id, cause, trigger, start+size, async size, marker and
 * the pages fetched.
 */
int testfs_check_window(const struct testfs_log *log, const char *name,
			uint64_t page, enum testfs_cause cause, uint64_t start,
			char **why);

/**
 * At least one read of @name overlaps [@first, @last], and every read of
 * @name that does (O_DIRECT and failed reads included) has cause @cause.
 * Fails too when the log was not traced. The explanation lists the reads
 * with another cause and their windows.
 *
 * @return as the other checks; -EINVAL if @first > @last.
 */
int testfs_check_cause(const struct testfs_log *log, const char *name,
		       uint64_t first, uint64_t last, enum testfs_cause cause,
		       char **why);

/**
 * The daemon traced the kernel when @log was taken; the explanation gives
 * the daemon's reason when it did not (kernel correlation needs root and
 * tracefs). Lost records do not matter here.
 */
int testfs_check_traced(const struct testfs_log *log, char **why);

/**
 * At most @max_pages page fetches of @name (struct testfs_page_age) were
 * first accessed @older_ns or more after their read's reply, or never
 * (neither accessed nor mapped, or only mapped by fault-around); late
 * accesses count as young. Fails too when the log lost records or was
 * not traced. The explanation shows the age histogram and the first
 * offending pages by their latest fetch, e.g.
 *
 *     big.bin: 63 of 64 page fetches were first accessed 50.0 ms or more
 *     after their reply, or never: expected at most 61; ages: 4-7us 1,
 *     32768-65535us 2, late 0, never 61, ... (resolution 0 ns); by latest
 *     fetch: page 5 51.2 ms, pages [32, 63] never accessed, ...
 *
 * @return as the other checks: 0 (it holds), 1 (it does not, with *@why)
 *	   or -errno (-EINVAL for a NULL @log or @name).
 */
int testfs_check_page_age(const struct testfs_log *log, const char *name,
			  uint64_t older_ns, uint64_t max_pages, char **why);

/* ------------------------------------------------------------------ */
/* Byte offsets                                                        */
/* ------------------------------------------------------------------ */

/*
 * The rest of the library counts pages (TESTFS_PAGE_SIZE bytes, page 0 is
 * bytes 0..4095). These take byte ranges as a program's read(2) or
 * mmap(2) offsets give them: bytes [@off, @off + @len), @len > 0; a byte
 * range stands for every page holding one of its bytes (the pages the
 * kernel must bring in to serve it), so a range that starts or ends inside
 * a page takes the whole page. Explanations write byte ranges inclusive,
 * like page ranges: "bytes [4096, 12287]".
 */

/**
 * The pages bytes [@off, @off + @len) fall in: [*@first, *@last] (either
 * pointer may be NULL). E.g. off 4000, len 200 gives pages [0, 1].
 *
 * @return 0, or -EINVAL for @len 0 or a range past UINT64_MAX.
 */
int testfs_pages_of_bytes(uint64_t off, uint64_t len, uint64_t *first,
			  uint64_t *last);

/**
 * The bytes of pages [@first, @last]: offset *@off and length *@len
 * (either pointer may be NULL), the inverse of testfs_pages_of_bytes()
 * for whole pages.
 *
 * @return 0, or -EINVAL if @first > @last or the bytes do not fit in
 *	   64 bits.
 */
int testfs_bytes_of_pages(uint64_t first, uint64_t last, uint64_t *off,
			  uint64_t *len);

/**
 * Adds the pages bytes [@off, @off + @len) fall in to @e (for the
 * expected extents of testfs_check_fetched() and
 * testfs_check_touched_plus()).
 *
 * @return 0, -EINVAL (NULL @e, @len 0, past UINT64_MAX) or -ENOMEM.
 */
int testfs_extents_add_bytes(struct testfs_extents *e, uint64_t off,
			     uint64_t len);

/**
 * testfs_check_within() of the pages bytes [@off, @off + @len) fall in.
 * The explanation starts with the bytes and their pages, then the page
 * check's, e.g.
 *
 *     big.bin: bytes [0, 4194303] are pages [0, 1023]: readahead fetched
 *     384 pages past the range [0, 1023]: expected within [0, 1023], ...
 *
 * @return as the other checks; -EINVAL for @len 0 or a range past
 *	   UINT64_MAX.
 */
int testfs_check_within_bytes(const struct testfs_log *log, const char *name,
			      uint64_t off, uint64_t len, char **why);

/**
 * testfs_check_covers() of the pages bytes [@off, @off + @len) fall in,
 * explained as testfs_check_within_bytes() is.
 */
int testfs_check_covers_bytes(const struct testfs_log *log, const char *name,
			      uint64_t off, uint64_t len, char **why);

#ifdef __cplusplus
}
#endif

#endif
