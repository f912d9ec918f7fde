/* SPDX-License-Identifier: MIT */
/*
 * One entry of the read log. The layout is also the record format of
 * MOUNT/.testfs/log.bin, so it only ever grows at the end of the reserved
 * space and keeps its size (128 bytes).
 */
#ifndef TESTFS_LOG_RECORD_H
#define TESTFS_LOG_RECORD_H

#include <stdint.h>

enum log_kind {
	LOG_READ = 1,
	LOG_MARK = 2,
};

#define LOG_MARK_MAX 103

/* flags of a read: it came from an O_DIRECT open, not the page cache. */
#define LOG_FLAG_DIRECT 0x1

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
			/* Room for the kernel attribution fields. */
			uint64_t spare[6];
		} read;
		struct {
			char text[LOG_MARK_MAX + 1]; /* NUL-terminated */
		} mark;
	};
};

_Static_assert(sizeof(struct log_record) == 128, "log record is 128 bytes");

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
	uint32_t reserved[3];
};

_Static_assert(sizeof(struct log_bin_header) == 64, "64-byte header");

#endif
