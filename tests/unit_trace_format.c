// SPDX-License-Identifier: MIT
/*
 * The tracer's parsers without a kernel: real format, header_page and
 * header_event files captured from this project's machine (Linux 6.18.44,
 * x86_64), a reordered layout as later kernels have it, decoding of
 * records laid out by those formats, and ring-buffer pages built by hand
 * with every kind of event header. Also: a tracer started on something
 * that is not tracefs fails with a reason and leaves nothing behind.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/events.h"
#include "trace/tracefs.h"
#include "trace/tracer.h"

#include "trace_formats.h"

/*
 * page_cache_sync_ra as upstream declares it after 6.18 (i_ino u64,
 * fields reordered by size): the same names at other offsets.
 */
static const char fmt_sync_ra_reordered[] =
	"name: page_cache_sync_ra\n"
	"ID: 700\n"
	"format:\n" TRACE_COMMON_FIELDS
	"\tfield:u64 i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:loff_t prev_pos;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long req_count;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int async_size;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int ra_pages;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int mmap_miss;\toffset:60;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"...\"\n";

/* A filemap event whose device field is called dev, with an array. */
static const char fmt_dev_named[] =
	"name: mm_filemap_fault\n"
	"ID: 701\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:unsigned long ino;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t dev;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:40;\tsize:8;\tsigned:0;\n";

static const char fmt_no_dev[] =
	"name: mm_filemap_fault\n"
	"ID: 597\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:16;\tsize:8;\tsigned:0;\n";

/* 6.18's and 7.3's, as this machine's tracefs shows it. */
static const char fmt_add_folio[] =
	"name: mm_filemap_add_to_page_cache\n"
	"ID: 600\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char order;\toffset:36;\tsize:1;\tsigned:0;\n";

/* An older kernel's: no order. */
static const char fmt_add_folio_no_order[] =
	"name: mm_filemap_add_to_page_cache\n"
	"ID: 600\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:32;\tsize:4;\tsigned:0;\n";

static void parse(const char *text, struct trace_format *fmt)
{
	cr_assert_eq(trace_format_parse(text, fmt), 0, "format not parsed");
}

static void field_is(const struct trace_format *fmt, const char *name,
		     unsigned offset, unsigned size, bool is_signed)
{
	const struct trace_field *f = trace_format_field(fmt, name);

	cr_assert_not_null(f, "%s: no field %s", fmt->name, name);
	cr_assert_eq(f->offset, offset, "%s.%s: offset %u, want %u", fmt->name,
		     name, f->offset, offset);
	cr_assert_eq(f->size, size, "%s.%s: size %u, want %u", fmt->name, name,
		     f->size, size);
	cr_assert_eq(f->is_signed, is_signed, "%s.%s: signedness", fmt->name,
		     name);
}

Test(format, sync_ra_offsets)
{
	struct trace_format f;

	parse(fmt_sync_ra, &f);
	cr_assert_str_eq(f.name, "page_cache_sync_ra");
	cr_assert_eq(f.id, 617);
	cr_assert_eq(f.nfields, 14);
	field_is(&f, "common_type", 0, 2, false);
	field_is(&f, "common_pid", 4, 4, true);
	field_is(&f, "i_ino", 8, 8, false);
	field_is(&f, "s_dev", 16, 4, false);
	field_is(&f, "index", 24, 8, false);
	field_is(&f, "order", 32, 4, false);
	field_is(&f, "size", 36, 4, false);
	field_is(&f, "async_size", 40, 4, false);
	field_is(&f, "ra_pages", 44, 4, false);
	field_is(&f, "mmap_miss", 48, 4, false);
	field_is(&f, "prev_pos", 56, 8, true);
	field_is(&f, "req_count", 64, 8, false);
	cr_assert_null(trace_format_field(&f, "nr_to_read"));
	/* "size" must not be confused with a field's size attribute. */
	cr_assert_null(trace_format_field(&f, "offset"));
}

