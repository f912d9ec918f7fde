/* SPDX-License-Identifier: MIT */
/*
 * One entry of the read log. The layout is also the record format of
 * MOUNT/.testfs/log.bin, a contract between two processes: the daemon
 * writes it and libtestfs (or any reader built against another version)
 * reads it. So it only ever grows at the end of the reserved space and
 * keeps its size (128 bytes); a change of meaning bumps LOG_BIN_VERSION.
 */
#ifndef TESTFS_LOG_RECORD_H
#define TESTFS_LOG_RECORD_H

#include <stddef.h>
#include <stdint.h>

enum log_kind {
	LOG_READ = 1,
	LOG_MARK = 2,
	LOG_ACCESS = 3, /* pages the kernel accessed (kernel correlation) */
	LOG_FOLIO = 4,	/* folios the kernel added to the page cache */
};

#define LOG_MARK_MAX 103

/* flags of a read: it came from an O_DIRECT open, not the page cache. */
#define LOG_FLAG_DIRECT 0x1

/* "No page" in the page fields of the attribution. */
#define LOG_NO_PAGE UINT64_MAX

/*
 * Why the kernel sent a read, as the readahead and filemap tracepoints tell
 * (src/correlate/). 0 is "unknown": tracing off, or no event explains it.
 */
enum log_cause {
	LOG_CAUSE_UNKNOWN = 0,
	LOG_CAUSE_SYNC,	      /* sync readahead on a miss */
	LOG_CAUSE_ASYNC,      /* async readahead on a marker page */
	LOG_CAUSE_READAROUND, /* mmap read-around on a fault */
	LOG_CAUSE_FORCED,     /* readahead(2), fadvise/madvise WILLNEED */
	LOG_CAUSE_SINGLE,     /* one page read without readahead */
	LOG_CAUSE_DIRECT,     /* O_DIRECT: no page cache involved */
	LOG_CAUSE_COUNT,
};

/* log_attr.flags */
#define LOG_ATTR_LATE 0x1 /* an access waited on this read */
/* The decision came from a read(2)-style access (no fault before it). */
#define LOG_ATTR_READ_TRIGGER 0x2

/*
 * The kernel's decision behind a read: the window it belongs to. Written
 * by the correlator after the record is published (log_ring_attribute()),
 * so readers see either all of it or none of it (cause 0).
 */
struct log_attr {
	uint64_t ra_start;     /* first page of the window */
	uint64_t ra_marker;    /* PG_readahead page, or LOG_NO_PAGE */
	uint64_t trigger_page; /* faulting page / read offset, or LOG_NO_PAGE */
	uint32_t window;       /* id of the kernel's batch; 0: none */
	uint32_t ra_size;      /* pages of the window */
	uint32_t ra_async;     /* async_size: lookahead pages */
	uint32_t ra_pages;     /* the file's readahead maximum */
	uint16_t mmap_miss;
	uint8_t cause;	    /* enum log_cause */
	int8_t order;	    /* folio order the window asked for; -1: none */
	int8_t alloc_order; /* order of the folios allocated; -1: unknown */
	uint8_t flags;	    /* LOG_ATTR_* */
	uint16_t reserved;
};

_Static_assert(sizeof(struct log_attr) == 48, "attribution fills the spare");

/* What an access record saw. */
enum log_access_type {
	LOG_ACCESS_FAULT = 1, /* filemap:mm_filemap_fault, one page */
	LOG_ACCESS_READ = 2,  /* filemap:mm_filemap_get_pages, read(2) */
	LOG_ACCESS_MAP = 3,   /* filemap:mm_filemap_map_pages, fault-around */
};

/*
 * The names the JSON log and libtestfs use: "sync", "async", "readaround",
 * "forced", "single", "direct", "unknown"; "fault", "read", "map".
 */
static inline const char *log_cause_name(unsigned cause)
{
	static const char *const names[LOG_CAUSE_COUNT] = {
		[LOG_CAUSE_UNKNOWN] = "unknown",
		[LOG_CAUSE_SYNC] = "sync",
		[LOG_CAUSE_ASYNC] = "async",
		[LOG_CAUSE_READAROUND] = "readaround",
		[LOG_CAUSE_FORCED] = "forced",
		[LOG_CAUSE_SINGLE] = "single",
		[LOG_CAUSE_DIRECT] = "direct",
	};

	return cause < LOG_CAUSE_COUNT ? names[cause] : "unknown";
}

