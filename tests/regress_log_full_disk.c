// SPDX-License-Identifier: MIT
/*
 * A --log file on a full disk (issue 22, item 1). The writer moved past
 * records whose write failed: the file kept the first part of a line, the
 * rest of the records vanished without a loss line, log_file_lost stayed
 * 0 and mark succeeded; once the disk had room again, a later record was
 * glued to the half line.
 *
 * The disk is a 256 KiB tmpfs mounted for the test in a private mount
 * namespace (so it cannot outlive the test process, whatever happens to
 * it) and unmounted by the .fini; it is grown with a remount. Two more
 * suites drive the writer alone: on an append-only file (it cannot be cut
 * back) and under RLIMIT_FSIZE (room to the byte).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_reader.h"
#include "log/log_ring.h"
#include "log/log_writer.h"
#include "mount_harness.h"

#define PAGE 4096
/*
 * A direct read's line is about 210 bytes (measured: 1247 lines filled
 * 256 KiB), so 3000 of them need about 2.4 times the disk.
 */
#define FULL_READS 3000
#define LATER_READS 10

static struct tfs_mount mnt;
static char dir[256], disk[300], log_path[330];
static bool disk_mounted;

static void mount_disk(void)
{
	const char *ci = getenv("CI");

	harness_require_fuse();
	if (geteuid() != 0) {
		if (ci && !strcmp(ci, "true"))
			cr_assert_fail("needs root to mount a tmpfs (CI=true)");
		cr_skip_test("needs root to mount a tmpfs");
	}
	/* Whatever this process leaves mounted goes with it. */
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0,
		     "private mounts: %s", strerror(errno));
	snprintf(dir, sizeof(dir), "%sfull-disk.XXXXXX", harness_prefix());
	cr_assert_not_null(mkdtemp(dir), "%s: %s", dir, strerror(errno));
	snprintf(disk, sizeof(disk), "%s/disk", dir);
	cr_assert_eq(mkdir(disk, 0700), 0);
	cr_assert_eq(mount("tmpfs", disk, "tmpfs", MS_NOSUID | MS_NODEV,
			   "size=256k,mode=0700"),
		     0, "mount tmpfs: %s", strerror(errno));
	disk_mounted = true;
	snprintf(log_path, sizeof(log_path), "%s/log.jsonl", disk);
}

static void grow_disk(void)
{
	cr_assert_eq(mount(NULL, disk, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV,
			   "size=4m"),
		     0, "remount: %s", strerror(errno));
}

static void teardown(void)
{
	harness_stop(&mnt);
	if (disk_mounted && umount2(disk, MNT_DETACH) != 0)
		harness_crash("umount %s: %s", disk, strerror(errno));
	disk_mounted = false;
	if (dir[0]) {
		rmdir(disk);
		rmdir(dir);
	}
}

static void setup(void)
{
	const char *args[] = { "--file", "big.bin:64M", "--log", log_path,
			       NULL };

	mount_disk();
	harness_start(&mnt, args);
}

TestSuite(full_disk, .init = setup, .fini = teardown, .timeout = 120);

/* @n direct reads of one page each from page @first: one record each. */
static void direct_reads(unsigned first, unsigned n)
{
	void *buf;
	unsigned i;
	int fd;

	cr_assert_eq(posix_memalign(&buf, PAGE, PAGE), 0);
	fd = open(harness_path(&mnt, "big.bin"), O_RDONLY | O_DIRECT);
	cr_assert_geq(fd, 0, "open: %s", strerror(errno));
	for (i = 0; i < n; i++)
		cr_assert_eq(pread(fd, buf, PAGE, (off_t)(first + i) * PAGE),
			     PAGE, "read %u: %s", i, strerror(errno));
	close(fd);
	free(buf);
}

static uint64_t stat_field(const char *name)
{
	char *stats =
		harness_read_file(harness_path(&mnt, ".testfs/stats"), NULL);
	char key[64];
	const char *p;
	uint64_t v;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(stats, key);
	cr_assert_not_null(p, "no %s in %s", name, stats);
	v = strtoull(p + strlen(key), NULL, 10);
	free(stats);
	return v;
}

/* What the log file holds, checked line by line. */
struct file_log {
	uint64_t records;    /* record lines */
	uint64_t loss_lines; /* loss lines */
	uint64_t lost;	     /* records they stand for */
	uint64_t next_seq;   /* one past the last seq a line covers */
	bool mark_after;     /* the mark "after" is there */
};

/*
 * Every line is one whole JSON object (so nothing is cut off or glued)
 * and the lines cover seq 1, 2, ... in order, each once: a record by its
 * seq, a loss line by its range.
 */