Test(format, ra_unbounded_ra_order_offsets)
{
	struct trace_format f;

	parse(fmt_ra_unbounded, &f);
	cr_assert_str_eq(f.name, "page_cache_ra_unbounded");
	cr_assert_eq(f.id, 619);
	field_is(&f, "s_dev", 16, 4, false);
	field_is(&f, "index", 24, 8, false);
	field_is(&f, "nr_to_read", 32, 8, false);
	field_is(&f, "lookahead_size", 40, 8, false);

	parse(fmt_ra_order, &f);
	cr_assert_eq(f.id, 618);
	field_is(&f, "order", 32, 4, false);
	field_is(&f, "size", 36, 4, false);
	field_is(&f, "async_size", 40, 4, false);
	field_is(&f, "ra_pages", 44, 4, false);
	cr_assert_null(trace_format_field(&f, "mmap_miss"));
}

Test(format, filemap_offsets)
{
	struct trace_format f;

	parse(fmt_fault, &f);
	cr_assert_str_eq(f.name, "mm_filemap_fault");
	cr_assert_eq(f.id, 597);
	cr_assert_eq(f.nfields, 7);
	field_is(&f, "index", 24, 8, false);

	parse(fmt_get_pages, &f);
	cr_assert_eq(f.id, 599);
	field_is(&f, "index", 24, 8, false);
	field_is(&f, "last_index", 32, 8, false);
}

Test(format, arrays_and_garbage)
{
	struct trace_format f;

	parse(fmt_dev_named, &f);
	field_is(&f, "comm", 8, 16, false);
	field_is(&f, "dev", 32, 4, false);
	cr_assert_eq(trace_format_parse("", &f), -EINVAL);
	cr_assert_eq(trace_format_parse("name: x\nID: 1\nformat:\n", &f),
		     -EINVAL);
	cr_assert_eq(trace_format_parse("name: x\nID: 1\n"
					"\tfield:int a;\toffset:x;\tsize:4;"
					"\tsigned:1;\n",
					&f),
		     -EINVAL);
	cr_assert_eq(trace_format_parse("name: x\nID: 1\n"
					"\tfield:int a;\toffset:0;\tsize:4;\n",
					&f),
		     -EINVAL);
}

Test(format, header_page_and_event)
{
	struct trace_page_layout l;
	char why[128] = "";

	cr_assert_eq(trace_page_layout_parse(header_page, header_event, &l, why,
					     sizeof(why)),
		     0, "%s", why);
	cr_assert_eq(l.ts_offset, 0);
	cr_assert_eq(l.ts_size, 8);
	cr_assert_eq(l.commit_offset, 8);
	cr_assert_eq(l.commit_size, 8);
	cr_assert_eq(l.data_offset, 16);
	cr_assert_eq(l.data_size, 4080);
	cr_assert_eq(l.type_len_bits, 5);
	cr_assert_eq(l.time_delta_bits, 27);
	cr_assert_eq(l.type_padding, 29);
	cr_assert_eq(l.type_time_extend, 30);
	cr_assert_eq(l.type_time_stamp, 31);
	cr_assert_eq(l.type_data_max, 28);
	cr_assert_neq(trace_page_layout_parse(header_page, "nothing", &l, why,
					      sizeof(why)),
		      0);
	cr_assert_neq(why[0], '\0');
}

/* ---- decoding ---- */

static void put(uint8_t *rec, unsigned off, uint64_t v, unsigned size)
{
	memcpy(rec + off, &v, size); /* little-endian host */
}

static void decoder_with(struct trace_decoder *d, unsigned kind,
			 const char *text)
{
	struct trace_format f;
	char why[128] = "";

	parse(text, &f);
	cr_assert_eq(trace_decoder_add(d, kind, &f, why, sizeof(why)), 0, "%s",
		     why);
}

