// SPDX-License-Identifier: MIT
/*
 * Folio orders (include/testfs/folios.h): the LOG_FOLIO records the
 * daemon writes from filemap:mm_filemap_add_to_page_cache, counted per
 * order, and the check built on them. By default the daemon records only
 * folios of order > 0 (LOG_BIN_FOLIOS_LARGE; --trace-folios: all): every
 * page a read fetched (answered without error, not O_DIRECT) entered the
 * page cache in a folio just before, so the fetched pages no large folio
 * holds came in order-0 folios, one page each.
 */
#include "lib_i.h"
#include "strbuf.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FOLIO_EVENT "filemap:mm_filemap_add_to_page_cache"

int lib_folios_why(struct testfs_log *log)
{
	struct strbuf sb = STRBUF_INIT;

	if (log->folios_traced)
		return 0;
	if (!log->traced)
		strbuf_addf(
			&sb,
			"the kernel event " FOLIO_EVENT
			" (a folio's order as it enters the page cache) was "
			"not followed: the daemon did not trace the kernel "
			"(%s)",
			log->trace_why ? log->trace_why : "no reason given");
	else
		strbuf_adds(&sb,
			    "the kernel event " FOLIO_EVENT
			    " was not followed: this kernel has no such event "
			    "with an order field (the daemon traced readahead "
			    "without it; .testfs/config lists the events it "
			    "skipped and why)");
	log->folios_why = strbuf_detach(&sb, NULL);
	return log->folios_why ? 0 : -ENOMEM;
}

const char *testfs_log_folio_orders_why(const struct testfs_log *log)
{
	if (!log || log->folios_traced)
		return NULL;
	return log->folios_why ? log->folios_why : "no log";
}

/* Pages of @name (every file: NULL) the log's reads fetched. */
static uint64_t fetched_pages(const struct testfs_log *log, const char *name)
{
	uint64_t pages = 0;
	size_t i;

	for (i = 0; i < log->count; i++) {
		const struct testfs_record *r = &log->recs[i];

		if (r->kind != TESTFS_RECORD_READ || r->err || r->direct ||
		    (name && (!r->file || strcmp(r->file, name) != 0)))
			continue;
		pages += r->pages;
	}
	return pages;
}

int testfs_log_folio_orders(const struct testfs_log *log, const char *name,
			    struct testfs_folio_orders *out)
{
	uint64_t fetched;
	size_t i;
	unsigned k;

	if (!log || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->max_order = -1;
	out->top_order = -1;
	if (!log->folios_traced)
		return -ENODATA;
	for (i = 0; i < log->nfolios; i++) {
		const struct lib_folio *f = &log->folios[i];

		if (name && (!f->file || strcmp(f->file, name) != 0))
			continue;
		k = f->order < TESTFS_FOLIO_ORDERS ? f->order
						   : TESTFS_FOLIO_ORDERS - 1;
		out->folios[k] += f->folios;
		out->pages[k] += f->last - f->first + 1;
		out->total_folios += f->folios;
		out->total_pages += f->last - f->first + 1;
		if ((int)f->order > out->max_order)
			out->max_order = (int)f->order;
	}
	if (log->folios_large_only) {
		fetched = fetched_pages(log, name);
		if (fetched > out->total_pages) {
			fetched -= out->total_pages;
			out->folios[0] += fetched;
			out->pages[0] += fetched;
			out->total_folios += fetched;
			out->total_pages += fetched;
			if (out->max_order < 0)
				out->max_order = 0;
		}
	}
	for (k = 0; k < TESTFS_FOLIO_ORDERS; k++)
		if (out->pages[k] &&
		    (out->top_order < 0 ||
		     out->pages[k] > out->pages[out->top_order]))
			out->top_order = (int)k;
	return 0;
}

/* "order 0: 2048 folios (2048 pages), order 2: 4096 (16384 pages)" */
static void add_orders(struct strbuf *sb, const struct testfs_folio_orders *o)
{
	bool first = true;
	unsigned k;

	for (k = 0; k < TESTFS_FOLIO_ORDERS; k++) {
		if (!o->folios[k])
			continue;
		strbuf_addf(
			sb, "%sorder %u: %" PRIu64 "%s (%" PRIu64 " page%s)",
			first ? "" : ", ", k, o->folios[k],
			first ? (o->folios[k] == 1 ? " folio" : " folios") : "",
			o->pages[k], o->pages[k] == 1 ? "" : "s");
		first = false;
	}
}

int testfs_check_folio_order(const struct testfs_log *log, const char *name,
			     unsigned order, unsigned percent, char **why)
{
	struct strbuf sb = STRBUF_INIT;
	struct testfs_folio_orders o;
	uint64_t have;
	int rc;

	if (percent > 100)
		return -EINVAL;
	rc = lib_check_start(log, name, why);
	if (rc)
		return rc;
	rc = testfs_log_folio_orders(log, name, &o);
	if (rc == -ENODATA) {
		strbuf_addf(&sb, "%s: no folio orders in this log: %s", name,
			    testfs_log_folio_orders_why(log));
		return lib_check_fail(&sb, why);
	}
	if (rc)
		return rc;
	if (!o.total_pages) {
		strbuf_addf(&sb,
			    "%s: no page of it entered the page cache while "
			    "the log ran (expected at least %u%% in order-%u "
			    "folios)",
			    name, percent, order);
		return lib_check_fail(&sb, why);
	}
	have = order < TESTFS_FOLIO_ORDERS ? o.pages[order] : 0;
	/* have / total >= percent / 100, in integers */
	if (have * 100 >= (uint64_t)percent * o.total_pages)
		return 0;
	strbuf_addf(&sb,
		    "%s: %" PRIu64 "%% of the %" PRIu64
		    " pages that entered the page cache were in order-%u "
		    "folios, expected at least %u%%: ",
		    name, have * 100 / o.total_pages, o.total_pages, order,
		    percent);
	add_orders(&sb, &o);
	return lib_check_fail(&sb, why);
}
