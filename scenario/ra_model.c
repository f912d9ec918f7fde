// SPDX-License-Identifier: MIT
/*
 * The readahead model: the parts of mm/readahead.c (get_init_ra_size,
 * get_next_ra_size, page_cache_sync_ra, page_cache_async_ra,
 * do_page_cache_ra) and mm/filemap.c (filemap_get_pages,
 * do_sync_mmap_readahead, do_async_mmap_readahead) that decide which
 * pages a sequential reader or a sequence of faults makes the kernel
 * read, at order 0.
 */
#include "ra_model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *ra_policy_name(enum ra_policy p)
{
	return p == RA_POLICY_CURRENT ? "current kernels" : "VMA-limited";
}

int ra_model_init(struct ra_model *m, uint64_t file_pages, uint32_t ra_pages,
		  uint32_t max_request, enum ra_policy policy)
{
	memset(m, 0, sizeof(*m));
	m->file_pages = file_pages;
	m->ra_pages = ra_pages;
	m->max_request = max_request ? max_request : 256;
	m->policy = policy;
	m->cached = calloc(file_pages ? file_pages : 1, 1);
	m->marker = calloc(file_pages ? file_pages : 1, 1);
	if (!m->cached || !m->marker) {
		ra_model_free(m);
		return -ENOMEM;
	}
	return 0;
}

void ra_model_free(struct ra_model *m)
{
	free(m->windows);
	free(m->cached);
	free(m->marker);
	memset(m, 0, sizeof(*m));
}

bool ra_model_cached(const struct ra_model *m, uint64_t page)
{
	return page < m->file_pages && m->cached[page];
}

static uint64_t roundup_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static uint32_t init_ra_size(uint64_t req, uint32_t max)
{
	uint64_t size = roundup_pow2(req);

	if (size <= max / 32)
		size *= 4;
	else if (size <= max / 4)
		size *= 2;
	else
		size = max;
	return (uint32_t)size;
}

static uint32_t next_ra_size(uint32_t cur, uint32_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

static struct ra_window *add_window(struct ra_model *m, enum ra_kind kind,
				    uint64_t trigger)
{
	struct ra_window *w;

	if (m->nwindows == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;

		w = realloc(m->windows, cap * sizeof(*w));
		if (!w)
			return NULL;
		m->windows = w;
		m->cap = cap;
	}
	w = &m->windows[m->nwindows++];
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->trigger = trigger;
	w->start = m->start;
	w->size = m->size;
	w->async_size = m->async_size;
	return w;
}

/*
 * do_page_cache_ra() and page_cache_ra_unbounded(): reads the missing
 * pages of the window [start, start + size) up to @limit (the file's last
 * page, or the VMA's under the VMA-limited policy) and sets the marker on
 * page start + size - async_size if that page is read.
 */
static void read_window(struct ra_model *m, enum ra_kind kind, uint64_t trigger,
			uint64_t limit)
{
	struct ra_window *w = add_window(m, kind, trigger);
	uint64_t n = m->size, mark, p;

	if (!w)
		return;
	if (m->start > limit)
		return;
	if (n > limit - m->start + 1)
		n = limit - m->start + 1;
	mark = m->start + m->size - m->async_size;
	for (p = m->start; p < m->start + n; p++) {
		if (m->cached[p])
			continue;
		m->cached[p] = 1;
		if (!w->pages)
			w->first = p;
		w->pages++;
		if (p == mark && m->async_size)
			m->marker[p] = 1;
	}
}

static uint64_t file_last(const struct ra_model *m)
{
	return m->file_pages ? m->file_pages - 1 : 0;
}

/* page_cache_async_ra() on the marker at @index. */
static void async_ra(struct ra_model *m, uint64_t index, uint32_t max_pages,
		     uint64_t limit)
{
	if (index == m->start + m->size - m->async_size) {
		m->start += m->size;
		m->size = next_ra_size(m->size, max_pages);
		m->async_size = m->size;
	} else {
		/* Context readahead: restart from the next missing page. */
		uint64_t next = index + 1;

		while (next < m->file_pages && m->cached[next])
			next++;
		m->size = next_ra_size((uint32_t)(next - index), max_pages);
		m->start = next;
		m->async_size = m->size;
	}
	read_window(m, RA_ASYNC, index, limit);
}

int ra_model_read(struct ra_model *m, uint64_t first, uint64_t npages,
		  uint32_t block)
{
	uint64_t pos, end = first + npages;

	if (!block)
		block = 1;
	for (pos = first; pos < end; pos += block) {
		uint64_t last = pos + block < end ? pos + block : end;
		uint64_t index = pos;
		/* ractl_max_pages() lets a large read use the device's
		 * io_pages; FUSE leaves io_pages at ra_pages. */
		uint32_t max_pages = m->ra_pages;
		while (index < last) {
			uint64_t j;

			if (!m->cached[index]) {
				m->major_faults++;
				m->start = index;
				m->size = init_ra_size(last - index, max_pages);
				m->async_size =
					m->size > last - index
						? m->size - (uint32_t)(last -
								       index)
						: m->size;
				read_window(m, RA_SYNC, index, file_last(m));
			}
			/* filemap_get_read_batch() stops after a folio
			 * with PG_readahead; filemap_readahead() follows. */
			for (j = index; j < last && m->cached[j]; j++) {
				if (m->marker[j]) {
					m->marker[j] = 0;
					async_ra(m, j, max_pages, file_last(m));
					j++;
					break;
				}
			}
			index = j;
		}
	}
	return 0;
}

bool ra_model_fault(struct ra_model *m, uint64_t page, uint64_t vma_first,
		    uint64_t vma_last)
{
	bool limited = m->policy == RA_POLICY_VMA_LIMITED;
	uint64_t limit =
		limited && vma_last < file_last(m) ? vma_last : file_last(m);

	if (m->cached[page]) {
		/* do_async_mmap_readahead() */
		if (m->marker[page]) {
			m->marker[page] = 0;
			async_ra(m, page, m->ra_pages, limit);
		}
		return false;
	}
	/* do_sync_mmap_readahead(): read-around */
	m->major_faults++;
	m->start = page > m->ra_pages / 2 ? page - m->ra_pages / 2 : 0;
	if (limited && m->start < vma_first)
		m->start = vma_first;
	m->size = m->ra_pages;
	m->async_size = m->ra_pages / 4;
	read_window(m, RA_READAROUND, page, limit);
	if (!m->cached[page])
		m->cached[page] = 1;
	return true;
}

size_t ra_model_requests(const struct ra_model *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->nwindows; i++)
		n += (m->windows[i].pages + m->max_request - 1) /
		     m->max_request;
	return n;
}