Test(decode, sync_ra_record)
{
	struct trace_decoder d = { 0 };
	struct trace_event ev;
	uint8_t rec[72] = { 0 };

	decoder_with(&d, TRACE_SYNC_RA, fmt_sync_ra);
	decoder_with(&d, TRACE_RA_UNBOUNDED, fmt_ra_unbounded);
	cr_assert_str_eq(d.layout[0].dev_name, "s_dev");
	cr_assert_eq(d.layout[0].min_len, 72);
	put(rec, 0, 617, 2);
	put(rec, 4, 4242, 4);
	put(rec, 8, 9, 8);
	put(rec, 16, trace_kdev(0, 39), 4);
	put(rec, 24, 1025, 8);
	put(rec, 32, 2, 4);
	put(rec, 36, 16, 4);
	put(rec, 40, 16, 4);
	put(rec, 44, 256, 4);
	put(rec, 48, 7, 4);
	put(rec, 56, (uint64_t)-1, 8);
	put(rec, 64, 3, 8);
	cr_assert_eq(trace_decode(&d, rec, sizeof(rec), &ev), 0);
	cr_assert_eq(ev.kind, TRACE_SYNC_RA);
	cr_assert_eq(ev.pid, 4242);
	cr_assert_eq(ev.ino, 9);
	cr_assert_eq(ev.dev, 39);
	cr_assert_eq(ev.index, 1025);
	cr_assert_eq(ev.last_index, 1025);
	cr_assert_eq(ev.order, 2);
	cr_assert_eq(ev.size, 16);
	cr_assert_eq(ev.async_size, 16);
	cr_assert_eq(ev.ra_pages, 256);
	cr_assert_eq(ev.mmap_miss, 7);
	cr_assert_eq(ev.prev_pos, -1);
	cr_assert_eq(ev.req_count, 3);
	cr_assert_eq(ev.fields, TRACE_F_INDEX | TRACE_F_REQ_COUNT |
					TRACE_F_ORDER | TRACE_F_SIZE |
					TRACE_F_ASYNC_SIZE | TRACE_F_RA_PAGES |
					TRACE_F_MMAP_MISS | TRACE_F_PREV_POS);
	/* Too short for its format; an ID not added. */
	cr_assert_eq(trace_decode(&d, rec, 70, &ev), -EINVAL);
	put(rec, 0, 616, 2);
	cr_assert_eq(trace_decode(&d, rec, sizeof(rec), &ev), -ENOENT);
}

Test(decode, unbounded_and_get_pages)
{
	struct trace_decoder d = { 0 };
	struct trace_event ev;
	uint8_t rec[48] = { 0 };

	decoder_with(&d, TRACE_RA_UNBOUNDED, fmt_ra_unbounded);
	decoder_with(&d, TRACE_GET_PAGES, fmt_get_pages);
	decoder_with(&d, TRACE_FAULT, fmt_fault);
	put(rec, 0, 619, 2);
	put(rec, 8, 12, 8);
	put(rec, 16, trace_kdev(0, 41), 4);
	put(rec, 24, 896, 8);
	put(rec, 32, 256, 8);
	put(rec, 40, 64, 8);
	cr_assert_eq(trace_decode(&d, rec, sizeof(rec), &ev), 0);
	cr_assert_eq(ev.kind, TRACE_RA_UNBOUNDED);
	cr_assert_eq(ev.index, 896);
	cr_assert_eq(ev.nr_to_read, 256);
	cr_assert_eq(ev.lookahead_size, 64);
	cr_assert_eq(ev.fields,
		     TRACE_F_INDEX | TRACE_F_NR_TO_READ | TRACE_F_LOOKAHEAD);

	memset(rec, 0, sizeof(rec));
	put(rec, 0, 599, 2);
	put(rec, 24, 4, 8);
	put(rec, 32, 19, 8);
	cr_assert_eq(trace_decode(&d, rec, 40, &ev), 0);
	cr_assert_eq(ev.kind, TRACE_GET_PAGES);
	cr_assert_eq(ev.index, 4);
	cr_assert_eq(ev.last_index, 19);
	cr_assert_eq(ev.fields, TRACE_F_INDEX | TRACE_F_LAST_INDEX);

	put(rec, 0, 597, 2);
	cr_assert_eq(trace_decode(&d, rec, 32, &ev), 0);
	cr_assert_eq(ev.kind, TRACE_FAULT);
	cr_assert_eq(ev.index, 4);
	cr_assert_eq(ev.fields, TRACE_F_INDEX);
}

