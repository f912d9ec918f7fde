// SPDX-License-Identifier: MIT
#include "log_json.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"

/*
 * The records are written without printf: a read's line is some twenty
 * numbers, and a log file gets one line per read, on the log writer's
 * thread beside the request thread. The bytes are those printf wrote
 * (tests/unit_json.c holds them to it).
 */

/* ,"key":N for a literal key. */
#define ADD_U64(sb, key, v)                                                    \
	do {                                                                   \
		strbuf_addlit((sb), ",\"" key "\":");                          \
		strbuf_add_u64((sb), (v));                                     \
	} while (0)

/* ,"key": for a key known at run time. */
static void add_key(struct strbuf *sb, const char *key)
{
	strbuf_addlit(sb, ",\"");
	strbuf_adds(sb, key);
	strbuf_addlit(sb, "\":");
}

static void add_page(struct strbuf *sb, const char *key, uint64_t page)
{
	add_key(sb, key);
	if (page == LOG_NO_PAGE)
		strbuf_addlit(sb, "null");
	else
		strbuf_add_u64(sb, page);
}

static void add_order(struct strbuf *sb, const char *key, int order)
{
	add_key(sb, key);
	if (order < 0)
		strbuf_addlit(sb, "null");
	else
		strbuf_add_i64(sb, order);
}

/* The kernel's decision; only "cause" when it is unknown. */
static void add_attr(struct strbuf *sb, const struct log_attr *a)
{
	strbuf_addlit(sb, ",\"cause\":\"");
	strbuf_adds(sb, log_cause_name(a->cause));
	strbuf_addc(sb, '"');
	if (a->cause == LOG_CAUSE_UNKNOWN)
		return;
	if (a->window) {
		ADD_U64(sb, "window", a->window);
		ADD_U64(sb, "ra_start", a->ra_start);
		ADD_U64(sb, "ra_size", a->ra_size);
		ADD_U64(sb, "ra_async", a->ra_async);
		add_page(sb, "ra_marker", a->ra_marker);
	}
	if (a->ra_pages)
		ADD_U64(sb, "ra_pages", a->ra_pages);
	if (a->cause == LOG_CAUSE_SYNC || a->cause == LOG_CAUSE_ASYNC ||
	    a->cause == LOG_CAUSE_READAROUND)
		ADD_U64(sb, "mmap_miss", a->mmap_miss);
	add_page(sb, "trigger_page", a->trigger_page);
	if (a->window) {
		add_order(sb, "order", a->order);
		add_order(sb, "alloc_order", a->alloc_order);
	}
	if (a->flags & LOG_ATTR_LATE)
		strbuf_addlit(sb, ",\"late\":true");
	if (a->flags & LOG_ATTR_READ_TRIGGER)
		strbuf_addlit(sb, ",\"by_read\":true");
}

/*
 * {"seq":N, then ,"KIND":"TEXT" when @kind is given, then ,"file":"NAME"
 * (an empty name without one).
 */
static void add_seq_file(struct strbuf *sb, const struct log_record *rec,
			 const char *kind, const char *kind_text,
			 const char *file)
{
	strbuf_addlit(sb, "{\"seq\":");
	strbuf_add_u64(sb, rec->seq);
	if (kind) {
		add_key(sb, kind);
		strbuf_addc(sb, '"');
		strbuf_adds(sb, kind_text);
		strbuf_addc(sb, '"');
	}
	strbuf_addlit(sb, ",\"file\":");
	json_add_cstring(sb, file ? file : "");
}

/*
 * The pages of an access or folio record, under the names its kind
 * gives them, and its times and task.
 */
static void add_span(struct strbuf *sb, const struct log_record *rec,
		     const char *first_key, const char *count_key,
		     const uint64_t span[4], uint32_t page_size)
{
	enum { INO, FIRST, LAST, END_NS };

	ADD_U64(sb, "ino", span[INO]);
	add_key(sb, first_key);
	strbuf_add_u64(sb, span[FIRST]);
	add_key(sb, count_key);
	strbuf_add_u64(sb, span[LAST] - span[FIRST] + 1);
	ADD_U64(sb, "page_size", page_size);
	ADD_U64(sb, "t_ns", rec->t_ns);
	ADD_U64(sb, "end_ns", span[END_NS]);
}

