// SPDX-License-Identifier: MIT
/*
 * throughput: testfs against the floor and the ceiling of its own cost,
 * measured in the same run on the same machine.
 *
 *   build/bench/throughput [--quick] [--rounds N] [--raw]
 *                          [--daemon-arg ARG]...
 *   meson test --benchmark -C build
 *
 * Systems, each serving a 512 MiB file:
 *   testfs stamp  build/src/testfs (or $TESTFS_BIN), log on (its in-memory
 *                 read log is always on), file stamp.bin:512M:stamp;
 *   testfs zero   the same daemon, file zero.bin:512M:zero;
 *   minimal       bench/minimal_server ($MINIMAL_SERVER, or the one next
 *                 to this program): libfuse lowlevel, one thread, zeros
 *                 from a static buffer, keep_cache: the cost floor of FUSE;
 *   tmpfs         a 512 MiB file in a private tmpfs that is detached as
 *                 soon as the file is written (the kernel frees it when
 *                 this process ends, however it ends): the ceiling. A
 *                 tmpfs file cannot be evicted (the page cache is its only
 *                 storage), so its runs are never cold: they measure the
 *                 page-cache copy path (read(2) of cached pages, minor
 *                 faults), the upper bound for any file system.
 *
 * Workloads, each at read_ahead_kb 128 and 1024 (testfs: --ra-kb; the
 * minimal server: this program writes /sys/class/bdi/MAJ:MIN/read_ahead_kb
 * of its mount after the INIT exchange and before any file is opened; the
 * value is read back from sysfs for both):
 *   read 1 MiB    read(2) of the whole file in order, 1 MiB at a time;
 *   read 4 KiB    the same, 4 KiB at a time;
 *   mmap rand 4K  one byte of each of 20000 distinct random pages of a
 *                 MAP_SHARED mapping of the file (the same pages in every
 *                 run), i.e. 20000 page faults at most.
 *
 * Every run opens the file afresh (fresh readahead state) and, for the
 * FUSE systems, starts cold: posix_fadvise(POSIX_FADV_DONTNEED) on the
 * whole file, then cachestat(2) (or mincore() before Linux 6.5) must
 * count 0 cached pages, else it retries (testfs: its verified drop-cache
 * as a last resort); only then is the clock started. The pages a run
 * cached stay until that system's next run evicts them, just before
 * reading again: freed memory is handed out again at once, while memory
 * left free for seconds may be returned to a VM's host (free page
 * reporting) and cost host faults when the page cache takes it back,
 * which shows as noise in whichever run gets it. So up to 2 GiB of
 * memory is in use (three FUSE files and the tmpfs). For tmpfs the check
 * is that every page is cached.
 *
 * Order: per read_ahead_kb one warm-up round (every workload on every
 * system, not counted), then N rounds (11; --quick 3), each running every
 * workload on every system, in the order stamp, minimal, zero, tmpfs in
 * even rounds and reversed in odd rounds, so testfs and the minimal
 * server always run next to each other. The report gives, per cell, the
 * median over the rounds, and for testfs the median (and min, max) of
 * the per-round ratios testfs / minimal. MB/s is 10^6 bytes per second
 * of wall time around the read loop; for mmap, thousands of touched
 * pages per second. It also gives the CPU time each server spent per run
 * (/proc/PID/task/TID/schedstat) and the reader's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), as shares of the wall time of the run.
 *
 * It prints figures and judges nothing. It needs root (tmpfs mount,
 * read_ahead_kb) and exits 77 (skipped) without it. Time limits: server
 * start and stop 10 s, each run 120 s; a watchdog thread ends the run
 * when one is exceeded, and on SIGINT, SIGTERM or SIGHUP, after stopping
 * the servers and unmounting everything (the minimal server also gets
 * SIGTERM when this process dies: PR_SET_PDEATHSIG; testfs has
 * --watch-pid; so even a SIGKILL leaves no mount, only the minimal
 * server's empty mountpoint directory). --raw prints every run on stderr;
 * --daemon-arg ARG passes ARG to testfs (repeatable: --no-trace, ...).
 * Exit status: 0; 1 with the reason when it could not run; 128 + the
 * signal when stopped by one; 77 without root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"

#include <testfs.h>

#define MIB (1024ull * 1024ull)
#define NS_PER_S 1000000000ull
#define PAGE TESTFS_PAGE_SIZE

#define FILE_BYTES (512 * MIB)
#define FILE_SIZE_ARG "512M"
#define FILE_PAGES (FILE_BYTES / PAGE)
#define TOUCHES 20000u

#define DEFAULT_ROUNDS 11
#define QUICK_ROUNDS 3
#define MAX_ROUNDS 50

#define START_LIMIT_MS 10000u
#define STOP_LIMIT_MS 10000u
#define RUN_LIMIT_S 120u

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

enum system { SYS_STAMP, SYS_ZERO, SYS_MINIMAL, SYS_TMPFS, NSYS };

static const char *const sys_names[NSYS] = {
	"testfs stamp",
	"testfs zero",
	"minimal",
	"tmpfs",
};

/* Even rounds run this order, odd rounds the reverse. */
static const enum system sys_order[NSYS] = { SYS_STAMP, SYS_MINIMAL, SYS_ZERO,
					     SYS_TMPFS };

enum workload { W_READ_1M, W_READ_4K, W_MMAP_RAND, NWORK };

