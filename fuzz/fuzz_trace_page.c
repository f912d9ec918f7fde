// SPDX-License-Identifier: MIT
/*
 * Ring-buffer pages as trace_pipe_raw delivers them, and the page layout
 * files (src/trace/events.c). The first input byte chooses: even, the
 * rest is a page laid out as Linux 6.18.44 lays it out; odd, the rest is
 * header_page, NUL, header_event, NUL, page. Each record found is decoded
 * with the readahead and filemap formats of that kernel. Every record must
 * lie inside the page, which is copied to a buffer of exactly its length.
 */
#include <errno.h>

#include "fuzz.h"

#include "events.h"
#include "trace_formats.h"

static struct trace_decoder decoder;
static struct trace_page_layout real_layout;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct {
		unsigned kind;
		const char *text;
	} formats[] = {
		{ TRACE_SYNC_RA, fmt_sync_ra },
		{ TRACE_RA_UNBOUNDED, fmt_ra_unbounded },
		{ TRACE_RA_ORDER, fmt_ra_order },
		{ TRACE_FAULT, fmt_fault },
		{ TRACE_GET_PAGES, fmt_get_pages },
	};
	struct trace_format f;
	char why[256];
	size_t i;

	(void)argc;
	(void)argv;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (trace_format_parse(formats[i].text, &f) ||
		    trace_decoder_add(&decoder, formats[i].kind, &f, why,
				      sizeof(why)))
			abort();
	if (trace_page_layout_parse(header_page, header_event, &real_layout,
				    why, sizeof(why)))
		abort();
	return 0;
}

struct walk {
	const uint8_t *page;
	size_t len;
	uint32_t records;
};

static int visit(const struct trace_record *rec, void *arg)
{
	struct walk *w = arg;
	const uint8_t *p = rec->data;
	struct trace_event ev;
	char line[1024];

	FUZZ_CHECK(p >= w->page && p <= w->page + w->len &&
			   rec->len <= (size_t)(w->page + w->len - p),
		   "record of %u bytes at %td of a %zu-byte page", rec->len,
		   p - w->page, w->len);
	w->records++;
	memset(&ev, 0, sizeof(ev));
	if (trace_decode(&decoder, rec->data, rec->len, &ev) == 0)
		trace_event_format(&ev, line, sizeof(line));
	/* A callback may stop the walk; let some inputs do it. */
	return rec->len == 12 ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_page_layout parsed, *l = &real_layout;
	struct trace_page_info info;
	const uint8_t *page = data + 1;
	size_t len = size ? size - 1 : 0;
	struct walk w = { 0 };
	char *buf = NULL, *parts[3], why[256];
	uint8_t *copy;
	int ret;

	if (size && (data[0] & 1)) {
		size_t n = fuzz_split(data + 1, size - 1, '\0', &buf, parts, 3);

		if (n < 3 ||
		    trace_page_layout_parse(parts[0], parts[1], &parsed, why,
					    sizeof(why))) {
			free(buf);
			return 0;
		}
		l = &parsed;
		page = (const uint8_t *)parts[2];
		len = size - 1 - (size_t)(parts[2] - buf);
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	memcpy(copy, page, len);
	free(buf);
	w.page = copy;
	w.len = len;
	ret = trace_page_parse(l, copy, len, visit, &w, &info);
	FUZZ_CHECK(ret == 0 || ret == 1 || ret == -EINVAL, "returned %d", ret);
	FUZZ_CHECK(info.records == w.records, "%u records, %u seen",
		   info.records, w.records);
	if (ret != -EINVAL || info.commit)
		FUZZ_CHECK(info.commit <= len, "commit %u of %zu", info.commit,
			   len);
	free(copy);
	return 0;
}
