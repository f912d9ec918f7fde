/* SPDX-License-Identifier: MIT */
/*
 * tracefs files captured on Linux 6.18.44 (x86_64): the format files of
 * the events the tracer follows, events/header_page and
 * events/header_event. unit_trace_format parses and decodes with them;
 * the fuzz harnesses build a real decoder and page layout from them, and
 * their seed corpora start from them.
 */
#ifndef TESTFS_TESTS_TRACE_FORMATS_H
#define TESTFS_TESTS_TRACE_FORMATS_H

/* The fields every event of this kernel starts with, and the blank line. */
#define TRACE_COMMON_FIELDS                                                    \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"      \
	"\tsigned:0;\n"                                                        \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"             \
	"\n"

static const char fmt_sync_ra[] =
	"name: page_cache_sync_ra\n"
	"ID: 617\n"
	"format:\n" TRACE_COMMON_FIELDS
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int async_size;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int ra_pages;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int mmap_miss;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:loff_t prev_pos;\toffset:56;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long req_count;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"dev=%d:%d ino=%lx index=%lu req_count=%lu order=%u size=%"
	"u async_size=%u ra_pages=%u mmap_miss=%u prev_pos=%lld\", ((unsigned i"
	"nt) ((REC->s_dev) >> 20)), ((unsigned int) ((REC->s_dev) & ((1U << 20)"
	" - 1))), REC->i_ino, REC->index, REC->req_count, REC->order, REC->size"
	", REC->async_size, REC->ra_pages, REC->mmap_miss, REC->prev_pos\n";

static const char fmt_ra_unbounded[] =
	"name: page_cache_ra_unbounded\n"
	"ID: 619\n"
	"format:\n" TRACE_COMMON_FIELDS
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long nr_to_read;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long lookahead_size;\toffset:40;\tsize:8;\tsigned:0;"
	"\n"
	"\n"
	"print fmt: \"dev=%d:%d ino=%lx index=%lu nr_to_read=%lu lookahead_size"
	"=%lu\", ((unsigned int) ((REC->s_dev) >> 20)), ((unsigned int) ((REC->"
	"s_dev) & ((1U << 20) - 1))), REC->i_ino, REC->index, REC->nr_to_read, "
	"REC->lookahead_size\n";

static const char fmt_ra_order[] =
	"name: page_cache_ra_order\n"
	"ID: 618\n"
	"format:\n" TRACE_COMMON_FIELDS
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int async_size;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int ra_pages;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"dev=%d:%d ino=%lx index=%lu order=%u size=%u async_size=%"
	"u ra_pages=%u\", ((unsigned int) ((REC->s_dev) >> 20)), ((unsigned int"
	") ((REC->s_dev) & ((1U << 20) - 1))), REC->i_ino, REC->index, REC->ord"
	"er, REC->size, REC->async_size, REC->ra_pages\n";

static const char fmt_fault[] =
	"name: mm_filemap_fault\n"
	"ID: 597\n"
	"format:\n" TRACE_COMMON_FIELDS
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"dev=%d:%d ino=%lx ofs=%lld\", ((unsigned int) ((REC->s_de"
	"v) >> 20)), ((unsigned int) ((REC->s_dev) & ((1U << 20) - 1))), REC->i"
	"_ino, ((loff_t)REC->index) << 12\n";

static const char fmt_get_pages[] =
	"name: mm_filemap_get_pages\n"
	"ID: 599\n"
	"format:\n" TRACE_COMMON_FIELDS
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long last_index;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"dev=%d:%d ino=%lx ofs=%lld-%lld\", ((unsigned int) ((REC-"
	">s_dev) >> 20)), ((unsigned int) ((REC->s_dev) & ((1U << 20) - 1))), R"
	"EC->i_ino, ((loff_t)REC->index) << 12, ((((loff_t)REC->last_index + 1)"
	" << 12) - 1)\n";

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";

#endif