struct workload_def {
	const char *name;
	/* read(2) size; 0: random mmap touches. */
	size_t block;
	const char *unit;
};

static const struct workload_def workloads[NWORK] = {
	{ "read 1 MiB", MIB, "MB/s" },
	{ "read 4 KiB", 4096, "MB/s" },
	{ "mmap rand 4K", 0, "k pages/s" },
};

static const unsigned ra_values[] = { 128, 1024 };

#define NRA (sizeof(ra_values) / sizeof(ra_values[0]))

/* One run's figures. */
struct sample {
	double value;	    /* MB/s or k pages/s */
	uint64_t wall_ns;   /* the timed loop */
	uint64_t server_ns; /* server CPU during it, 0 for tmpfs */
	uint64_t client_ns; /* this thread's CPU during it */
};

static struct sample results[NRA][NWORK][NSYS][MAX_ROUNDS];

/* Effective read_ahead_kb per ra block and system (-1 unknown). */
static long effective_ra[NRA][NSYS];

/* --raw: print every run as it ends (stderr). */
static bool raw;

/* --daemon-arg: more testfs arguments (e.g. --no-trace), NULL-ended. */
#define MAX_DAEMON_ARGS 16
static const char *daemon_args[MAX_DAEMON_ARGS + 1];
static int ndaemon_args;

/* How the cold state was reached, over all FUSE runs. */
static struct {
	unsigned runs;
	unsigned retries;
	unsigned drop_cache;
	bool mincore;
} eviction;

/* ------------------------------------------------------------------ */
/* Clean-up on every path                                              */
/* ------------------------------------------------------------------ */

/*
 * What the watchdog must undo if the run ends early: a server to stop
 * and a mountpoint to unmount and remove. Filled before the mount exists
 * and cleared after it is gone.
 */
enum slot_id { SLOT_TESTFS, SLOT_MINIMAL, SLOT_TMPFS, NSLOTS };

struct slot {
	_Atomic int active;
	_Atomic pid_t pid; /* 0: no server (tmpfs) */
	char path[PATH_MAX];
};

static struct slot slots[NSLOTS];

/* Absolute CLOCK_MONOTONIC deadline of the current step, 0: none. */
static _Atomic uint64_t deadline_ns;
/* Set once the watchdog has started cleaning up. */
static _Atomic int stopping;

static char failure[512];

static int fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(int err, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(failure, sizeof(failure), "%s: %s", what,
		 strerror(err < 0 ? -err : err));
	return err < 0 ? err : -err;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void set_deadline(unsigned seconds)
{
	atomic_store(&deadline_ns, seconds ? now_ns() + seconds * NS_PER_S : 0);
}

/*
 * Waits up to @ms for child @pid; true if it is gone (its wait status in
 * *@status if non-NULL and it was reaped here).
 */
static bool reap(pid_t pid, unsigned ms, int *status)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		if (now_ns() >= end)
			return false;
		sleep_ms(10);
	}
}

/*
 * Stops every server still registered (SIGTERM, SIGKILL after the stop
 * limit), then unmounts (lazily, in case a dead server's mount is still
 * there) and removes every registered mountpoint.
 */
static void cleanup_slots(void)
{
	pid_t pid;
	int i;

	for (i = 0; i < NSLOTS; i++) {
		pid = atomic_load(&slots[i].pid);
		if (atomic_load(&slots[i].active) && pid > 0)
			kill(pid, SIGTERM);
	}
	for (i = 0; i < NSLOTS; i++) {
		pid = atomic_load(&slots[i].pid);
		if (!atomic_load(&slots[i].active) || pid <= 0)
			continue;
		if (!reap(pid, STOP_LIMIT_MS, NULL)) {
			kill(pid, SIGKILL);
			reap(pid, STOP_LIMIT_MS, NULL);
		}
	}
	for (i = 0; i < NSLOTS; i++) {
		if (!atomic_load(&slots[i].active))
			continue;
		umount2(slots[i].path, MNT_DETACH);
		rmdir(slots[i].path);
		atomic_store(&slots[i].active, 0);
	}
}

/*
 * The watchdog: the only thread that takes SIGINT, SIGTERM and SIGHUP
 * (the others block them), and the keeper of the time limits. A reader
 * blocked on a hung FUSE server is released when the server is killed
 * (its connection is aborted).
 */
static void *watchdog_main(void *arg)
{
	const sigset_t *sigs = arg;
	struct timespec tick = { 0, 100000000L };
	uint64_t deadline;
	siginfo_t si;
	int sig;

	for (;;) {
		sig = sigtimedwait(sigs, &si, &tick);
		deadline = atomic_load(&deadline_ns);
		if (sig > 0) {
			fprintf(stderr,
				"throughput: %s: stopping the servers and "
				"unmounting\n",
				strsignal(sig));
		} else if (deadline && now_ns() > deadline) {
			fprintf(stderr,
				"throughput: time limit exceeded: stopping "
				"the servers and unmounting\n");
		} else {
			continue;
		}
		atomic_store(&stopping, 1);
		cleanup_slots();
		fflush(stdout);
		_exit(sig > 0 ? 128 + sig : 1);
	}
	return NULL;
}

/* On a failure the watchdog caused: let it finish and exit. */
static void wait_if_stopping(void)
{
	if (atomic_load(&stopping))
		for (;;)
			pause();
}

