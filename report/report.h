/* SPDX-License-Identifier: MIT */
/**
 * @file report.h
 *
 * The picture of one testfs run: a model of what readahead did (files,
 * VMAs, every FUSE read with its kernel decision, the accesses, the
 * windows, the policy verdicts) and its rendering as one self-contained
 * HTML page (inline SVG, a little plain JS and CSS, nothing fetched from
 * the network), for testfs-report and testfs-scenario --html.
 *
 * The model is filled by htmlrep_add_*() (or by htmlrep_load_jsonl() from
 * a saved log, or htmlrep_add_snapshot() from a libtestfs snapshot) and
 * written by htmlrep_write(). Functions that can fail return 0 or a
 * negative errno; none of them prints.
 */
#ifndef TESTFS_HTMLREP_H
#define TESTFS_HTMLREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "No page" in the page fields, as in the log. */
#define HTMLREP_NO_PAGE UINT64_MAX

/*
 * Pages of any file end before this one: off_t ends at 2^63 bytes, 2^51
 * pages of 4 KiB (fewer with larger pages). Page numbers below it are
 * also exact in the page script's numbers (doubles, exact to 2^53).
 */
#define HTMLREP_PAGE_LIMIT (1ull << 51)

/*
 * The most pages one FUSE_READ covers: its length is 32 bits, so an
 * unaligned read of 2^32 - 1 bytes spans (2^32 - 1) / 4096 + 2 pages.
 */
#define HTMLREP_READ_MAX_PAGES ((UINT32_MAX / 4096ull) + 2)

/* CLOCK_MONOTONIC times are signed 64-bit nanoseconds. */
#define HTMLREP_TIME_LIMIT ((uint64_t)INT64_MAX)

/* A served file. @pages is 0 when the size is unknown (no EOF drawn). */
struct htmlrep_file {
	char *name;
	uint64_t pages;
};

/* A mapping of pages [first, last] of file @file (index in files). */
struct htmlrep_vma {
	size_t file;
	uint64_t first;
	uint64_t last;
	/* PROT_READ, PROT_WRITE, PROT_EXEC bits. */
	int prot;
};

/* One FUSE_READ and the kernel decision behind it. */
struct htmlrep_range {
	uint64_t seq;
	size_t file;
	uint64_t first;
	uint64_t pages;
	/* The log's cause name ("sync", "async", ...; "unknown"). */
	char cause[12];
	/* The kernel batch it belongs to; 0: none. */
	uint32_t window;
	uint64_t ra_start;
	uint32_t ra_size;
	uint32_t ra_async;
	uint64_t marker;  /* HTMLREP_NO_PAGE: none */
	uint64_t trigger; /* HTMLREP_NO_PAGE: none */
	uint64_t t_ns;	  /* arrival */
	uint64_t done_ns; /* reply */
	uint64_t delay_ns;
	int32_t err;
	/* An access waited on this read. */
	bool late;
	/*
	 * The file's readahead maximum at the decision (the record's
	 * ra_pages; 0 unknown): read_ahead_kb / 4, doubled for a file the
	 * program gave POSIX_FADV_SEQUENTIAL.
	 */
	uint32_t ra_pages;
	/* The decision was made on a read(2)-style access (by_read). */
	bool by_read;
};

/* Pages the kernel saw accessed (fault, read(2), fault-around map). */
struct htmlrep_access {
	uint64_t seq;
	size_t file;
	/* "fault", "read" or "map". */
	char type[8];
	uint64_t first;
	uint64_t pages;
	uint64_t t_ns;
	uint64_t end_ns;
	uint32_t events;
	/* Events that waited on a read in flight. */
	uint32_t late;
};

/* A mark record ("touch begin"). */
struct htmlrep_mark {
	uint64_t seq;
	uint64_t t_ns;
	char *text;
};

/* Expected and observed pages of one readahead policy. */
struct htmlrep_verdict {
	char *policy;
	char *expected;
	char *observed;
	char *verdict;
};

