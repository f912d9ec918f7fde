// SPDX-License-Identifier: MIT
/*
 * JSON output: file names are arbitrary bytes and must always come out as
 * valid JSON; the log lines have an exact, documented shape.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "common/strbuf.h"
#include "common/text.h"
#include "log/log_json.h"

static struct strbuf sb = STRBUF_INIT;

static void teardown(void)
{
	strbuf_free(&sb);
}

TestSuite(json, .fini = teardown);
TestSuite(log_json, .fini = teardown);

/* Checks that @len bytes of @in are written as exactly @want. */
static void expect_json(const char *in, size_t len, const char *want)
{
	strbuf_reset(&sb);
	json_add_string(&sb, in, len);
	cr_assert_not(sb.oom);
	cr_assert_eq(sb.len, strlen(sb.data), "NUL inside the output");
	cr_assert_str_eq(sb.data, want);
}

#define EXPECT_JSON(in, want) expect_json(in, sizeof(in) - 1, want)

Test(json, plain)
{
	EXPECT_JSON("", "\"\"");
	EXPECT_JSON("big.bin", "\"big.bin\"");
	EXPECT_JSON("dir/a b.bin", "\"dir/a b.bin\"");
}

Test(json, quotes_and_backslashes)
{
	EXPECT_JSON("a\"b", "\"a\\\"b\"");
	EXPECT_JSON("a\\b", "\"a\\\\b\"");
	EXPECT_JSON("\"\\\"", "\"\\\"\\\\\\\"\"");
}

Test(json, short_escapes)
{
	EXPECT_JSON("a\nb", "\"a\\nb\"");
	EXPECT_JSON("\t", "\"\\t\"");
	EXPECT_JSON("\r\n", "\"\\r\\n\"");
}

Test(json, other_control_characters)
{
	EXPECT_JSON("\x01", "\"\\u0001\"");
	EXPECT_JSON("\x1f", "\"\\u001f\"");
	EXPECT_JSON("\b\f", "\"\\u0008\\u000c\"");
	EXPECT_JSON("a\x1b[0mb", "\"a\\u001b[0mb\"");
	EXPECT_JSON("\x7f", "\"\\u007f\"");
	/* Space is the first character that needs no escape. */
	EXPECT_JSON(" ~", "\" ~\"");
}

Test(json, every_control_character_escaped)
{
	char in[1], want[16];
	int c;

	for (c = 0; c < 0x20; c++) {
		in[0] = (char)c;
		if (c == '\n' || c == '\t' || c == '\r')
			continue;
		snprintf(want, sizeof(want), "\"\\u%04x\"", c);
		expect_json(in, 1, want);
	}
}