static void slot_open(enum slot_id id, const char *path)
{
	snprintf(slots[id].path, sizeof(slots[id].path), "%s", path);
	atomic_store(&slots[id].pid, 0);
	atomic_store(&slots[id].active, 1);
}

static void slot_close(enum slot_id id)
{
	atomic_store(&slots[id].active, 0);
	atomic_store(&slots[id].pid, 0);
}

/* Whether @path is a mountpoint now (in /proc/self/mountinfo). */
static bool is_mounted(const char *path)
{
	char line[4096], mnt[PATH_MAX];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    strcmp(mnt, path) == 0)
			found = true;
	fclose(f);
	return found;
}

/* ------------------------------------------------------------------ */
/* Kernel knobs and probes                                             */
/* ------------------------------------------------------------------ */

static int bdi_ra_path(const char *mountpoint, char *buf, size_t size)
{
	struct stat st;

	if (stat(mountpoint, &st) != 0)
		return -errno;
	snprintf(buf, size, "/sys/class/bdi/%u:%u/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	return 0;
}

/* The mount's read_ahead_kb, or -1. */
static long read_ra_kb(const char *mountpoint)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	if (bdi_ra_path(mountpoint, path, sizeof(path)))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* testfs's read_ahead_kb in effect (testfs_settings()), or -1. */
static long testfs_ra_kb(const struct testfs_mount *fs)
{
	struct testfs_settings set = TESTFS_SETTINGS_INIT;

	return testfs_settings(fs, &set) == 0 && set.ra_kb ? (long)set.ra_kb
							   : -1;
}

static int write_ra_kb(const char *mountpoint, unsigned kb)
{
	char path[128], buf[32];
	int fd, len, err;
	ssize_t n;

	err = bdi_ra_path(mountpoint, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%u\n", kb);
	n = write(fd, buf, (size_t)len);
	err = n < 0 ? -errno : n == len ? 0 : -EIO;
	close(fd);
	return err;
}

struct cachestat_range_uapi {
	uint64_t off;
	uint64_t len;
};

struct cachestat_uapi {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/* Pages of @fd in the page cache: cachestat(2), else mincore(). */
static int64_t cached_pages(int fd)
{
	struct cachestat_range_uapi range = { 0, 0 };
	struct cachestat_uapi cs;
	unsigned char *vec;
	int64_t n = 0;
	uint64_t i;
	void *p;

	if (!eviction.mincore) {
		if (syscall(__NR_cachestat, fd, &range, &cs, 0) == 0)
			return (int64_t)cs.nr_cache;
		if (errno != ENOSYS)
			return -errno;
		eviction.mincore = true;
	}
	/* A fresh mapping faults nothing in; mincore() sees the cache. */
	p = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	vec = malloc(FILE_PAGES);
	if (!vec || mincore(p, FILE_BYTES, vec) != 0) {
		n = vec ? -errno : -ENOMEM;
	} else {
		for (i = 0; i < FILE_PAGES; i++)
			n += vec[i] & 1;
	}
	free(vec);
	munmap(p, FILE_BYTES);
	return n;
}

/* CPU time of every thread of @pid, in ns (schedstat), or 0. */
static uint64_t process_cpu_ns(pid_t pid)
{
	char path[64], buf[320];
	unsigned long long ns;
	struct dirent *de;
	uint64_t total = 0;
	DIR *d;
	FILE *f;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof(buf), "/proc/%d/task/%s/schedstat",
			 (int)pid, de->d_name);
		f = fopen(buf, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			total += ns;
		fclose(f);
	}
	closedir(d);
	return total;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* The three mounts                                                    */
/* ------------------------------------------------------------------ */

struct mounts {
	struct testfs_mount *testfs;
	/* mkdtemp() names in /tmp, short by construction. */
	char minimal[64];
	pid_t minimal_pid;
	int tmpfs_fd; /* the file on the detached tmpfs, or -1 */
	const char *testfs_bin;
	const char *minimal_bin;
};

static const char *const testfs_files[] = {
	"stamp.bin:" FILE_SIZE_ARG ":stamp",
	"zero.bin:" FILE_SIZE_ARG ":zero",
	NULL,
};

static int start_testfs(struct mounts *m, unsigned ra_kb)
{
	struct testfs_config cfg = {
		.files = testfs_files,
		.ra_kb = ra_kb,
		.daemon = m->testfs_bin,
		.extra_args = ndaemon_args ? daemon_args : NULL,
		.timeout_ms = START_LIMIT_MS,
	};
	int err;

	/* The watchdog cannot know the pid before testfs_start() returns;
	 * --watch-pid and auto_unmount cover that window. */
	err = testfs_start(&cfg, &m->testfs);
	if (err == -ENOENT)
		return fail(err, "no testfs daemon (set TESTFS_BIN)");
	if (err == -EIO)
		return fail(err,
			    "testfs exited at start (no usable FUSE, or it "
			    "refused its arguments)");
	if (err)
		return fail(err, "testfs_start(--ra-kb %u)", ra_kb);
	slot_open(SLOT_TESTFS, testfs_mountpoint(m->testfs));
	atomic_store(&slots[SLOT_TESTFS].pid, testfs_pid(m->testfs));
	return 0;
}

static int stop_testfs(struct mounts *m)
{
	char path[PATH_MAX];
	int ret;

	if (!m->testfs)
		return 0;
	snprintf(path, sizeof(path), "%s", testfs_mountpoint(m->testfs));
	ret = testfs_stop(m->testfs);
	m->testfs = NULL;
	slot_close(SLOT_TESTFS);
	if (is_mounted(path))
		return fail(-EBUSY, "testfs mount %s left behind", path);
	return ret == 0 ? 0 : fail(ret < 0 ? ret : -EIO, "testfs_stop");
}

/* Waits for "ready\n" on @fd for up to @ms; 0, -EIO or -ETIMEDOUT. */
static int wait_ready(int fd, unsigned ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;
	char buf[64];
	size_t used = 0;
	ssize_t n;
	int r;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();

		if (now >= end)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((end - now) / 1000000ull) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		n = read(fd, buf + used, sizeof(buf) - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		used += (size_t)n;
		buf[used] = '\0';
		if (strstr(buf, "ready\n"))
			return 0;
		if (used == sizeof(buf) - 1)
			return -EIO;
	}
}

/* The child: default signals, SIGTERM when the parent dies, exec. */
static void __attribute__((noreturn))
exec_minimal(const char *bin, const char *mountpoint, int ready_fd,
	     pid_t parent)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE };
	char fdarg[16];
	struct sigaction dfl;
	sigset_t none;
	size_t i;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(127);
	if (fcntl(ready_fd, F_SETFD, 0) < 0)
		_exit(127);
	snprintf(fdarg, sizeof(fdarg), "%d", ready_fd);
	execl(bin, bin, "-f", "--size", FILE_SIZE_ARG, "--ready-fd", fdarg,
	      mountpoint, (char *)NULL);
	_exit(127);
}

static int start_minimal(struct mounts *m, unsigned ra_kb)
{
	char templ[] = "/tmp/minimal-bench.XXXXXX";
	pid_t parent = getpid(), pid;
	int pipefd[2], err;

	if (!mkdtemp(templ))
		return fail(-errno, "mkdtemp(%s)", templ);
	snprintf(m->minimal, sizeof(m->minimal), "%s", templ);
	slot_open(SLOT_MINIMAL, m->minimal);
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		err = fail(-errno, "pipe2");
		goto out_rmdir;
	}
	pid = fork();
	if (pid < 0) {
		err = fail(-errno, "fork");
		close(pipefd[0]);
		close(pipefd[1]);
		goto out_rmdir;
	}
	if (pid == 0)
		exec_minimal(m->minimal_bin, m->minimal, pipefd[1], parent);
	close(pipefd[1]);
	m->minimal_pid = pid;
	atomic_store(&slots[SLOT_MINIMAL].pid, pid);
	err = wait_ready(pipefd[0], START_LIMIT_MS);
	close(pipefd[0]);
	if (err)
		return fail(err, "%s did not get ready (no usable FUSE?)",
			    m->minimal_bin);
	err = write_ra_kb(m->minimal, ra_kb);
	if (err)
		return fail(err, "read_ahead_kb of %s", m->minimal);
	return 0;

out_rmdir:
	rmdir(m->minimal);
	slot_close(SLOT_MINIMAL);
	return err;
}