static void read_log_file(struct file_log *fl)
{
	size_t len;
	char *text = harness_read_file(log_path, &len), *line, *nl;
	struct json_reader in;
	unsigned long long a, b, c;

	memset(fl, 0, sizeof(*fl));
	fl->next_seq = 1;
	cr_assert(len == 0 || text[len - 1] == '\n',
		  "the file ends in part of a line: ...%s",
		  text + (len > 80 ? len - 80 : 0));
	for (line = text; line < text + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(text + len - line));
		json_reader_init(&in, line, (size_t)(nl - line), 0);
		cr_assert(*line == '{' && json_read_skip(&in) == 0 &&
				  json_read_end(&in) == 0,
			  "not one JSON object: %.*s", (int)(nl - line), line);
		if (sscanf(line,
			   "{\"lost\":%llu,\"first_seq\":%llu,"
			   "\"last_seq\":%llu}",
			   &a, &b, &c) == 3) {
			cr_assert_eq(b, fl->next_seq,
				     "loss line %.*s after %llu",
				     (int)(nl - line), line,
				     (unsigned long long)fl->next_seq - 1);
			cr_assert_eq(c - b + 1, a, "%.*s", (int)(nl - line),
				     line);
			fl->loss_lines++;
			fl->lost += a;
			fl->next_seq = c + 1;
			continue;
		}
		cr_assert_eq(sscanf(line, "{\"seq\":%llu,", &a), 1, "%.*s",
			     (int)(nl - line), line);
		cr_assert_eq(a, fl->next_seq, "seq %llu after %llu", a,
			     (unsigned long long)fl->next_seq - 1);
		fl->next_seq = a + 1;
		fl->records++;
		if (strstr(line, "\"mark\":\"after\""))
			fl->mark_after = true;
	}
	free(text);
}

/*
 * The file, read once nothing more is lost: seq 1 to @records, with one
 * loss line for the @file_lost records it missed.
 */
static void expect_whole_file(uint64_t records, uint64_t file_lost)
{
	struct file_log fl;

	read_log_file(&fl);
	cr_assert_eq(fl.next_seq, records + 1, "lines cover seq 1 to %llu",
		     (unsigned long long)fl.next_seq - 1);
	cr_assert_eq(fl.loss_lines, 1);
	cr_assert_eq(fl.lost, file_lost);
	cr_assert_eq(fl.records + fl.lost, records);
}

Test(full_disk, records_are_whole_counted_and_their_loss_line_follows)
{
	struct file_log fl;
	uint64_t records, file_lost;
	char *err;

	direct_reads(0, FULL_READS);
	/* The mark is in the ring; the file could not take it. */
	cr_assert_eq(harness_ctl(&mnt, "mark full\n"), -ENOSPC);
	err = harness_read_file(harness_path(&mnt, ".testfs/error"), NULL);
	cr_expect_not_null(strstr(err, "is missing records: No space left"),
			   "%s", err);
	free(err);
	records = stat_field("records");
	file_lost = stat_field("log_file_lost");
	cr_assert_eq(records, FULL_READS + 1);
	read_log_file(&fl);
	/*
	 * The file took what fit and nothing after it; the loss line may be
	 * there already (cutting back the half line made room) or not yet.
	 */
	cr_assert_gt(fl.records, 0);
	cr_assert_lt(fl.records, FULL_READS / 2, "%llu records fit",
		     (unsigned long long)fl.records);
	cr_assert_eq(file_lost, records - fl.records,
		     "log_file_lost %llu, %llu records missing",
		     (unsigned long long)file_lost,
		     (unsigned long long)(records - fl.records));
	cr_assert(fl.next_seq == records + 1 || fl.next_seq == fl.records + 1,
		  "lines cover seq 1 to %llu of %llu",
		  (unsigned long long)fl.next_seq - 1,
		  (unsigned long long)records);

	grow_disk();
	direct_reads(FULL_READS, LATER_READS);
	cr_assert_eq(harness_ctl(&mnt, "mark after\n"), 0);
	records = stat_field("records");
	cr_assert_eq(records, FULL_READS + 1 + LATER_READS + 1);
	cr_assert_eq(stat_field("log_file_lost"), file_lost,
		     "nothing is lost once the disk has room");
	expect_whole_file(records, file_lost);
	read_log_file(&fl);
	cr_assert(fl.mark_after);
	/* Records were lost: the daemon says so in its exit status. */
	cr_assert_eq(harness_stop(&mnt), 1);
}

/*
 * Records lost over several writes (each clear flushes) while the disk
 * stays full: one loss line, and the file is whole after stop.
 */
Test(full_disk, file_is_whole_after_stop)
{
	uint64_t records, file_lost;
	unsigned i;

	for (i = 0; i < 3; i++) {
		direct_reads(i * FULL_READS / 3, FULL_READS / 3);
		cr_assert_eq(harness_ctl(&mnt, "clear\n"), i ? -ENOSPC : 0);
	}
	records = stat_field("records");
	file_lost = stat_field("log_file_lost");
	cr_assert_gt(file_lost, 0);
	grow_disk();
	cr_assert_eq(harness_stop(&mnt), 1);
	expect_whole_file(records, file_lost);
}

/*
 * An append-only file (chattr +a) cannot be cut back: the writer then
 * owes the rest of the line it failed in and writes it first once the
 * disk has room, so the half line is completed rather than glued to.
 */