/* Frees the strings of the @n verdicts of @v, and @v. */
void htmlrep_verdicts_free(struct htmlrep_verdict *v, size_t n);

/* A histogram the page draws as bars: counts[i] over label i. */
struct htmlrep_hist {
	char *title;
	char *label; /* what i is ("folio order") */
	uint64_t *counts;
	size_t n;
};

struct htmlrep {
	char *title;
	/* One line under the title: kernel, knobs ("" if none). */
	char *subtitle;
	/* Paragraphs of plain words shown above the pictures. */
	char **notes;
	size_t nnotes;
	struct htmlrep_file *files;
	size_t nfiles;
	struct htmlrep_vma *vmas;
	size_t nvmas;
	struct htmlrep_range *ranges;
	size_t nranges;
	struct htmlrep_access *accesses;
	size_t naccesses;
	struct htmlrep_mark *marks;
	size_t nmarks;
	struct htmlrep_verdict *verdicts;
	size_t nverdicts;
	struct htmlrep_hist *hists;
	size_t nhists;
	/* Records the log lost (its ring overflowed); shown as a warning. */
	uint64_t lost;
	/* The mount's read_ahead_kb, 0 unknown: the page compares windows. */
	unsigned ra_kb;
	/* The page size of the kernel that wrote the log (its records'
	 * "page_size"; 4096 for a log without one): the unit of its pages. */
	unsigned page_size;
};

/** An empty model; htmlrep_free() releases what the add calls allocated. */
void htmlrep_init(struct htmlrep *r);
void htmlrep_free(struct htmlrep *r);

/** Sets the title / subtitle (copied). @return 0 or -ENOMEM. */
int htmlrep_set_title(struct htmlrep *r, const char *title);
int htmlrep_set_subtitle(struct htmlrep *r, const char *subtitle);
/** Adds a paragraph of plain words (copied). */
int htmlrep_add_note(struct htmlrep *r, const char *text);
/**
 * Adds a histogram drawn as bars (copied): @counts[i] for i = 0 ..
 * @n - 1, each bar labelled "@label i". @return 0 or -ENOMEM.
 */
int htmlrep_add_histogram(struct htmlrep *r, const char *title,
			  const char *label, const uint64_t *counts, size_t n);

/**
 * The index of file @name, added with @pages (0: unknown) if it is new;
 * a known size replaces an unknown one.
 *
 * @return the index (>= 0) or -ENOMEM.
 */
long htmlrep_file(struct htmlrep *r, const char *name, uint64_t pages);

/** Adds a VMA of file @name. @return 0, -EINVAL (last < first), -ENOMEM. */
int htmlrep_add_vma(struct htmlrep *r, const char *name, uint64_t first,
		    uint64_t last, int prot);
/**
 * Whether @g could be a read testfs logged, with what @r knows (the
 * size of its file, when known): at least one page, all of them below
 * HTMLREP_PAGE_LIMIT and at most HTMLREP_READ_MAX_PAGES, answered no
 * earlier than it arrived, times below HTMLREP_TIME_LIMIT, the window,
 * marker and trigger pages in range, and, but for an O_DIRECT read
 * (which the kernel may send past the end), starting before the file's
 * end. A read may end past it: the kernel asks for whole folios.
 *
 * @return 0, or -EINVAL with the reason in @why (@whylen bytes; @why may
 *	   be NULL).
 */
int htmlrep_check_range(const struct htmlrep *r, const struct htmlrep_range *g,
			char *why, size_t whylen);
/**
 * The same for an access record: at least one page, all below
 * HTMLREP_PAGE_LIMIT, starting before the file's end when it is known,
 * ending no earlier than it started, no more late events than events.
 */
int htmlrep_check_access(const struct htmlrep *r,
			 const struct htmlrep_access *a, char *why,
			 size_t whylen);