static inline const char *log_access_name(unsigned type)
{
	switch (type) {
	case LOG_ACCESS_FAULT:
		return "fault";
	case LOG_ACCESS_READ:
		return "read";
	case LOG_ACCESS_MAP:
		return "map";
	default:
		return "unknown";
	}
}

struct log_record {
	uint64_t seq;  /* 1, 2, 3 ... since mount */
	uint64_t t_ns; /* CLOCK_MONOTONIC at arrival */
	uint16_t kind; /* enum log_kind */
	uint16_t flags;
	uint32_t reserved;
	union {
		struct {
			uint64_t ino;
			uint64_t off;	   /* byte range the kernel asked for */
			uint64_t done_ns;  /* when the reply was sent */
			uint64_t delay_ns; /* latency injected */
			uint32_t len;
			uint32_t pid;
			int32_t err; /* 0 or the errno answered */
			uint32_t reserved2;
			struct log_attr attr;
			/*
			 * The kernel's FUSE unique of the request (its
			 * fuse_in_header), 0 if unknown. The kernel numbers
			 * requests in the order it queues them, so the log's
			 * reads come in increasing unique order (the
			 * LOG_BIN_UNIQUE flag of log.bin says it is filled).
			 */
			uint64_t unique;
		} read;
		struct {
			/*
			 * Consecutive events of one task on one file, of one
			 * type, touching adjacent pages, are one record while
			 * end_ns - t_ns <= 1 ms (a map of one page is never
			 * merged).
			 */
			uint64_t ino;
			uint64_t first; /* pages [first, last] */
			uint64_t last;
			uint64_t end_ns; /* time of the last event (t_ns: first)
					  */
			uint32_t pid;
			uint16_t type; /* enum log_access_type */
			uint16_t reserved;
			uint32_t events; /* events merged into this record */
			uint32_t late;	 /* events that waited on a read */
		} access;
		struct {
			/*
			 * Folios of one order that one task added to the
			 * page cache of one file (filemap:
			 * mm_filemap_add_to_page_cache), adjacent, within
			 * 1 ms: pages [first, last] in `folios` folios of
			 * 2^order pages each. Readers that do not know
			 * this kind skip it.
			 */
			uint64_t ino;
			uint64_t first;
			uint64_t last;
			uint64_t end_ns; /* time of the last folio */
			uint32_t pid;
			uint16_t order;
			uint16_t reserved;
			uint32_t folios;
		} folio;
		struct {
			char text[LOG_MARK_MAX + 1]; /* NUL-terminated */
		} mark;
	};
};

_Static_assert(sizeof(struct log_record) == 128, "log record is 128 bytes");
_Static_assert(offsetof(struct log_record, read.unique) == 120,
	       "unique fills the end of a read's reserved space");

/*
 * MOUNT/.testfs/log.bin: this header, then `count` records. Shared by the
 * daemon, which writes it, and libtestfs, which reads it.
 */
#define LOG_BIN_MAGIC "TFSLOG1\n"
#define LOG_BIN_VERSION 1

struct log_bin_header {
	char magic[8];	      /* LOG_BIN_MAGIC */
	uint32_t version;     /* LOG_BIN_VERSION */
	uint32_t record_size; /* sizeof(struct log_record) */
	uint64_t count;	      /* records that follow */
	uint64_t lost;	      /* records since clear not in this snapshot */
	uint64_t first_seq;   /* first seq since the last clear */
	uint64_t next_seq;    /* seq the next record will get */
	uint32_t page_size;
	uint32_t flags; /* LOG_BIN_* */
	uint32_t reserved[2];
};

/* log_bin_header.flags: the kernel tracer was on (causes are filled). */
#define LOG_BIN_TRACED 0x1
/* ... and followed read(2) page-cache lookups too (--trace-reads). */
#define LOG_BIN_TRACE_READS 0x2
/* ... and folios entering the page cache with their order (LOG_FOLIO). */
#define LOG_BIN_TRACE_FOLIOS 0x4
/* ... on a kernel without the readahead:* events: no read names its cause
 * or its trigger (read(2) may have started any of them). */
#define LOG_BIN_NO_CAUSES 0x8
/* Read records carry the kernel's unique (read.unique) and come in its
 * increasing order. Older daemons leave the field 0 and the flag off. */
#define LOG_BIN_UNIQUE 0x10
/* LOG_BIN_TRACE_FOLIOS only for folios of order > 0 (the default; without
 * this flag every folio, as --trace-folios asks): a fetched page no folio
 * record covers entered the page cache in an order-0 folio. */
#define LOG_BIN_FOLIOS_LARGE 0x20

_Static_assert(sizeof(struct log_bin_header) == 64, "64-byte header");

#endif
