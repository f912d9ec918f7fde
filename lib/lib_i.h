/* SPDX-License-Identifier: MIT */
/*
 * libtestfs internals shared by its files. Not installed.
 */
#ifndef TESTFS_LIB_I_H
#define TESTFS_LIB_I_H

#ifdef TESTFS_H
#error "include lib_i.h before <testfs.h>: it renames entry points in it"
#endif

/*
 * The entry points that take a sized struct (see <testfs.h>) are compiled
 * under these names, and take and fill a struct of the library's full
 * size whatever its struct_size says. lib/abi.c exports them, one
 * definition per symbol version of lib/testfs.map, each serving the
 * struct layout its callers were built with. Function-like, so that the
 * struct tags (struct testfs_settings) keep their names.
 */
#define testfs_start(cfg, out) lib_full_start(cfg, out)
#define testfs_find_daemon(cfg, buf, size) lib_full_find_daemon(cfg, buf, size)
#define testfs_settings(fs, out) lib_full_settings(fs, out)
#define testfs_log_usage(log, name, out, wasted)                               \
	lib_full_log_usage(log, name, out, wasted)
#define testfs_log_histograms(log, name, out)                                  \
	lib_full_log_histograms(log, name, out)
#define testfs_log_page_age(log, name, out)                                    \
	lib_full_log_page_age(log, name, out)
#define testfs_cachestat(fs, name, first_page, npages, out)                    \
	lib_full_cachestat(fs, name, first_page, npages, out)

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

struct testfs_mount {
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
	/* From testfs_attach(): the daemon is not ours to stop (its pid is
	 * the one its config gives, -1 if none). */
	bool attached;
};

struct testfs_log {
	/* Reads and marks, in seq order. */
	struct testfs_record *recs;
	size_t count;
	uint64_t lost;
	/* The page size of the kernel that wrote the log (its header): the
	 * unit of every page number in it. */
	uint32_t page_size;
	/* Storage the records' file and mark pointers point into. */
	char **strings;
	size_t nstrings;
	/* Kernel correlation: the header said the tracer was on. */
	bool traced;
	bool reads_traced; /* --trace-reads */
	/* The kernel had no readahead:* events: no read names its trigger. */
	bool no_causes;
	/* Why the daemon does not trace (.testfs/config), or NULL. */
	char *trace_why;
	/* The files the daemon serves (file pointers into strings). */
	const char **files;
	size_t nfiles;
	/* Access records, sorted by t_ns. */
	struct testfs_access *access;
	size_t naccess;
	/* Windows, by first seq (lib_index_windows()). */
	struct testfs_window *windows;
	size_t nwindows;
	/* Indices into windows, sorted by id. */
	size_t *window_by_id;
	/* Folios added to the page cache (LOG_FOLIO), in log order. */
	bool folios_traced;
	/* ... only those of order > 0 (LOG_BIN_FOLIOS_LARGE): the other
	 * fetched pages came in order-0 folios (lib/folios.c). */
	bool folios_large_only;
	struct lib_folio *folios;
	size_t nfolios;
	size_t folios_cap;
	/* testfs_log_folio_orders_why()'s sentence, made on demand. */
	char *folios_why;
};

