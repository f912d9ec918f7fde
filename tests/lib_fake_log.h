/* SPDX-License-Identifier: MIT */
/*
 * Hand-made log snapshots for the library's tests that use its internals
 * (lib_i.h): reads and marks of two files, big.bin (ino 2) and other.bin.
 */
#ifndef TESTFS_TESTS_LIB_FAKE_LOG_H
#define TESTFS_TESTS_LIB_FAKE_LOG_H

#include <criterion/criterion.h>
#include <string.h>

#include "lib_i.h"

#define MAX_RECS 64

struct fake_log {
	struct testfs_log log;
	struct testfs_record recs[MAX_RECS];
};

static inline void fake_init(struct fake_log *f)
{
	memset(f, 0, sizeof(*f));
	f->log.recs = f->recs;
}

static inline void fake_read(struct fake_log *f, const char *file,
			     uint64_t page, uint64_t pages)
{
	struct testfs_record *r;

	cr_assert_lt(f->log.count, MAX_RECS);
	r = &f->recs[f->log.count];
	r->seq = f->log.count + 1;
	r->kind = TESTFS_RECORD_READ;
	r->file = file;
	r->ino = strcmp(file, "big.bin") == 0 ? 2 : 3;
	r->off = page * TESTFS_PAGE_SIZE;
	r->len = (uint32_t)(pages * TESTFS_PAGE_SIZE);
	r->page = page;
	r->pages = pages;
	f->log.count++;
}

static inline void fake_mark(struct fake_log *f, const char *text)
{
	struct testfs_record *r = &f->recs[f->log.count];

	r->seq = f->log.count + 1;
	r->kind = TESTFS_RECORD_MARK;
	r->mark = text;
	f->log.count++;
}

/* Readahead around [1024, 2047]: [896, 2431] in six 256-page requests. */
static inline void fake_readahead(struct fake_log *f)
{
	uint64_t p;

	fake_init(f);
	fake_mark(f, "start");
	fake_read(f, "other.bin", 1000, 32);
	for (p = 896; p <= 2176; p += 256)
		fake_read(f, "big.bin", p, 256);
	fake_read(f, "other.bin", 0, 1);
}

#endif
