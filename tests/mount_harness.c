// SPDX-License-Identifier: MIT
#include "mount_harness.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/mountinfo.h"
#include "common/pagecache.h"

#define START_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 10000

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void harness_require_fuse(void)
{
	const char *ci = getenv("CI");
	const char *why = NULL;
	int fd;

	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		why = errno == ENOENT ? "/dev/fuse missing"
				      : "/dev/fuse not usable by this user";
	else
		close(fd);
	if (!why && access("/usr/bin/fusermount3", X_OK) != 0 &&
	    access("/bin/fusermount3", X_OK) != 0)
		why = "fusermount3 not installed (package fuse3)";
	if (!why && geteuid() != 0) {
		struct stat st;

		if (stat("/usr/bin/fusermount3", &st) != 0 ||
		    !(st.st_mode & S_ISUID))
			why = "fusermount3 not setuid and not root";
	}
	if (!why)
		return;
	if (ci && strcmp(ci, "true") == 0)
		cr_assert_fail("FUSE unavailable under CI=true: %s", why);
	cr_skip_test("FUSE unavailable: %s", why);
}

const char *harness_tmp_dir(void)
{
	static char base[HARNESS_TMP_MAX];
	const char *env;
	struct stat st;

	if (base[0])
		return base;
	env = getenv("TMPDIR");
	if (!env || env[0] != '/' || stat(env, &st) != 0 ||
	    !S_ISDIR(st.st_mode))
		env = "/tmp";
	if ((size_t)snprintf(base, sizeof(base), "%s", env) >= sizeof(base))
		harness_crash("TMPDIR '%s' is longer than %d bytes", env,
			      HARNESS_TMP_MAX - 1);
	/* "/tmp/" and "/tmp" are the same place; the prefix adds the "/". */
	while (strlen(base) > 1 && base[strlen(base) - 1] == '/')
		base[strlen(base) - 1] = '\0';
	return base;
}

/*
 * Criterion runs each test in a worker it starts from /proc/self/exe
 * under the name "boxfort-worker": the executable's own file name is the
 * test binary's name in the runner and in every worker alike.
 */
static const char *binary_name(void)
{
	static char name[64];
	char exe[PATH_MAX];
	const char *base;
	ssize_t n;

	if (name[0])
		return name;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		harness_crash("readlink /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	if (strlen(base) >= sizeof(name))
		harness_crash("test binary name '%s' is too long", base);
	memcpy(name, base, strlen(base) + 1);
	return name;
}

const char *harness_prefix(void)
{
	static char prefix[HARNESS_TMP_MAX + 96];

	if (!prefix[0])
		snprintf(prefix, sizeof(prefix), "%s/" HARNESS_PREFIX "%s.",
			 harness_tmp_dir(), binary_name());
	return prefix;
}

const char *harness_bin(void)
{
	static char path[4096];
	const char *bin = getenv("TESTFS_BIN");
	ssize_t n;

	if (bin && *bin)
		return bin;
	/* Run by hand: the daemon is built beside tests/ in the build tree. */
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n <= 0)
		return "./src/testfs";
	path[n] = '\0';
	*strrchr(path, '/') = '\0';
	strcat(path, "/../src/testfs");
	return path;
}

bool harness_is_mounted(const char *dir)
{
	return mountinfo_find(dir, NULL);
}

