// SPDX-License-Identifier: MIT
#include "events.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *system;
	const char *name;
} kinds[TRACE_KIND_COUNT] = {
	[TRACE_SYNC_RA] = { "readahead", "page_cache_sync_ra" },
	[TRACE_ASYNC_RA] = { "readahead", "page_cache_async_ra" },
	[TRACE_RA_ORDER] = { "readahead", "page_cache_ra_order" },
	[TRACE_RA_UNBOUNDED] = { "readahead", "page_cache_ra_unbounded" },
	[TRACE_FAULT] = { "filemap", "mm_filemap_fault" },
	[TRACE_GET_PAGES] = { "filemap", "mm_filemap_get_pages" },
	[TRACE_MAP_PAGES] = { "filemap", "mm_filemap_map_pages" },
	[TRACE_ADD_FOLIO] = { "filemap", "mm_filemap_add_to_page_cache" },
};

const char *trace_kind_name(unsigned kind)
{
	return kind < TRACE_KIND_COUNT ? kinds[kind].name : "?";
}

const char *trace_kind_system(unsigned kind)
{
	return kind < TRACE_KIND_COUNT ? kinds[kind].system : "?";
}

int trace_kind_from_name(const char *name)
{
	unsigned k;

	for (k = 0; k < TRACE_KIND_COUNT; k++)
		if (strcmp(kinds[k].name, name) == 0)
			return (int)k;
	return -1;
}

