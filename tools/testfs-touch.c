// SPDX-License-Identifier: MIT
/*
 * testfs-touch: touch a page range of a file on a testfs mount the way a
 * program would (mmap faults or read(2)), then say which pages the kernel
 * fetched, from the mount's own log. A teaching and debugging aid. It
 * reaches the mount through libtestfs (testfs_attach()), as any client.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <testfs.h>

#include "parse.h"

/* The running kernel's pages: the unit of FIRST_PAGE and NPAGES. */
#define PAGE ((uint64_t)testfs_page_size())

enum mode { MODE_MMAP, MODE_READ };

struct args {
	const char *file;
	uint64_t first;
	uint64_t count;
	enum mode mode;
	enum testfs_order order;
	int advice; /* madvise/fadvise hint, -1 none */
	const char *advice_name;
	unsigned seed;
	int cold;
	int exec;
};

static void usage(FILE *f)
{
	fputs("Usage: testfs-touch [OPTIONS] FILE FIRST_PAGE NPAGES\n"
	      "\n"
	      "Touches pages [FIRST_PAGE, FIRST_PAGE + NPAGES) of FILE, a file on a\n"
	      "testfs mount, then prints the page ranges the kernel fetched (from\n"
	      "MOUNT/.testfs/log.bin) and how many lie before and after the range.\n"
	      "\n"
	      "  --mmap              map exactly the range and fault each page (default)\n"
	      "  --exec              map it PROT_READ|PROT_EXEC\n"
	      "  --read              read(2) each page instead\n"
	      "  --order ORDER       forward (default), reverse or random\n"
	      "  --seed N            seed for --order random (default 1)\n"
	      "  --advice HINT       normal, random, sequential, willneed, or\n"
	      "                      hugepage (mmap only): madvise(2) for --mmap,\n"
	      "                      posix_fadvise(2) for --read\n"
	      "  --warm              do not drop the file's cache and clear the log first\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Exit status: 0 done, 1 failure, 2 bad arguments.\n",
	      f);
}

static int bad(const char *what, const char *val, const char *why)
{
	fprintf(stderr,
		"testfs-touch: %s '%s': %s\nTry 'testfs-touch --help'.\n", what,
		val, why);
	return 2;
}

static int parse_args(struct args *a, int argc, char **argv)
{
	const char *pos[3];
	int i, npos = 0;
	const char *why;
	uint64_t v;

	memset(a, 0, sizeof(*a));
	a->advice = -1;
	a->seed = 1;
	a->cold = 1;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(s, "--mmap") == 0) {
			a->mode = MODE_MMAP;
		} else if (strcmp(s, "--exec") == 0) {
			a->mode = MODE_MMAP;
			a->exec = 1;
		} else if (strcmp(s, "--read") == 0) {
			a->mode = MODE_READ;
		} else if (strcmp(s, "--warm") == 0) {
			a->cold = 0;
		} else if (strcmp(s, "--order") == 0 && i + 1 < argc) {
			s = argv[++i];
			if (strcmp(s, "forward") == 0)
				a->order = TESTFS_ORDER_FORWARD;
			else if (strcmp(s, "reverse") == 0)
				a->order = TESTFS_ORDER_REVERSE;
			else if (strcmp(s, "random") == 0)
				a->order = TESTFS_ORDER_RANDOM;
			else
				return bad(
					"--order", s,
					"expected forward, reverse or random");
		} else if (strcmp(s, "--seed") == 0 && i + 1 < argc) {
			if (parse_uint(argv[++i], 0, UINT_MAX, &v, &why))
				return bad("--seed", argv[i], why);
			a->seed = (unsigned)v;
		} else if (strcmp(s, "--advice") == 0 && i + 1 < argc) {
			a->advice_name = argv[++i];
		} else if (s[0] == '-' && s[1]) {
			return bad("option", s,
				   "unknown option or missing value");
		} else if (npos < 3) {
			pos[npos++] = s;
		} else {
			return bad("argument", s, "unexpected");
		}
	}
	if (npos != 3) {
		fprintf(stderr,
			"testfs-touch: expected FILE FIRST_PAGE NPAGES\n"
			"Try 'testfs-touch --help'.\n");
		return 2;
	}
	a->file = pos[0];
	if (parse_uint(pos[1], 0, UINT64_MAX / PAGE, &a->first, &why))
		return bad("FIRST_PAGE", pos[1], why);
	if (parse_uint(pos[2], 1, 1ull << 32, &a->count, &why))
		return bad("NPAGES", pos[2], why);
	if (a->advice_name) {
		static const struct {
			const char *name;
			int madv, fadv;
		} hints[] = {
			{ "normal", MADV_NORMAL, POSIX_FADV_NORMAL },
			{ "random", MADV_RANDOM, POSIX_FADV_RANDOM },
			{ "sequential", MADV_SEQUENTIAL,
			  POSIX_FADV_SEQUENTIAL },
			{ "willneed", MADV_WILLNEED, POSIX_FADV_WILLNEED },
			{ "hugepage", MADV_HUGEPAGE, -1 },
		};
		size_t k;

		for (k = 0; k < sizeof(hints) / sizeof(hints[0]); k++)
			if (strcmp(hints[k].name, a->advice_name) == 0)
				a->advice = a->mode == MODE_MMAP
						    ? hints[k].madv
						    : hints[k].fadv;
		if (a->advice == -1)
			return bad(
				"--advice", a->advice_name,
				"expected normal, random, sequential, willneed or hugepage (hugepage needs --mmap)");
	}
	return 0;
}

