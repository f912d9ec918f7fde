// SPDX-License-Identifier: MIT
/*
 * testfs-report: turns a saved testfs log (the daemon's --log JSON Lines
 * file or a copy of MOUNT/.testfs/log) into one self-contained HTML page
 * of what readahead did. The log does not hold the file sizes nor the
 * mappings the workload made, so --file and --vma add them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "report.h"

/* A log without "page_size" (an older daemon's) counts 4 KiB pages. */
#define DEFAULT_PAGE 4096u

static void usage(FILE *f)
{
	fputs("Usage: testfs-report [OPTIONS] LOG\n"
	      "\n"
	      "Draws a saved testfs log as one self-contained HTML page: the page\n"
	      "map (file, VMAs, accessed pages, every FUSE read coloured by its\n"
	      "cause, marker pages, EOF; zoom with the wheel, pan by dragging), a\n"
	      "time line of the reads (arrival to reply, injected delay hatched,\n"
	      "late accesses marked), the readahead windows and, on hover, the\n"
	      "record behind any range. LOG is the daemon's --log file or a copy\n"
	      "of MOUNT/.testfs/log (JSON Lines). The page needs no network and\n"
	      "opens from disk in any browser.\n"
	      "\n"
	      "  -o, --output FILE   write the page to FILE ('-': standard output;\n"
	      "                      default: LOG with its extension replaced by\n"
	      "                      .html)\n"
	      "  --title TEXT        the page's title (default: testfs: LOG)\n"
	      "  --subtitle TEXT     a line under the title (kernel, settings)\n"
	      "  --ra-kb KB          the mount's read_ahead_kb (1..1048576), so the\n"
	      "                      page can say why a window is larger than it\n"
	      "  --file NAME:SIZE    the size of file NAME (bytes, K/M/G suffix as\n"
	      "                      for testfs --file), so the map ends at its EOF;\n"
	      "                      repeatable. Without it the map ends at the last\n"
	      "                      page the log names and no EOF is drawn. With\n"
	      "                      it a record starting past the end is refused.\n"
	      "  --vma [NAME:]FIRST-LAST[:PROT]\n"
	      "                      a mapping of pages FIRST..LAST (inclusive) of\n"
	      "                      NAME, PROT like r--, r-x, rw- (default r--);\n"
	      "                      NAME may be left out when the log names one\n"
	      "                      file; repeatable. The page then says which\n"
	      "                      pages were fetched before and after it, and why.\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Example: testfs --file f.bin:12M --log /tmp/f.jsonl /mnt/t &&\n"
	      "  testfs-touch /mnt/t/f.bin 1024 1024 && fusermount3 -u /mnt/t &&\n"
	      "  testfs-report --file f.bin:12M --vma 1024-2047 /tmp/f.jsonl\n"
	      "\n"
	      "Exit status: 0 page written; 1 it could not be written; 2 bad\n"
	      "arguments or a missing, empty or garbled log, or a record that\n"
	      "cannot be (no pages or past 2^51, a read answered before it arrived,\n"
	      "an access ending before it starts; the message names the file and\n"
	      "line).\n",
	      f);
}

static int bad(const char *what, const char *val, const char *why)
{
	fprintf(stderr,
		"testfs-report: %s '%s': %s\n"
		"Try 'testfs-report --help'.\n",
		what, val, why);
	return 2;
}

struct vma_arg {
	char *name; /* NULL: the log's only file */
	uint64_t first;
	uint64_t last;
	int prot;
};

struct args {
	const char *log;
	const char *output;
	const char *title;
	const char *subtitle;
	unsigned ra_kb;
	char **file_names;
	uint64_t *file_bytes;
	size_t nfiles;
	struct vma_arg *vmas;
	size_t nvmas;
};

static int parse_prot(const char *s, int *prot)
{
	if (strlen(s) != 3 || (s[0] != 'r' && s[0] != '-') ||
	    (s[1] != 'w' && s[1] != '-') || (s[2] != 'x' && s[2] != '-'))
		return -EINVAL;
	*prot = (s[0] == 'r' ? PROT_READ : 0) | (s[1] == 'w' ? PROT_WRITE : 0) |
		(s[2] == 'x' ? PROT_EXEC : 0);
	return 0;
}