bool harness_wait_unmounted(const char *dir, unsigned guard_ms)
{
	uint64_t end = now_ms() + guard_ms, now;
	struct pollfd pfd;
	bool gone;

	/*
	 * The kernel flags an open mountinfo file (POLLPRI) when the mount
	 * table changed since the open or the last poll: an unmount after
	 * the check below wakes the poll, one before it is seen by the
	 * check.
	 */
	pfd.fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	pfd.events = POLLPRI;
	for (;;) {
		gone = !harness_is_mounted(dir);
		now = now_ms();
		if (gone || now >= end)
			break;
		if (pfd.fd < 0) {
			sleep_ms(10);
			continue;
		}
		/* Each change is reported once: the next poll waits again. */
		poll(&pfd, 1, (int)(end - now));
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	return gone;
}

void harness_start(struct tfs_mount *m, const char *const *args)
{
	const char *argv[64];
	char readyfd[16], watch[32];
	int pipefd[2], n = 0, i;
	struct pollfd pfd;
	char buf[16];
	pid_t pid;

	memset(m, 0, sizeof(*m));
	harness_require_fuse();
	snprintf(m->root, sizeof(m->root), "%sXXXXXX", harness_prefix());
	cr_assert_not_null(mkdtemp(m->root), "mkdtemp: %s", strerror(errno));
	snprintf(m->dir, sizeof(m->dir), "%s/mnt", m->root);
	cr_assert_eq(mkdir(m->dir, 0755), 0, "mkdir %s: %s", m->dir,
		     strerror(errno));
	cr_assert_eq(pipe(pipefd), 0);
	snprintf(readyfd, sizeof(readyfd), "%d", pipefd[1]);
	snprintf(watch, sizeof(watch), "%d", (int)getpid());
	argv[n++] = harness_bin();
	argv[n++] = "-f";
	argv[n++] = "-q";
	argv[n++] = "--ready-fd";
	argv[n++] = readyfd;
	argv[n++] = "--watch-pid";
	argv[n++] = watch;
	/*
	 * These tests count records exactly: without kernel tracing, unless
	 * a test asks for it, the log holds nothing but reads and marks.
	 */
	for (i = 0; args && args[i]; i++)
		if (!strcmp(args[i], "--trace") ||
		    !strcmp(args[i], "--no-trace"))
			break;
	if (!args || !args[i])
		argv[n++] = "--no-trace";
	for (i = 0; args && args[i] && n < 62; i++)
		argv[n++] = args[i];
	argv[n++] = m->dir;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(pipefd[0]);
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	m->pid = pid;
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, START_TIMEOUT_MS) != 1 ||
	    read(pipefd[0], buf, sizeof(buf)) <= 0) {
		close(pipefd[0]);
		harness_stop(m);
		cr_assert_fail(
			"testfs did not become ready (waited at most %d ms; exit status %d)",
			START_TIMEOUT_MS, m->status);
	}
	close(pipefd[0]);
	cr_assert(harness_is_mounted(m->dir), "%s is not mounted", m->dir);
}

static int wait_exit(pid_t pid, unsigned timeout_ms, int *status)
{
	uint64_t end = now_ms() + timeout_ms;
	int ws;

	for (;;) {
		pid_t r = waitpid(pid, &ws, WNOHANG);

		if (r == pid) {
			*status =
				WIFEXITED(ws) ? WEXITSTATUS(ws) : -WTERMSIG(ws);
			return 0;
		}
		if (r < 0)
			return -errno;
		if (now_ms() > end)
			return -ETIMEDOUT;
		sleep_ms(10);
	}
}

int harness_stop(struct tfs_mount *m)
{
	uint64_t end;

	if (!m->pid)
		return m->status;
	/* A test that already reaped the daemon still gets the clean-up. */
	if (!m->stopped) {
		m->stopped = true;
		kill(m->pid, SIGTERM);
		if (wait_exit(m->pid, STOP_TIMEOUT_MS, &m->status) != 0) {
			kill(m->pid, SIGKILL);
			wait_exit(m->pid, STOP_TIMEOUT_MS, &m->status);
			m->status = -SIGKILL;
		}
	}
	/* auto_unmount removes the mount asynchronously after a crash. */
	end = now_ms() + 5000;
	while (harness_is_mounted(m->dir) && now_ms() < end)
		sleep_ms(10);
	if (harness_is_mounted(m->dir))
		umount2(m->dir, MNT_DETACH);
	rmdir(m->dir);
	rmdir(m->root);
	return m->status;
}

char *harness_path(struct tfs_mount *m, const char *name)
{
	static __thread char paths[8][512];
	static __thread unsigned next;
	char *p = paths[next++ % 8];

	snprintf(p, 512, "%s/%s", m->dir, name);
	return p;
}

int harness_ctl(struct tfs_mount *m, const char *cmd)
{
	int fd, err = 0;
	ssize_t n;

	fd = open(harness_path(m, CONTROL_PATH_CTL), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(cmd))
		err = -EIO;
	/* A command without a newline runs at close(), which reports it. */
	if (close(fd) != 0 && !err)
		err = -errno;
	return err;
}