Test(decode, reordered_layout)
{
	struct trace_decoder d = { 0 };
	struct trace_event ev;
	uint8_t rec[64] = { 0 };

	decoder_with(&d, TRACE_SYNC_RA, fmt_sync_ra_reordered);
	cr_assert_eq(d.layout[0].min_len, 64);
	put(rec, 0, 700, 2);
	put(rec, 8, 77, 8);
	put(rec, 16, 8192, 8);
	put(rec, 24, 2, 8);
	put(rec, 32, 1, 8);
	put(rec, 40, trace_kdev(8, 1), 4);
	put(rec, 48, 32, 4);
	put(rec, 56, 32, 4);
	cr_assert_eq(trace_decode(&d, rec, sizeof(rec), &ev), 0);
	cr_assert_eq(ev.ino, 77);
	cr_assert_eq(ev.prev_pos, 8192);
	cr_assert_eq(ev.index, 2);
	cr_assert_eq(ev.req_count, 1);
	cr_assert_eq(ev.dev >> 20, 8);
	cr_assert_eq(ev.dev & 0xfffff, 1);
	cr_assert_eq(ev.size, 32);
	cr_assert_eq(ev.ra_pages, 32);
}

Test(decode, needs_device_and_unique_kinds)
{
	struct trace_decoder d = { 0 };
	struct trace_format f;
	char why[128] = "";

	parse(fmt_no_dev, &f);
	cr_assert_eq(trace_decoder_add(&d, TRACE_FAULT, &f, why, sizeof(why)),
		     -EINVAL);
	cr_assert(strstr(why, "s_dev"), "%s", why);
	cr_assert_eq(d.n, 0);

	decoder_with(&d, TRACE_FAULT, fmt_dev_named);
	cr_assert_str_eq(d.layout[0].dev_name, "dev");
	parse(fmt_fault, &f);
	cr_assert_eq(trace_decoder_add(&d, TRACE_FAULT, &f, why, sizeof(why)),
		     -EEXIST);
}

/*
 * A format whose fields lie past the record: the decoder must look at no
 * byte outside it. The record is allocated at its exact length so that
 * ASan sees any read past it.
 */
static const char fmt_type_far[] =
	"name: mm_filemap_fault\n"
	"ID: 597\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:50;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:16;\tsize:4;\tsigned:0;\n";

Test(decode, fields_past_the_record)
{
	struct trace_decoder d = { 0 };
	struct trace_event ev;
	uint8_t *rec = calloc(1, 8);
	uint8_t *big = calloc(1, 52);

	cr_assert(rec && big);
	decoder_with(&d, TRACE_FAULT, fmt_type_far);
	cr_assert_eq(d.layout[0].min_len, 52);
	cr_assert_eq(trace_decode(&d, rec, 8, &ev), -EINVAL);
	cr_assert_eq(trace_decode(&d, big, 51, &ev), -EINVAL);
	/* At its full length the same layout decodes. */
	put(big, 50, 597, 2);
	put(big, 8, 31, 8);
	cr_assert_eq(trace_decode(&d, big, 52, &ev), 0);
	cr_assert_eq(ev.ino, 31);
	free(rec);
	free(big);
}

/*
 * The event ID is read before the event is known, so every event must keep
 * common_type at the same place; one that does not is refused when added.
 */