static void log_json_access(struct strbuf *sb, const struct log_record *rec,
			    const char *file, uint32_t page_size)
{
	const uint64_t span[4] = { rec->access.ino, rec->access.first,
				   rec->access.last, rec->access.end_ns };

	add_seq_file(sb, rec, "access", log_access_name(rec->access.type),
		     file);
	add_span(sb, rec, "page", "pages", span, page_size);
	ADD_U64(sb, "pid", rec->access.pid);
	ADD_U64(sb, "events", rec->access.events);
	ADD_U64(sb, "late", rec->access.late);
	strbuf_addlit(sb, "}\n");
}

/*
 * Folios of one order added to the page cache: "folios" tells the kind.
 * A folio record names its pages first_page and npages, never page and
 * pages: a script that picks read records by "page" keeps working.
 */
static void log_json_folio(struct strbuf *sb, const struct log_record *rec,
			   const char *file, uint32_t page_size)
{
	const uint64_t span[4] = { rec->folio.ino, rec->folio.first,
				   rec->folio.last, rec->folio.end_ns };

	strbuf_addlit(sb, "{\"seq\":");
	strbuf_add_u64(sb, rec->seq);
	ADD_U64(sb, "folios", rec->folio.folios);
	ADD_U64(sb, "order", rec->folio.order);
	strbuf_addlit(sb, ",\"file\":");
	json_add_cstring(sb, file ? file : "");
	add_span(sb, rec, "first_page", "npages", span, page_size);
	ADD_U64(sb, "pid", rec->folio.pid);
	strbuf_addlit(sb, "}\n");
}

void log_json_record(struct strbuf *sb, const struct log_record *rec,
		     const char *file, uint32_t page_size)
{
	uint64_t first, end;

	if (rec->kind == LOG_MARK) {
		strbuf_addlit(sb, "{\"seq\":");
		strbuf_add_u64(sb, rec->seq);
		strbuf_addlit(sb, ",\"mark\":");
		json_add_string(sb, rec->mark.text,
				strnlen(rec->mark.text, LOG_MARK_MAX));
		ADD_U64(sb, "t_ns", rec->t_ns);
		strbuf_addlit(sb, "}\n");
		return;
	}
	if (rec->kind == LOG_ACCESS) {
		log_json_access(sb, rec, file, page_size);
		return;
	}
	if (rec->kind == LOG_FOLIO) {
		log_json_folio(sb, rec, file, page_size);
		return;
	}
	first = rec->read.off / page_size;
	end = (rec->read.off + rec->read.len + page_size - 1) / page_size;
	add_seq_file(sb, rec, NULL, NULL, file);
	ADD_U64(sb, "ino", rec->read.ino);
	ADD_U64(sb, "off", rec->read.off);
	ADD_U64(sb, "len", rec->read.len);
	ADD_U64(sb, "page", first);
	ADD_U64(sb, "pages", end - first);
	ADD_U64(sb, "page_size", page_size);
	ADD_U64(sb, "t_ns", rec->t_ns);
	ADD_U64(sb, "done_ns", rec->read.done_ns);
	ADD_U64(sb, "delay_ns", rec->read.delay_ns);
	ADD_U64(sb, "pid", rec->read.pid);
	strbuf_addlit(sb, ",\"err\":");
	strbuf_add_i64(sb, rec->read.err);
	if (rec->flags & LOG_FLAG_DIRECT)
		strbuf_addlit(sb, ",\"direct\":true");
	/* The kernel's request id: the log's order (0: not known). */
	if (rec->read.unique)
		ADD_U64(sb, "unique", rec->read.unique);
	add_attr(sb, &rec->read.attr);
	strbuf_addlit(sb, "}\n");
}

void log_json_lost(struct strbuf *sb, uint64_t first_seq, uint64_t count)
{
	strbuf_addf(sb,
		    "{\"lost\":%" PRIu64 ",\"first_seq\":%" PRIu64
		    ",\"last_seq\":%" PRIu64 "}\n",
		    count, first_seq, first_seq + count - 1);
}