/* @file's path relative to the mount of @fs, into @rel. */
static int relative_path(const struct testfs_mount *fs, const char *file,
			 char *rel, size_t size)
{
	const char *mnt = testfs_mountpoint(fs);
	size_t len = strlen(mnt);
	char *path;

	path = realpath(file, NULL);
	if (!path)
		return -errno;
	if (strncmp(path, mnt, len) != 0 || path[len] != '/' ||
	    strlen(path + len + 1) >= size) {
		free(path);
		return -EINVAL;
	}
	snprintf(rel, size, "%s", path + len + 1);
	free(path);
	return 0;
}

/* Touches the range of @rel on @fs as @a says, with libtestfs's helpers. */
static int touch(const struct args *a, struct testfs_mount *fs, const char *rel)
{
	int64_t size = testfs_file_size(fs, rel), got;
	uint64_t pages = size > 0 ? ((uint64_t)size + PAGE - 1) / PAGE : 0;
	struct testfs_map m;
	int fd, err;

	if (size < 0) {
		fprintf(stderr, "testfs-touch: %s: %s\n", a->file,
			strerror((int)-size));
		return 1;
	}
	if (a->first + a->count > pages) {
		fprintf(stderr,
			"testfs-touch: pages [%llu, %llu] lie past the end of %s (%llu pages)\n",
			(unsigned long long)a->first,
			(unsigned long long)(a->first + a->count - 1), a->file,
			(unsigned long long)pages);
		return 2;
	}
	if (a->mode == MODE_MMAP) {
		err = testfs_map(fs, rel, a->first, a->count,
				 PROT_READ | (a->exec ? PROT_EXEC : 0),
				 MAP_SHARED, &m);
		if (err) {
			fprintf(stderr, "testfs-touch: mmap: %s\n",
				strerror(-err));
			return 1;
		}
		if (a->advice >= 0 && testfs_madvise(&m, a->advice) != 0)
			fprintf(stderr, "testfs-touch: madvise failed\n");
		got = testfs_touch(&m, a->order, a->seed, NULL);
		testfs_unmap(&m);
	} else {
		fd = testfs_open(fs, rel, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "testfs-touch: %s: %s\n", a->file,
				strerror(-fd));
			return 1;
		}
		/* The whole file, as the hint is meant for the file. */
		if (a->advice >= 0 && posix_fadvise(fd, 0, 0, a->advice) != 0)
			fprintf(stderr, "testfs-touch: posix_fadvise failed\n");
		got = testfs_read_pages(fd, a->first, a->count, 0, a->order,
					a->seed, NULL);
		close(fd);
	}
	if (got < 0) {
		fprintf(stderr, "testfs-touch: %s: %s\n",
			a->mode == MODE_MMAP ? "touch" : "read",
			strerror((int)-got));
		return 1;
	}
	return 0;
}

/* "readaround at page 1024: window [896, 1151] (256 pages), lookahead 64
 * from page 1088" */
static void print_window(const struct testfs_record *w)
{
	static const char *const how[] = {
		[TESTFS_CAUSE_SYNC] = "sync readahead on a miss at page",
		[TESTFS_CAUSE_ASYNC] = "async readahead on the marker at page",
		[TESTFS_CAUSE_READAROUND] = "read-around the fault at page",
		[TESTFS_CAUSE_FORCED] =
			"forced readahead (readahead/WILLNEED) at page",
		[TESTFS_CAUSE_SINGLE] = "single page, no readahead, at page",
	};

	if (w->cause >= TESTFS_CAUSE_DIRECT || !how[w->cause]) {
		printf("  %s\n", testfs_cause_name(w->cause));
		return;
	}
	/* A trigger the kernel's events did not name (TESTFS_NO_PAGE). */
	if (w->trigger_page == TESTFS_NO_PAGE)
		printf("  %s (unknown): window [%llu, %llu] (%u pages)",
		       how[w->cause], (unsigned long long)w->ra_start,
		       (unsigned long long)w->ra_start + w->ra_size - 1,
		       w->ra_size);
	else
		printf("  %s %llu: window [%llu, %llu] (%u pages)",
		       how[w->cause], (unsigned long long)w->trigger_page,
		       (unsigned long long)w->ra_start,
		       (unsigned long long)w->ra_start + w->ra_size - 1,
		       w->ra_size);
	if (w->ra_marker != TESTFS_NO_PAGE)
		printf(", next marker at page %llu",
		       (unsigned long long)w->ra_marker);
	printf("%s\n", w->late ? ", late" : "");
}

