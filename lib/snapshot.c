// SPDX-License-Identifier: MIT
/*
 * Taking a snapshot of the read log: MOUNT/.testfs/log.bin (layout in
 * protocol/log_record.h), with file names from the "files" array of
 * MOUNT/.testfs/config. What a snapshot answers is in records.c and the
 * files beside it.
 */
#include "lib_i.h"

#include "array.h"

#include "control_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_record.h"

/* Records converted per read() of log.bin. */
#define READ_CHUNK 1024
#define MARK_SIZE (LOG_MARK_MAX + 1)

static int read_header(int fd, struct log_bin_header *hdr)
{
	ssize_t n = lib_read_full(fd, hdr, sizeof(*hdr));

	if (n < 0)
		return (int)n;
	if ((size_t)n != sizeof(*hdr) ||
	    memcmp(hdr->magic, LOG_BIN_MAGIC, sizeof(hdr->magic)) != 0 ||
	    hdr->version != LOG_BIN_VERSION ||
	    hdr->record_size != sizeof(struct log_record))
		return -EPROTO;
	/*
	 * The count is only a claim: records are read before they are
	 * stored (see grow_records()), so a count the file does not back
	 * ends in -EPROTO at its end, never in an allocation of that size.
	 */
	if (hdr->count > SIZE_MAX / sizeof(struct testfs_record))
		return -EPROTO;
	/*
	 * The page size of the kernel the daemon ran on: the unit of every
	 * page number in the records. 0 only from a writer older than the
	 * field, which ran on 4 KiB pages; anything but a power of two from
	 * 512 bytes to 1 MiB is not a page size, and a log read in the
	 * wrong unit would be misread, so it is refused.
	 */
	if (!hdr->page_size)
		hdr->page_size = TESTFS_PAGE_SIZE;
	if (hdr->page_size < 512 || hdr->page_size > (1u << 20) ||
	    (hdr->page_size & (hdr->page_size - 1)))
		return -EPROTO;
	return 0;
}

/*
 * The kernel's decision behind a read. Without a known cause (tracing off,
 * or no event explained the read) the window fields stay empty.
 */
static void convert_attr(const struct log_attr *a, struct testfs_record *out)
{
	out->cause = TESTFS_CAUSE_UNKNOWN;
	out->ra_marker = TESTFS_NO_PAGE;
	out->trigger_page = TESTFS_NO_PAGE;
	out->folio_order = -1;
	out->alloc_order = -1;
	if (a->cause == LOG_CAUSE_UNKNOWN || a->cause >= LOG_CAUSE_COUNT)
		return;
	out->cause = (enum testfs_cause)a->cause;
	out->window = a->window;
	out->ra_start = a->ra_start;
	out->ra_size = a->ra_size;
	out->ra_async = a->ra_async;
	out->ra_marker = a->ra_marker;
	out->ra_pages = a->ra_pages;
	out->mmap_miss = a->mmap_miss;
	out->trigger_page = a->trigger_page;
	out->folio_order = a->order;
	out->alloc_order = a->alloc_order;
	out->late = (a->flags & LOG_ATTR_LATE) != 0;
	out->by_read = (a->flags & LOG_ATTR_READ_TRIGGER) != 0;
}

static void convert_read(const struct log_record *in,
			 const struct name_table *names, uint32_t page_size,
			 struct testfs_record *out)
{
	uint64_t in_page = in->read.off % page_size;

	out->kind = TESTFS_RECORD_READ;
	out->file = lib_name_of(names, in->read.ino);
	out->ino = in->read.ino;
	out->off = in->read.off;
	out->len = in->read.len;
	out->page = in->read.off / page_size;
	/* ceil((off + len) / page_size) - page, without overflowing off + len.
	 */
	out->pages = in->read.len ? (in_page + in->read.len + page_size - 1) /
					    page_size
				  : 0;
	out->done_ns = in->read.done_ns;
	out->delay_ns = in->read.delay_ns;
	out->pid = in->read.pid;
	out->err = in->read.err;
	out->direct = (in->flags & LOG_FLAG_DIRECT) != 0;
	out->unique = in->read.unique;
	convert_attr(&in->read.attr, out);
}

/* An access record and its seq, which orders equal times. */
struct access_entry {
	struct testfs_access a;
	uint64_t seq;
};

struct snapshot_build {
	struct testfs_log *log;
	const struct name_table *names;
	size_t recs_cap; /* records log->recs has room for */
	/* Mark texts, MARK_SIZE bytes each, pointed to once complete. */
	char *marks;
	size_t nmarks;
	size_t marks_cap;
	/* Access records, in log order. */
	struct access_entry *access;
	size_t naccess;
	size_t access_cap;
};

