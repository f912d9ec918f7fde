// SPDX-License-Identifier: MIT
/*
 * testfs-touch: touch a page range of a file on a testfs mount the way a
 * program would (mmap faults or read(2)), then say which pages the kernel
 * fetched, from the mount's own log. A teaching and debugging aid.
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

#include "common/parse.h"
#include "ctl/control.h"
#include "log/log_json.h"
#include "log/log_record.h"

#define PAGE 4096ull

enum mode { MODE_MMAP, MODE_READ };
enum order { ORDER_FORWARD, ORDER_REVERSE, ORDER_RANDOM };

struct args {
	const char *file;
	uint64_t first;
	uint64_t count;
	enum mode mode;
	enum order order;
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
				a->order = ORDER_FORWARD;
			else if (strcmp(s, "reverse") == 0)
				a->order = ORDER_REVERSE;
			else if (strcmp(s, "random") == 0)
				a->order = ORDER_RANDOM;
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

/* The mount root: the nearest parent directory holding .testfs/ctl. */
static int find_mount(const char *file, char *root, size_t len, char *rel,
		      size_t rlen)
{
	char path[PATH_MAX], probe[PATH_MAX + 16], *slash;

	if (!realpath(file, path))
		return -errno;
	snprintf(rel, rlen, "%s", path);
	for (;;) {
		slash = strrchr(path, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/.testfs/ctl",
			 *path ? path : "");
		if (access(probe, F_OK) == 0) {
			snprintf(root, len, "%s", *path ? path : "/");
			memmove(rel, rel + strlen(path) + 1,
				strlen(rel) - strlen(path));
			return 0;
		}
		if (!*path)
			return -ENOENT;
	}
}

static int ctl(const char *root, const char *cmd)
{
	char path[PATH_MAX + 16];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/.testfs/ctl", root);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	close(fd);
	return n < 0 ? -errno : 0;
}

static uint64_t next_page(const struct args *a, uint64_t i, uint64_t *perm)
{
	switch (a->order) {
	case ORDER_REVERSE:
		return a->first + a->count - 1 - i;
	case ORDER_RANDOM:
		return a->first + perm[i];
	default:
		return a->first + i;
	}
}