static int stop_minimal(struct mounts *m)
{
	int status = -1, err = 0;
	pid_t pid = m->minimal_pid;

	if (!atomic_load(&slots[SLOT_MINIMAL].active))
		return 0;
	if (pid > 0) {
		kill(pid, SIGTERM);
		if (!reap(pid, STOP_LIMIT_MS, &status)) {
			err = fail(-ETIMEDOUT, "minimal server did not stop");
			kill(pid, SIGKILL);
			reap(pid, STOP_LIMIT_MS, NULL);
		} else if (status != -1 &&
			   !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			err = fail(-EIO, "minimal server: exit status %d",
				   status);
		}
	}
	m->minimal_pid = 0;
	if (is_mounted(m->minimal)) {
		umount2(m->minimal, MNT_DETACH);
		if (!err)
			err = fail(-EBUSY, "minimal mount %s left behind",
				   m->minimal);
	}
	rmdir(m->minimal);
	slot_close(SLOT_MINIMAL);
	return err;
}

/*
 * A private tmpfs with the 512 MiB file, then detached at once: the file
 * stays reachable through m->tmpfs_fd (runs open /proc/self/fd/N afresh),
 * and the kernel frees the file system when this process exits, however
 * it ends, even by SIGKILL. The mount is visible for the time it takes to
 * write the file.
 */