char *harness_read_file(const char *path, size_t *len)
{
	size_t cap = 65536, used = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;
	int fd;

	cr_assert_not_null(buf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	while ((n = read(fd, buf + used, cap - used)) > 0) {
		used += (size_t)n;
		if (used == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			cr_assert_not_null(buf);
		}
	}
	cr_assert_geq(n, 0, "read %s: %s", path, strerror(errno));
	close(fd);
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

void harness_settle(struct tfs_mount *m)
{
	char path[128], buf[32];
	uint64_t end = now_ms() + 5000;
	struct stat st;
	unsigned kdev;
	int fd;
	ssize_t n;

	cr_assert_eq(stat(m->dir, &st), 0);
	kdev = (major(st.st_dev) << 20) | minor(st.st_dev);
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/waiting",
		 kdev);
	while (now_ms() < end) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return; /* no fusectl: nothing to wait on */
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			if (atoi(buf) == 0)
				return;
		}
		sleep_ms(2);
	}
	cr_assert_fail("requests of %s still in flight after 5 s", m->dir);
}

void harness_log(struct tfs_mount *m, struct tfs_log *log)
{
	struct log_bin_header hdr;
	size_t len;
	char *buf;

	buf = harness_read_file(harness_path(m, CONTROL_PATH_LOG_BIN), &len);
	cr_assert_geq(len, sizeof(hdr), "log.bin shorter than its header");
	memcpy(&hdr, buf, sizeof(hdr));
	cr_assert_eq(memcmp(hdr.magic, "TFSLOG1\n", 8), 0, "bad log.bin magic");
	cr_assert_eq(hdr.record_size, sizeof(struct log_record));
	cr_assert_eq(len, sizeof(hdr) + hdr.count * sizeof(struct log_record),
		     "log.bin length %zu does not match its %llu records", len,
		     (unsigned long long)hdr.count);
	memset(log, 0, sizeof(*log));
	log->count = hdr.count;
	log->lost = hdr.lost;
	log->first_seq = hdr.first_seq;
	log->next_seq = hdr.next_seq;
	log->flags = hdr.flags;
	log->recs = malloc(hdr.count * sizeof(struct log_record) + 1);
	cr_assert_not_null(log->recs);
	memcpy(log->recs, buf + sizeof(hdr),
	       hdr.count * sizeof(struct log_record));
	free(buf);
}

void harness_log_free(struct tfs_log *log)
{
	free(log->recs);
	memset(log, 0, sizeof(*log));
}

size_t harness_assert_kernel_order(const struct tfs_log *log)
{
	uint64_t last = 0;
	size_t i, reads = 0;

	cr_assert(log->flags & LOG_BIN_UNIQUE, "log.bin lacks LOG_BIN_UNIQUE");
	cr_assert_eq(log->lost, 0, "%llu records lost",
		     (unsigned long long)log->lost);
	for (i = 0; i < log->count; i++) {
		const struct log_record *r = &log->recs[i];

		if (i)
			cr_assert_eq(r->seq, log->recs[i - 1].seq + 1,
				     "seq %llu follows %llu",
				     (unsigned long long)r->seq,
				     (unsigned long long)log->recs[i - 1].seq);
		if (r->kind != LOG_READ)
			continue;
		cr_assert_neq(r->read.unique, 0, "seq %llu: no unique",
			      (unsigned long long)r->seq);
		cr_assert_eq(r->read.unique & 1, 0, "seq %llu: odd unique %llu",
			     (unsigned long long)r->seq,
			     (unsigned long long)r->read.unique);
		cr_assert_gt(r->read.unique, last,
			     "seq %llu: unique %llu after %llu",
			     (unsigned long long)r->seq,
			     (unsigned long long)r->read.unique,
			     (unsigned long long)last);
		last = r->read.unique;
		reads++;
	}
	return reads;
}