static int touch(const struct args *a)
{
	uint64_t i, *perm = NULL;
	volatile char sink;
	char buf[PAGE];
	char *map = NULL;
	struct stat st;
	int fd;

	fd = open(a->file, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "testfs-touch: %s: %s\n", a->file,
			strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) != 0 ||
	    a->first + a->count > ((uint64_t)st.st_size + PAGE - 1) / PAGE) {
		fprintf(stderr,
			"testfs-touch: pages [%llu, %llu] lie past the end of %s (%llu pages)\n",
			(unsigned long long)a->first,
			(unsigned long long)(a->first + a->count - 1), a->file,
			(unsigned long long)(((uint64_t)st.st_size + PAGE - 1) /
					     PAGE));
		close(fd);
		return 2;
	}
	if (a->order == ORDER_RANDOM) {
		unsigned seed = a->seed;

		perm = malloc(a->count * sizeof(*perm));
		if (!perm)
			return 1;
		for (i = 0; i < a->count; i++)
			perm[i] = i;
		for (i = a->count - 1; i > 0; i--) {
			uint64_t j = (uint64_t)rand_r(&seed) % (i + 1), t;

			t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	if (a->mode == MODE_MMAP) {
		map = mmap(NULL, a->count * PAGE,
			   PROT_READ | (a->exec ? PROT_EXEC : 0), MAP_SHARED,
			   fd, (off_t)(a->first * PAGE));
		if (map == MAP_FAILED) {
			fprintf(stderr, "testfs-touch: mmap: %s\n",
				strerror(errno));
			return 1;
		}
		if (a->advice >= 0 &&
		    madvise(map, a->count * PAGE, a->advice) != 0)
			fprintf(stderr, "testfs-touch: madvise: %s\n",
				strerror(errno));
		for (i = 0; i < a->count; i++)
			sink = map[(next_page(a, i, perm) - a->first) * PAGE];
		(void)sink;
		munmap(map, a->count * PAGE);
	} else {
		if (a->advice >= 0 && posix_fadvise(fd, 0, 0, a->advice) != 0)
			fprintf(stderr, "testfs-touch: posix_fadvise failed\n");
		for (i = 0; i < a->count; i++)
			if (pread(fd, buf, PAGE,
				  (off_t)(next_page(a, i, perm) * PAGE)) < 0) {
				fprintf(stderr, "testfs-touch: read: %s\n",
					strerror(errno));
				return 1;
			}
	}
	free(perm);
	close(fd);
	return 0;
}

/* "readaround at page 1024: window [896, 1151] (256 pages), lookahead 64
 * from page 1088" */
static void print_window(const struct log_attr *w)
{
	static const char *const how[] = {
		[LOG_CAUSE_SYNC] = "sync readahead on a miss at page",
		[LOG_CAUSE_ASYNC] = "async readahead on the marker at page",
		[LOG_CAUSE_READAROUND] = "read-around the fault at page",
		[LOG_CAUSE_FORCED] =
			"forced readahead (readahead/WILLNEED) at page",
		[LOG_CAUSE_SINGLE] = "single page, no readahead, at page",
	};

	if (w->cause >= LOG_CAUSE_DIRECT || !how[w->cause]) {
		printf("  %s\n", log_cause_name(w->cause));
		return;
	}
	printf("  %s %llu: window [%llu, %llu] (%u pages)", how[w->cause],
	       (unsigned long long)w->trigger_page,
	       (unsigned long long)w->ra_start,
	       (unsigned long long)w->ra_start + w->ra_size - 1, w->ra_size);
	if (w->ra_marker != LOG_NO_PAGE)
		printf(", next marker at page %llu",
		       (unsigned long long)w->ra_marker);
	printf("%s\n", w->flags & LOG_ATTR_LATE ? ", late" : "");
}

static int report(const struct args *a, const char *root)
{
	uint64_t ino, last = a->first + a->count - 1, before = 0, after = 0;
	uint64_t ext_first = 0, ext_end = 0, total = 0, nreq = 0;
	uint64_t last_p = 0, last_n = 0;
	struct log_bin_header hdr;
	char path[PATH_MAX + 32];
	struct log_record rec;
	struct log_attr win[9];
	uint64_t nwin = 0, unknown = 0;
	uint32_t cur_win = 0;
	struct stat st;
	int first = 1;
	FILE *f;

	if (stat(a->file, &st) != 0)
		return 1;
	ino = st.st_ino;
	usleep(20000); /* let in-flight async readahead land in the log */
	snprintf(path, sizeof(path), "%s/.testfs/log.bin", root);
	f = fopen(path, "r");
	if (!f || fread(&hdr, sizeof(hdr), 1, f) != 1) {
		fprintf(stderr, "testfs-touch: cannot read %s\n", path);
		return 1;
	}
	printf("touched pages [%llu, %llu] by %s\n",
	       (unsigned long long)a->first, (unsigned long long)last,
	       a->mode == MODE_MMAP ? "mmap faults" : "read(2)");
	printf("kernel fetched (first page, pages):");
	while (fread(&rec, sizeof(rec), 1, f) == 1) {
		uint64_t p, n;

		if (rec.kind != LOG_READ || rec.read.ino != ino)
			continue;
		p = rec.read.off / PAGE;
		n = (rec.read.off + rec.read.len + PAGE - 1) / PAGE - p;
		/* Long runs: the first requests and the last one. */
		if (nreq < 8)
			printf(" (%llu,%llu)", (unsigned long long)p,
			       (unsigned long long)n);
		else if (nreq == 8)
			printf(" ...");
		if (rec.read.attr.cause == LOG_CAUSE_UNKNOWN)
			unknown++;
		else if (rec.read.attr.window != cur_win ||
			 !rec.read.attr.window) {
			cur_win = rec.read.attr.window;
			win[nwin < 8 ? nwin : 8] = rec.read.attr;
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
	fclose(f);
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
		uint64_t i;

		printf("why (kernel tracepoints, %llu decision%s):\n",
		       (unsigned long long)nwin, nwin == 1 ? "" : "s");
		for (i = 0; i < nwin && i < 9; i++) {
			if (i == 8 && nwin > 9)
				printf("  ...\n");
			print_window(&win[i]);
		}
	} else if (unknown) {
		printf("why: unknown (%s; .testfs/config says why)\n",
		       hdr.flags & LOG_BIN_TRACED ? "tracing on, causes unknown"
						  : "no kernel tracing");
	}
	if (hdr.lost)
		printf("WARNING: the log lost %llu records\n",
		       (unsigned long long)hdr.lost);
	return 0;
}

int main(int argc, char **argv)
{
	char root[PATH_MAX], rel[PATH_MAX], cmd[PATH_MAX + 32];
	struct args a;
	int ret;

	ret = parse_args(&a, argc, argv);
	if (ret)
		return ret;
	if (find_mount(a.file, root, sizeof(root), rel, sizeof(rel)) != 0) {
		fprintf(stderr, "testfs-touch: %s is not on a testfs mount\n",
			a.file);
		return 1;
	}
	if (a.cold) {
		snprintf(cmd, sizeof(cmd), "drop-cache %s\n", rel);
		if (ctl(root, cmd) || ctl(root, "clear\n")) {
			fprintf(stderr,
				"testfs-touch: %s/.testfs/ctl: %s failed\n",
				root, cmd);
			return 1;
		}
	}
	ret = touch(&a);
	if (ret)
		return ret;
	return report(&a, root);
}