static int mount_tmpfs(struct mounts *m)
{
	char templ[] = "/tmp/testfs-bench-tmpfs.XXXXXX", path[128];
	uint64_t done = 0;
	int fd = -1, err = 0;
	char *buf = NULL;
	ssize_t n;

	m->tmpfs_fd = -1;
	if (!mkdtemp(templ))
		return fail(-errno, "mkdtemp(%s)", templ);
	slot_open(SLOT_TMPFS, templ);
	if (mount("testfs-bench-tmpfs", templ, "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=600m,mode=0700")) {
		err = fail(-errno, "mount tmpfs on %s", templ);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/zero.bin", templ);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	buf = calloc(1, MIB);
	if (fd < 0 || !buf) {
		err = fail(fd < 0 ? -errno : -ENOMEM, "creating %s", path);
		goto out;
	}
	while (done < FILE_BYTES) {
		n = write(fd, buf, MIB);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = fail(n < 0 ? -errno : -EIO, "writing %s", path);
			goto out;
		}
		done += (uint64_t)n;
	}
	m->tmpfs_fd = fd;
	fd = -1;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	if (umount2(templ, MNT_DETACH) != 0 && errno != EINVAL && !err)
		err = fail(-errno, "detaching the tmpfs at %s", templ);
	rmdir(templ);
	slot_close(SLOT_TMPFS);
	return err;
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */
/* ------------------------------------------------------------------ */

static int file_path(const struct mounts *m, enum system s, char *buf,
		     size_t size)
{
	switch (s) {
	case SYS_STAMP:
		return testfs_path(m->testfs, "stamp.bin", buf, size);
	case SYS_ZERO:
		return testfs_path(m->testfs, "zero.bin", buf, size);
	case SYS_MINIMAL:
		snprintf(buf, size, "%s/zero.bin", m->minimal);
		return 0;
	default:
		/* A fresh open of the detached tmpfs file. */
		snprintf(buf, size, "/proc/self/fd/%d", m->tmpfs_fd);
		return 0;
	}
}

static pid_t server_pid(const struct mounts *m, enum system s)
{
	if (s == SYS_STAMP || s == SYS_ZERO)
		return testfs_pid(m->testfs);
	return s == SYS_MINIMAL ? m->minimal_pid : 0;
}

/*
 * Brings the file of @fd into the state a run starts from: none of its
 * pages cached (FUSE), or all of them (tmpfs, which cannot be evicted).
 */
static int prepare(const struct mounts *m, enum system s, int fd)
{
	const char *name = s == SYS_STAMP ? "stamp.bin" : "zero.bin";
	int64_t cached = -1;
	unsigned i;
	int err;

	if (s == SYS_TMPFS) {
		cached = cached_pages(fd);
		if (cached != (int64_t)FILE_PAGES)
			return fail(cached < 0 ? (int)cached : -EIO,
				    "tmpfs file has %" PRId64
				    " of %llu pages cached",
				    cached, FILE_PAGES);
		return 0;
	}
	eviction.runs++;
	for (i = 0; i < 100; i++) {
		if (i)
			eviction.retries++;
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (err)
			return fail(err, "posix_fadvise(DONTNEED) on %s",
				    sys_names[s]);
		cached = cached_pages(fd);
		if (cached < 0)
			return fail((int)cached, "cachestat/mincore");
		if (cached == 0)
			return 0;
		/* testfs's own, verified eviction as the last resort. */
		if (i == 20 && s != SYS_MINIMAL) {
			eviction.drop_cache++;
			err = testfs_drop_cache(m->testfs, name);
			if (err && err != -EBUSY)
				return fail(err, "drop-cache %s", name);
		}
		/* Async readahead may still be filling pages; let it. */
		sleep_ms(10);
	}
	return fail(-EBUSY, "%s: %" PRId64 " pages stay cached", sys_names[s],
		    cached);
}

/* read(2) @fd to its end, @block bytes at a time; bytes or -errno. */
static int64_t read_all(int fd, char *buf, size_t block)
{
	int64_t total = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, block);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	return n < 0 ? -errno : total;
}

/* Page @k of a fixed shuffle of the file's pages (a bijection). */
static uint64_t shuffled_page(uint64_t k)
{
	return (k * 0x9e3779b1ull + 0x2545full) & (FILE_PAGES - 1);
}

/* Where a SIGBUS in the touch loop goes (a failed FUSE read). */
static sigjmp_buf touch_env;
static volatile sig_atomic_t touching;

static void on_sigbus(int sig)
{
	(void)sig;
	/* The watchdog killed the server: let it finish and exit. */
	while (atomic_load(&stopping))
		pause();
	if (touching)
		siglongjmp(touch_env, 1);
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

/* One byte of each of TOUCHES shuffled pages; 0 or -errno. */
static int touch_random(int fd, unsigned *sum)
{
	volatile const unsigned char *p;
	volatile unsigned s = 0;
	volatile int err = 0;
	uint64_t k;
	void *map;

	map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	p = map;
	if (sigsetjmp(touch_env, 1) == 0) {
		touching = 1;
		for (k = 0; k < TOUCHES; k++)
			s += p[shuffled_page(k) * PAGE];
	} else {
		err = -EIO; /* SIGBUS: the page could not be read */
	}
	touching = 0;
	*sum = s;
	if (munmap(map, FILE_BYTES) && !err)
		err = -errno;
	return err;
}

/*
 * Checks a few pages of what was just read, from the page cache, outside
 * the timed loop: a benchmark of wrong data measures nothing.
 */
static int check_data(enum system s, int fd, char *buf)
{
	static const uint64_t pages[] = { 0, FILE_PAGES / 2 + 7,
					  FILE_PAGES - 1 };
	const char *pattern = s == SYS_STAMP ? "stamp" : "zero";
	const char *name = s == SYS_STAMP ? "stamp.bin" : "zero.bin";
	uint64_t bad = 0;
	size_t i;
	ssize_t n;
	int err;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		n = pread(fd, buf, PAGE, (off_t)(pages[i] * PAGE));
		if (n != PAGE)
			return fail(n < 0 ? -errno : -EIO, "pread %s",
				    sys_names[s]);
		err = testfs_verify(pattern, name, pages[i] * PAGE, buf, PAGE,
				    &bad);
		if (err)
			return fail(err, "%s: wrong data at offset %" PRIu64,
				    sys_names[s], bad);
	}
	return 0;
}