static struct log_ring ring;

static void setup_ring(void)
{
	mount_disk();
	cr_assert_eq(log_ring_init(&ring, 1 << 14), 0);
}

static void teardown_ring(void)
{
	log_ring_destroy(&ring);
	teardown();
}

TestSuite(append_only, .init = setup_ring, .fini = teardown_ring,
	  .timeout = 60);

static const char *name_of(void *ctx, uint64_t ino)
{
	(void)ctx;
	(void)ino;
	return "a.bin";
}

static void append_reads(unsigned n)
{
	struct log_record rec;
	unsigned i;

	for (i = 0; i < n; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.kind = LOG_READ;
		rec.read.ino = 2;
		rec.read.off = (uint64_t)i * PAGE;
		rec.read.len = PAGE;
		log_ring_append(&ring, &rec);
	}
}

static bool ends_mid_line(void)
{
	size_t len;
	char *text = harness_read_file(log_path, &len);
	bool mid = len && text[len - 1] != '\n';

	free(text);
	return mid;
}

Test(append_only, half_line_is_completed_once_there_is_room)
{
	char why[256];
	uint64_t unwritten;
	int fd, flags = FS_APPEND_FL, err;
	struct log_writer *w;

	fd = log_writer_open(log_path, why, sizeof(why));
	cr_assert_geq(fd, 0, "%s", why);
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) != 0)
		cr_skip_test("tmpfs without chattr +a here: %s",
			     strerror(errno));
	cr_assert_neq(ftruncate(fd, 0), 0, "append-only file truncated");
	cr_assert_eq(log_writer_start(&w, &ring, fd, PAGE, name_of, NULL), 0);
	/* About 170 bytes a line: 3000 lines do not fit in 256 KiB. */
	append_reads(3000);
	err = log_writer_flush(w);
	cr_assert_eq(err, -ENOSPC, "flush: %d", err);
	/* The disk filled up in the middle of a line (measured). */
	cr_assert(ends_mid_line(), "the fallback was not exercised");
	grow_disk();
	append_reads(10);
	cr_assert_eq(log_writer_flush(w), 0);
	cr_assert_gt(log_writer_lost(w), 0);
	cr_assert_eq(log_writer_stop(w, &unwritten), -ENOSPC);
	expect_whole_file(3010, unwritten);
}

/*
 * A loss line that ends the file when the next write fails again is cut
 * back and joins the new loss: one line per run, not one per attempt.
 * RLIMIT_FSIZE gives the file room to the byte (EFBIG past it).
 */
static void setup_limit(void)
{
	snprintf(dir, sizeof(dir), "%sfile-limit.XXXXXX", harness_prefix());
	cr_assert_not_null(mkdtemp(dir), "%s: %s", dir, strerror(errno));
	snprintf(disk, sizeof(disk), "%s", dir);
	snprintf(log_path, sizeof(log_path), "%s/log.jsonl", dir);
	cr_assert_eq(log_ring_init(&ring, 1 << 14), 0);
	signal(SIGXFSZ, SIG_IGN);
}

static void teardown_limit(void)
{
	unlink(log_path);
	log_ring_destroy(&ring);
	rmdir(dir);
}

TestSuite(file_limit, .init = setup_limit, .fini = teardown_limit,
	  .timeout = 60);

/* Lets the file grow to its size now plus @room bytes. */
static void allow(off_t room)
{
	struct stat st;
	struct rlimit rl;

	cr_assert_eq(stat(log_path, &st), 0);
	rl.rlim_cur = room < 0 ? RLIM_INFINITY : (rlim_t)(st.st_size + room);
	rl.rlim_max = RLIM_INFINITY;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0, "%s", strerror(errno));
}

Test(file_limit, loss_lines_of_one_run_are_one_line)
{
	struct file_log fl;
	char why[256];
	uint64_t unwritten;
	struct log_writer *w;
	int fd;

	fd = log_writer_open(log_path, why, sizeof(why));
	cr_assert_geq(fd, 0, "%s", why);
	cr_assert_eq(log_writer_start(&w, &ring, fd, PAGE, name_of, NULL), 0);
	append_reads(100);
	cr_assert_eq(log_writer_flush(w), 0);
	/* A read record is about 170 bytes, a loss line under 60. */
	allow(1000);
	append_reads(100);
	cr_assert_eq(log_writer_flush(w), -EFBIG);
	allow(100);
	cr_assert_eq(log_writer_flush(w), 0, "the loss line fits");
	read_log_file(&fl);
	cr_assert_eq(fl.loss_lines, 1);
	cr_assert_eq(fl.next_seq, 201);
	append_reads(100);
	cr_assert_eq(log_writer_flush(w), -EFBIG, "a record fits");
	allow(-1);
	append_reads(10);
	cr_assert_eq(log_writer_flush(w), 0);
	cr_assert_eq(log_writer_stop(w, &unwritten), -EFBIG);
	expect_whole_file(310, unwritten);
}