size_t harness_fetch_counts(const struct tfs_log *log, uint64_t ino,
			    uint32_t *counts, size_t npages)
{
	size_t i, nrec = 0;
	uint64_t p, first, end;

	memset(counts, 0, npages * sizeof(*counts));
	for (i = 0; i < log->count; i++) {
		const struct log_record *r = &log->recs[i];

		if (r->kind != LOG_READ || r->read.ino != ino ||
		    (r->flags & LOG_FLAG_DIRECT))
			continue;
		nrec++;
		first = r->read.off / 4096;
		end = (r->read.off + r->read.len + 4095) / 4096;
		for (p = first; p < end && p < npages; p++)
			counts[p]++;
	}
	return nrec;
}

void harness_resident(const char *path, unsigned char *vec, size_t npages)
{
	void *map;
	size_t i;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	map = mmap(NULL, npages * 4096, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(map, MAP_FAILED, "mmap: %s", strerror(errno));
	cr_assert_eq(mincore(map, npages * 4096, vec), 0, "mincore: %s",
		     strerror(errno));
	for (i = 0; i < npages; i++)
		vec[i] &= 1;
	munmap(map, npages * 4096);
	close(fd);
}

uint64_t harness_ino(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "stat %s: %s", path, strerror(errno));
	return st.st_ino;
}

/*
 * Whether every fetch of @page after its first follows an eviction, and,
 * with @gone, whether it was evicted after its last fetch too.
 */
static bool refetches_explained(const struct tfs_log *log, uint64_t ino,
				uint64_t page, bool gone,
				harness_evicted_fn *evicted, void *arg)
{
	uint64_t prev_ns = 0;
	bool seen = false;
	size_t i;

	for (i = 0; i < log->count; i++) {
		const struct log_record *r = &log->recs[i];
		uint64_t first = r->read.off / 4096;
		uint64_t end = (r->read.off + r->read.len + 4095) / 4096;

		if (r->kind != LOG_READ || r->read.ino != ino ||
		    (r->flags & LOG_FLAG_DIRECT) || page < first || page >= end)
			continue;
		if (seen && !evicted(page, prev_ns, r->t_ns, arg))
			return false;
		seen = true;
		prev_ns = r->t_ns;
	}
	return !gone || (seen && evicted(page, prev_ns, UINT64_MAX, arg));
}

size_t harness_assert_log_matches_cache(struct tfs_mount *m, const char *name,
					size_t npages)
{
	return harness_assert_log_matches_cache_evicting(m, name, npages, NULL,
							 NULL);
}

size_t harness_assert_log_matches_cache_evicting(struct tfs_mount *m,
						 const char *name,
						 size_t npages,
						 harness_evicted_fn *evicted,
						 void *arg)
{
	size_t refetched = 0, evicted_since = 0;
	uint64_t ino;
	const char *path = harness_path(m, name);
	unsigned char *vec = malloc(npages);
	uint32_t *counts = malloc(npages * sizeof(*counts));
	struct tfs_log log;
	size_t p, fetched = 0, mismatches = 0, first_bad = 0, cached_only = 0;
	struct pagecache_stat cs;

	cr_assert(vec && counts);
	harness_settle(m);
	harness_log(m, &log);
	cr_assert_eq(log.lost, 0, "the log lost %llu records",
		     (unsigned long long)log.lost);
	ino = harness_ino(path);
	harness_fetch_counts(&log, ino, counts, npages);
	harness_resident(path, vec, npages);
	for (p = 0; p < npages; p++) {
		if (counts[p] > 1 && evicted &&
		    refetches_explained(&log, ino, p, false, evicted, arg)) {
			/* Once per stay in the cache: now it is there once. */
			refetched += counts[p] - 1;
			counts[p] = 1;
		}
		cr_assert_leq(counts[p], 1, "%s page %zu fetched %u times%s",
			      name, p, counts[p],
			      evicted ? " with no eviction between" : "");
		fetched += counts[p];
		/* Fetched, then taken by reclaim: not in the cache now. */
		if (counts[p] && !vec[p] && evicted &&
		    refetches_explained(&log, ino, p, true, evicted, arg)) {
			evicted_since++;
			continue;
		}
		if ((counts[p] != 0) != (vec[p] != 0)) {
			if (!mismatches)
				first_bad = p;
			mismatches++;
			if (vec[p])
				cached_only++;
		}
	}
	/*
	 * Reclaim (kswapd, or DAMON on some VMs) may evict a page between
	 * the read and this check; it leaves a shadow entry that cachestat()
	 * counts and drop-cache does not. So many fetched-but-gone pages are
	 * explained; a cached page that was never fetched never is.
	 */
	if (mismatches && !cached_only) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 && pagecache_stat(fd, 0, 0, &cs) == 0 &&
		    cs.nr_evicted >= mismatches)
			mismatches = 0;
		if (fd >= 0)
			close(fd);
	}
	cr_assert_eq(
		mismatches, 0,
		"%s: %zu pages differ between the log and mincore(), first at page %zu (logged %u, resident %u)",
		name, mismatches, first_bad, counts[first_bad], vec[first_bad]);
	if (refetched || evicted_since)
		cr_log_info("%s: %zu fetches of pages evicted after an earlier "
			    "fetch, %zu pages evicted after their fetch "
			    "(reclaim)",
			    name, refetched, evicted_since);
	harness_log_free(&log);
	free(vec);
	free(counts);
	return fetched;
}