Test(decode, common_type_moves)
{
	struct trace_decoder d = { 0 };
	struct trace_format f;
	char why[128] = "";

	decoder_with(&d, TRACE_SYNC_RA, fmt_sync_ra);
	parse(fmt_type_far, &f);
	cr_assert_eq(trace_decoder_add(&d, TRACE_FAULT, &f, why, sizeof(why)),
		     -EINVAL);
	cr_assert(strstr(why, "common_type"), "%s", why);
	cr_assert_eq(d.n, 1);
}

Test(decode, kind_names)
{
	unsigned k;

	for (k = 0; k < TRACE_KIND_COUNT; k++)
		cr_assert_eq(trace_kind_from_name(trace_kind_name(k)), (int)k);
	cr_assert_eq(trace_kind_from_name("mm_filemap_delete_from_page_cache"),
		     -1);
	cr_assert_str_eq(trace_kind_name(TRACE_ADD_FOLIO),
			 "mm_filemap_add_to_page_cache");
	cr_assert_str_eq(trace_kind_system(TRACE_MAP_PAGES), "filemap");
	cr_assert_str_eq(trace_kind_name(99), "?");
}

Test(decode, format_line)
{
	struct trace_event ev = { 0 };
	char line[512];

	ev.ts_ns = 6395679266123ull;
	ev.cpu = 1;
	ev.pid = 11836;
	ev.kind = TRACE_RA_UNBOUNDED;
	ev.dev = trace_kdev(0, 39);
	ev.ino = 9;
	ev.index = 4;
	ev.nr_to_read = 16;
	ev.lookahead_size = 16;
	ev.fields = TRACE_F_INDEX | TRACE_F_NR_TO_READ | TRACE_F_LOOKAHEAD;
	trace_event_format(&ev, line, sizeof(line));
	cr_assert_str_eq(line, "6395.679266123 cpu1 pid 11836 "
			       "page_cache_ra_unbounded dev 0:39 ino 9 "
			       "index 4 nr_to_read 16 lookahead_size 16");
}

/* ---- ring-buffer pages ---- */

struct page_builder {
	uint8_t page[4096];
	size_t off; /* in the data area */
};

static uint8_t *data_at(struct page_builder *b)
{
	return b->page + 16 + b->off;
}

static void put_word(struct page_builder *b, uint32_t type, uint32_t delta)
{
	uint32_t w = type | delta << 5;

	memcpy(data_at(b), &w, 4);
	b->off += 4;
}

static void put32(struct page_builder *b, uint32_t v)
{
	memcpy(data_at(b), &v, 4);
	b->off += 4;
}

/* A record of up to 112 bytes: type_len = length / 4. */
static void put_small(struct page_builder *b, uint32_t delta, const void *rec,
		      size_t len)
{
	size_t padded = (len + 3) & ~(size_t)3;

	put_word(b, (uint32_t)(padded / 4), delta);
	memset(data_at(b), 0, padded);
	memcpy(data_at(b), rec, len);
	b->off += padded;
}

/* A long record: type_len 0, array[0] = length + 4. */
static void put_long(struct page_builder *b, uint32_t delta, const void *rec,
		     size_t len)
{
	size_t padded = (len + 3) & ~(size_t)3;

	put_word(b, 0, delta);
	put32(b, (uint32_t)padded + 4);
	memset(data_at(b), 0, padded);
	memcpy(data_at(b), rec, len);
	b->off += padded;
}

static void put_extend(struct page_builder *b, uint64_t delta)
{
	put_word(b, 30, (uint32_t)(delta & ((1u << 27) - 1)));
	put32(b, (uint32_t)(delta >> 27));
}

static void put_abs(struct page_builder *b, uint64_t ts)
{
	put_word(b, 31, (uint32_t)(ts & ((1u << 27) - 1)));
	put32(b, (uint32_t)(ts >> 27));
}

/* A discarded event of @len bytes after its header. */
static void put_discarded(struct page_builder *b, uint32_t delta, size_t len)
{
	put_word(b, 29, delta);
	put32(b, (uint32_t)len);
	memset(data_at(b), 0xee, len - 4);
	b->off += len - 4;
}