static int run_one(const struct mounts *m, enum system s, enum workload w,
		   char *buf, struct sample *out)
{
	const struct workload_def *wd = &workloads[w];
	uint64_t t0, t1, c0, c1, s0, s1;
	pid_t pid = server_pid(m, s);
	char path[PATH_MAX];
	unsigned sum = 0;
	int64_t got = 0;
	int fd, err;

	err = file_path(m, s, path, sizeof(path));
	if (err)
		return fail(err, "path of %s", sys_names[s]);
	/* Everything that can wait for the server has a time limit. */
	set_deadline(RUN_LIMIT_S);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_deadline(0);
		return fail(-errno, "open %s", path);
	}
	err = prepare(m, s, fd);
	if (err)
		goto out;
	s0 = process_cpu_ns(pid);
	c0 = thread_cpu_ns();
	t0 = now_ns();
	if (wd->block)
		got = read_all(fd, buf, wd->block);
	else
		err = touch_random(fd, &sum);
	t1 = now_ns();
	c1 = thread_cpu_ns();
	s1 = process_cpu_ns(pid);
	if (wd->block && got != (int64_t)FILE_BYTES) {
		err = fail(got < 0 ? (int)got : -EIO,
			   "%s: read %" PRId64 " of %llu bytes", sys_names[s],
			   got, FILE_BYTES);
		goto out;
	}
	if (err) {
		err = fail(err, "mmap touches on %s", sys_names[s]);
		goto out;
	}
	/* Byte 0 of a stamp page is the 't' of "testfs page N". */
	if (!wd->block && sum != (s == SYS_STAMP ? TOUCHES * 't' : 0)) {
		err = fail(-EILSEQ, "%s: wrong byte at a touched page start",
			   sys_names[s]);
		goto out;
	}
	err = check_data(s, fd, buf);
	if (err)
		goto out;
	out->wall_ns = t1 - t0;
	out->client_ns = c1 - c0;
	out->server_ns = s1 - s0;
	if (wd->block)
		out->value = (double)FILE_BYTES * 1000.0 / (double)out->wall_ns;
	else
		out->value = (double)TOUCHES * 1e6 / (double)out->wall_ns;
out:
	close(fd);
	set_deadline(0);
	return err;
}

/* Every workload on every system once, in the round's order. */
static int run_round(const struct mounts *m, unsigned ra, int round, char *buf)
{
	struct sample scratch;
	struct sample *dst;
	unsigned w, i;
	enum system s;
	int err;

	for (w = 0; w < NWORK; w++) {
		for (i = 0; i < NSYS; i++) {
			s = sys_order[round % 2 ? NSYS - 1 - i : i];
			dst = round < 0 ? &scratch : &results[ra][w][s][round];
			err = run_one(m, s, (enum workload)w, buf, dst);
			if (err)
				return err;
			if (raw)
				fprintf(stderr,
					"raw: ra %u round %d %-12s %-12s "
					"%8.1f %s wall %7.1f ms server "
					"%7.1f ms reader %7.1f ms\n",
					ra_values[ra], round + 1,
					workloads[w].name, sys_names[s],
					dst->value, workloads[w].unit,
					(double)dst->wall_ns / 1e6,
					(double)dst->server_ns / 1e6,
					(double)dst->client_ns / 1e6);
		}
	}
	return 0;
}

static int run_ra(struct mounts *m, unsigned ra, int rounds, char *buf)
{
	unsigned kb = ra_values[ra];
	int err, err2, r;

	fprintf(stderr,
		"throughput: read_ahead_kb %u: starting testfs and "
		"the minimal server\n",
		kb);
	err = start_testfs(m, kb);
	if (!err)
		err = start_minimal(m, kb);
	if (err)
		goto out;
	effective_ra[ra][SYS_STAMP] = testfs_ra_kb(m->testfs);
	effective_ra[ra][SYS_ZERO] = effective_ra[ra][SYS_STAMP];
	effective_ra[ra][SYS_MINIMAL] = read_ra_kb(m->minimal);
	fprintf(stderr, "throughput: read_ahead_kb %u: warm-up round\n", kb);
	err = run_round(m, ra, -1, buf);
	for (r = 0; !err && r < rounds; r++) {
		fprintf(stderr,
			"throughput: read_ahead_kb %u: round %d of %d\n", kb,
			r + 1, rounds);
		err = run_round(m, ra, r, buf);
	}
out:
	err2 = stop_minimal(m);
	if (!err)
		err = err2;
	err2 = stop_testfs(m);
	if (!err)
		err = err2;
	return err;
}

/* ------------------------------------------------------------------ */
/* Report                                                              */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, min and max of @v[@n] (sorted in place). */
static double median(double *v, int n, double *min, double *max)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	if (min)
		*min = v[0];
	if (max)
		*max = v[n - 1];
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double median_of(unsigned ra, unsigned w, enum system s, int rounds,
			int field)
{
	double v[MAX_ROUNDS];
	const struct sample *x;
	int r;

	for (r = 0; r < rounds; r++) {
		x = &results[ra][w][s][r];
		if (field == 0)
			v[r] = x->value;
		else if (field == 1)
			v[r] = 100.0 * (double)x->server_ns /
			       (double)x->wall_ns;
		else
			v[r] = 100.0 * (double)x->client_ns /
			       (double)x->wall_ns;
	}
	return median(v, rounds, NULL, NULL);
}

