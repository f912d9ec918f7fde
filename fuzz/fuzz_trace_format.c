// SPDX-License-Identifier: MIT
/*
 * Trace formats and records (src/trace/events.c): the input is up to
 * three `format` files separated by form feeds, a NUL, then one raw
 * record. Formats that parse are added to a decoder, which then decodes
 * the record. A format may claim anything (fields past the record, odd
 * sizes, common_type anywhere): the decoder must refuse it or decode
 * without reading a byte outside the record, which is copied to a buffer
 * of exactly its length so that ASan sees any such read.
 */
#include <errno.h>

#include "fuzz.h"

#include "events.h"

#define MAX_FORMATS 3

static void add_format(struct trace_decoder *d, const char *text)
{
	struct trace_format f;
	char why[256] = "";
	unsigned i;
	int kind, ret;

	if (trace_format_parse(text, &f))
		return;
	FUZZ_CHECK(f.nfields > 0 && f.nfields <= TRACE_FIELDS_MAX, "%u fields",
		   f.nfields);
	FUZZ_CHECK(memchr(f.name, '\0', sizeof(f.name)), "name not ended");
	for (i = 0; i < f.nfields; i++)
		FUZZ_CHECK(f.fields[i].name[0] &&
				   memchr(f.fields[i].name, '\0',
					  sizeof(f.fields[i].name)),
			   "field %u has no name", i);
	kind = trace_kind_from_name(f.name);
	if (kind < 0)
		kind = (int)(f.id % TRACE_KIND_COUNT);
	ret = trace_decoder_add(d, (unsigned)kind, &f, why, sizeof(why));
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -EEXIST, "returned %d",
		   ret);
	if (ret)
		FUZZ_CHECK(why[0] || d->n == TRACE_KIND_COUNT,
			   "refused without a reason");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split = fuzz_find(data, size, "\0", 1);
	char *buf, *texts[MAX_FORMATS];
	struct trace_decoder d;
	struct trace_event ev;
	size_t n, i, len;
	uint8_t *rec;
	char line[1024];
	int ret;

	memset(&d, 0, sizeof(d));
	n = fuzz_split(data, split, '\f', &buf, texts, MAX_FORMATS);
	for (i = 0; i < n; i++)
		add_format(&d, texts[i]);
	free(buf);

	len = split < size ? size - split - 1 : 0;
	rec = malloc(len ? len : 1);
	if (!rec)
		abort();
	memcpy(rec, data + size - len, len);
	memset(&ev, 0, sizeof(ev));
	ret = trace_decode(&d, rec, len, &ev);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOENT, "returned %d",
		   ret);
	if (ret == 0) {
		FUZZ_CHECK(ev.kind < TRACE_KIND_COUNT, "kind %u", ev.kind);
		for (i = 0; i < d.n; i++)
			if (d.layout[i].kind == ev.kind)
				FUZZ_CHECK(len >= d.layout[i].min_len,
					   "decoded %zu bytes, needs %u", len,
					   d.layout[i].min_len);
		trace_event_format(&ev, line, sizeof(line));
	}
	free(rec);
	return 0;
}
