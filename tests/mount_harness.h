/* SPDX-License-Identifier: MIT */
/*
 * Mount tests: start the real testfs binary as a separate process on a
 * private mountpoint, talk to it through the mount, and make sure no mount
 * survives the test, whatever happens to it:
 *  - every start has a time limit and every stop falls back to SIGKILL and
 *    a lazy unmount;
 *  - the daemon runs with --watch-pid of the test process, so a test that
 *    crashes (Criterion forks each test) still gets its mount removed;
 *  - the daemon runs with auto_unmount, so even a SIGKILLed daemon leaves
 *    no mount behind;
 *  - each test binary checks at the end that no mount of its own is left.
 *
 * It talks to the daemon by hand (writes ctl, parses log.bin; the names and
 * layout from protocol/) instead of through libtestfs on purpose: these
 * tests check the daemon's side of that protocol, below the library, so
 * a bug in libtestfs can neither hide nor fake a daemon failure here. The
 * library's own tests (lib_*.c) sit on top and use only testfs.h.
 */
#ifndef TESTFS_MOUNT_HARNESS_H
#define TESTFS_MOUNT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "control_dir.h"
#include "log_record.h"

#define HARNESS_PREFIX "testfs-test."
#define HARNESS_TMP_MAX 96

/*
 * Where the tests put their directories and mounts: $TMPDIR if it names
 * a directory by an absolute path, else /tmp. scripts/test.sh gives each
 * run its own $TMPDIR and checks for leftover mounts only under it, so a
 * run never blames another for a mount.
 */
const char *harness_tmp_dir(void);

/*
 * This test binary's own prefix, harness_tmp_dir()/HARNESS_PREFIX + the
 * binary's file name + ".": the leftover checks look only there, so
 * suites run side by side (or a developer's own mounts) do not disturb
 * each other.
 */
const char *harness_prefix(void);

struct tfs_mount {
	pid_t pid;
	char root[256]; /* private directory, holds mnt/ */
	char dir[288];	/* the mountpoint */
	int status;	/* exit status once stopped */
	bool stopped;
};

struct tfs_log {
	struct log_record *recs;
	size_t count;
	uint64_t lost;
	uint64_t first_seq;
	uint64_t next_seq;
	uint32_t flags; /* LOG_BIN_* */
};

/* Skips the test where FUSE is unusable; under CI=true fails instead. */
void harness_require_fuse(void);

/* The daemon binary (TESTFS_BIN from meson). */
const char *harness_bin(void);

/*
 * Starts testfs in the foreground with @args (NULL-terminated) and waits
 * up to 10 s for it to be ready. Fails the test on error. Adds --no-trace
 * unless @args has --trace or --no-trace: these tests count records.
 */
void harness_start(struct tfs_mount *m, const char *const *args);

/* SIGTERM, then wait up to 10 s; returns the exit status (or -signal). */
int harness_stop(struct tfs_mount *m);

/*
 * harness_stop() for a suite's .fini: a non-zero exit status (such as a
 * sanitizer report from the daemon) crashes the test, since a failed
 * assertion in a .fini does not fail it.
 */
void harness_stop_checked(struct tfs_mount *m);

/* Whether @dir is currently a mountpoint (from /proc/self/mountinfo). */
bool harness_is_mounted(const char *dir);

/*
 * Waits until @dir is no longer a mountpoint, woken by the kernel's
 * mount-table change events rather than by a timer. @guard_ms only keeps
 * a hung unmount from hanging the test; it is no performance bound.
 * Returns whether the mount is gone.
 */
bool harness_wait_unmounted(const char *dir, unsigned guard_ms);

/* Full path of @name inside the mount (static buffer per call site). */
char *harness_path(struct tfs_mount *m, const char *name);

/* Writes @cmd to .testfs/ctl; returns 0 or -errno. */
int harness_ctl(struct tfs_mount *m, const char *cmd);

/* Reads a whole control file into a malloc'd NUL-terminated buffer. */
char *harness_read_file(const char *path, size_t *len);

/* Waits until the kernel has no request of this mount in flight. */
void harness_settle(struct tfs_mount *m);

/* Snapshot of .testfs/log.bin. */
void harness_log(struct tfs_mount *m, struct tfs_log *log);
void harness_log_free(struct tfs_log *log);

/*
 * The log is whole and in the kernel's order: nothing lost, seq without
 * a gap, every read with its FUSE unique (even, not 0), the uniques
 * strictly increasing. Returns the reads.
 */
size_t harness_assert_kernel_order(const struct tfs_log *log);

/*
 * Per-page fetch counts of file @ino from @log into @counts (@npages
 * entries, zeroed first). Returns the number of read records of the file.
 */
size_t harness_fetch_counts(const struct tfs_log *log, uint64_t ino,
			    uint32_t *counts, size_t npages);

/* Residency of each page of @path by mincore() (1 = cached). */
void harness_resident(const char *path, unsigned char *vec, size_t npages);

/* Inode number of @path. */
uint64_t harness_ino(const char *path);

/*
 * Asserts that the pages the log says were fetched equal the pages
 * mincore() shows resident, and that no page was fetched twice.
 * Returns the number of fetched pages.
 */
size_t harness_assert_log_matches_cache(struct tfs_mount *m, const char *name,
					size_t npages);

/*
 * Whether page @page left the page cache between @after_ns and @before_ns
 * (CLOCK_MONOTONIC), e.g. ra_evicted_between() of tests/ra_evict.h.
 */
typedef bool harness_evicted_fn(uint64_t page, uint64_t after_ns,
				uint64_t before_ns, void *arg);

/*
 * harness_assert_log_matches_cache() for runs during which reclaim may
 * evict pages (kswapd, or DAMON on some VMs, can take a page read ahead
 * before its reader gets there, and the kernel then fetches it again): a
 * page fetched more than once passes when @evicted says it left the cache
 * between every two of its fetches (from the first one's arrival to the
 * next one's), and a fetched page missing from the cache passes when it
 * left after its last fetch (@before_ns UINT64_MAX). @evicted is called
 * only after the cache has been looked at. @evicted NULL: no page may be
 * fetched twice.
 */
size_t harness_assert_log_matches_cache_evicting(struct tfs_mount *m,
						 const char *name,
						 size_t npages,
						 harness_evicted_fn *evicted,
						 void *arg);

/*
 * Runs @argv (argv[0] is a path) with stdin closed, collects stderr and
 * stdout into *@out (malloc'd), waits at most @timeout_s; returns the
 * exit status, or -1 if it had to be killed.
 */
int harness_run(const char *const *argv, char **out, int timeout_s);

/*
 * Ends the test process with a crash (no core file): the only way a .fini
 * can make Criterion count a test as failed.
 */
void harness_crash(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Fails the test if any testfs mount under harness_prefix() is left. */
void harness_assert_no_leftover_mounts(void);

#endif
