/* SPDX-License-Identifier: MIT */
/*
 * The kernel's readahead and filemap tracepoints, decoded: parsing of the
 * tracefs `format`, `header_page` and `header_event` files, decoding of one
 * raw event into a struct trace_event, and walking the records of one
 * ring-buffer page as read from per_cpu/cpuN/trace_pipe_raw.
 *
 * Nothing here does I/O: the tracer (tracer.h) reads the files and the
 * pages, the unit tests feed captured text and hand-made pages. No field
 * offset or size is hard-coded; every one comes from a format file (they
 * differ between kernels: 6.18 has i_ino first and s_dev at 16, later
 * kernels reorder the page_cache_ra_op fields).
 */
#ifndef TESTFS_TRACE_EVENTS_H
#define TESTFS_TRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The events the tracer enables, in this order. */
enum trace_kind {
	TRACE_SYNC_RA,	    /* readahead:page_cache_sync_ra */
	TRACE_ASYNC_RA,	    /* readahead:page_cache_async_ra */
	TRACE_RA_ORDER,	    /* readahead:page_cache_ra_order */
	TRACE_RA_UNBOUNDED, /* readahead:page_cache_ra_unbounded */
	TRACE_FAULT,	    /* filemap:mm_filemap_fault */
	TRACE_GET_PAGES,    /* filemap:mm_filemap_get_pages */
	TRACE_MAP_PAGES,    /* filemap:mm_filemap_map_pages */
	TRACE_ADD_FOLIO,    /* filemap:mm_filemap_add_to_page_cache */
	TRACE_KIND_COUNT,
};

/* "page_cache_sync_ra", ...; "?" for an unknown kind. */
const char *trace_kind_name(unsigned kind);
/* "readahead" or "filemap". */
const char *trace_kind_system(unsigned kind);
/* The kind named @name (event name without system), or -1. */
int trace_kind_from_name(const char *name);

/* Bits of trace_event.fields: which of the optional members were set. */
#define TRACE_F_INDEX (1u << 0)
#define TRACE_F_LAST_INDEX (1u << 1)
#define TRACE_F_REQ_COUNT (1u << 2)
#define TRACE_F_NR_TO_READ (1u << 3)
#define TRACE_F_LOOKAHEAD (1u << 4)
#define TRACE_F_ORDER (1u << 5)
#define TRACE_F_SIZE (1u << 6)
#define TRACE_F_ASYNC_SIZE (1u << 7)
#define TRACE_F_RA_PAGES (1u << 8)
#define TRACE_F_MMAP_MISS (1u << 9)
#define TRACE_F_PREV_POS (1u << 10)

/*
 * One decoded event. Page numbers are in PAGE_SIZE units. What the members
 * mean per kind, as the kernel fills them (6.18, verified on this machine):
 *
 * page_cache_sync_ra, page_cache_async_ra: the decision's input, traced
 *	before the window moves. index: the page the read or fault missed
 *	(sync) or the PG_readahead marker page it hit (async); req_count:
 *	pages asked for; order, size, async_size: the *previous* window of
 *	the file's ra state; ra_pages, mmap_miss, prev_pos (bytes, -1: none).
 * page_cache_ra_order: the window decided: index = ra->start, size,
 *	async_size (marker at index + size - async_size), order = folio
 *	order asked for, ra_pages.
 * page_cache_ra_unbounded: one batch about to be allocated and read:
 *	[index, index + nr_to_read), marker at index + nr_to_read -
 *	lookahead_size (no marker when lookahead_size is 0).
 * mm_filemap_fault: index = the faulting page (not mapped by fault-around).
 * mm_filemap_get_pages: a read(2)-style page-cache lookup of
 *	[index, last_index].
 * mm_filemap_map_pages: fault-around mapping cached pages
 *	[index, last_index]; it never reads.
 * mm_filemap_add_to_page_cache: one folio of 2^order pages at index
 *	entered the page cache (to be read); only with its order field.
 */
struct trace_event {
	uint64_t ts_ns; /* CLOCK_MONOTONIC (trace_clock "mono") */
	uint64_t ino;
	uint64_t index;
	uint64_t last_index; /* inclusive */
	uint64_t req_count;
	uint64_t nr_to_read;
	uint64_t lookahead_size;
	int64_t prev_pos;
	uint32_t order;
	uint32_t size;
	uint32_t async_size;
	uint32_t ra_pages;
	uint32_t mmap_miss;
	uint32_t dev; /* kernel encoding: (major << 20) | minor */
	int32_t pid;  /* the task that hit the tracepoint */
	uint16_t cpu;
	uint8_t kind; /* enum trace_kind */
	uint8_t reserved;
	uint32_t fields; /* TRACE_F_* */
};

/* The kernel's dev_t encoding, as in s_dev and in event filters. */
static inline uint32_t trace_kdev(unsigned major, unsigned minor)
{
	return ((uint32_t)major << 20) | (minor & 0xfffffu);
}

/*
 * Formats @ev as one line without newline, e.g.
 * "6395.679266123 cpu1 pid 11836 page_cache_sync_ra dev 0:39 ino 9
 * index 0 req_count 1 ...". Returns what snprintf returns.
 */
int trace_event_format(const struct trace_event *ev, char *buf, size_t len);

/* ---- format files ---- */

#define TRACE_FIELDS_MAX 32