int harness_run(const char *const *argv, char **out, int timeout_s)
{
	size_t cap = 4096, used = 0;
	int pipefd[2], status = -1;
	uint64_t end;
	pid_t pid;
	char *buf;

	buf = malloc(cap + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	end = now_ms() + (uint64_t)timeout_s * 1000;
	for (;;) {
		struct pollfd pfd = { pipefd[0], POLLIN, 0 };
		int left = (int)(end - now_ms());
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			break;
		if (used == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			cr_assert_not_null(buf);
		}
		n = read(pipefd[0], buf + used, cap - used);
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(pipefd[0]);
	buf[used] = '\0';
	if (wait_exit(pid, (unsigned)timeout_s * 1000, &status) != 0) {
		kill(pid, SIGKILL);
		wait_exit(pid, 5000, &status);
		status = -1;
	}
	*out = buf;
	return status;
}

void harness_stop_checked(struct tfs_mount *m)
{
	int status = harness_stop(m);

	if (status != 0)
		harness_crash("testfs exited with status %d", status);
}

void harness_crash(const char *fmt, ...)
{
	struct rlimit no_core = { 0, 0 };
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	setrlimit(RLIMIT_CORE, &no_core);
	abort();
}

void harness_assert_no_leftover_mounts(void)
{
	char line[4096], mnt[4096], fstype[256];
	uint64_t end = now_ms() + 5000;
	bool found;
	FILE *f;

	do {
		found = false;
		f = fopen("/proc/self/mountinfo", "re");
		if (!f)
			return;
		while (fgets(line, sizeof(line), f)) {
			char *sep = strstr(line, " - ");

			if (!sep ||
			    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
			    sscanf(sep + 3, "%255s", fstype) != 1)
				continue;
			if (strncmp(mnt, harness_prefix(),
				    strlen(harness_prefix())) == 0 &&
			    strcmp(fstype, "fuse.testfs") == 0)
				found = true;
		}
		fclose(f);
		if (found)
			sleep_ms(20);
	} while (found && now_ms() < end);
	cr_assert(!found, "a testfs mount under %s* was left behind",
		  harness_prefix());
}

/*
 * After all tests of a binary (and after their daemons had time to see
 * their test process exit), no mount of ours may remain. A report hook
 * cannot fail a test, so it fails the whole run.
 */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	char line[4096], mnt[4096];
	uint64_t end = now_ms() + 5000;
	int left;
	FILE *f;

	(void)stats;
	do {
		left = 0;
		f = fopen("/proc/self/mountinfo", "re");
		if (!f)
			return;
		while (fgets(line, sizeof(line), f)) {
			char *sep = strstr(line, " - ");

			if (sep && strstr(sep, "fuse.testfs") &&
			    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
			    strncmp(mnt, harness_prefix(),
				    strlen(harness_prefix())) == 0)
				left++;
		}
		fclose(f);
		if (left)
			sleep_ms(20);
	} while (left && now_ms() < end);
	if (left) {
		fprintf(stderr,
			"FAIL: %d testfs mount(s) under %s* left behind\n",
			left, harness_prefix());
		fflush(stderr);
		_exit(1);
	}
}
