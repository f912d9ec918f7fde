// SPDX-License-Identifier: MIT
/*
 * The library's readers (lib/config.c on src/json/, lib/snapshot.c):
 * the JSON of MOUNT/.testfs/config and the records of
 * MOUNT/.testfs/log.bin, read by testfs_log_snapshot() from a directory posing
 * as a mount (as the lib_windows tests do). The input is the config text, a
 * NUL, then the bytes of log.bin. A snapshot must load or fail with an errno,
 * and a loaded one must answer the queries and free cleanly.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#include "lib_i.h"

static char dir[PATH_MAX];
static char config_path[PATH_MAX + 32];
static char log_path[PATH_MAX + 32];
static struct testfs_mount fake_fs;

static void cleanup(void)
{
	char path[PATH_MAX + 16];

	unlink(config_path);
	unlink(log_path);
	snprintf(path, sizeof(path), "%s/.testfs", dir);
	rmdir(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX + 16];

	(void)argc;
	(void)argv;
	/*
	 * The scripts point TMPDIR at a directory they remove afterwards:
	 * libFuzzer ends with _exit() on a crash or a time limit, so the
	 * atexit() cleanup does not always run.
	 */
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/testfs-fuzz.XXXXXX", tmp);
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/.testfs", dir);
	if (mkdir(path, 0700))
		abort();
	snprintf(config_path, sizeof(config_path), "%s/.testfs/config", dir);
	snprintf(log_path, sizeof(log_path), "%s/.testfs/log.bin", dir);
	fake_fs.mountpoint = dir;
	/* No such FUSE connection: testfs_settle() has nothing to wait for. */
	fake_fs.conn_id = UINT_MAX;
	atexit(cleanup);
	return 0;
}

static void put_file(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void query(const struct testfs_log *log, const char *name)
{
	struct testfs_extents e = TESTFS_EXTENTS_INIT;
	struct testfs_histograms h;
	struct testfs_usage u;

	(void)testfs_log_requests(log, name);
	(void)testfs_log_max_request(log, name);
	(void)testfs_log_fetched(log, name, &e);
	(void)testfs_log_usage(log, name, &u, &e);
	(void)testfs_log_histograms(log, name, &h);
	testfs_extents_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split = fuzz_find(data, size, "\0", 1);
	const uint8_t *bin = data + (split < size ? split + 1 : size);
	size_t binlen = split < size ? size - split - 1 : 0;
	struct testfs_log *log = NULL;
	struct testfs_histograms h;
	size_t i, n;
	int ret;

	put_file(config_path, data, split);
	put_file(log_path, bin, binlen);
	ret = testfs_log_snapshot(&fake_fs, &log);
	if (ret) {
		FUZZ_CHECK(ret < 0 && !log, "returned %d", ret);
		return 0;
	}
	n = testfs_log_count(log);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(testfs_log_at(log, i), "record %zu missing", i);
	for (i = 0; i < testfs_log_access_count(log); i++)
		FUZZ_CHECK(testfs_log_access_at(log, i), "access %zu missing",
			   i);
	for (i = 0; i < log->nfiles && i < 4; i++)
		query(log, log->files[i]);
	(void)testfs_log_histograms(log, NULL, &h);
	testfs_log_free(log);
	return 0;
}
