/* SPDX-License-Identifier: MIT */
/*
 * libtestfs internals shared by its files. Not installed.
 */
#ifndef TESTFS_LIB_I_H
#define TESTFS_LIB_I_H

#include <testfs.h>

#define LIB_DEFAULT_TIMEOUT_MS 10000u
#define LIB_SETTLE_TIMEOUT_MS 5000u

#include <time.h>

static inline uint64_t lib_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void lib_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

struct testfs {
	/* A directory to remove with the mountpoint, or NULL. */
	char *root;
	/* Absolute mountpoint: a private directory made by testfs_start(),
	 * which the daemon removes when it ends (--rmdir). */
	char *mountpoint;
	pid_t pid;
	unsigned timeout_ms;
	/* The mount's st_dev, as the kernel names its FUSE connection in
	 * /sys/fs/fuse/connections ((major << 20) | minor). */
	unsigned conn_id;
	bool stopped;
};

struct testfs_log {
	struct testfs_record *recs;
	size_t count;
	uint64_t lost;
	/* Storage the records' file and mark pointers point into. */
	char **strings;
	size_t nstrings;
};

/* File names by inode number, from .testfs/config (lib/names.c). */
struct file_name {
	uint64_t ino;
	char *name;
};

struct name_table {
	struct file_name *v;
	size_t n;
	size_t cap;
};

/* Reads the "files" of .testfs/config into @t (emptied first). */
int lib_read_names(struct testfs *fs, struct name_table *t);
/* The name of @ino, or "" if the config did not list it. */
const char *lib_name_of(const struct name_table *t, uint64_t ino);
void lib_free_names(struct name_table *t);

/* Opens MOUNT/@name read-only; returns the fd or -errno. */
int lib_open_control(struct testfs *fs, const char *name);
/* read() until @len bytes or EOF; returns the bytes read or -errno. */
ssize_t lib_read_full(int fd, void *buf, size_t len);

/* The inode number of file @name in @log's records, or 0 if none. */
uint64_t lib_log_ino(const struct testfs_log *log, const char *name);

/*
 * The page ranges of every read of @name in @log, sorted by first page
 * (not coalesced; overlaps are kept): the input of the set queries, which
 * sweep over ranges and never allocate per page. Returns the number of
 * ranges (*@out malloc'd, NULL when 0) or -ENOMEM.
 */
int64_t lib_read_ranges(const struct testfs_log *log, const char *name,
			struct testfs_extent **out);

#endif