/* One LOG_FOLIO record: @folios folios of 2^@order pages, [first, last]. */
struct lib_folio {
	const char *file;
	uint64_t first;
	uint64_t last;
	uint64_t t_ns; /* when the first was added */
	uint32_t folios;
	unsigned order;
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

/* What .testfs/config says about the kernel tracer. */
struct trace_state {
	/* 1 on, 0 off, -1 the daemon does not say (no "trace" object). */
	int on;
	/* It follows read(2) lookups too ("reads"; --trace-reads). */
	bool reads;
	/* Why it is off (malloc'd), or NULL. */
	char *why;
};

/*
 * The files of this library, bottom up: a file calls only files on the
 * lines above its own (tools/callgraph.py checks there is no circle).
 *   errors.c                 the reason behind an errno (testfs_strerror)
 *   extents.c                sets of pages (JSON: src/json/)
 *   paths.c                  where the mount is; reading its files
 *   config.c, control.c      .testfs/config (one parser); .testfs/ctl
 *   find_daemon.c, attach.c  which daemon to run; attaching to a mount
 *   instance.c               starting and stopping a daemon
 *   records.c                what a snapshot holds
 *   queries.c, windows.c     set queries; windows
 *   usage.c                  usage, histograms: the analysis layer
 *                            (src/analysis/, shared with the daemon)
 *   page_age.c               page ages (the same layer)
 *   snapshot.c               log.bin into a snapshot
 *   client.c, checks.c, window_checks.c, age_checks.c
 *   bytes.c                  byte offsets: conversions, byte-range checks
 */

/*
 * errors.c: forgets this thread's reason; leaves one for @err (a negative
 * errno, which it returns) that testfs_strerror(@err) appends.
 */
void lib_clear_reason(void);
int lib_set_reason(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* paths.c: opens MOUNT/@name read-only; returns the fd or -errno. */
/* The page size of @log's kernel (TESTFS_PAGE_SIZE for a hand-made log
 * that leaves it 0). */
static inline uint32_t lib_log_page_size(const struct testfs_log *log)
{
	return log && log->page_size ? log->page_size : TESTFS_PAGE_SIZE;
}

/* The running kernel's page size, the unit of the calls that map, read,
 * advise or look at the page cache of a file. */
uint32_t lib_page_size(void);

int lib_open_control(const struct testfs_mount *fs, const char *name);
/*
 * paths.c: reads until @len bytes or EOF, EINTR retried: at the file
 * offset with read() when @off is negative, else at @off with pread().
 * The bytes read or -errno.
 */
ssize_t lib_read_full_at(int fd, void *buf, size_t len, int64_t off);
static inline ssize_t lib_read_full(int fd, void *buf, size_t len)
{
	return lib_read_full_at(fd, buf, len, -1);
}

/*
 * config.c: reads .testfs/config, its "files" into @t (emptied first),
 * its "trace" object into @tr and the settings in @set; any may be NULL.
 * Returns 0, -EPROTO (not the daemon's JSON) or -errno.
 */
int lib_read_config(const struct testfs_mount *fs, struct name_table *t,
		    struct trace_state *tr, struct testfs_settings *set);
/* The name of @ino, or "" if the config did not list it. */
const char *lib_name_of(const struct name_table *t, uint64_t ino);
void lib_free_names(struct name_table *t);

/* Why the tracer is off, as a malloc'd sentence (NULL: no memory). */
char *lib_trace_why(const struct trace_state *tr);

/*
 * find_daemon.c: the daemon to run, malloc'd into *@out: @named (a path,
 * or a name looked up in $PATH) if non-NULL, else by the documented
 * order (testfs_find_daemon()). Returns 0, -ENOENT or -errno.
 */
int lib_find_daemon(const char *named, char **out);

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

/*
 * Whether record @i feeds the page-cache queries: a read of @name that is
 * neither O_DIRECT nor answered with an error.
 */
bool lib_is_cached_read(const struct testfs_log *log, size_t i,
			const char *name);

/* windows.c: whether the daemon serves @name or a record mentions it. */
bool lib_knows_file(const struct testfs_log *log, const char *name);

/* Whether @r is a read of file @name (NULL: of any file). */
bool lib_is_read_of(const struct testfs_record *r, const char *name);

/*
 * Groups the reads of @log by window id into log->windows (lib/windows.c),
 * replacing any earlier index: once per snapshot, after its records are
 * complete. Returns 0 or -ENOMEM.
 */
int lib_index_windows(struct testfs_log *log);

/* Frees what lib_index_windows() made. */
void lib_free_windows(struct testfs_log *log);

struct an_log;
struct an_read;

/* records.c: read record @r as the analysis layer takes it (key 0). */
void lib_an_read(const struct testfs_record *r, struct an_read *out);

/*
 * usage.c: @l (initialised here) fed the reads and accesses of @name, or
 * of every file if @name is NULL, all under key 0: the analysis behind
 * testfs_log_usage(), testfs_log_histograms() and page age. 0 or -ENOMEM
 * (@l freed then). an_free() it.
 */
int lib_analyse(const struct testfs_log *log, const char *name,
		struct an_log *l);

/*
 * page_age.c: testfs_log_page_age(), and in *@older (if non-NULL) the
 * page fetches aged @older_ns or more.
 */
int lib_page_age(const struct testfs_log *log, const char *name,
		 uint64_t older_ns, struct testfs_page_age *out,
		 uint64_t *older);

/*
 * What page age and usage say when read(2) started a file's readahead and
 * read(2) lookups were not traced.
 */
#define LIB_READS_UNTRACED                                                      \
	"read(2) accesses were not traced (run the daemon with --trace-reads, " \
	"testfs_config.trace_reads): pages only read(2) touched count as "      \
	"never accessed"

struct strbuf;

/*
 * The start of every check on @name (lib/checks.c): *@why = NULL, -EINVAL
 * for a NULL argument, 1 with the explanation if the log lost records,
 * else 0.
 */
int lib_check_start(const struct testfs_log *log, const char *name, char **why);

/* Hands @sb to the caller as *@why: 1 (the check failed) or -ENOMEM. */
int lib_check_fail(struct strbuf *sb, char **why);

/*
 * Sets log->folios_why when @log has no folio orders (lib/folios.c): 0 or
 * -ENOMEM.
 */
int lib_folios_why(struct testfs_log *log);

#endif