static void set_commit(struct page_builder *b, uint64_t ts, uint64_t commit)
{
	memcpy(b->page, &ts, 8);
	memcpy(b->page + 8, &commit, 8);
}

/* Page timestamp @ts, commit = the bytes written, with @flags. */
static void finish(struct page_builder *b, uint64_t ts, uint64_t flags)
{
	set_commit(b, ts, b->off | flags);
}

struct seen {
	unsigned n;
	uint64_t ts[16];
	uint32_t len[16];
	uint8_t first[16];
};

static int collect(const struct trace_record *rec, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16) {
		s->ts[s->n] = rec->ts;
		s->len[s->n] = rec->len;
		s->first[s->n] = *(const uint8_t *)rec->data;
	}
	s->n++;
	return 0;
}

static struct trace_page_layout layout(void)
{
	struct trace_page_layout l;
	char why[128];

	cr_assert_eq(trace_page_layout_parse(header_page, header_event, &l, why,
					     sizeof(why)),
		     0);
	return l;
}

Test(page, every_header_kind)
{
	struct trace_page_layout l = layout();
	struct page_builder b = { 0 };
	struct trace_page_info info;
	struct seen s = { 0 };
	uint8_t rec[200];
	unsigned i;

	for (i = 0; i < sizeof(rec); i++)
		rec[i] = (uint8_t)i;
	rec[0] = 1;
	put_small(&b, 5, rec, 72);  /* ts 1005 */
	put_extend(&b, 1ull << 30); /* +2^30 */
	rec[0] = 2;
	put_small(&b, 0, rec, 40); /* 1005 + 2^30 */
	put_discarded(&b, 7, 76);  /* +7, no record */
	rec[0] = 3;
	put_long(&b, 3, rec, 150); /* +3 */
	put_abs(&b, 5000000000ull);
	rec[0] = 4;
	put_small(&b, 11, rec, 112); /* 5000000011 */
	finish(&b, 1000, 0);

	cr_assert_eq(trace_page_parse(&l, b.page, sizeof(b.page), collect, &s,
				      &info),
		     0);
	cr_assert_eq(s.n, 4);
	cr_assert_eq(info.records, 4);
	cr_assert_eq(info.commit, b.off);
	cr_assert_not(info.missed_events);
	cr_assert_eq(s.ts[0], 1005);
	cr_assert_eq(s.len[0], 72);
	cr_assert_eq(s.first[0], 1);
	cr_assert_eq(s.ts[1], 1005 + (1ull << 30));
	cr_assert_eq(s.len[1], 40);
	cr_assert_eq(s.first[1], 2);
	cr_assert_eq(s.ts[2], 1005 + (1ull << 30) + 7 + 3);
	cr_assert_eq(s.len[2], 152);
	cr_assert_eq(s.first[2], 3);
	cr_assert_eq(s.ts[3], 5000000011ull);
	cr_assert_eq(s.len[3], 112);
	cr_assert_eq(s.first[3], 4);
	cr_assert_eq(info.last_ts, 5000000011ull);
}

Test(page, end_padding_and_missed_events)
{
	struct trace_page_layout l = layout();
	struct page_builder b = { 0 };
	struct trace_page_info info;
	struct seen s = { 0 };
	uint8_t rec[40] = { 9 };
	uint64_t missed = 1234;

	put_small(&b, 1, rec, 40);
	put_small(&b, 1, rec, 40);
	/* The rest of the sub-buffer was left empty: type 29, delta 0. */
	put_word(&b, 29, 0);
	b.off += 8;
	finish(&b, 50, (1ull << 31) | (1ull << 30));
	memcpy(data_at(&b), &missed, 8);
	cr_assert_eq(trace_page_parse(&l, b.page, sizeof(b.page), collect, &s,
				      &info),
		     0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.ts[1], 52);
	cr_assert(info.missed_events);
	cr_assert_eq(info.missed, 1234);
}