/* ---- format files ---- */

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Reads "key:NUMBER;" at @s; returns the position after ';' or NULL. */
static const char *parse_attr(const char *s, const char *key, long *out)
{
	size_t klen = strlen(key);
	char *end;

	s = skip_blank(s);
	if (strncmp(s, key, klen) != 0 || s[klen] != ':')
		return NULL;
	s += klen + 1;
	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || end == s || *end != ';')
		return NULL;
	return end + 1;
}

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line (@line points
 * after "field:", @end at the line's end). The name is the last identifier
 * of the declaration, without an array suffix ("char comm[16]").
 */
static int parse_field(const char *line, const char *end, struct trace_field *f)
{
	const char *semi = memchr(line, ';', (size_t)(end - line));
	const char *p, *q;
	long off, size, sign;
	size_t n;

	if (!semi)
		return -EINVAL;
	q = semi;
	if (q > line && q[-1] == ']') {
		while (q > line && *q != '[')
			q--;
		if (q == line)
			return -EINVAL;
	}
	while (q > line && q[-1] == ' ')
		q--;
	p = q;
	while (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		p--;
	n = (size_t)(q - p);
	if (n == 0 || n >= sizeof(f->name))
		return -EINVAL;
	memcpy(f->name, p, n);
	f->name[n] = '\0';
	p = parse_attr(semi + 1, "offset", &off);
	if (p)
		p = parse_attr(p, "size", &size);
	if (p)
		p = parse_attr(p, "signed", &sign);
	if (!p || p > end || off < 0 || off > 0xffff || size < 0 ||
	    size > 0xffff)
		return -EINVAL;
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sign != 0;
	return 0;
}

/* Parses every "field:" line of @text into @fields. */
static int parse_fields(const char *text, struct trace_field *fields,
			unsigned max, unsigned *count)
{
	const char *line = text;
	unsigned n = 0;

	while (*line) {
		const char *end = strchr(line, '\n');
		const char *s = skip_blank(line);

		if (!end)
			end = line + strlen(line);
		if (strncmp(s, "field:", 6) == 0) {
			if (n == max ||
			    parse_field(skip_blank(s + 6), end, &fields[n]))
				return -EINVAL;
			n++;
		}
		line = *end ? end + 1 : end;
	}
	*count = n;
	return 0;
}

int trace_format_parse(const char *text, struct trace_format *fmt)
{
	const char *name, *id, *end;
	size_t n;
	long v;

	memset(fmt, 0, sizeof(*fmt));
	name = strstr(text, "name:");
	id = strstr(text, "\nID:");
	if (!name || !id)
		return -EINVAL;
	name = skip_blank(name + 5);
	end = name;
	while (*end && *end != '\n' && *end != ' ' && *end != '\t')
		end++;
	n = (size_t)(end - name);
	if (n == 0 || n >= sizeof(fmt->name))
		return -EINVAL;
	memcpy(fmt->name, name, n);
	errno = 0;
	v = strtol(id + 4, (char **)&end, 10);
	if (errno || end == id + 4 || v < 0 || v > 0xffff)
		return -EINVAL;
	fmt->id = (uint32_t)v;
	if (parse_fields(text, fmt->fields, TRACE_FIELDS_MAX, &fmt->nfields))
		return -EINVAL;
	return fmt->nfields ? 0 : -EINVAL;
}

const struct trace_field *trace_format_field(const struct trace_format *fmt,
					     const char *name)
{
	unsigned i;

	for (i = 0; i < fmt->nfields; i++)
		if (strcmp(fmt->fields[i].name, name) == 0)
			return &fmt->fields[i];
	return NULL;
}

/* ---- decoding ---- */

/*
 * The format field names each member may have, first match wins. The
 * 6.18 names come first; "dev", "ino", "start", "end" are what other
 * kernels' filemap events use ("end" is taken as inclusive, like
 * last_index).
 */
static const char *const slot_names[TRACE_SLOT_COUNT][4] = {
	[TRACE_SLOT_TYPE] = { "common_type" },
	[TRACE_SLOT_PID] = { "common_pid" },
	[TRACE_SLOT_INO] = { "i_ino", "ino" },
	[TRACE_SLOT_DEV] = { "s_dev", "dev" },
	[TRACE_SLOT_INDEX] = { "index", "start" },
	[TRACE_SLOT_LAST_INDEX] = { "last_index", "end" },
	[TRACE_SLOT_REQ_COUNT] = { "req_count" },
	[TRACE_SLOT_NR_TO_READ] = { "nr_to_read" },
	[TRACE_SLOT_LOOKAHEAD] = { "lookahead_size" },
	[TRACE_SLOT_ORDER] = { "order" },
	[TRACE_SLOT_SIZE] = { "size" },
	[TRACE_SLOT_ASYNC_SIZE] = { "async_size" },
	[TRACE_SLOT_RA_PAGES] = { "ra_pages" },
	[TRACE_SLOT_MMAP_MISS] = { "mmap_miss" },
	[TRACE_SLOT_PREV_POS] = { "prev_pos" },
};

static const uint32_t slot_flag[TRACE_SLOT_COUNT] = {
	[TRACE_SLOT_INDEX] = TRACE_F_INDEX,
	[TRACE_SLOT_LAST_INDEX] = TRACE_F_LAST_INDEX,
	[TRACE_SLOT_REQ_COUNT] = TRACE_F_REQ_COUNT,
	[TRACE_SLOT_NR_TO_READ] = TRACE_F_NR_TO_READ,
	[TRACE_SLOT_LOOKAHEAD] = TRACE_F_LOOKAHEAD,
	[TRACE_SLOT_ORDER] = TRACE_F_ORDER,
	[TRACE_SLOT_SIZE] = TRACE_F_SIZE,
	[TRACE_SLOT_ASYNC_SIZE] = TRACE_F_ASYNC_SIZE,
	[TRACE_SLOT_RA_PAGES] = TRACE_F_RA_PAGES,
	[TRACE_SLOT_MMAP_MISS] = TRACE_F_MMAP_MISS,
	[TRACE_SLOT_PREV_POS] = TRACE_F_PREV_POS,
};

static bool scalar_size(unsigned size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

int trace_decoder_add(struct trace_decoder *d, unsigned kind,
		      const struct trace_format *fmt, char *why, size_t whylen)
{
	struct trace_layout l;
	unsigned s, i;

	if (kind >= TRACE_KIND_COUNT || d->n == TRACE_KIND_COUNT)
		return -EINVAL;
	for (i = 0; i < d->n; i++) {
		if (d->layout[i].kind == kind || d->layout[i].id == fmt->id) {
			snprintf(why, whylen, "%s: already added", fmt->name);
			return -EEXIST;
		}
	}
	memset(&l, 0, sizeof(l));
	l.id = fmt->id;
	l.kind = (uint8_t)kind;
	for (s = 0; s < TRACE_SLOT_COUNT; s++) {
		const struct trace_field *f = NULL;

		for (i = 0; i < 4 && slot_names[s][i] && !f; i++)
			f = trace_format_field(fmt, slot_names[s][i]);
		if (!f)
			continue;
		if (!scalar_size(f->size)) {
			snprintf(why, whylen, "%s: field %s has size %u",
				 fmt->name, f->name, f->size);
			return -EINVAL;
		}
		l.slot[s].offset = f->offset;
		l.slot[s].size = (uint8_t)f->size;
		l.slot[s].is_signed = f->is_signed;
		if ((uint32_t)f->offset + f->size > l.min_len)
			l.min_len = (uint32_t)f->offset + f->size;
		if (s == TRACE_SLOT_DEV)
			snprintf(l.dev_name, sizeof(l.dev_name), "%s", f->name);
	}
	for (s = TRACE_SLOT_TYPE; s <= TRACE_SLOT_DEV; s++) {
		if (!l.slot[s].size) {
			snprintf(why, whylen, "%s: no field %s", fmt->name,
				 slot_names[s][0]);
			return -EINVAL;
		}
	}
	/* A folio without its order says nothing the log keeps. */
	if (kind == TRACE_ADD_FOLIO && !l.slot[TRACE_SLOT_ORDER].size) {
		snprintf(why, whylen, "%s: no field order", fmt->name);
		return -EINVAL;
	}
	if (d->n && (d->type_size != l.slot[TRACE_SLOT_TYPE].size ||
		     d->type_offset != l.slot[TRACE_SLOT_TYPE].offset)) {
		snprintf(why, whylen,
			 "%s: common_type of size %u at offset %u, "
			 "others have size %u at %u",
			 fmt->name, l.slot[TRACE_SLOT_TYPE].size,
			 l.slot[TRACE_SLOT_TYPE].offset, d->type_size,
			 d->type_offset);
		return -EINVAL;
	}
	for (s = TRACE_SLOT_INDEX; s < TRACE_SLOT_COUNT; s++) {
		if (!l.slot[s].size)
			continue;
		l.opt[l.nopt++] = (uint8_t)s;
		l.opt_fields |= slot_flag[s];
	}
	d->type_offset = l.slot[TRACE_SLOT_TYPE].offset;
	d->type_size = l.slot[TRACE_SLOT_TYPE].size;
	d->layout[d->n++] = l;
	return 0;
}

static uint64_t get_u(const uint8_t *p, unsigned size, bool is_signed)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return is_signed ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	case 8:
		memcpy(&u64, p, 8);
		return u64;
	}
	return 0;
}

static uint64_t slot_get(const struct trace_layout *l, const uint8_t *p,
			 unsigned s)
{
	const struct trace_slot *sl = &l->slot[s];

	return get_u(p + sl->offset, sl->size, sl->is_signed);
}

/* Where each optional slot's value goes in struct trace_event. */
static const struct {
	uint8_t offset;
	uint8_t size;
} slot_dest[TRACE_SLOT_COUNT] = {
#define DEST(slot, member)                                                     \
	[slot] = { offsetof(struct trace_event, member),                       \
		   sizeof(((struct trace_event *)0)->member) }
	DEST(TRACE_SLOT_INDEX, index),
	DEST(TRACE_SLOT_LAST_INDEX, last_index),
	DEST(TRACE_SLOT_REQ_COUNT, req_count),
	DEST(TRACE_SLOT_NR_TO_READ, nr_to_read),
	DEST(TRACE_SLOT_LOOKAHEAD, lookahead_size),
	DEST(TRACE_SLOT_ORDER, order),
	DEST(TRACE_SLOT_SIZE, size),
	DEST(TRACE_SLOT_ASYNC_SIZE, async_size),
	DEST(TRACE_SLOT_RA_PAGES, ra_pages),
	DEST(TRACE_SLOT_MMAP_MISS, mmap_miss),
	DEST(TRACE_SLOT_PREV_POS, prev_pos),
#undef DEST
};

static void dest_set(struct trace_event *ev, unsigned s, uint64_t v)
{
	uint8_t *dst = (uint8_t *)ev + slot_dest[s].offset;
	uint32_t v32 = (uint32_t)v;

	if (slot_dest[s].size == 8)
		memcpy(dst, &v, 8);
	else
		memcpy(dst, &v32, 4);
}

static uint64_t dest_get(const struct trace_event *ev, unsigned s)
{
	const uint8_t *src = (const uint8_t *)ev + slot_dest[s].offset;
	uint32_t v32;
	uint64_t v;

	if (slot_dest[s].size == 8) {
		memcpy(&v, src, 8);
		return v;
	}
	memcpy(&v32, src, 4);
	return v32;
}

int trace_decode(const struct trace_decoder *d, const void *data, size_t len,
		 struct trace_event *ev)
{
	const struct trace_layout *l = NULL;
	const uint8_t *p = data;
	uint64_t type;
	unsigned i;

	/* A format may put common_type anywhere: check before reading it. */
	if (!d->n || len < (size_t)d->type_offset + d->type_size)
		return -EINVAL;
	/* The type first: a record of any other event is not parsed. */
	type = get_u(p + d->type_offset, d->type_size, false);
	/*
	 * From the last added: mm_filemap_add_to_page_cache, the tracer's
	 * last kind, is one event per folio read in, most of them all with
	 * --trace-folios (by default only large folios are traced, and no
	 * kind stands out). Every ID is there once (trace_decoder_add()).
	 */
	for (i = d->n; i-- > 0;) {
		if (d->layout[i].id == type) {
			l = &d->layout[i];
			break;
		}
	}
	if (!l)
		return -ENOENT;
	/* min_len is the end of the farthest field: all of them are inside. */
	if (len < l->min_len)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	ev->kind = l->kind;
	ev->pid = (int32_t)slot_get(l, p, TRACE_SLOT_PID);
	ev->ino = slot_get(l, p, TRACE_SLOT_INO);
	ev->dev = (uint32_t)slot_get(l, p, TRACE_SLOT_DEV);
	ev->fields = l->opt_fields;
	/* Only the fields this event's format has. */
	for (i = 0; i < l->nopt; i++)
		dest_set(ev, l->opt[i], slot_get(l, p, l->opt[i]));
	if (!(ev->fields & TRACE_F_LAST_INDEX))
		ev->last_index = ev->index;
	return 0;
}

int trace_event_format(const struct trace_event *ev, char *buf, size_t len)
{
	char extra[320];
	unsigned s;
	int n = 0;

	extra[0] = '\0';
	/*
	 * In slot order, each under its name in the format file; prev_pos
	 * (loff_t) is the one signed field.
	 */
	for (s = TRACE_SLOT_INDEX; s < TRACE_SLOT_COUNT; s++) {
		uint64_t v = dest_get(ev, s);

		if (!(ev->fields & slot_flag[s]) || n < 0 ||
		    (size_t)n >= sizeof(extra))
			continue;
		if (s == TRACE_SLOT_PREV_POS)
			n += snprintf(extra + n, sizeof(extra) - (size_t)n,
				      " %s %" PRId64, slot_names[s][0],
				      (int64_t)v);
		else
			n += snprintf(extra + n, sizeof(extra) - (size_t)n,
				      " %s %" PRIu64, slot_names[s][0], v);
	}
	return snprintf(buf, len,
			"%" PRIu64 ".%09" PRIu64 " cpu%u pid %d %s dev %u:%u"
			" ino %" PRIu64 "%s",
			ev->ts_ns / 1000000000u, ev->ts_ns % 1000000000u,
			ev->cpu, ev->pid, trace_kind_name(ev->kind),
			ev->dev >> 20, ev->dev & 0xfffffu, ev->ino, extra);
}

/* ---- ring-buffer pages ---- */

/*
 * Flags in the high bits of a page's commit word (kernel/trace/
 * ring_buffer.c: RB_MISSED_EVENTS, RB_MISSED_STORED); header_page does
 * not describe them. With MISSED_STORED the count follows the data.
 */
#define RB_MISSED_EVENTS (1ull << 31)
#define RB_MISSED_STORED (1ull << 30)
#define RB_COMMIT_MASK ((1ull << 30) - 1)

/* Absolute timestamps keep 59 bits; the top 5 come from the reader's. */
#define TS_MSB (0xf8ull << 56)

/* "NAME : N bits" or "NAME : type == N" or "data max type_len == N". */
static int header_value(const char *text, const char *key, const char *what,
			unsigned *out)
{
	const char *line = text;
	size_t klen = strlen(key);

	while (*line) {
		const char *end = strchr(line, '\n');
		const char *s = skip_blank(line);

		if (!end)
			end = line + strlen(line);
		if (strncmp(s, key, klen) == 0 &&
		    (s[klen] == ' ' || s[klen] == ':' || s[klen] == '\t')) {
			const char *p = strstr(s + klen, what);
			char *e;
			long v;

			if (!p || p > end)
				return -EINVAL;
			p = skip_blank(p + strlen(what));
			v = strtol(p, &e, 10);
			if (e == p || v < 0 || v > 255)
				return -EINVAL;
			*out = (unsigned)v;
			return 0;
		}
		line = *end ? end + 1 : end;
	}
	return -EINVAL;
}

int trace_page_layout_parse(const char *header_page, const char *header_event,
			    struct trace_page_layout *l, char *why,
			    size_t whylen)
{
	struct trace_field f[8];
	unsigned n, i, v[6], type_max;
	bool ts = false, commit = false, data = false;
	static const struct {
		const char *key;
		const char *what;
	} keys[6] = {
		{ "type_len", ":" },	{ "time_delta", ":" },
		{ "padding", "==" },	{ "time_extend", "==" },
		{ "time_stamp", "==" }, { "data max type_len", "==" },
	};

	memset(l, 0, sizeof(*l));
	if (parse_fields(header_page, f, 8, &n)) {
		snprintf(why, whylen, "header_page: cannot parse");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(f[i].name, "timestamp") == 0) {
			l->ts_offset = f[i].offset;
			l->ts_size = f[i].size;
			ts = true;
		} else if (strcmp(f[i].name, "commit") == 0) {
			l->commit_offset = f[i].offset;
			l->commit_size = f[i].size;
			commit = true;
		} else if (strcmp(f[i].name, "data") == 0) {
			l->data_offset = f[i].offset;
			l->data_size = f[i].size;
			data = true;
		}
	}
	if (!ts || !commit || !data || l->ts_size != 8 ||
	    (l->commit_size != 4 && l->commit_size != 8)) {
		snprintf(why, whylen,
			 "header_page: no timestamp, commit or data field");
		return -EINVAL;
	}
	for (i = 0; i < 6; i++) {
		if (header_value(header_event, keys[i].key, keys[i].what,
				 &v[i])) {
			snprintf(why, whylen, "header_event: no %s",
				 keys[i].key);
			return -EINVAL;
		}
	}
	l->type_len_bits = (uint8_t)v[0];
	l->time_delta_bits = (uint8_t)v[1];
	l->type_padding = (uint8_t)v[2];
	l->type_time_extend = (uint8_t)v[3];
	l->type_time_stamp = (uint8_t)v[4];
	l->type_data_max = (uint8_t)v[5];
	if (l->type_len_bits + l->time_delta_bits != 32 ||
	    l->type_len_bits == 0 || l->type_len_bits > 8) {
		snprintf(why, whylen,
			 "header_event: unexpected layout (%u+%u bits)",
			 l->type_len_bits, l->time_delta_bits);
		return -EINVAL;
	}
	/*
	 * A type_len is a data length (1 .. data max) or one of the three
	 * special kinds; a value that meant two things would hand a time
	 * stamp out as a record.
	 */
	type_max = (1u << l->type_len_bits) - 1;
	for (i = 2; i < 5; i++) {
		if (v[i] <= v[5] || v[i] > type_max ||
		    v[i] == v[i == 4 ? 2 : i + 1]) {
			snprintf(why, whylen,
				 "header_event: %s type %u overlaps data "
				 "(1..%u), another kind or exceeds %u",
				 keys[i].key, v[i], v[5], type_max);
			return -EINVAL;
		}
	}
	if (v[5] == 0) {
		snprintf(why, whylen, "header_event: data max type_len 0");
		return -EINVAL;
	}
	return 0;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

int trace_page_parse(const struct trace_page_layout *l, const void *page,
		     size_t len, trace_record_fn fn, void *arg,
		     struct trace_page_info *info)
{
	const uint8_t *base = page;
	const uint8_t *data = base + l->data_offset;
	uint32_t type_mask = (1u << l->type_len_bits) - 1;
	struct trace_page_info dummy;
	uint64_t ts, commit_raw;
	size_t off = 0, commit;
	int ret = 0;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	if (len < (size_t)l->data_offset ||
	    len < (size_t)l->commit_offset + l->commit_size ||
	    len < (size_t)l->ts_offset + l->ts_size)
		return -EINVAL;
	memcpy(&ts, base + l->ts_offset, 8);
	commit_raw = get_u(base + l->commit_offset, l->commit_size, false);
	commit = (size_t)(commit_raw & RB_COMMIT_MASK);
	info->missed_events = (commit_raw & RB_MISSED_EVENTS) != 0;
	if (commit > len - l->data_offset)
		return -EINVAL;
	info->commit = (uint32_t)commit;
	if ((commit_raw & RB_MISSED_STORED) &&
	    commit + l->commit_size <= len - l->data_offset)
		info->missed = get_u(data + commit, l->commit_size, false);

	while (off < commit) {
		struct trace_record rec = { 0 };
		uint32_t w, type, delta, array0 = 0;
		bool is_data = false;
		size_t total;

		if (commit - off < 4)
			return -EINVAL;
		w = rd32(data + off);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		type = w & type_mask;
		delta = w >> l->type_len_bits;
#else
		type = w >> l->time_delta_bits;
		delta = w & ((1u << l->time_delta_bits) - 1);
#endif
		if (type == 0 || type > l->type_data_max ||
		    type == l->type_padding || type == l->type_time_extend ||
		    type == l->type_time_stamp) {
			if (type == l->type_padding && delta == 0)
				break; /* the rest of the page is empty */
			if (commit - off < 8)
				return -EINVAL;
			array0 = rd32(data + off + 4);
		}
		if (type == l->type_padding) {
			/* A discarded event: array[0] is its length. */
			total = 4 + (size_t)array0;
			if (array0 < 4)
				return -EINVAL;
			ts += delta;
		} else if (type == l->type_time_extend) {
			total = 8;
			ts += ((uint64_t)array0 << l->time_delta_bits) | delta;
		} else if (type == l->type_time_stamp) {
			uint64_t abs =
				((uint64_t)array0 << l->time_delta_bits) |
				delta;

			total = 8;
			if (ts & TS_MSB) {
				abs |= ts & TS_MSB;
				if (abs < ts)
					abs += 1ull << 59;
			}
			ts = abs;
		} else if (type == 0) {
			/* Long record: array[0] = length + 4, data after. */
			if (array0 < 4)
				return -EINVAL;
			total = 4 + (size_t)array0;
			ts += delta;
			rec.data = data + off + 8;
			rec.len = array0 - 4;
			is_data = true;
		} else if (type <= l->type_data_max) {
			total = 4 + (size_t)type * 4;
			ts += delta;
			rec.data = data + off + 4;
			rec.len = type * 4;
			is_data = true;
		} else {
			return -EINVAL;
		}
		if (total > commit - off)
			return -EINVAL;
		if (is_data) {
			rec.ts = ts;
			info->records++;
			ret = fn(&rec, arg);
			if (ret)
				break;
		}
		off += total;
	}
	info->last_ts = ts;
	return ret;
}