static int report(const struct args *a, struct testfs_mount *fs,
		  const char *rel)
{
	uint64_t last = a->first + a->count - 1, before = 0, after = 0;
	uint64_t ext_first = 0, ext_end = 0, total = 0, nreq = 0;
	uint64_t last_p = 0, last_n = 0;
	const struct testfs_record *recs, *win[9];
	uint64_t nwin = 0, unknown = 0;
	struct testfs_log *log;
	uint32_t cur_win = 0;
	size_t i, nrecs;
	int first = 1, err;

	/* Settles first: async readahead still on its way lands in it. */
	err = testfs_log_snapshot(fs, &log);
	if (err) {
		fprintf(stderr, "testfs-touch: reading the log of %s: %s\n",
			testfs_mountpoint(fs), strerror(-err));
		return 1;
	}
	printf("touched pages [%llu, %llu] by %s\n",
	       (unsigned long long)a->first, (unsigned long long)last,
	       a->mode == MODE_MMAP ? "mmap faults" : "read(2)");
	printf("kernel fetched (first page, pages):");
	recs = testfs_log_records(log, &nrecs);
	for (i = 0; i < nrecs; i++) {
		const struct testfs_record *r = &recs[i];
		uint64_t p = r->page, n = r->pages;

		if (r->kind != TESTFS_RECORD_READ || strcmp(r->file, rel) != 0)
			continue;
		/* Long runs: the first requests and the last one. */
		if (nreq < 8)
			printf(" (%llu,%llu)", (unsigned long long)p,
			       (unsigned long long)n);
		else if (nreq == 8)
			printf(" ...");
		if (r->cause == TESTFS_CAUSE_UNKNOWN) {
			unknown++;
		} else if (r->window != cur_win || !r->window) {
			cur_win = r->window;
			win[nwin < 8 ? nwin : 8] = r;
			nwin++;
		}
		last_p = p;
		last_n = n;
		nreq++;
		total += n;
		if (p < a->first)
			before += (p + n < a->first ? n : a->first - p);
		if (p + n - 1 > last)
			after += (p > last ? n : p + n - 1 - last);
		if (first || p < ext_first)
			ext_first = p;
		if (first || p + n > ext_end)
			ext_end = p + n;
		first = 0;
	}
	if (nreq > 8)
		printf(" (%llu,%llu)", (unsigned long long)last_p,
		       (unsigned long long)last_n);
	printf("\n%llu pages in %llu requests", (unsigned long long)total,
	       (unsigned long long)nreq);
	if (nreq)
		printf(", spanning [%llu, %llu]: %llu before the range, %llu after it",
		       (unsigned long long)ext_first,
		       (unsigned long long)ext_end - 1,
		       (unsigned long long)before, (unsigned long long)after);
	printf("\n");
	if (nwin) {
		printf("why (kernel tracepoints, %llu decision%s):\n",
		       (unsigned long long)nwin, nwin == 1 ? "" : "s");
		for (i = 0; i < nwin && i < 9; i++) {
			if (i == 8 && nwin > 9)
				printf("  ...\n");
			print_window(win[i]);
		}
	} else if (unknown) {
		printf("why: unknown (%s; .testfs/config says why)\n",
		       testfs_log_traced(log) ? "tracing on, causes unknown"
					      : "no kernel tracing");
	}
	if (testfs_log_lost(log))
		printf("WARNING: the log lost %llu records\n",
		       (unsigned long long)testfs_log_lost(log));
	testfs_log_free(log);
	return 0;
}

int main(int argc, char **argv)
{
	char rel[PATH_MAX];
	struct testfs_mount *fs;
	struct args a;
	int ret, err;

	ret = parse_args(&a, argc, argv);
	if (ret)
		return ret;
	err = testfs_attach(a.file, &fs);
	if (err == -ENODEV || err == -EPROTO) {
		fprintf(stderr, "testfs-touch: %s is not on a testfs mount\n",
			a.file);
		return 1;
	}
	if (!err)
		err = relative_path(fs, a.file, rel, sizeof(rel));
	if (err) {
		fprintf(stderr, "testfs-touch: %s: %s\n", a.file,
			strerror(-err));
		testfs_detach(fs);
		return 1;
	}
	if (a.cold) {
		err = testfs_cold(fs, rel);
		if (err) {
			fprintf(stderr,
				"testfs-touch: %s: drop-cache %s and clear: %s\n",
				testfs_mountpoint(fs), rel, strerror(-err));
			testfs_detach(fs);
			return 1;
		}
	}
	ret = touch(&a, fs, rel);
	if (!ret)
		ret = report(&a, fs, rel);
	testfs_detach(fs);
	return ret;
}