/* [NAME:]FIRST-LAST[:PROT]; the name may itself hold ':'. */
static int parse_vma(const char *spec, struct vma_arg *v)
{
	char *s = strdup(spec), *range, *dash, *prot = NULL, *c;
	const char *why;
	int err = -EINVAL;

	if (!s)
		return -ENOMEM;
	v->name = NULL;
	v->prot = PROT_READ;
	/* A trailing ":rwx"-like part is the protection. */
	c = strrchr(s, ':');
	if (c && strlen(c + 1) == 3 && strchr("r-", c[1])) {
		prot = c + 1;
		*c = '\0';
	}
	c = strrchr(s, ':');
	range = c ? c + 1 : s;
	if (c) {
		*c = '\0';
		if (!*s)
			goto out;
		v->name = strdup(s);
		if (!v->name) {
			err = -ENOMEM;
			goto out;
		}
	}
	dash = strchr(range, '-');
	if (!dash)
		goto out;
	*dash = '\0';
	if (parse_uint(range, 0, UINT64_MAX - 1, &v->first, &why) ||
	    parse_uint(dash + 1, 0, UINT64_MAX - 1, &v->last, &why) ||
	    v->last < v->first)
		goto out;
	if (prot && parse_prot(prot, &v->prot))
		goto out;
	err = 0;
out:
	if (err) {
		free(v->name);
		v->name = NULL;
	}
	free(s);
	return err;
}

static int parse_file(struct args *a, const char *spec)
{
	const char *colon = strrchr(spec, ':'), *why;
	uint64_t size;
	void *p;

	if (!colon || colon == spec)
		return bad("--file", spec, "expected NAME:SIZE");
	if (parse_size(colon + 1, 0, &size, &why))
		return bad("--file", spec, why);
	p = realloc(a->file_names, (a->nfiles + 1) * sizeof(char *));
	if (!p)
		return 1;
	a->file_names = p;
	p = realloc(a->file_bytes, (a->nfiles + 1) * sizeof(uint64_t));
	if (!p)
		return 1;
	a->file_bytes = p;
	a->file_names[a->nfiles] = strndup(spec, (size_t)(colon - spec));
	if (!a->file_names[a->nfiles])
		return 1;
	/* Bytes until the log's page size is known (apply_files()). */
	a->file_bytes[a->nfiles++] = size;
	return 0;
}

static void free_args(struct args *a)
{
	size_t i;

	for (i = 0; i < a->nfiles; i++)
		free(a->file_names[i]);
	free(a->file_names);
	free(a->file_bytes);
	for (i = 0; i < a->nvmas; i++)
		free(a->vmas[i].name);
	free(a->vmas);
}

/* Returns -1 to go on, or the exit status. */
static int parse_args(struct args *a, int argc, char **argv)
{
	int i, err;
	void *p;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		int has = i + 1 < argc;

		if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if ((strcmp(s, "-o") == 0 ||
			    strcmp(s, "--output") == 0) &&
			   has) {
			a->output = argv[++i];
		} else if (strcmp(s, "--title") == 0 && has) {
			a->title = argv[++i];
		} else if (strcmp(s, "--subtitle") == 0 && has) {
			a->subtitle = argv[++i];
		} else if (strcmp(s, "--ra-kb") == 0 && has) {
			uint64_t kb;
			const char *why;

			if (parse_uint(argv[++i], 1, 1048576, &kb, &why))
				return bad("--ra-kb", argv[i], why);
			a->ra_kb = (unsigned)kb;
		} else if (strcmp(s, "--file") == 0 && has) {
			err = parse_file(a, argv[++i]);
			if (err)
				return err;
		} else if (strcmp(s, "--vma") == 0 && has) {
			p = realloc(a->vmas, (a->nvmas + 1) * sizeof(*a->vmas));
			if (!p)
				return 1;
			a->vmas = p;
			if (parse_vma(argv[++i], &a->vmas[a->nvmas]))
				return bad(
					"--vma", argv[i],
					"expected [NAME:]FIRST-LAST[:PROT], "
					"pages FIRST <= LAST, PROT like r-x");
			a->nvmas++;
		} else if (strcmp(s, "--") == 0 && i + 2 == argc && !a->log) {
			a->log = argv[++i];
		} else if (s[0] == '-' && s[1]) {
			return bad("option", s,
				   "unknown option or missing value");
		} else if (!a->log) {
			a->log = s;
		} else {
			return bad("argument", s, "only one LOG is drawn");
		}
	}
	if (!a->log) {
		fprintf(stderr, "testfs-report: no LOG given\n"
				"Try 'testfs-report --help'.\n");
		return 2;
	}
	return -1;
}