Test(json, valid_utf8_verbatim)
{
	EXPECT_JSON("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	EXPECT_JSON("\xe6\x97\xa5\xe6\x9c\xac", "\"\xe6\x97\xa5\xe6\x9c\xac\"");
	EXPECT_JSON("\xf0\x9f\x98\x80.bin", "\"\xf0\x9f\x98\x80.bin\"");
	/* The extremes: U+0080, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF. */
	EXPECT_JSON("\xc2\x80\xdf\xbf", "\"\xc2\x80\xdf\xbf\"");
	EXPECT_JSON("\xe0\xa0\x80\xef\xbf\xbf", "\"\xe0\xa0\x80\xef\xbf\xbf\"");
	EXPECT_JSON("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
		    "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"");
	/* Just outside the surrogates: U+D7FF, U+E000. */
	EXPECT_JSON("\xed\x9f\xbf\xee\x80\x80", "\"\xed\x9f\xbf\xee\x80\x80\"");
}

Test(json, invalid_utf8_bytes)
{
	EXPECT_JSON("\xff", "\"\\udcff\"");
	EXPECT_JSON("\xfe", "\"\\udcfe\"");
	EXPECT_JSON("a\x80z", "\"a\\udc80z\"");
	EXPECT_JSON("\xbf", "\"\\udcbf\"");
}

/* bad\xff\xfeutf8 and badÿþutf8 (U+00FF U+00FE) are different names. */
Test(json, invalid_bytes_never_read_as_characters)
{
	EXPECT_JSON("bad\xff\xfeutf8", "\"bad\\udcff\\udcfeutf8\"");
	EXPECT_JSON("bad\xc3\xbf\xc3\xbeutf8", "\"bad\xc3\xbf\xc3\xbeutf8\"");
}

Test(json, truncated_sequences)
{
	/* At the end of the input. */
	EXPECT_JSON("\xe6\x97", "\"\\udce6\\udc97\"");
	EXPECT_JSON("\xf0\x9f\x98", "\"\\udcf0\\udc9f\\udc98\"");
	EXPECT_JSON("\xc3", "\"\\udcc3\"");
	/* Cut short by an ASCII byte. */
	EXPECT_JSON("\xe6\x97z", "\"\\udce6\\udc97z\"");
	/* Cut short by the start of a valid sequence. */
	EXPECT_JSON("\xe6\xc3\xa9", "\"\\udce6\xc3\xa9\"");
}

Test(json, truncated_by_explicit_length)
{
	/* A valid sequence is invalid when the length cuts through it. */
	expect_json("\xc3\xa9", 1, "\"\\udcc3\"");
	expect_json("\xe6\x97\xa5", 2, "\"\\udce6\\udc97\"");
}

Test(json, overlong_forms)
{
	EXPECT_JSON("\xc0\xaf", "\"\\udcc0\\udcaf\"");
	EXPECT_JSON("\xc1\xbf", "\"\\udcc1\\udcbf\"");
	EXPECT_JSON("\xe0\x80\xaf", "\"\\udce0\\udc80\\udcaf\"");
	EXPECT_JSON("\xf0\x80\x80\xaf", "\"\\udcf0\\udc80\\udc80\\udcaf\"");
}

Test(json, surrogates)
{
	EXPECT_JSON("\xed\xa0\x80", "\"\\udced\\udca0\\udc80\"");
	EXPECT_JSON("\xed\xbf\xbf", "\"\\udced\\udcbf\\udcbf\"");
}

Test(json, beyond_unicode)
{
	/* U+110000 and lead bytes that cannot start any sequence. */
	EXPECT_JSON("\xf4\x90\x80\x80", "\"\\udcf4\\udc90\\udc80\\udc80\"");
	EXPECT_JSON("\xf5\x80\x80\x80", "\"\\udcf5\\udc80\\udc80\\udc80\"");
	EXPECT_JSON("\xf8", "\"\\udcf8\"");
}

Test(json, mixed_valid_and_invalid)
{
	EXPECT_JSON("\xc3\xa9\xff\xc3\xa9", "\"\xc3\xa9\\udcff\xc3\xa9\"");
}

Test(json, embedded_nul)
{
	expect_json("a\0b", 3, "\"a\\u0000b\"");
	expect_json("\0", 1, "\"\\u0000\"");
}

Test(json, explicit_length_stops_early)
{
	expect_json("abcdef", 3, "\"abc\"");
	expect_json("abc", 0, "\"\"");
}

Test(json, cstring)
{
	json_add_cstring(&sb, "x\"y");
	cr_assert_str_eq(sb.data, "\"x\\\"y\"");
}

Test(json, appends)
{
	strbuf_adds(&sb, "[");
	json_add_cstring(&sb, "a");
	strbuf_addc(&sb, ',');
	json_add_cstring(&sb, "b");
	strbuf_addc(&sb, ']');
	cr_assert_str_eq(sb.data, "[\"a\",\"b\"]");
}

/* --- log lines --- */

static struct log_record read_record(uint64_t seq, uint64_t off, uint32_t len)
{
	struct log_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.seq = seq;
	rec.t_ns = 1000;
	rec.kind = LOG_READ;
	rec.read.ino = 5;
	rec.read.off = off;
	rec.read.len = len;
	rec.read.done_ns = 2000;
	rec.read.delay_ns = 300;
	rec.read.pid = 4242;
	rec.read.err = 0;
	return rec;
}

Test(log_json, read_record)
{
	struct log_record rec = read_record(7, 4096, 16384);

	log_json_record(&sb, &rec, "big.bin", 4096);
	cr_assert_str_eq(
		sb.data,
		"{\"seq\":7,\"file\":\"big.bin\",\"ino\":5,"
		"\"off\":4096,\"len\":16384,\"page\":1,\"pages\":4,"
		"\"page_size\":4096,\"t_ns\":1000,\"done_ns\":2000,\"delay_ns\":300,"
		"\"pid\":4242,\"err\":0,\"cause\":\"unknown\"}\n");
}

Test(log_json, read_record_inside_one_page)
{
	struct log_record rec = read_record(1, 100, 10);

	log_json_record(&sb, &rec, "a", 4096);
	cr_assert_str_eq(
		sb.data,
		"{\"seq\":1,\"file\":\"a\",\"ino\":5,"
		"\"off\":100,\"len\":10,\"page\":0,\"pages\":1,"
		"\"page_size\":4096,\"t_ns\":1000,\"done_ns\":2000,\"delay_ns\":300,"
		"\"pid\":4242,\"err\":0,\"cause\":\"unknown\"}\n");
}

static void expect_pages(uint64_t off, uint32_t len, uint32_t page_size,
			 const char *want)
{
	struct log_record rec = read_record(1, off, len);

	strbuf_reset(&sb);
	log_json_record(&sb, &rec, "f", page_size);
	cr_assert(strstr(sb.data, want), "off %llu len %u: %s",
		  (unsigned long long)off, len, sb.data);
}

Test(log_json, page_span)
{
	/* A range straddling a boundary touches both pages. */
	expect_pages(4000, 200, 4096, "\"page\":0,\"pages\":2,");
	expect_pages(4095, 2, 4096, "\"page\":0,\"pages\":2,");
	expect_pages(4096, 4096, 4096, "\"page\":1,\"pages\":1,");
	expect_pages(4096, 4097, 4096, "\"page\":1,\"pages\":2,");
	expect_pages(8192, 131072, 4096, "\"page\":2,\"pages\":32,");
	expect_pages(1ull << 40, 4096, 4096, "\"page\":268435456,\"pages\":1,");
	expect_pages(3 * 65536 + 1, 1, 65536, "\"page\":3,\"pages\":1,");
	expect_pages(16384, 65536, 16384,
		     "\"page\":1,\"pages\":4,\"page_size\":16384,");
}

Test(log_json, read_record_odd_file_name_and_error)
{
	struct log_record rec = read_record(9, 0, 4096);

	rec.read.err = -5;
	log_json_record(&sb, &rec, "we\"ird\n\xff", 4096);
	cr_assert(strstr(sb.data, "\"file\":\"we\\\"ird\\n\\udcff\","), "%s",
		  sb.data);
	cr_assert(strstr(sb.data, "\"err\":-5,\"cause\":\"unknown\"}\n"), "%s",
		  sb.data);
}

Test(log_json, read_record_without_file)
{
	struct log_record rec = read_record(3, 0, 4096);

	log_json_record(&sb, &rec, NULL, 4096);
	cr_assert(strstr(sb.data, "{\"seq\":3,\"file\":\"\",\"ino\":5,") ==
			  sb.data,
		  "%s", sb.data);
}

Test(log_json, mark_record)
{
	struct log_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.seq = 12;
	rec.t_ns = 777;
	rec.kind = LOG_MARK;
	strcpy(rec.mark.text, "phase \"two\"\tstart");
	/* The file argument is ignored for marks. */
	log_json_record(&sb, &rec, "ignored.bin", 4096);
	cr_assert_str_eq(sb.data,
			 "{\"seq\":12,\"mark\":\"phase \\\"two\\\"\\tstart\","
			 "\"t_ns\":777}\n");
}

Test(log_json, mark_record_full_length)
{
	struct log_record rec;
	char want[LOG_MARK_MAX + 64];

	memset(&rec, 0, sizeof(rec));
	rec.seq = 1;
	rec.t_ns = 2;
	rec.kind = LOG_MARK;
	/* No NUL at all: the text still stops at LOG_MARK_MAX bytes. */
	memset(rec.mark.text, 'm', sizeof(rec.mark.text));
	log_json_record(&sb, &rec, NULL, 4096);
	snprintf(want, sizeof(want),
		 "{\"seq\":1,\"mark\":\"%.*s\",\"t_ns\":2}\n", LOG_MARK_MAX,
		 rec.mark.text);
	cr_assert_str_eq(sb.data, want);
}

Test(log_json, lost)
{
	log_json_lost(&sb, 25, 10);
	cr_assert_str_eq(sb.data,
			 "{\"lost\":10,\"first_seq\":25,\"last_seq\":34}\n");
	strbuf_reset(&sb);
	log_json_lost(&sb, 1, 1);
	cr_assert_str_eq(sb.data,
			 "{\"lost\":1,\"first_seq\":1,\"last_seq\":1}\n");
}

Test(log_json, lines_accumulate)
{
	struct log_record rec = read_record(2, 0, 4096);

	log_json_lost(&sb, 1, 1);
	log_json_record(&sb, &rec, "f", 4096);
	cr_assert(strncmp(sb.data, "{\"lost\":1,", 10) == 0, "%s", sb.data);
	cr_assert(strstr(sb.data, "}\n{\"seq\":2,"), "%s", sb.data);
	cr_assert_eq(sb.data[sb.len - 1], '\n');
}

Test(log_json, read_record_with_its_window)
{
	struct log_record rec = read_record(4, 16384, 65536);

	rec.read.attr.cause = LOG_CAUSE_ASYNC;
	rec.read.attr.window = 2;
	rec.read.attr.ra_start = 4;
	rec.read.attr.ra_size = 16;
	rec.read.attr.ra_async = 16;
	rec.read.attr.ra_marker = 4;
	rec.read.attr.ra_pages = 256;
	rec.read.attr.trigger_page = 1;
	rec.read.attr.order = 2;
	rec.read.attr.alloc_order = 0;
	rec.read.attr.flags = LOG_ATTR_LATE;
	log_json_record(&sb, &rec, "big.bin", 4096);
	cr_assert(strstr(sb.data,
			 "\"err\":0,\"cause\":\"async\",\"window\":2,"
			 "\"ra_start\":4,\"ra_size\":16,\"ra_async\":16,"
			 "\"ra_marker\":4,\"ra_pages\":256,\"mmap_miss\":0,"
			 "\"trigger_page\":1,\"order\":2,\"alloc_order\":0,"
			 "\"late\":true}\n"),
		  "%s", sb.data);
}

Test(log_json, forced_read_without_marker)
{
	struct log_record rec = read_record(4, 0, 1048576);

	rec.read.attr.cause = LOG_CAUSE_FORCED;
	rec.read.attr.window = 9;
	rec.read.attr.ra_size = 256;
	rec.read.attr.ra_marker = LOG_NO_PAGE;
	rec.read.attr.trigger_page = 0;
	rec.read.attr.order = -1;
	rec.read.attr.alloc_order = 0;
	log_json_record(&sb, &rec, "big.bin", 4096);
	cr_assert(strstr(sb.data,
			 "\"cause\":\"forced\",\"window\":9,\"ra_start\":0,"
			 "\"ra_size\":256,\"ra_async\":0,\"ra_marker\":null,"
			 "\"trigger_page\":0,\"order\":null,"
			 "\"alloc_order\":0}\n"),
		  "%s", sb.data);
}

Test(log_json, access_record)
{
	struct log_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.seq = 30;
	rec.t_ns = 100;
	rec.kind = LOG_ACCESS;
	rec.access.ino = 9;
	rec.access.first = 1024;
	rec.access.last = 1039;
	rec.access.end_ns = 200;
	rec.access.pid = 77;
	rec.access.type = LOG_ACCESS_MAP;
	rec.access.events = 1;
	log_json_record(&sb, &rec, "big.bin", 4096);
	cr_assert_str_eq(
		sb.data,
		"{\"seq\":30,\"access\":\"map\",\"file\":\"big.bin\","
		"\"ino\":9,\"page\":1024,\"pages\":16,\"page_size\":4096,"
		"\"t_ns\":100,"
		"\"end_ns\":200,\"pid\":77,\"events\":1,\"late\":0}\n");
}

Test(log_json, folio_record)
{
	const struct log_record rec = {
		.seq = 31,
		.t_ns = 100,
		.kind = LOG_FOLIO,
		.folio = { .ino = 9,
			   .first = 64,
			   .last = 127,
			   .end_ns = 200,
			   .pid = 77,
			   .order = 4,
			   .folios = 4 },
	};

	log_json_record(&sb, &rec, "big.bin", 4096);
	cr_assert_str_eq(
		sb.data,
		"{\"seq\":31,\"folios\":4,\"order\":4,\"file\":\"big.bin\","
		"\"ino\":9,\"first_page\":64,\"npages\":64,\"page_size\":4096,"
		"\"t_ns\":100,\"end_ns\":200,\"pid\":77}\n");
}

/* The numbers, as printf writes them, at their extremes and between. */
Test(log_json, numbers_as_printf_writes_them)
{
	static const uint64_t u[] = { 0,
				      1,
				      9,
				      10,
				      99,
				      100,
				      4294967295u,
				      4294967296ull,
				      999999999999999999ull,
				      10000000000000000000ull,
				      UINT64_MAX };
	static const int64_t i[] = {
		0, -1, 1, -10, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX
	};
	char want[64];
	uint64_t x = 88172645463325252ull;
	size_t k;

	for (k = 0; k < sizeof(u) / sizeof(u[0]) + 1000; k++) {
		uint64_t v = k < sizeof(u) / sizeof(u[0]) ? u[k] : x;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (k % 3 == 0)
			v >>= k % 64;
		strbuf_reset(&sb);
		strbuf_add_u64(&sb, v);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		cr_assert_str_eq(sb.data, want);
	}
	for (k = 0; k < sizeof(i) / sizeof(i[0]); k++) {
		strbuf_reset(&sb);
		strbuf_add_i64(&sb, i[k]);
		snprintf(want, sizeof(want), "%lld", (long long)i[k]);
		cr_assert_str_eq(sb.data, want);
	}
}

Test(log_json, read_record_extremes)
{
	struct log_record rec =
		read_record(UINT64_MAX, UINT64_MAX - 8191, 4096);

	rec.t_ns = UINT64_MAX;
	rec.read.done_ns = UINT64_MAX;
	rec.read.delay_ns = UINT64_MAX;
	rec.read.pid = UINT32_MAX;
	rec.read.err = INT32_MIN;
	rec.read.unique = UINT64_MAX - 1;
	rec.flags = LOG_FLAG_DIRECT;
	rec.read.attr.cause = LOG_CAUSE_SYNC;
	rec.read.attr.window = UINT32_MAX;
	rec.read.attr.ra_start = UINT64_MAX;
	rec.read.attr.ra_size = UINT32_MAX;
	rec.read.attr.ra_async = UINT32_MAX;
	rec.read.attr.ra_marker = LOG_NO_PAGE;
	rec.read.attr.ra_pages = UINT32_MAX;
	rec.read.attr.mmap_miss = UINT16_MAX;
	rec.read.attr.trigger_page = UINT64_MAX - 1;
	rec.read.attr.order = INT8_MAX;
	rec.read.attr.alloc_order = -1;
	rec.read.attr.flags = LOG_ATTR_LATE | LOG_ATTR_READ_TRIGGER;
	log_json_record(&sb, &rec, "f", 4096);
	cr_assert_str_eq(
		sb.data,
		"{\"seq\":18446744073709551615,\"file\":\"f\",\"ino\":5,"
		"\"off\":18446744073709543424,\"len\":4096,"
		"\"page\":4503599627370494,\"pages\":1,\"page_size\":4096,"
		"\"t_ns\":18446744073709551615,"
		"\"done_ns\":18446744073709551615,"
		"\"delay_ns\":18446744073709551615,\"pid\":4294967295,"
		"\"err\":-2147483648,\"direct\":true,"
		"\"unique\":18446744073709551614,\"cause\":\"sync\","
		"\"window\":4294967295,\"ra_start\":18446744073709551615,"
		"\"ra_size\":4294967295,\"ra_async\":4294967295,"
		"\"ra_marker\":null,\"ra_pages\":4294967295,"
		"\"mmap_miss\":65535,\"trigger_page\":18446744073709551614,"
		"\"order\":127,\"alloc_order\":null,\"late\":true,"
		"\"by_read\":true}\n");
}

/* strbuf_addf() formats into the room there is, or grows and again. */
Test(json, addf_grows_and_appends)
{
	char big[1000];
	size_t k;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_reset(&sb);
	for (k = 0; k < 50; k++)
		strbuf_addf(&sb, "%zu:%s;", k, k % 7 ? "ab" : big);
	cr_assert_not(sb.oom);
	cr_assert_eq(sb.len, strlen(sb.data));
	cr_assert_eq(sb.len, 10 + 2 * 40 + 50 * 2 + 42 * 2 + 8 * 999);
	cr_assert(strncmp(sb.data, "0:xxx", 5) == 0);
	cr_assert(strstr(sb.data, ";48:ab;49:xxx") != NULL);
	strbuf_free(&sb);
	strbuf_addf(&sb, "%s", "");
	cr_assert_not_null(sb.data);
	cr_assert_eq(sb.len, 0);
}

Test(log_json, cause_names)
{
	cr_assert_str_eq(log_cause_name(LOG_CAUSE_SYNC), "sync");
	cr_assert_str_eq(log_cause_name(LOG_CAUSE_READAROUND), "readaround");
	cr_assert_str_eq(log_cause_name(LOG_CAUSE_DIRECT), "direct");
	cr_assert_str_eq(log_cause_name(200), "unknown");
	cr_assert_str_eq(log_access_name(LOG_ACCESS_FAULT), "fault");
	cr_assert_str_eq(log_access_name(0), "unknown");
}

/* The escape of names in messages on stderr (text.h). */
static void expect_escaped(const char *in, size_t len, const char *want)
{
	char out[64];

	text_escape(out, sizeof(out), in, len);
	cr_expect_str_eq(out, want);
}

#define EXPECT_ESC(in, want) expect_escaped(in, sizeof(in) - 1, want)

Test(text_escape, printable_utf8_is_kept)
{
	EXPECT_ESC("a b.bin", "a b.bin");
	EXPECT_ESC("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x92\x80",
		   "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x92\x80");
}

Test(text_escape, controls_backslash_and_invalid_bytes)
{
	EXPECT_ESC("a\nb\tc\rd", "a\\nb\\tc\\rd");
	EXPECT_ESC("\x1b]0;t\x07", "\\x1b]0;t\\x07");
	EXPECT_ESC("\x7f", "\\x7f");
	EXPECT_ESC("a\\b", "a\\\\b");
	EXPECT_ESC("bad\xff\xfe", "bad\\xff\\xfe");
	/* C1 CSI (U+009B) and a right-to-left override (U+202E). */
	EXPECT_ESC("\xc2\x9b"
		   "2J",
		   "\\xc2\\x9b2J");
	EXPECT_ESC("\xe2\x80\xae", "\\xe2\\x80\\xae");
	/* A cut sequence is invalid byte by byte. */
	EXPECT_ESC("\xe6\x97", "\\xe6\\x97");
}

Test(text_escape, long_names_are_cut_at_a_whole_escape)
{
	char in[100], out[16];

	memset(in, 'x', sizeof(in));
	text_escape(out, sizeof(out), in, sizeof(in));
	cr_expect_str_eq(out, "xxxxxxxxxxxx...");
	memset(in, '\n', sizeof(in));
	text_escape(out, sizeof(out), in, sizeof(in));
	cr_expect_str_eq(out, "\\n\\n\\n\\n\\n\\n...");
	text_escape(out, sizeof(out), "abc", 3);
	cr_expect_str_eq(out, "abc");
}
