// SPDX-License-Identifier: MIT
/*
 * A lazy unmount (fusermount3 -u -z) is a user asking testfs to stop:
 * it must exit 0 however busy the mount is. While reads were in flight,
 * the kernel could end the connection with ECONNABORTED rather than
 * ENODEV, and testfs reported "Software caused connection abort" and
 * exited 1 (2 runs in 20).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mount_harness.h"

#define RUNS 20
#define READERS 4
#define FILE_SIZE (1ull << 30)
#define READ_SIZE (128u << 10)

TestSuite(lazy_unmount, .timeout = 240);

struct reader {
	const char *path;
	unsigned seed;
	atomic_bool *stop;
};

/* O_DIRECT: every read is a FUSE_READ, and the page cache stays empty. */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	void *buf = NULL;
	int fd = open(r->path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, 4096, READ_SIZE))
		goto out;
	while (!atomic_load(r->stop)) {
		off_t off =
			(off_t)(rand_r(&r->seed) % (FILE_SIZE / READ_SIZE)) *
			READ_SIZE;

		if (pread(fd, buf, READ_SIZE, off) < 0)
			break;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The daemon's exit status, waiting at most 10 s (-1: still running). */
static int wait_daemon(pid_t pid)
{
	int i, ws;

	for (i = 0; i < 1000; i++) {
		if (waitpid(pid, &ws, WNOHANG) == pid)
			return WIFEXITED(ws) ? WEXITSTATUS(ws)
					     : 128 + WTERMSIG(ws);
		sleep_ms(10);
	}
	return -1;
}

Test(lazy_unmount, during_reads_exits_0)
{
	const char *args[] = { "--file", "a.bin:1G", NULL };
	char errpath[] = "/tmp/testfs-regress-lazy.XXXXXX";
	int run, errfile;

	harness_require_fuse();
	errfile = mkstemp(errpath);
	cr_assert_geq(errfile, 0);
	unlink(errpath);
	for (run = 0; run < RUNS; run++) {
		const char *um[] = { "/usr/bin/fusermount3", "-u", "-z", NULL,
				     NULL };
		struct reader r[READERS];
		pthread_t th[READERS];
		atomic_bool stop = false;
		struct tfs_mount m;
		char out[4096], *umout;
		int i, saved, status, umstatus;
		ssize_t n;

		cr_assert_eq(ftruncate(errfile, 0), 0);
		saved = dup(2);
		fflush(stderr);
		dup2(errfile, 2);
		harness_start(&m, args);
		dup2(saved, 2);
		close(saved);
		for (i = 0; i < READERS; i++) {
			r[i] = (struct reader){ harness_path(&m, "a.bin"),
						(unsigned)(run * READERS + i),
						&stop };
			cr_assert_eq(pthread_create(&th[i], NULL, reader_main,
						    &r[i]),
				     0);
		}
		sleep_ms(100 + 10 * (unsigned)run);
		um[3] = m.dir;
		umstatus = harness_run(um, &umout, 10);
		/*
		 * The detached mount lives on while its files are open: the
		 * connection ends when the readers close them, mid-read.
		 */
		atomic_store(&stop, true);
		for (i = 0; i < READERS; i++)
			pthread_join(th[i], NULL);
		status = wait_daemon(m.pid);
		if (status >= 0) {
			m.stopped = true;
			m.status = status;
		}
		harness_stop(&m);
		n = pread(errfile, out, sizeof(out) - 1, 0);
		out[n > 0 ? n : 0] = '\0';
		cr_assert_eq(umstatus, 0, "run %d: fusermount3: %s", run,
			     umout);
		free(umout);
		cr_assert_eq(status, 0, "run %d: exit %d, stderr: %s", run,
			     status, out);
	}
	close(errfile);
}