/* header_event with the special type_len values given here. */
static int parse_event_header(unsigned padding, unsigned extend, unsigned stamp,
			      unsigned data_max, char *why, size_t whylen)
{
	struct trace_page_layout l;
	char text[512];

	snprintf(text, sizeof(text),
		 "# compressed entry header\n"
		 "\ttype_len    :    5 bits\n"
		 "\ttime_delta  :   27 bits\n"
		 "\tarray       :   32 bits\n"
		 "\n"
		 "\tpadding     : type == %u\n"
		 "\ttime_extend : type == %u\n"
		 "\ttime_stamp : type == %u\n"
		 "\tdata max type_len  == %u\n",
		 padding, extend, stamp, data_max);
	return trace_page_layout_parse(header_page, text, &l, why, whylen);
}

/*
 * type_len values are either data lengths (1 .. data max) or one of the
 * three special kinds, which must not overlap them, each other, or lie
 * beyond what type_len can hold: a header saying otherwise is refused.
 */
Test(page, special_types_are_distinct)
{
	char why[128] = "";

	cr_assert_eq(parse_event_header(29, 30, 31, 28, why, sizeof(why)), 0,
		     "%s", why);
	cr_assert_eq(parse_event_header(29, 0, 31, 28, why, sizeof(why)),
		     -EINVAL);
	cr_assert(strstr(why, "header_event"), "%s", why);
	cr_assert_eq(parse_event_header(29, 5, 31, 28, why, sizeof(why)),
		     -EINVAL);
	cr_assert_eq(parse_event_header(29, 31, 31, 28, why, sizeof(why)),
		     -EINVAL);
	cr_assert_eq(parse_event_header(36, 30, 31, 28, why, sizeof(why)),
		     -EINVAL);
	cr_assert_eq(parse_event_header(29, 30, 31, 0, why, sizeof(why)),
		     -EINVAL);
}

/*
 * Whatever a layout says, a time extend is never handed out as a record:
 * here one whose type_len is also a data length.
 */
Test(page, time_extend_is_not_a_record)
{
	struct trace_page_layout l = layout();
	struct page_builder b = { 0 };
	struct trace_page_info info;
	struct seen s = { 0 };

	l.type_time_extend = 1;
	put_word(&b, 1, 5);
	put32(&b, 1);
	finish(&b, 100, 0);
	cr_assert_eq(trace_page_parse(&l, b.page, sizeof(b.page), collect, &s,
				      &info),
		     0);
	cr_assert_eq(s.n, 0);
	cr_assert_eq(info.records, 0);
	cr_assert_eq(info.last_ts, 100 + 5 + (1ull << 27));
}

Test(page, malformed)
{
	struct trace_page_layout l = layout();
	struct page_builder b = { 0 };
	struct seen s = { 0 };
	uint8_t rec[40] = { 0 };

	/* An empty page is fine. */
	finish(&b, 1, 0);
	cr_assert_eq(
		trace_page_parse(&l, b.page, sizeof(b.page), collect, &s, NULL),
		0);
	cr_assert_eq(s.n, 0);
	/* Commit beyond the page. */
	set_commit(&b, 1, 5000);
	cr_assert_eq(
		trace_page_parse(&l, b.page, sizeof(b.page), collect, &s, NULL),
		-EINVAL);
	/* A record running past the commit: the first one still counts. */
	put_small(&b, 1, rec, 40);
	put_small(&b, 1, rec, 40);
	set_commit(&b, 1, b.off - 8);
	cr_assert_eq(
		trace_page_parse(&l, b.page, sizeof(b.page), collect, &s, NULL),
		-EINVAL);
	cr_assert_eq(s.n, 1);
	/* Shorter than the page header. */
	cr_assert_eq(trace_page_parse(&l, b.page, 12, collect, &s, NULL),
		     -EINVAL);
	/* A long record whose length is less than its own length word. */
	memset(&b, 0, sizeof(b));
	put_word(&b, 0, 1);
	put32(&b, 2);
	finish(&b, 1, 0);
	s.n = 0;
	cr_assert_eq(
		trace_page_parse(&l, b.page, sizeof(b.page), collect, &s, NULL),
		-EINVAL);
}