/**
 * Adds a copy of @g (its file index must exist).
 *
 * @return 0, -EINVAL (see htmlrep_check_range()), -ENOMEM.
 */
int htmlrep_add_range(struct htmlrep *r, const struct htmlrep_range *g);
/** Adds a copy of @a; -EINVAL as htmlrep_check_access() says. */
int htmlrep_add_access(struct htmlrep *r, const struct htmlrep_access *a);
int htmlrep_add_mark(struct htmlrep *r, uint64_t seq, uint64_t t_ns,
		     const char *text);
int htmlrep_add_verdict(struct htmlrep *r, const char *policy,
			const char *expected, const char *observed,
			const char *verdict);

/**
 * Windows: the kernel batches the ranges belong to (distinct non-zero
 * window ids); what the page draws as windows.
 */
size_t htmlrep_window_count(const struct htmlrep *r);

/**
 * Reads a saved log, the daemon's --log JSON Lines file or a copy of
 * MOUNT/.testfs/log, into @r. On failure @why (@whylen bytes) says
 * "PATH:LINE: what was wrong" (or "PATH: ..." for the whole file).
 *
 * @return 0; -ENOENT and friends for a file that cannot be read;
 *	   -ENODATA for a log without any record; -EPROTO for a line that
 *	   is not a log record; -ENOMEM.
 */
int htmlrep_load_jsonl(struct htmlrep *r, const char *path, char *why,
		       size_t whylen);

/**
 * The same from the open stream @f (read to its end, not closed), named
 * @name in the messages. A line over 1 MiB is -EPROTO.
 */
int htmlrep_read_jsonl(struct htmlrep *r, FILE *f, const char *name, char *why,
		       size_t whylen);

struct testfs_log;

/**
 * Adds every read, access record and mark of a libtestfs snapshot (what
 * a scenario has after a phase) to @r, and counts its lost records. In
 * the separate library htmlrep_snapshot_dep, which links libtestfs.
 *
 * @return 0, or -ENOMEM.
 */
int htmlrep_add_snapshot(struct htmlrep *r, const struct testfs_log *log);

/**
 * Writes the page to @f.
 *
 * @return 0, or the write's negative errno (-EIO if it gave none),
 *	   -ENOMEM.
 */
int htmlrep_write(const struct htmlrep *r, FILE *f);

/**
 * Writes the page to @path as outfile.h says: a regular file (or none)
 * is replaced whole, a link is followed, a FIFO or device written into.
 *
 * @return 0 or a negative errno (ENOSPC, EISDIR, ...).
 */
int htmlrep_write_file(const struct htmlrep *r, const char *path);

/**
 * The page's data, the JSON object a page holds in its #data element
 * ('<' written as \u003c), malloc'd; NULL without memory. What a matrix
 * page holds per kernel.
 */
char *htmlrep_data(const struct htmlrep *r);

/**
 * Whether @data can go into a page as it is: a JSON object (by its first
 * byte; the browser parses the rest) without '<', so nothing in it can
 * end the <script> element. htmlrep_data() is always safe.
 */
bool htmlrep_data_safe(const char *data);

/* One kernel of a matrix page. */
struct htmlrep_kernel {
	const char *label;   /* the kernel SPEC: "host", "debian:6.1" */
	const char *release; /* uname -r, "" if unknown */
	const char *status;  /* "ok", "failed", "skipped" */
	const char *reason;  /* why it failed or was skipped, or "" */
	/* htmlrep_data() of its run; NULL (or unsafe): not drawn. */
	const char *data;
};

/**
 * Writes a matrix page to @f: the runs of one command on @n kernels, their
 * page maps one under another on the same x axis and zoom, the pages one
 * kernel fetched and another did not marked, each kernel's verdicts.
 *
 * @return 0, or -EIO (write error), -ENOMEM.
 */
int htmlrep_write_matrix(FILE *f, const char *title, const char *subtitle,
			 const struct htmlrep_kernel *k, size_t n);

#endif
