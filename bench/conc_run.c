// SPDX-License-Identifier: MIT
#include "conc_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

struct sys systems[NSYS];
static uint64_t file_size;
static char uring_why[224];   /* why testfs --transport uring is skipped */
static char notrace_why[224]; /* why testfs --no-trace is skipped */
/* Each testfs writes its log here, DIR/K.jsonl ("": no --log). */
static char log_dir[64];

/* The last line @f holds, in @buf; "no message" when it is empty. */
static void last_line(FILE *f, char *buf, size_t len)
{
	char line[256];

	snprintf(buf, len, "no message");
	if (!f)
		return;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		if (!n)
			continue;
		if (n >= len)
			n = len - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
	}
}

/*
 * Runs @argv (@FD: the write end of the ready pipe) until it says ready.
 * With @why, what the program said on stderr goes there when it fails
 * (its last line), and nowhere when it starts.
 */
static int start(struct sys *s, const char *const argv[], char *why,
		 size_t why_len)
{
	FILE *err = why ? tmpfile() : NULL;
	int pfd[2], ws;
	char buf[8];
	struct pollfd p;

	if (pipe(pfd))
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		const char *a[32];
		char fd[16];
		int i;

		close(pfd[0]);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* A probe may fail: its messages go to why, not to stderr. */
		if (err)
			dup2(fileno(err), 2);
		snprintf(fd, sizeof(fd), "%d", pfd[1]);
		for (i = 0; argv[i] && i < 31; i++)
			a[i] = strcmp(argv[i], "@FD") ? argv[i] : fd;
		a[i] = NULL;
		execv(a[0], (char *const *)a);
		_exit(127);
	}
	close(pfd[1]);
	p.fd = pfd[0];
	p.events = POLLIN;
	if (poll(&p, 1, 10000) != 1 || read(pfd[0], buf, sizeof(buf)) <= 0) {
		close(pfd[0]);
		kill(s->pid, SIGTERM);
		waitpid(s->pid, &ws, 0);
		s->pid = 0;
		if (why)
			last_line(err, why, why_len);
		else
			fprintf(stderr, "concurrency: %s did not start\n",
				s->name);
		if (err)
			fclose(err);
		return -1;
	}
	close(pfd[0]);
	if (err)
		fclose(err);
	return 0;
}

static void stop(struct sys *s)
{
	int ws;

	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		if (!bench_reap(s->pid, 10000, NULL)) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &ws, 0);
		}
		s->pid = 0;
	}
	if (s->dir[0])
		rmdir(s->dir);
}

const char *conc_log_dir(void)
{
	return log_dir;
}

static void log_path(unsigned k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%u.jsonl", log_dir, k);
}

void conc_stop_all(void)
{
	char path[96];
	unsigned k;

	for (k = 0; k < NSYS; k++)
		stop(&systems[k]);
	if (!log_dir[0])
		return;
	for (k = 0; k < M_ONE; k++) {
		log_path(k, path, sizeof(path));
		unlink(path);
	}
	rmdir(log_dir);
	log_dir[0] = '\0';
}

void conc_kill_servers(void)
{
	int k;

	for (k = 0; k < NSYS; k++)
		if (systems[k].pid > 0)
			kill(systems[k].pid, SIGTERM);
}

/*
 * Evicts the file and checks with mincore() that none of it is cached;
 * for tmpfs, that all of it is. Returns false if that cannot be reached.
 */
static bool prepare(const struct sys *s, bool want_cached)
{
	size_t pages = file_size / 4096, i;
	int fd = open(s->file, O_RDONLY), tries;
	unsigned char *vec = malloc(pages);
	void *map = MAP_FAILED;
	bool ok = false;

	if (fd >= 0)
		map = mmap(NULL, file_size, PROT_READ, MAP_SHARED, fd, 0);
	for (tries = 0; map != MAP_FAILED && vec && tries < 50 && !ok;
	     tries++) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		ok = mincore(map, file_size, vec) == 0;
		for (i = 0; ok && i < pages; i++)
			ok = (vec[i] & 1) == want_cached;
		if (!ok)
			usleep(20000);
	}
	if (map != MAP_FAILED)
		munmap(map, file_size);
	free(vec);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Readers wait at the gate until all of them have opened the file. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned waiting;
	bool open;
};

struct reader {
	const char *path;
	uint64_t off, len;
	size_t block;
	struct gate *gate;
	uint64_t end_ns;
	int err;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char *buf = malloc(r->block);
	uint64_t done = 0;
	int fd = open(r->path, O_RDONLY);