/* Median, min and max over the rounds of testfs @s / minimal. */
static double ratio_of(unsigned ra, unsigned w, enum system s, int rounds,
		       double *min, double *max)
{
	double v[MAX_ROUNDS];
	int r;

	for (r = 0; r < rounds; r++)
		v[r] = results[ra][w][s][r].value /
		       results[ra][w][SYS_MINIMAL][r].value;
	return median(v, rounds, min, max);
}

/* @v right-aligned in @width columns, whole numbers from 100 up. */
static void print_value(double v, int width)
{
	printf(" %*.*f |", width, v >= 100.0 ? 0 : 1, v);
}

/* The target: ra 1 MiB, 1 MiB and 4 KiB reads, >= 0.90. */
#define TARGET_RA 1
#define TARGET_RATIO 0.95
#define BAR_RATIO 0.90

static void report(int rounds)
{
	static const int widths[NSYS] = { 12, 11, 7, 7 };
	double lo, hi, ratio;
	unsigned ra, w;
	int s;

	printf("Medians over %d rounds. The ratios are the median of the "
	       "per-round ratios\ntestfs / minimal, with [min, max] over "
	       "the rounds. MB/s = 10^6 bytes/s of\nwall time; k pages/s = "
	       "thousands of pages touched per second.\n\n",
	       rounds);
	printf("| ra KiB | workload     | unit      | testfs stamp | "
	       "testfs zero | minimal | tmpfs   | stamp / minimal   | "
	       "zero / minimal    |\n");
	printf("|-------:|--------------|-----------|-------------:|"
	       "------------:|--------:|--------:|-------------------|"
	       "-------------------|\n");
	for (ra = 0; ra < NRA; ra++) {
		for (w = 0; w < NWORK; w++) {
			printf("| %6u | %-12s | %-9s |", ra_values[ra],
			       workloads[w].name, workloads[w].unit);
			for (s = 0; s < NSYS; s++)
				print_value(median_of(ra, w, (enum system)s,
						      rounds, 0),
					    widths[s]);
			for (s = SYS_STAMP; s <= SYS_ZERO; s++) {
				ratio = ratio_of(ra, w, (enum system)s, rounds,
						 &lo, &hi);
				printf(" %.2f [%.2f, %.2f] |", ratio, lo, hi);
			}
			printf("\n");
		}
	}
	printf("\nCPU time per run (median) as a share of the run's wall "
	       "time: of the server\nprocess (all its threads, from "
	       "schedstat) and of the reading thread (its\nsystem time "
	       "included: the copies out of the page cache, the "
	       "faults).\n\n");
	printf("| ra KiB | workload     | server: stamp | zero | minimal | "
	       "reader: stamp | zero | minimal | tmpfs |\n");
	printf("|-------:|--------------|--------------:|-----:|--------:|"
	       "--------------:|-----:|--------:|------:|\n");
	for (ra = 0; ra < NRA; ra++) {
		for (w = 0; w < NWORK; w++) {
			printf("| %6u | %-12s | %12.0f%% | %3.0f%% | %6.0f%% |",
			       ra_values[ra], workloads[w].name,
			       median_of(ra, w, SYS_STAMP, rounds, 1),
			       median_of(ra, w, SYS_ZERO, rounds, 1),
			       median_of(ra, w, SYS_MINIMAL, rounds, 1));
			printf(" %12.0f%% | %3.0f%% | %6.0f%% | %4.0f%% |\n",
			       median_of(ra, w, SYS_STAMP, rounds, 2),
			       median_of(ra, w, SYS_ZERO, rounds, 2),
			       median_of(ra, w, SYS_MINIMAL, rounds, 2),
			       median_of(ra, w, SYS_TMPFS, rounds, 2));
		}
	}
	printf("\nTarget (issue 7): testfs / minimal >= %.2f (aiming at "
	       "1.0; %.2f is the bar)\nat read_ahead_kb %u with 1 MiB and "
	       "4 KiB reads (medians of the per-round\nratios):\n\n",
	       TARGET_RATIO, BAR_RATIO, ra_values[TARGET_RA]);
	for (s = SYS_STAMP; s <= SYS_ZERO; s++) {
		for (w = W_READ_1M; w <= W_READ_4K; w++) {
			ratio = ratio_of(TARGET_RA, w, (enum system)s, rounds,
					 NULL, NULL);
			printf("- %s, %s: %.2f, %s\n", sys_names[s],
			       workloads[w].name, ratio,
			       ratio >= TARGET_RATIO ? "met"
			       : ratio >= BAR_RATIO  ? "missed (above the bar)"
						    : "missed (below the bar)");
		}
	}
	printf("\nEffective read_ahead_kb, read back from sysfs (tmpfs has "
	       "no readahead):\n");
	for (ra = 0; ra < NRA; ra++)
		printf("%u: testfs %ld, minimal %ld%s", ra_values[ra],
		       effective_ra[ra][SYS_STAMP],
		       effective_ra[ra][SYS_MINIMAL],
		       ra + 1 < NRA ? "; " : ".\n");
	printf("Cold starts: %u FUSE runs, each evicted with "
	       "posix_fadvise(DONTNEED) and verified\nby %s to have 0 "
	       "pages cached before the clock started; %u extra\n"
	       "attempts, %u testfs drop-cache fallbacks.\n",
	       eviction.runs, eviction.mincore ? "mincore()" : "cachestat(2)",
	       eviction.retries, eviction.drop_cache);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

/* $NAME, else @sibling next to this program if it exists, else NULL. */
/* @path relative to the working directory when it lies below it. */
static const char *shown(const char *path)
{
	static char cwd[PATH_MAX];
	size_t n;

	if (!path)
		return "(libtestfs default)";
	if (!cwd[0] && !getcwd(cwd, sizeof(cwd)))
		return path;
	n = strlen(cwd);
	if (strncmp(path, cwd, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: throughput [--quick] [--rounds N] [--raw] "
		"[--daemon-arg ARG]...\n"
		"Compares testfs with a minimal FUSE server and tmpfs: cold "
		"sequential read(2)\n"
		"of a 512 MiB file (1 MiB and 4 KiB reads) and random 4 KiB "
		"mmap touches, at\n"
		"read_ahead_kb 128 and 1024, alternating. --rounds N: N "
		"rounds (default %d,\n"
		"--quick %d, at most %d); --raw: every run on stderr "
		"(round 0: warm-up);\n"
		"--daemon-arg ARG: pass ARG to testfs (e.g. --no-trace), "
		"up to %d.\n"
		"Needs root. Environment: TESTFS_BIN, MINIMAL_SERVER.\n",
		DEFAULT_ROUNDS, QUICK_ROUNDS, MAX_ROUNDS, MAX_DAEMON_ARGS);
}

int main(int argc, char **argv)
{
	struct mounts m = { .tmpfs_fd = -1 };
	int rounds = DEFAULT_ROUNDS, i, err = 0;
	uint64_t t0 = now_ns();
	pthread_t watchdog;
	struct utsname u;
	sigset_t sigs;
	unsigned ra;
	char *end, *buf, daemon_path[PATH_MAX];
	long v;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			rounds = QUICK_ROUNDS;
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
			v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > MAX_ROUNDS) {
				fprintf(stderr,
					"throughput: --rounds '%s': expected "
					"1..%d\n",
					argv[i], MAX_ROUNDS);
				return 1;
			}
			rounds = (int)v;
		} else if (strcmp(argv[i], "--raw") == 0) {
			raw = true;
		} else if (strcmp(argv[i], "--daemon-arg") == 0 &&
			   i + 1 < argc && ndaemon_args < MAX_DAEMON_ARGS) {
			daemon_args[ndaemon_args++] = argv[++i];
		} else if (strcmp(argv[i], "-h") == 0 ||
			   strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 1;
		}
	}
	if (geteuid() != 0) {
		printf("throughput: skipped: needs root (it mounts a tmpfs and "
		       "sets read_ahead_kb)\n");
		return 77;
	}
	/* The daemon libtestfs runs (TESTFS_BIN, else this build's). */
	if (testfs_find_daemon(NULL, daemon_path, sizeof(daemon_path)) == 0)
		m.testfs_bin = realpath(daemon_path, NULL);
	m.minimal_bin = bench_find_binary("MINIMAL_SERVER", "minimal_server");
	if (!m.minimal_bin) {
		fprintf(stderr, "throughput: could not run: no minimal server "
				"(set MINIMAL_SERVER)\n");
		return 1;
	}
	buf = aligned_alloc(PAGE, MIB);
	if (!buf) {
		fprintf(stderr, "throughput: out of memory\n");
		return 1;
	}

	/* A page of a dead FUSE server faults with SIGBUS. */
	signal(SIGBUS, on_sigbus);
	/* Signals go to the watchdog only; children unblock them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	err = pthread_create(&watchdog, NULL, watchdog_main, &sigs);
	if (err) {
		fprintf(stderr, "throughput: watchdog thread: %s\n",
			strerror(err));
		return 1;
	}

	if (uname(&u) != 0)
		strcpy(u.release, "unknown");
	printf("testfs throughput benchmark%s: Linux %s %s, nproc %ld\n\n",
	       rounds == QUICK_ROUNDS ? " (--quick)" : "", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("- testfs: %s, log on (its in-memory ring; no --log file), ",
	       shown(m.testfs_bin));
	if (!ndaemon_args)
		printf("its default arguments\n");
	for (i = 0; i < ndaemon_args; i++)
		printf("%s%s", i ? " " : "arguments: ", daemon_args[i]);
	if (ndaemon_args)
		printf("\n");
	printf("- minimal: %s\n"
	       "- tmpfs: page-cache hits (a tmpfs file cannot be evicted): "
	       "the ceiling\n"
	       "- files of 512 MiB; mmap: %u distinct random pages; "
	       "FUSE runs cold (verified)\n"
	       "- %d rounds after a warm-up round, in the order stamp, "
	       "minimal, zero, tmpfs,\n"
	       "  reversed every other round\n\n",
	       shown(m.minimal_bin), TOUCHES, rounds);
	fflush(stdout);

	fprintf(stderr, "throughput: mounting tmpfs and writing its file\n");
	err = mount_tmpfs(&m);
	for (ra = 0; !err && ra < NRA; ra++)
		err = run_ra(&m, ra, rounds, buf);
	if (m.tmpfs_fd >= 0)
		close(m.tmpfs_fd);
	if (err) {
		wait_if_stopping();
		/* Whatever failed, nothing stays mounted. */
		cleanup_slots();
		fflush(stdout);
		fprintf(stderr, "throughput: could not run: %s\n", failure);
		return 1;
	}
	report(rounds);
	printf("\nTotal time %.1f s.\n", (double)(now_ns() - t0) / 1e9);
	free(buf);
	free((char *)m.testfs_bin);
	free((char *)m.minimal_bin);
	return 0;
}