/* Whether @a and @b name the same file (through links, say). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* LOG with its extension (if any) replaced by .html. */
static char *default_output(const char *log)
{
	const char *slash = strrchr(log, '/'), *dot = strrchr(log, '.');
	size_t keep = strlen(log);
	char *out;

	if (dot && (!slash || dot > slash + 1))
		keep = (size_t)(dot - log);
	out = malloc(keep + 6);
	if (out) {
		memcpy(out, log, keep);
		strcpy(out + keep, ".html");
	}
	return out;
}

/*
 * The page size the log states: the "page_size" of its first record that
 * has one, DEFAULT_PAGE if none does (or the log cannot be read here: the
 * load says why). Only a power of two from 512 bytes to 1 MiB counts.
 */
static unsigned log_page_size(const char *path)
{
	unsigned long v = DEFAULT_PAGE;
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	char *line = NULL, *p;

	if (!f)
		return DEFAULT_PAGE;
	while (getline(&line, &cap, f) > 0) {
		p = strstr(line, "\"page_size\":");
		/* not inside a string (a mark's text escapes its quotes) */
		if (!p || (p > line && p[-1] == '\\'))
			continue;
		v = strtoul(p + 12, NULL, 10);
		break;
	}
	free(line);
	fclose(f);
	if (v < 512 || v > (1ul << 20) || (v & (v - 1)))
		return DEFAULT_PAGE;
	return (unsigned)v;
}

/* The --file sizes, before the log: its records are checked by them. */
static int apply_files(struct args *a, struct htmlrep *r)
{
	unsigned ps = log_page_size(a->log);
	size_t i;

	r->page_size = ps;
	for (i = 0; i < a->nfiles; i++)
		if (htmlrep_file(r, a->file_names[i],
				 a->file_bytes[i] / ps +
					 (a->file_bytes[i] % ps != 0)) < 0)
			return -ENOMEM;
	return 0;
}

static int apply_args(struct args *a, struct htmlrep *r)
{
	char title[512];
	size_t i;

	for (i = 0; i < a->nvmas; i++) {
		const char *name = a->vmas[i].name;

		if (!name) {
			if (r->nfiles != 1) {
				fprintf(stderr,
					"testfs-report: --vma without a file "
					"name, but the log names %zu files; "
					"write NAME:FIRST-LAST\n",
					r->nfiles);
				return -EINVAL;
			}
			name = r->files[0].name;
		}
		if (htmlrep_add_vma(r, name, a->vmas[i].first, a->vmas[i].last,
				    a->vmas[i].prot))
			return -ENOMEM;
	}
	snprintf(title, sizeof(title), "testfs: %s", a->log);
	if (htmlrep_set_title(r, a->title ? a->title : title))
		return -ENOMEM;
	if (a->subtitle && htmlrep_set_subtitle(r, a->subtitle))
		return -ENOMEM;
	r->ra_kb = a->ra_kb;
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	struct htmlrep r;
	char why[1024];
	char *out = NULL;
	int status, err;

	htmlrep_init(&r);
	status = parse_args(&a, argc, argv);
	if (status >= 0)
		goto out;
	err = apply_files(&a, &r);
	if (!err)
		err = htmlrep_load_jsonl(&r, a.log, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s", strerror(-err));
	if (err) {
		fprintf(stderr, "testfs-report: %s\n", why);
		status = err == -ENOMEM ? 1 : 2;
		goto out;
	}
	err = apply_args(&a, &r);
	if (err) {
		status = err == -EINVAL ? 2 : 1;
		goto out;
	}
	if (a.output && strcmp(a.output, "-") == 0) {
		err = htmlrep_write(&r, stdout);
	} else {
		out = a.output ? strdup(a.output) : default_output(a.log);
		/* Never overwrite the log with its own picture. */
		if (out && (strcmp(out, a.log) == 0 || same_file(out, a.log))) {
			fprintf(stderr,
				"testfs-report: the page would replace "
				"the log %s; give -o FILE\n",
				a.log);
			status = 2;
			goto out;
		}
		err = out ? htmlrep_write_file(&r, out) : -ENOMEM;
	}
	if (err) {
		fprintf(stderr, "testfs-report: %s: %s\n", out ? out : "stdout",
			strerror(-err));
		status = 1;
		goto out;
	}
	if (out)
		fprintf(stderr,
			"testfs-report: wrote %s (%zu reads, %zu windows, %zu "
			"access records)\n",
			out, r.nranges, htmlrep_window_count(&r), r.naccesses);
	status = 0;
out:
	free(out);
	free_args(&a);
	htmlrep_free(&r);
	return status;
}