	r->err = fd < 0 || !buf;
	pthread_mutex_lock(&r->gate->lock);
	r->gate->waiting++;
	pthread_cond_broadcast(&r->gate->cond);
	while (!r->gate->open)
		pthread_cond_wait(&r->gate->cond, &r->gate->lock);
	pthread_mutex_unlock(&r->gate->lock);
	while (!r->err && done < r->len) {
		ssize_t n = pread(fd, buf, r->block, (off_t)(r->off + done));

		if (n <= 0)
			r->err = 1;
		done += n > 0 ? (uint64_t)n : 0;
	}
	r->end_ns = bench_now_ns();
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/*
 * MB/s, or a negative value when the run could not be made. The clock
 * starts before the gate opens (on 2 CPUs the readers would otherwise
 * run before this thread could read the clock) and stops at the end of
 * the last reader's last read.
 */
double conc_run(const struct sys *s, bool is_tmpfs, unsigned nreaders,
		size_t block)
{
	struct gate gate = { PTHREAD_MUTEX_INITIALIZER,
			     PTHREAD_COND_INITIALIZER, 0, false };
	struct reader r[CONC_MAX_READERS];
	pthread_t th[CONC_MAX_READERS];
	uint64_t t0, t1 = 0, share = file_size / nreaders;
	unsigned i;
	int err = 0;

	if (!prepare(s, is_tmpfs))
		return -1;
	alarm(CONC_RUN_LIMIT_S);
	for (i = 0; i < nreaders; i++) {
		r[i] = (struct reader){ s->file, i * share, share, block,
					&gate,	 0,	    0 };
		if (pthread_create(&th[i], NULL, reader_main, &r[i])) {
			fprintf(stderr, "concurrency: cannot start readers\n");
			conc_kill_servers();
			exit(1);
		}
	}
	pthread_mutex_lock(&gate.lock);
	while (gate.waiting < nreaders)
		pthread_cond_wait(&gate.cond, &gate.lock);
	t0 = bench_now_ns();
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
	for (i = 0; i < nreaders; i++) {
		pthread_join(th[i], NULL);
		err |= r[i].err;
		if (r[i].end_ns > t1)
			t1 = r[i].end_ns;
	}
	alarm(0);
	if (err)
		return -1;
	return (double)file_size / ((double)(t1 - t0) / 1e9) / 1e6;
}

/* Does the daemon's --help name --transport (with uring)? */
static bool testfs_has_uring(const char *testfs)
{
	char cmd[PATH_MAX + 32], line[512];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --help 2>&1", testfs);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "--transport") && strstr(line, "uring"))
			found = true;
	pclose(p);
	return found;
}

/* A private tmpfs with the file, detached at once: see the top. */
static int make_tmpfs(struct sys *s)
{
	char templ[] = "/tmp/testfs-bench-conc-tmpfs.XXXXXX", opts[64];
	uint64_t done = 0;
	char *buf = calloc(1, MIB);
	int fd = -1, err = -1;

	if (!buf || !mkdtemp(templ))
		goto out;
	snprintf(opts, sizeof(opts), "size=%llum,mode=0700",
		 (unsigned long long)(file_size / MIB + 16));
	if (mount("testfs-bench-conc", templ, "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, opts)) {
		fprintf(stderr, "concurrency: mount tmpfs on %s: %s\n", templ,
			strerror(errno));
		rmdir(templ);
		goto out;
	}
	snprintf(s->file, sizeof(s->file), "%s/f.bin", templ);
	fd = open(s->file, O_RDWR | O_CREAT | O_EXCL, 0600);
	/* Not all zeros: tmpfs would keep those too, but be fair anyway. */
	memset(buf, 0x5a, MIB);
	while (fd >= 0 && done < file_size && write(fd, buf, MIB) == MIB)
		done += MIB;
	if (done == file_size)
		err = 0;
	else
		fprintf(stderr, "concurrency: writing the tmpfs file failed\n");
	umount2(templ, MNT_DETACH);
	rmdir(templ);
	/* Runs open the file afresh through this descriptor. */
	snprintf(s->file, sizeof(s->file), "/proc/%d/fd/%d", (int)getpid(), fd);
out:
	free(buf);
	return err;
}

int conc_start_all(const struct conc_setup *setup)
{
	const char *testfs = setup->testfs, *minimal = setup->minimal;
	char file_arg[64], watch[16], size_m[32], nthr[16], why[160], lp[96];
	unsigned k, threads = setup->threads;

	file_size = setup->file_size;
	if (!setup->no_log) {
		snprintf(log_dir, sizeof(log_dir),
			 "/tmp/testfs-bench-conc-logs.XXXXXX");
		if (!mkdtemp(log_dir)) {
			fprintf(stderr, "concurrency: mkdtemp %s: %s\n",
				log_dir, strerror(errno));
			log_dir[0] = '\0';
			return -1;
		}
	}

	snprintf(file_arg, sizeof(file_arg), "f.bin:%lluM:%s",
		 (unsigned long long)(file_size / MIB), setup->pattern);
	snprintf(size_m, sizeof(size_m), "%lluM",
		 (unsigned long long)(file_size / MIB));
	snprintf(watch, sizeof(watch), "%d", (int)getpid());
	snprintf(nthr, sizeof(nthr), "%u", threads);
	snprintf(systems[T_ONE].name, 48, "testfs --threads 1");
	snprintf(systems[T_MANY].name, 48, "testfs --threads %u", threads);
	snprintf(systems[T_URING].name, 48,
		 "testfs --transport uring --threads %u", threads);
	snprintf(systems[T_NOTRACE].name, 48, "testfs --threads 1 --no-trace");
	snprintf(systems[M_ONE].name, 48, "minimal 1 thread");
	snprintf(systems[M_MANY].name, 48, "minimal %u threads", threads);
	snprintf(systems[M_FILL].name, 48, "minimal 1 thread, memset");
	if (!setup->fill_line)
		systems[M_FILL].skip = "not asked for (--fill-line)";
	snprintf(systems[TMPFS].name, 48, "tmpfs");
	for (k = 0; k < TMPFS; k++) {
		snprintf(systems[k].dir, sizeof(systems[k].dir),
			 "/tmp/testfs-bench-conc.%d.%u", (int)getpid(), k);
		if (mkdir(systems[k].dir, 0755)) {
			fprintf(stderr, "concurrency: mkdir %s: %s\n",
				systems[k].dir, strerror(errno));
			return -1;
		}
		snprintf(systems[k].file, sizeof(systems[k].file), "%s/%s",
			 systems[k].dir, k < M_ONE ? "f.bin" : "zero.bin");
	}
	for (k = 0; k < M_ONE; k++) {
		const char *th_opt = k == T_URING ? "--transport" : "--threads";
		const char *th_val = k == T_URING  ? "uring"
				     : k == T_MANY ? nthr
						   : "1";
		const char *a[16 + CONC_MAX_DAEMON_ARGS + 2] = {
			testfs,	  "-f",		 "-q",	"--ready-fd",
			"@FD",	  "--watch-pid", watch, "--file",
			file_arg, th_opt,	 th_val
		};
		unsigned n = 11, j;

		/* The same N threads as testfs --threads N: over the ring
		 * they serve its queues (ceil(N / queues) each). */
		if (k == T_URING) {
			a[n++] = "--threads";
			a[n++] = nthr;
		}
		/* A probe: it may fail, and says why. */
		bool probe = k == T_URING || k == T_NOTRACE;
		char *skip_why = k == T_URING ? uring_why : notrace_why;

		if (k == T_NOTRACE)
			a[n++] = "--no-trace";
		if (log_dir[0]) {
			log_path(k, lp, sizeof(lp));
			a[n++] = "--log";
			a[n++] = lp;
		}
		for (j = 0; j < setup->n_daemon_args; j++)
			a[n++] = setup->daemon_args[j];
		a[n++] = systems[k].dir;
		a[n] = NULL;

		if (k == T_URING && !testfs_has_uring(testfs)) {
			systems[k].skip = "testfs has no --transport uring";
			continue;
		}
		if (start(&systems[k], a, probe ? why : NULL, sizeof(why))) {
			if (!probe)
				return -1;
			snprintf(skip_why, sizeof(uring_why),
				 "%.40s did not start: %.150s", systems[k].name,
				 why);
			systems[k].skip = skip_why;
		}
	}
	for (k = M_ONE; k <= M_FILL; k++) {
		const char *a[] = {
			minimal,	"-f",
			"--size",	size_m,
			"--threads",	k == M_MANY ? nthr : "1",
			"--fill",	k == M_FILL ? "memset" : "static",
			"--ready-fd",	"@FD",
			systems[k].dir, NULL
		};

		if (systems[k].skip)
			continue;
		if (start(&systems[k], a, NULL, 0))
			return -1;
	}
	for (k = 0; k < TMPFS; k++) {
		struct stat st;

		if (!systems[k].skip && stat(systems[k].dir, &st) == 0)
			systems[k].dev = st.st_dev;
	}
	return make_tmpfs(&systems[TMPFS]);
}
