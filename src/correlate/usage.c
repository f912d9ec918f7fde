// SPDX-License-Identifier: MIT
#include "usage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "analysis.h"

/* The log as the analysis layer reads it. */
struct feed {
	struct an_log l;
	uint32_t page_size;
	bool causes; /* the kernel's readahead:* events name causes */
};

/* Hands @rec to the layer, the file's inode as its key. */
static void visit(void *arg, const struct log_record *rec)
{
	struct feed *fd = arg;
	struct an_log *l = &fd->l;
	uint32_t page_size = fd->page_size;

	if (rec->kind == LOG_ACCESS) {
		an_add_access(l, &(struct an_access){
					 .file = rec->access.ino,
					 .first = rec->access.first,
					 .last = rec->access.last,
					 .t_ns = rec->t_ns,
					 .end_ns = rec->access.end_ns,
					 .type = rec->access.type,
					 .late = rec->access.late,
				 });
		return;
	}
	if (rec->kind == LOG_FOLIO) {
		an_add_folio(l, &(struct an_folio){
					.file = rec->folio.ino,
					.first = rec->folio.first,
					.last = rec->folio.last,
					.t_ns = rec->t_ns,
					.order = rec->folio.order,
				});
		return;
	}
	if (rec->kind != LOG_READ || !rec->read.len)
		return;
	an_add_read(l,
		    &(struct an_read){
			    .file = rec->read.ino,
			    .first = rec->read.off / page_size,
			    .pages = (rec->read.off + rec->read.len - 1) /
					     page_size -
				     rec->read.off / page_size + 1,
			    .t_ns = rec->t_ns,
			    .done_ns = rec->read.done_ns,
			    .window = rec->read.attr.window,
			    .order = rec->read.attr.order,
			    .alloc_order = rec->read.attr.alloc_order,
			    .failed = rec->read.err != 0,
			    .direct = (rec->flags & LOG_FLAG_DIRECT) != 0,
			    .late = (rec->read.attr.flags & LOG_ATTR_LATE) != 0,
			    .by_read = (rec->read.attr.flags &
					LOG_ATTR_READ_TRIGGER) != 0,
			    .attributed =
				    rec->read.attr.cause != LOG_CAUSE_UNKNOWN &&
				    rec->read.attr.cause < LOG_CAUSE_COUNT,
			    .trigger_unknown = !fd->causes,
		    });
}

static void add_hist(struct strbuf *sb, const char *key, const uint64_t *v,
		     bool ranges, uint64_t unknown)
{
	bool first = true;
	unsigned i;

	strbuf_addf(sb, "\"%s\":{", key);
	for (i = 0; i < AN_BUCKETS; i++) {
		if (!v[i])
			continue;
		if (ranges && i)
			strbuf_addf(sb, "%s\"%llu-%llu\":%" PRIu64,
				    first ? "" : ",", 1ull << i,
				    (2ull << i) - 1, v[i]);
		else
			strbuf_addf(sb, "%s\"%u\":%" PRIu64, first ? "" : ",",
				    ranges ? 1u : i, v[i]);
		first = false;
	}
	if (unknown)
		strbuf_addf(sb, "%s\"unknown\":%" PRIu64, first ? "" : ",",
			    unknown);
	strbuf_adds(sb, "}");
}

/*
 * ,"page_age":{"pages":N,"late":N,"never":N,"mapped":N,
 * "resolution_ns":N,"us":{"LOW":N,...}}: bucket LOW holds ages of LOW to
 * 2 LOW us (0: under 1 us; the last bucket is open). null untraced. With
 * @reads_untraced (read(2) started readahead here, its lookups are not
 * traced) a "never_why" after "us" says that "never" counts pages read(2)
 * read too.
 */
static int add_page_age(struct strbuf *sb, const struct age_input *in,
			bool traced, bool reads_untraced)
{
	struct age_hist h;
	bool first = true;
	unsigned i;

	strbuf_adds(sb, ",\"page_age\":");
	if (!traced) {
		strbuf_adds(sb, "null");
		return 0;
	}
	if (age_compute(in, 0, UINT64_MAX, UINT64_MAX, &h, NULL))
		return -ENOMEM;
	strbuf_addf(sb,
		    "{\"pages\":%" PRIu64 ",\"late\":%" PRIu64
		    ",\"never\":%" PRIu64 ",\"mapped\":%" PRIu64
		    ",\"resolution_ns\":%" PRIu64 ",\"us\":{",
		    h.pages, h.late, h.never, h.mapped, h.resolution_ns);
	for (i = 0; i < AGE_BUCKETS; i++) {
		if (!h.bucket[i])
			continue;
		strbuf_addf(sb, "%s\"%" PRIu64 "\":%" PRIu64, first ? "" : ",",
			    age_bucket_low_us(i), h.bucket[i]);
		first = false;
	}
	strbuf_adds(sb, "}");
	if (reads_untraced)
		strbuf_adds(
			sb,
			",\"never_why\":\"read(2) accesses are not traced (--trace-reads): pages only read(2) touched count as never\"");
	strbuf_adds(sb, "}");
	return 0;
}