static int add_access(struct snapshot_build *b, const struct log_record *in)
{
	struct access_entry *e;

	if (!array_grow((void **)&b->access, &b->access_cap, b->naccess,
			sizeof(*b->access)))
		return -ENOMEM;
	e = &b->access[b->naccess++];
	memset(e, 0, sizeof(*e));
	e->seq = in->seq;
	e->a.file = lib_name_of(b->names, in->access.ino);
	e->a.first = in->access.first;
	e->a.last = in->access.last;
	e->a.type = (enum testfs_access_type)in->access.type;
	e->a.pid = in->access.pid;
	e->a.t_ns = in->t_ns;
	e->a.end_ns = in->access.end_ns;
	e->a.events = in->access.events;
	e->a.late = in->access.late;
	return 0;
}

static int add_folio(struct snapshot_build *b, const struct log_record *in)
{
	struct testfs_log *log = b->log;
	struct lib_folio *f;

	if (in->folio.last < in->folio.first)
		return 0;
	if (log->nfolios == log->folios_cap) {
		size_t cap = log->folios_cap ? 2 * log->folios_cap : 64;

		f = realloc(log->folios, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		log->folios = f;
		log->folios_cap = cap;
	}
	f = &log->folios[log->nfolios++];
	f->file = lib_name_of(b->names, in->folio.ino);
	f->first = in->folio.first;
	f->last = in->folio.last;
	f->t_ns = in->t_ns;
	f->folios = in->folio.folios;
	f->order = in->folio.order;
	return 0;
}

static int cmp_access(const void *x, const void *y)
{
	const struct access_entry *a = x, *b = y;

	if (a->a.t_ns != b->a.t_ns)
		return a->a.t_ns < b->a.t_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Hands the access records to the log, sorted by time. */
static int adopt_access(struct snapshot_build *b)
{
	struct testfs_log *log = b->log;
	size_t i;

	if (!b->naccess)
		return 0;
	qsort(b->access, b->naccess, sizeof(*b->access), cmp_access);
	log->access = malloc(b->naccess * sizeof(*log->access));
	if (!log->access)
		return -ENOMEM;
	for (i = 0; i < b->naccess; i++)
		log->access[i] = b->access[i].a;
	log->naccess = b->naccess;
	return 0;
}

static int add_mark(struct snapshot_build *b, const struct log_record *in)
{
	size_t len = strnlen(in->mark.text, LOG_MARK_MAX);

	if (!array_grow((void **)&b->marks, &b->marks_cap, b->nmarks,
			MARK_SIZE))
		return -ENOMEM;
	memcpy(b->marks + b->nmarks * MARK_SIZE, in->mark.text, len);
	b->marks[b->nmarks * MARK_SIZE + len] = '\0';
	b->nmarks++;
	return 0;
}

/*
 * Room for one more record. log.bin's header count is not trusted for
 * the allocation (a damaged or hostile file may claim 2^40 records), so
 * the array starts at a chunk and doubles as records actually arrive.
 */
static int grow_records(struct snapshot_build *b)
{
	struct testfs_log *log = b->log;

	return array_grow((void **)&log->recs, &b->recs_cap, log->count,
			  sizeof(*log->recs))
		       ? 0
		       : -ENOMEM;
}

static int add_record(struct snapshot_build *b, const struct log_record *in)
{
	struct testfs_log *log = b->log;
	struct testfs_record *out;
	int err;

	err = grow_records(b);
	if (err)
		return err;
	out = &log->recs[log->count];
	memset(out, 0, sizeof(*out));
	out->seq = in->seq;
	out->t_ns = in->t_ns;
	switch (in->kind) {
	case LOG_READ:
		convert_read(in, b->names, b->log->page_size, out);
		break;
	case LOG_MARK:
		out->kind = TESTFS_RECORD_MARK;
		err = add_mark(b, in);
		if (err)
			return err;
		break;
	case LOG_ACCESS:
		/* Kept apart: testfs_log_at() lists reads and marks only. */
		return add_access(b, in);
	case LOG_FOLIO:
		return add_folio(b, in);
	default:
		/* A kind this library does not know yet. */
		return 0;
	}
	log->count++;
	return 0;
}

static int read_records(int fd, uint64_t count, struct snapshot_build *b)
{
	struct log_record *chunk;
	uint64_t left = count;
	size_t n, i;
	ssize_t got;
	char extra;
	int err = 0;

	chunk = malloc(READ_CHUNK * sizeof(*chunk));
	if (!chunk)
		return -ENOMEM;
	while (left) {
		n = left < READ_CHUNK ? (size_t)left : READ_CHUNK;
		got = lib_read_full(fd, chunk, n * sizeof(*chunk));
		if (got < 0) {
			err = (int)got;
			goto free_chunk;
		}
		if ((size_t)got != n * sizeof(*chunk)) {
			err = -EPROTO;
			goto free_chunk;
		}
		for (i = 0; i < n; i++) {
			err = add_record(b, &chunk[i]);
			if (err)
				goto free_chunk;
		}
		left -= n;
	}
	got = lib_read_full(fd, &extra, 1);
	if (got != 0)
		err = got < 0 ? (int)got : -EPROTO;
free_chunk:
	free(chunk);
	return err;
}

/*
 * Hands the names and the mark texts over to @log and points the records
 * at them.
 */
static int adopt_strings(struct snapshot_build *b, struct name_table *names)
{
	struct testfs_log *log = b->log;
	size_t i, k = 0;

	log->strings = calloc(names->n + 1, sizeof(*log->strings));
	log->files = calloc(names->n + 1, sizeof(*log->files));
	if (!log->strings || !log->files)
		return -ENOMEM;
	for (i = 0; i < names->n; i++) {
		log->strings[log->nstrings++] = names->v[i].name;
		log->files[log->nfiles++] = names->v[i].name;
	}
	free(names->v);
	memset(names, 0, sizeof(*names));
	if (!b->nmarks)
		return 0;
	log->strings[log->nstrings++] = b->marks;
	for (i = 0; i < log->count; i++)
		if (log->recs[i].kind == TESTFS_RECORD_MARK)
			log->recs[i].mark = b->marks + MARK_SIZE * k++;
	b->marks = NULL;
	return 0;
}

int testfs_log_snapshot(struct testfs_mount *fs, struct testfs_log **out)
{
	struct name_table names = { 0 };
	struct trace_state trace = { -1, false, NULL };
	struct snapshot_build b = { 0 };
	struct log_bin_header hdr;
	struct testfs_log *log;
	int fd, err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!fs)
		return -EINVAL;
	err = testfs_settle(fs, 0);
	if (err)
		return err;
	err = lib_read_config(fs, &names, &trace, NULL);
	if (err)
		return err;
	fd = lib_open_control(fs, CONTROL_PATH_LOG_BIN);
	if (fd < 0) {
		err = fd;
		goto free_names;
	}
	err = read_header(fd, &hdr);
	if (err)
		goto close_fd;
	log = calloc(1, sizeof(*log));
	if (!log) {
		err = -ENOMEM;
		goto close_fd;
	}
	log->lost = hdr.lost;
	log->page_size = hdr.page_size;
	log->traced = (hdr.flags & LOG_BIN_TRACED) != 0;
	log->reads_traced = (hdr.flags & LOG_BIN_TRACE_READS) != 0;
	log->no_causes = log->traced && (hdr.flags & LOG_BIN_NO_CAUSES) != 0;
	log->folios_traced =
		log->traced && (hdr.flags & LOG_BIN_TRACE_FOLIOS) != 0;
	log->folios_large_only =
		log->folios_traced && (hdr.flags & LOG_BIN_FOLIOS_LARGE) != 0;
	if (!log->traced) {
		log->trace_why = lib_trace_why(&trace);
		if (!log->trace_why) {
			err = -ENOMEM;
			goto free_log;
		}
	}
	/* At most a chunk up front: grow_records() adds room as needed. */
	b.recs_cap = hdr.count < READ_CHUNK ? (size_t)hdr.count : READ_CHUNK;
	if (!b.recs_cap)
		b.recs_cap = 1;
	log->recs = malloc(b.recs_cap * sizeof(*log->recs));
	if (!log->recs) {
		err = -ENOMEM;
		goto free_log;
	}
	b.log = log;
	b.names = &names;
	err = read_records(fd, hdr.count, &b);
	if (err)
		goto free_log;
	err = adopt_strings(&b, &names);
	if (!err)
		err = adopt_access(&b);
	if (!err)
		err = lib_folios_why(log);
	if (!err)
		err = lib_index_windows(log);
	if (err)
		goto free_log;
	free(b.access);
	free(trace.why);
	close(fd);
	*out = log;
	return 0;

free_log:
	free(b.marks);
	free(b.access);
	testfs_log_free(log);
close_fd:
	close(fd);
free_names:
	lib_free_names(&names);
	free(trace.why);
	return err;
}

void testfs_log_free(struct testfs_log *log)
{
	size_t i;

	if (!log)
		return;
	for (i = 0; i < log->nstrings; i++)
		free(log->strings[i]);
	free(log->strings);
	free(log->files);
	free(log->recs);
	free(log->access);
	free(log->trace_why);
	free(log->folios);
	free(log->folios_why);
	lib_free_windows(log);
	free(log);
}
