// SPDX-License-Identifier: MIT
#include "log_json.h"

#include <inttypes.h>
#include <string.h>

#include "../common/json.h"

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
	first = rec->read.off / page_size;
	end = (rec->read.off + rec->read.len + page_size - 1) / page_size;
	strbuf_addf(sb, "{\"seq\":%" PRIu64 ",\"file\":", rec->seq);
	json_add_cstring(sb, file ? file : "");
	strbuf_addf(sb,
		    ",\"ino\":%" PRIu64 ",\"off\":%" PRIu64 ",\"len\":%" PRIu32
		    ",\"page\":%" PRIu64 ",\"pages\":%" PRIu64
		    ",\"t_ns\":%" PRIu64 ",\"done_ns\":%" PRIu64
		    ",\"delay_ns\":%" PRIu64 ",\"pid\":%" PRIu32
		    ",\"err\":%" PRId32 "%s}\n",
		    rec->read.ino, rec->read.off, rec->read.len, first,
		    end - first, rec->t_ns, rec->read.done_ns,
		    rec->read.delay_ns, rec->read.pid, rec->read.err,
		    rec->flags & LOG_FLAG_DIRECT ? ",\"direct\":true" : "");
}

void log_json_lost(struct strbuf *sb, uint64_t first_seq, uint64_t count)
{
	strbuf_addf(sb,
		    "{\"lost\":%" PRIu64 ",\"first_seq\":%" PRIu64
		    ",\"last_seq\":%" PRIu64 "}\n",
		    count, first_seq, first_seq + count - 1);
}