/* One sentence on what the folio orders mean, for people reading stats. */
static void add_order_note(struct strbuf *sb, const struct an_hist *h)
{
	unsigned i, max_asked = 0, max_alloc = 0;
	bool asked = false, alloc = false;

	for (i = 0; i < AN_BUCKETS; i++) {
		if (h->order_asked[i]) {
			asked = true;
			max_asked = i;
		}
		if (h->order_alloc[i]) {
			alloc = true;
			max_alloc = i;
		}
	}
	strbuf_adds(sb, ",\"order_note\":");
	if (!h->windows)
		json_add_cstring(sb, "no readahead window traced");
	else if (alloc && max_alloc == 0 && asked && max_asked > 0)
		json_add_cstring(
			sb,
			"the kernel asked for large folios, but every window was read through page_cache_ra_unbounded() with order-0 folios: this file system does not use large folios here");
	else if (alloc && max_alloc == 0)
		json_add_cstring(sb, "only order-0 folios were allocated");
	else if (h->order_alloc_unknown)
		json_add_cstring(
			sb,
			"windows read without page_cache_ra_unbounded() used large folios of at most the order asked for");
	else
		json_add_cstring(sb, "");
}

/* "NAME":{"fetched":N,...} of file @i. */
static int add_file(struct strbuf *sb, struct an_log *l, size_t i, bool traced,
		    bool reads_traced, const char *name)
{
	struct an_usage u;
	int err = an_usage(l, i, &u, NULL, NULL);

	if (err)
		return err;
	json_add_cstring(sb, name);
	strbuf_addf(sb,
		    ":{\"fetched\":%" PRIu64 ",\"accessed\":%" PRIu64
		    ",\"mapped\":%" PRIu64 ",\"wasted\":",
		    u.fetched, u.accessed, u.mapped);
	if (!traced)
		strbuf_adds(
			sb,
			"null,\"wasted_why\":\"no kernel tracing: accesses are not seen\"");
	else if (!an_wasted_known(traced, reads_traced, u.read_triggered) &&
		 u.trigger_unknown)
		strbuf_adds(
			sb,
			"null,\"wasted_why\":\"this kernel cannot tell whether read(2) started readahead here (no readahead:* events) and read(2) accesses are not traced (--trace-reads)\"");
	else if (!an_wasted_known(traced, reads_traced, u.read_triggered))
		strbuf_adds(
			sb,
			"null,\"wasted_why\":\"read(2) started readahead here and read(2) accesses are not traced (--trace-reads)\"");
	else
		strbuf_addf(sb, "%" PRIu64, u.wasted);
	strbuf_addf(sb,
		    ",\"late_accesses\":%" PRIu64 ",\"late_reads\":%" PRIu64,
		    u.late_accesses, u.late_reads);
	err = add_page_age(sb, &l->f[i].age, traced,
			   !reads_traced && u.read_triggered);
	strbuf_adds(sb, "}");
	return err;
}

int usage_render(struct log_ring *ring, uint64_t from, uint32_t page_size,
		 bool traced, bool reads_traced, bool causes,
		 usage_name_fn name_of, void *ctx, struct strbuf *sb)
{
	struct feed fd = { AN_LOG_INIT, page_size ? page_size : 4096, causes };
	struct an_hist h;
	int err = 0;
	size_t i;

	log_ring_walk(ring, from, visit, NULL, &fd);
	an_end(&fd.l);
	strbuf_adds(sb, "\"files\":{");
	for (i = 0; i < fd.l.nf && !err; i++) {
		strbuf_adds(sb, i ? "," : "");
		err = add_file(sb, &fd.l, i, traced, reads_traced,
			       name_of(ctx, fd.l.f[i].key));
	}
	if (an_histograms(&fd.l, &h)) /* zeroed on error */
		err = -ENOMEM;
	strbuf_adds(sb, "},\"histograms\":{");
	add_hist(sb, "request_pages", h.request_pages, true, 0);
	strbuf_addf(sb, ",\"windows\":%" PRIu64 ",", h.windows);
	add_hist(sb, "order_asked", h.order_asked, false,
		 h.order_asked_unknown);
	strbuf_adds(sb, ",");
	add_hist(sb, "order_allocated", h.order_alloc, false,
		 h.order_alloc_unknown);
	add_order_note(sb, &h);
	strbuf_adds(sb, "}");
	an_free(&fd.l);
	return err;
}
