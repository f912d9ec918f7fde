// SPDX-License-Identifier: MIT
#include "log_json.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"

static void add_page(struct strbuf *sb, const char *key, uint64_t page)
{
	if (page == LOG_NO_PAGE)
		strbuf_addf(sb, ",\"%s\":null", key);
	else
		strbuf_addf(sb, ",\"%s\":%" PRIu64, key, page);
}

static void add_order(struct strbuf *sb, const char *key, int order)
{
	if (order < 0)
		strbuf_addf(sb, ",\"%s\":null", key);
	else
		strbuf_addf(sb, ",\"%s\":%d", key, order);
}

/* The kernel's decision; only "cause" when it is unknown. */
static void add_attr(struct strbuf *sb, const struct log_attr *a)
{
	strbuf_addf(sb, ",\"cause\":\"%s\"", log_cause_name(a->cause));
	if (a->cause == LOG_CAUSE_UNKNOWN)
		return;
	if (a->window)
		strbuf_addf(sb,
			    ",\"window\":%" PRIu32 ",\"ra_start\":%" PRIu64
			    ",\"ra_size\":%" PRIu32 ",\"ra_async\":%" PRIu32,
			    a->window, a->ra_start, a->ra_size, a->ra_async);
	if (a->window)
		add_page(sb, "ra_marker", a->ra_marker);
	if (a->ra_pages)
		strbuf_addf(sb, ",\"ra_pages\":%" PRIu32, a->ra_pages);
	if (a->cause == LOG_CAUSE_SYNC || a->cause == LOG_CAUSE_ASYNC ||
	    a->cause == LOG_CAUSE_READAROUND)
		strbuf_addf(sb, ",\"mmap_miss\":%u", a->mmap_miss);
	add_page(sb, "trigger_page", a->trigger_page);
	if (a->window) {
		add_order(sb, "order", a->order);
		add_order(sb, "alloc_order", a->alloc_order);
	}
	if (a->flags & LOG_ATTR_LATE)
		strbuf_adds(sb, ",\"late\":true");
	if (a->flags & LOG_ATTR_READ_TRIGGER)
		strbuf_adds(sb, ",\"by_read\":true");
}

static void log_json_access(struct strbuf *sb, const struct log_record *rec,
			    const char *file, uint32_t page_size)
{
	strbuf_addf(sb, "{\"seq\":%" PRIu64 ",\"access\":\"%s\",\"file\":",
		    rec->seq, log_access_name(rec->access.type));
	json_add_cstring(sb, file ? file : "");
	strbuf_addf(sb,
		    ",\"ino\":%" PRIu64 ",\"page\":%" PRIu64
		    ",\"pages\":%" PRIu64 ",\"page_size\":%" PRIu32
		    ",\"t_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
		    ",\"pid\":%" PRIu32 ",\"events\":%" PRIu32
		    ",\"late\":%" PRIu32 "}\n",
		    rec->access.ino, rec->access.first,
		    rec->access.last - rec->access.first + 1, page_size,
		    rec->t_ns, rec->access.end_ns, rec->access.pid,
		    rec->access.events, rec->access.late);
}

/*
 * Folios of one order added to the page cache: "folios" tells the kind.
 * A folio record names its pages first_page and npages, never page and
 * pages: a script that picks read records by "page" keeps working.
 */
static void log_json_folio(struct strbuf *sb, const struct log_record *rec,
			   const char *file, uint32_t page_size)
{
	strbuf_addf(sb,
		    "{\"seq\":%" PRIu64 ",\"folios\":%" PRIu32
		    ",\"order\":%u,\"file\":",
		    rec->seq, rec->folio.folios, (unsigned)rec->folio.order);
	json_add_cstring(sb, file ? file : "");
	strbuf_addf(sb,
		    ",\"ino\":%" PRIu64 ",\"first_page\":%" PRIu64
		    ",\"npages\":%" PRIu64 ",\"page_size\":%" PRIu32
		    ",\"t_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
		    ",\"pid\":%" PRIu32 "}\n",
		    rec->folio.ino, rec->folio.first,
		    rec->folio.last - rec->folio.first + 1, page_size,
		    rec->t_ns, rec->folio.end_ns, rec->folio.pid);
}

void log_json_record(struct strbuf *sb, const struct log_record *rec,
		     const char *file, uint32_t page_size)
{
	uint64_t first, end;

	if (rec->kind == LOG_MARK) {
		strbuf_addf(sb, "{\"seq\":%" PRIu64 ",\"mark\":", rec->seq);
		json_add_string(sb, rec->mark.text,
				strnlen(rec->mark.text, LOG_MARK_MAX));
		strbuf_addf(sb, ",\"t_ns\":%" PRIu64 "}\n", rec->t_ns);
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
	strbuf_addf(sb, "{\"seq\":%" PRIu64 ",\"file\":", rec->seq);
	json_add_cstring(sb, file ? file : "");
	strbuf_addf(sb,
		    ",\"ino\":%" PRIu64 ",\"off\":%" PRIu64 ",\"len\":%" PRIu32
		    ",\"page\":%" PRIu64 ",\"pages\":%" PRIu64
		    ",\"page_size\":%" PRIu32 ",\"t_ns\":%" PRIu64
		    ",\"done_ns\":%" PRIu64 ",\"delay_ns\":%" PRIu64
		    ",\"pid\":%" PRIu32 ",\"err\":%" PRId32 "%s",
		    rec->read.ino, rec->read.off, rec->read.len, first,
		    end - first, page_size, rec->t_ns, rec->read.done_ns,
		    rec->read.delay_ns, rec->read.pid, rec->read.err,
		    rec->flags & LOG_FLAG_DIRECT ? ",\"direct\":true" : "");
	/* The kernel's request id: the log's order (0: not known). */
	if (rec->read.unique)
		strbuf_addf(sb, ",\"unique\":%" PRIu64, rec->read.unique);
	add_attr(sb, &rec->read.attr);
	strbuf_adds(sb, "}\n");
}

void log_json_lost(struct strbuf *sb, uint64_t first_seq, uint64_t count)
{
	strbuf_addf(sb,
		    "{\"lost\":%" PRIu64 ",\"first_seq\":%" PRIu64
		    ",\"last_seq\":%" PRIu64 "}\n",
		    count, first_seq, first_seq + count - 1);
}