/* ---- the tracer without tracefs ---- */

static void ignore(const struct trace_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

Test(tracer, not_tracefs_fails_with_reason)
{
	struct tracer_options o = { 0 };
	char dir[] = "/tmp/testfs-trace-unit.XXXXXX";
	char why[256] = "";
	struct tracer *t;

	cr_assert_not_null(mkdtemp(dir));
	o.dev_minor = 39;
	o.fn = ignore;
	o.tracefs = dir;
	t = tracer_start(&o, why, sizeof(why));
	cr_assert_null(t);
	cr_assert(strstr(why, "not a tracefs mount"), "reason: %s", why);
	/* Nothing was created in the directory. */
	cr_assert_eq(rmdir(dir), 0);

	o.fn = NULL;
	cr_assert_null(tracer_start(&o, why, sizeof(why)));
	cr_assert(strstr(why, "callback"), "reason: %s", why);
	cr_assert_eq(tracer_stop(NULL, NULL), 0);
}

Test(tracer, stale_instance_names)
{
	char name[64];
	pid_t pid = 0;

	/* Only testfs-<pid> of a process that does not exist is stale. */
	cr_assert(tracefs_instance_is_stale("/nonexistent", "testfs-99999999",
					    &pid));
	cr_assert_eq(pid, 99999999);
	cr_assert_not(tracefs_instance_is_stale("/nonexistent", "foo", NULL));
	cr_assert_not(
		tracefs_instance_is_stale("/nonexistent", "testfs-", NULL));
	cr_assert_not(
		tracefs_instance_is_stale("/nonexistent", "testfs-0", NULL));
	cr_assert_not(
		tracefs_instance_is_stale("/nonexistent", "testfs-12a", NULL));
	cr_assert_not(
		tracefs_instance_is_stale("/nonexistent", "testfs-012", NULL));
	tracefs_instance_name(getpid(), name, sizeof(name));
	cr_assert_not(tracefs_instance_is_stale("/nonexistent", name, NULL));
	/* pid 1 exists; without the instance directory it is not stale. */
	cr_assert_not(
		tracefs_instance_is_stale("/nonexistent", "testfs-1", NULL));
}

Test(decode, add_folio_needs_its_order)
{
	struct trace_decoder d = { 0 };
	struct trace_event ev = { 0 };
	struct trace_format f;
	uint8_t rec[40] = { 0 };
	uint64_t ino = 9, index = 64;
	uint32_t dev = trace_kdev(0, 42);
	char why[128] = "";

	parse(fmt_add_folio_no_order, &f);
	cr_assert_eq(
		trace_decoder_add(&d, TRACE_ADD_FOLIO, &f, why, sizeof(why)),
		-EINVAL);
	cr_assert(strstr(why, "no field order"), "%s", why);
	cr_assert_eq(d.n, 0);
	parse(fmt_add_folio, &f);
	cr_assert_eq(
		trace_decoder_add(&d, TRACE_ADD_FOLIO, &f, why, sizeof(why)), 0,
		"%s", why);
	rec[0] = 600 & 0xff;
	rec[1] = 600 >> 8;
	memcpy(rec + 16, &ino, 8);
	memcpy(rec + 24, &index, 8);
	memcpy(rec + 32, &dev, 4);
	rec[36] = 5;
	cr_assert_eq(trace_decode(&d, rec, sizeof(rec), &ev), 0);
	cr_assert_eq(ev.kind, TRACE_ADD_FOLIO);
	cr_assert_eq(ev.ino, 9);
	cr_assert_eq(ev.index, 64);
	cr_assert_eq(ev.order, 5);
	cr_assert(ev.fields & TRACE_F_ORDER);
}
