// SPDX-License-Identifier: MIT
/*
 * testfs_log_snapshot() and the record count in log.bin's header: the
 * count is a claim of the file, and a file that claims far more records
 * than it holds (2^40: 176 TiB of records) must be refused with -EPROTO
 * without allocating for the claim. A directory posing as a mount holds a
 * hand-made config and log.bin, as in lib_windows.c.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib_i.h"
#include "log_record.h"

static char dir[] = "/tmp/regress_log_bin_count.XXXXXX";
static struct testfs_mount fake_fs;

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/.testfs/%s", dir, name);
}

static void write_file(const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	path_of(path, sizeof(path), name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void make_mount(void)
{
	static const char config[] =
		"{\"files\":[{\"name\":\"big.bin\",\"ino\":9,"
		"\"size\":1048576,\"pattern\":\"stamp\"}]}\n";
	char path[PATH_MAX];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/.testfs", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	fake_fs.mountpoint = dir;
	/* No such FUSE connection: testfs_settle() has nothing to wait for. */
	fake_fs.conn_id = UINT_MAX;
	write_file("config", config, strlen(config));
}

static void remove_mount(void)
{
	char path[PATH_MAX];

	path_of(path, sizeof(path), "config");
	unlink(path);
	path_of(path, sizeof(path), "log.bin");
	unlink(path);
	snprintf(path, sizeof(path), "%s/.testfs", dir);
	rmdir(path);
	rmdir(dir);
}

TestSuite(log_bin, .init = make_mount, .fini = remove_mount);

/*
 * log.bin with a header claiming @count records and @present read records
 * of 4 KiB each after it.
 */
static void write_log(uint64_t count, size_t present)
{
	size_t len = sizeof(struct log_bin_header) +
		     present * sizeof(struct log_record);
	struct log_bin_header *h;
	struct log_record *r;
	char *buf = calloc(1, len);
	size_t i;

	cr_assert_not_null(buf);
	h = (struct log_bin_header *)buf;
	memcpy(h->magic, LOG_BIN_MAGIC, sizeof(h->magic));
	h->version = LOG_BIN_VERSION;
	h->record_size = sizeof(struct log_record);
	h->count = count;
	h->first_seq = 1;
	h->next_seq = 1 + present;
	h->page_size = 4096;
	r = (struct log_record *)(buf + sizeof(*h));
	for (i = 0; i < present; i++) {
		r[i].seq = 1 + i;
		r[i].t_ns = 1000 * (i + 1);
		r[i].kind = LOG_READ;
		r[i].read.ino = 9;
		r[i].read.off = 4096 * (uint64_t)i;
		r[i].read.len = 4096;
	}
	write_file("log.bin", buf, len);
	free(buf);
}

/*
 * Caps this process's address space at what it maps now plus 1 GiB
 * (Criterion runs each test in a process of its own). An allocation for
 * a claimed count of 2^26 records (11 GiB) then fails, where overcommit
 * would otherwise hand it out and hide it.
 */
static void cap_address_space(void)
{
	unsigned long long pages;
	struct rlimit rl;
	FILE *f = fopen("/proc/self/statm", "re");

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%llu", &pages), 1);
	fclose(f);
	rl.rlim_cur = rl.rlim_max =
		pages * (unsigned long long)sysconf(_SC_PAGESIZE) +
		(1ull << 30);
	cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
}

/*
 * The header claims 2^40 records, the file holds 3. Before the fix the
 * library asked malloc() for 2^40 records at once: -ENOMEM where malloc
 * refuses, an abort under ASan ("requested allocation size exceeds
 * maximum supported size").
 */
Test(log_bin, huge_count_is_refused)
{
	struct testfs_log *log = (struct testfs_log *)1;

	write_log(1ull << 40, 3);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), -EPROTO);
	cr_assert_null(log);
}

/*
 * The largest claim the header check lets through, with no record at
 * all: refused, as a file that ends before its records must be.
 */
Test(log_bin, count_without_records_is_refused)
{
	struct testfs_log *log = NULL;

	write_log(SIZE_MAX / sizeof(struct testfs_record), 0);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), -EPROTO);
	cr_assert_null(log);
	write_log(UINT64_MAX, 0);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), -EPROTO);
	cr_assert_null(log);
}

/*
 * 2^26 claimed, 2 present, with the address space capped 1 GiB above
 * what the test maps: refused with -EPROTO. Before the fix the library
 * allocated the 11 GiB up front: -ENOMEM under the cap, an abort under
 * ASan ("out of memory").
 */
Test(log_bin, large_count_allocates_for_what_is_read)
{
	struct testfs_log *log = NULL;

	write_log(1ull << 26, 2);
	cap_address_space();
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), -EPROTO);
	cr_assert_null(log);
}

/*
 * A truncated log.bin (the header counts 3000 records, 2500 follow) is
 * refused; one whose records are all there is read whole, across several
 * chunks and growths of the records array.
 */
Test(log_bin, truncated_refused_complete_read)
{
	struct testfs_log *log = NULL;
	const struct testfs_record *r;

	write_log(3000, 2500);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), -EPROTO);
	cr_assert_null(log);

	write_log(3000, 3000);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), 0);
	cr_assert_eq(testfs_log_count(log), 3000);
	r = testfs_log_at(log, 2999);
	cr_assert_not_null(r);
	cr_assert_eq(r->seq, 3000);
	cr_assert_eq(r->off, 4096ull * 2999);
	cr_assert_str_eq(r->file, "big.bin");
	testfs_log_free(log);
}

/*
 * The other way round: a header counting fewer records than follow. The
 * count is what is read, and bytes past it are refused.
 */
Test(log_bin, bytes_past_the_count_are_refused)
{
	struct testfs_log *log = NULL;

	write_log(2, 3);
	cr_assert_eq(testfs_log_snapshot(&fake_fs, &log), -EPROTO);
	cr_assert_null(log);
}
