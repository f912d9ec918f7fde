/* SPDX-License-Identifier: MIT */
/**
 * @file testfs.h
 *
 * libtestfs: readahead extents as test data.
 *
 * Start a testfs daemon on a private mountpoint, map, mprotect-split and
 * read its files, and ask which pages the kernel fetched. Link with
 * `pkg-config --cflags --libs testfs`.
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

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes per page in every page number this library takes or returns. */
#define TESTFS_PAGE_SIZE 4096u

/* ------------------------------------------------------------------ */
/* Instances                                                           */
/* ------------------------------------------------------------------ */

/** A running testfs daemon and its private mountpoint. */
struct testfs;

/** How to start an instance. Zero means "default" for every field. */
struct testfs_config {
	/**
	 * Files to serve, "NAME:SIZE[:PATTERN]" as for --file, ending with
	 * NULL. NULL serves the daemon's default set (see the README).
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
	 * The testfs daemon to run. NULL: $TESTFS_BIN if set, else the
	 * installed daemon, else the one in the build tree this library was
	 * built in, else "testfs" in $PATH.
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
};

/**
 * Creates a private mountpoint under $TMPDIR (default /tmp), starts the
 * daemon on it in a separate process and waits until the mount is ready.
 *
 * @return 0 and the instance in *@out; -ENOENT (no daemon found),
 *	   -ETIMEDOUT (not ready in time), -EIO (the daemon exited: bad
 *	   arguments or no FUSE), -EINVAL (bad @cfg), or another -errno.
 */
int testfs_start(const struct testfs_config *cfg, struct testfs **out);

/**
 * Stops the daemon (SIGTERM, then SIGKILL after the time limit), makes
 * sure the mount is gone, removes the mountpoint and frees @fs.
 *
 * @return the daemon's exit status (0 clean, 1 failure, ...), -EINTR if it
 *	   had to be killed, or -errno; @fs is freed in every case.
 */
int testfs_stop(struct testfs *fs);

/** The mountpoint (absolute path). */
const char *testfs_mountpoint(const struct testfs *fs);

/** The daemon's pid. */
pid_t testfs_pid(const struct testfs *fs);

/**
 * Writes the absolute path of file @name (relative to the mount) into
 * @buf of @size bytes.
 *
 * @return 0, or -ENAMETOOLONG if it does not fit.
 */
int testfs_path(const struct testfs *fs, const char *name, char *buf,
		size_t size);

/**
 * Opens file @name of the mount with @flags (O_CLOEXEC is added).
 *
 * @return a file descriptor, or -errno.
 */
int testfs_open(const struct testfs *fs, const char *name, int flags);

/** The size of file @name in bytes, or -errno. */
int64_t testfs_file_size(const struct testfs *fs, const char *name);

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
int testfs_ctl(struct testfs *fs, const char *command, char *why,
	       size_t whylen);

/** Forgets the records so far (seq numbers keep counting). */
int testfs_clear(struct testfs *fs);

/** Inserts a marker record; @text up to 103 bytes, one line. */
int testfs_mark(struct testfs *fs, const char *text);

/**
 * Evicts file @name's pages from the page cache (every file read so far
 * when @name is NULL) and verifies that none remain.
 */
int testfs_drop_cache(struct testfs *fs, const char *name);

/**
 * drop-cache @name, then clear: a cold start for the next measurement.
 */
int testfs_cold(struct testfs *fs, const char *name);

/**
 * Sets the default latency model at run time ("latency MODEL").
 *
 * @return 0, or -EINVAL for a bad model (why: testfs_ctl()).
 */
int testfs_set_latency(struct testfs *fs, const char *model);

/**
 * Adds a latency rule, "file=NAME,pages=A-B,latency=MODEL" (file= and
 * pages= optional, latency= last); the first matching rule wins.
 */
int testfs_add_rule(struct testfs *fs, const char *spec);

/**
 * Adds an error rule, "file=NAME,pages=A-B,errno=EIO[,times=N|prob=P]":
 * reads touching the range are answered with that errno.
 */
int testfs_add_error(struct testfs *fs, const char *spec);

/** Removes every latency and error rule (the default latency stays). */
int testfs_clear_rules(struct testfs *fs);

/**
 * Waits until the kernel has no request of this mount in flight (async
 * readahead may still be on its way after the access that caused it).
 *
 * @return 0, or -ETIMEDOUT after @timeout_ms (0: 5000).
 */
int testfs_settle(struct testfs *fs, unsigned timeout_ms);

/* ------------------------------------------------------------------ */
/* The log                                                             */
/* ------------------------------------------------------------------ */

enum testfs_record_kind {
	TESTFS_RECORD_READ = 1,
	TESTFS_RECORD_MARK = 2,
};

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
};

/** A snapshot of the log since the last clear. */
struct testfs_log;

/**
 * Settles (testfs_settle()) and takes a snapshot of the log through the
 * binary view (.testfs/log.bin; no JSON parsing).
 *
 * @return 0 and the snapshot in *@out, or -errno.
 */
int testfs_log_snapshot(struct testfs *fs, struct testfs_log **out);

void testfs_log_free(struct testfs_log *log);

/** Records in the snapshot (reads and marks). */
size_t testfs_log_count(const struct testfs_log *log);

/** Record @i (0-based), or NULL past the end. */
const struct testfs_record *testfs_log_at(const struct testfs_log *log,
					  size_t i);

/**
 * Records written since the last clear that the daemon's ring no longer
 * held (its --log-capacity was exceeded). Any loss makes the set queries
 * below unreliable; the Criterion assertions fail on it.
 */
uint64_t testfs_log_lost(const struct testfs_log *log);

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
int testfs_map(struct testfs *fs, const char *name, uint64_t first_page,
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
 * touched to @touched if non-NULL.
 *
 * @return pages touched, or -errno (-EINVAL for a bad order or stride).
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

/** posix_fadvise() over pages [@first_page, @first_page + @npages). */
int testfs_fadvise(int fd, uint64_t first_page, uint64_t npages, int advice);

/**
 * The pages of file @name resident in the page cache, by mincore() on a
 * fresh mapping (which faults nothing in), into @out (emptied first).
 */
int testfs_resident(struct testfs *fs, const char *name,
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
int testfs_cachestat(struct testfs *fs, const char *name, uint64_t first_page,
		     uint64_t npages, struct testfs_cachestat *out);

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
int testfs_check_consistent(struct testfs *fs, const struct testfs_log *log,
			    const char *name, uint64_t max_pages, char **why);

#ifdef __cplusplus
}
#endif

#endif