struct trace_field {
	char name[48];
	uint16_t offset;
	uint16_t size;
	bool is_signed;
};

struct trace_format {
	char name[64];
	uint32_t id;
	unsigned nfields;
	struct trace_field fields[TRACE_FIELDS_MAX];
};

/*
 * Parses the text of an event's `format` file. Returns 0, or -EINVAL
 * (no name, no ID, a malformed field line, too many fields).
 */
int trace_format_parse(const char *text, struct trace_format *fmt);

/* The field called @name, or NULL. */
const struct trace_field *trace_format_field(const struct trace_format *fmt,
					     const char *name);

/* ---- decoding ---- */

/* Where one member of trace_event lives in an event's record. */
struct trace_slot {
	uint16_t offset;
	uint8_t size; /* 0: absent */
	bool is_signed;
};

enum trace_slot_id {
	TRACE_SLOT_TYPE, /* common_type */
	TRACE_SLOT_PID,	 /* common_pid */
	TRACE_SLOT_INO,
	TRACE_SLOT_DEV,
	TRACE_SLOT_INDEX,
	TRACE_SLOT_LAST_INDEX,
	TRACE_SLOT_REQ_COUNT,
	TRACE_SLOT_NR_TO_READ,
	TRACE_SLOT_LOOKAHEAD,
	TRACE_SLOT_ORDER,
	TRACE_SLOT_SIZE,
	TRACE_SLOT_ASYNC_SIZE,
	TRACE_SLOT_RA_PAGES,
	TRACE_SLOT_MMAP_MISS,
	TRACE_SLOT_PREV_POS,
	TRACE_SLOT_COUNT,
};

struct trace_layout {
	uint32_t id;	   /* the event's ID */
	uint32_t min_len;  /* the record is at least this long */
	uint8_t kind;	   /* enum trace_kind */
	char dev_name[48]; /* field to filter on: "s_dev" or "dev" */
	struct trace_slot slot[TRACE_SLOT_COUNT];
	/* The optional slots (TRACE_SLOT_INDEX on) this format has. */
	uint8_t nopt;
	uint8_t opt[TRACE_SLOT_COUNT];
	uint32_t opt_fields; /* their TRACE_F_* bits */
};

struct trace_decoder {
	unsigned n;
	struct trace_layout layout[TRACE_KIND_COUNT];
	/* Where common_type is: read before the event is known, so the same
	 * for every event added. */
	uint16_t type_offset;
	uint16_t type_size;
};

/*
 * Adds event @kind with format @fmt to @d. Fails with -EINVAL and a reason
 * in @why when the format lacks a field the tracer needs (common_type,
 * common_pid, the inode, the device), a field has an unusable size or
 * common_type is not where the events already added have it; -EEXIST when
 * @kind or the ID is already there.
 */
int trace_decoder_add(struct trace_decoder *d, unsigned kind,
		      const struct trace_format *fmt, char *why, size_t whylen);

/*
 * Decodes the record @data (@len bytes, starting at common_type) into
 * @ev (ts_ns and cpu are left to the caller). Returns 0, -ENOENT for an
 * event ID not in @d, -EINVAL for a record too short for its format (every
 * field it has must lie inside the record; no byte past @len is read).
 */
int trace_decode(const struct trace_decoder *d, const void *data, size_t len,
		 struct trace_event *ev);

/* ---- ring-buffer pages (trace_pipe_raw) ---- */

/*
 * The page header (events/header_page) and event header
 * (events/header_event) of this kernel's ring buffer.
 */
struct trace_page_layout {
	uint16_t ts_offset;
	uint16_t ts_size;
	uint16_t commit_offset;
	uint16_t commit_size;
	uint16_t data_offset;
	uint32_t data_size; /* payload bytes of a default sub-buffer */
	/* Event header: a 32-bit word, type_len in its low bits. */
	uint8_t type_len_bits;
	uint8_t time_delta_bits;
	uint8_t type_padding;
	uint8_t type_time_extend;
	uint8_t type_time_stamp;
	uint8_t type_data_max;
};

/*
 * Parses the text of events/header_page and events/header_event. Returns
 * 0 or -EINVAL with the reason in @why.
 */
int trace_page_layout_parse(const char *header_page, const char *header_event,
			    struct trace_page_layout *l, char *why,
			    size_t whylen);

/* One record of a page: a timestamp and an event's raw bytes. */
struct trace_record {
	uint64_t ts;
	const void *data;
	uint32_t len; /* may include alignment padding after the event */
};

struct trace_page_info {
	uint32_t records;   /* data records found */
	uint32_t commit;    /* bytes of events on the page */
	bool missed_events; /* the kernel lost events before this page */
	uint64_t missed;    /* how many, when it says (else 0) */
	uint64_t last_ts;   /* timestamp after the last record */
};

/*
 * Called for each data record, in order; a non-zero return stops the walk
 * and is returned by trace_page_parse().
 */
typedef int (*trace_record_fn)(const struct trace_record *rec, void *arg);

/*
 * Walks the records of the ring-buffer page @page (@len bytes, a whole
 * sub-buffer as read from trace_pipe_raw). Returns 0, what @fn returned,
 * or -EINVAL for a malformed page (records before the fault were
 * delivered). @info (may be NULL) describes the page.
 */
int trace_page_parse(const struct trace_page_layout *l, const void *page,
		     size_t len, trace_record_fn fn, void *arg,
		     struct trace_page_info *info);

#endif
