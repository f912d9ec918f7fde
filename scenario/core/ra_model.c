// SPDX-License-Identifier: MIT
/*
 * The readahead model: the parts of mm/readahead.c (get_init_ra_size,
 * get_next_ra_size, page_cache_sync_ra, page_cache_async_ra,
 * do_page_cache_ra) and mm/filemap.c (filemap_get_pages,
 * do_sync_mmap_readahead, do_async_mmap_readahead) that decide which
 * pages a sequential reader or a sequence of faults makes the kernel
 * read, at order 0, as in 6.18: async windows have their end rounded down
 * to a multiple of 4 pages (ra->order + 2), read-around starts ra_pages/2
 * before the fault, PROT_EXEC faults read from the fault within the VMA.
 */
#include "ra_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ra_policy_name(enum ra_policy p)
{
	switch (p) {
	case RA_POLICY_CURRENT:
		return "current kernels";
	case RA_POLICY_VMA_LIMITED:
		return "VMA-limited";
	case RA_POLICY_VMA_CONDITIONAL:
		return "conditional VMA limit";
	}
	return "?";
}

int ra_policy_of_release(const char *release)
{
	/* The series names after "-lab", as kernel/build.sh appends them */
	static const struct {
		const char *suffix;
		enum ra_policy policy;
	} lab[] = {
		{ "-lab", RA_POLICY_CURRENT },
		{ "-lab+vma-limit", RA_POLICY_VMA_LIMITED },
		{ "-lab+vma-limit-conditional", RA_POLICY_VMA_CONDITIONAL },
	};
	const char *tail = release ? strstr(release, "-lab") : NULL;
	size_t i;

	if (!tail)
		return -1;
	for (i = 0; i < sizeof(lab) / sizeof(lab[0]); i++)
		if (strcmp(tail, lab[i].suffix) == 0)
			return (int)lab[i].policy;
	return -1;
}

int ra_model_init(struct ra_model *m, uint64_t file_pages, uint32_t ra_pages,
		  uint32_t max_request, enum ra_policy policy)
{
	memset(m, 0, sizeof(*m));
	m->file_pages = file_pages;
	m->ra_pages = ra_pages;
	m->max_request = max_request ? max_request : 256;
	m->policy = policy;
	m->io_pages = 32;
	m->cached = calloc(file_pages ? file_pages : 1, 1);
	m->marker = calloc(file_pages ? file_pages : 1, 1);
	if (!m->cached || !m->marker) {
		ra_model_free(m);
		return -ENOMEM;
	}
	return 0;
}

void ra_model_set_page_size(struct ra_model *m, uint32_t page_size)
{
	/* VM_READAHEAD_PAGES: SZ_128K / PAGE_SIZE, at least one page */
	m->io_pages = page_size && page_size < (128u << 10)
			      ? (128u << 10) / page_size
			      : 1;
}

bool ra_release_at_least(const char *release, unsigned major, unsigned minor)
{
	unsigned maj = 0, min = 0;

	if (!release || sscanf(release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > major || (maj == major && min >= minor);
}

bool ra_fuse_io_pages_of_release(const char *release)
{
	return ra_release_at_least(release, RA_FUSE_IO_PAGES_MAJOR,
				   RA_FUSE_IO_PAGES_MINOR);
}

bool ra_model_set_release(struct ra_model *m, const char *release)
{
	/* A release that says its version, before 6.16: no ra->order */
	m->unaligned_async = ra_release_at_least(release, 0, 0) &&
			     !ra_release_at_least(release, 6, 16);
	if (!ra_fuse_io_pages_of_release(release))
		return false;
	m->io_pages = m->max_request;
	return true;
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
 * page, or the VMA's under the VMA-limited policy). The window is cut at
 * the limit first; the marker (PG_readahead) goes on page
 * start + n - async_size of the n pages left, if that page is read, and
 * on none when async_size is 0 or larger than n.
 */
static void read_window(struct ra_model *m, enum ra_kind kind, uint64_t trigger,
			uint64_t limit)
{
	struct ra_window *w = add_window(m, kind, trigger);
	uint64_t n = m->size, mark = UINT64_MAX, p;

	if (!w)
		return;
	if (m->start > limit)
		return;
	if (n > limit - m->start + 1)
		n = limit - m->start + 1;
	if (m->async_size && m->async_size <= n)
		mark = m->start + n - m->async_size;
	for (p = m->start; p < m->start + n; p++) {
		if (m->cached[p])
			continue;
		m->cached[p] = 1;
		if (!w->pages)
			w->first = p;
		w->pages++;
		if (p == mark)
			m->marker[p] = 1;
	}
}

static uint64_t file_last(const struct ra_model *m)
{
	return m->file_pages ? m->file_pages - 1 : 0;
}

/*
 * ractl_max_pages(): a request larger than ra_pages may use up to the
 * bdi's io_pages (on FUSE 128 KiB whatever read_ahead_kb says, or FUSE's
 * max_pages from RA_FUSE_IO_PAGES_SINCE).
 */
static uint32_t max_pages_for(const struct ra_model *m, uint64_t req_count)
{
	uint32_t max = m->ra_pages;

	if (req_count > max && m->io_pages > max)
		max = req_count < m->io_pages ? (uint32_t)req_count
					      : m->io_pages;
	return max;
}

/*
 * page_cache_async_ra() on the marker at @index, for a request of
 * @req_count pages (read(2): up to the end of the read; faults:
 * ra_pages).
 */
static void async_ra(struct ra_model *m, uint64_t index, uint64_t req_count,
		     uint64_t limit)
{
	uint32_t max_pages = max_pages_for(m, req_count);
	uint64_t end, aligned_end, align;
	unsigned shift = 0;

	if (index == m->start + m->size - m->async_size) {
		uint32_t next = next_ra_size(m->size, max_pages);

		m->start += m->size;
		if (next > m->size)
			m->size = next;
	} else {
		/*
		 * Context readahead: page_cache_next_miss() from index + 1,
		 * at most max_pages pages; nothing if all are cached.
		 */
		uint64_t next = index + 1;

		while (next <= index + max_pages && next < m->file_pages &&
		       m->cached[next])
			next++;
		if (next - index > max_pages)
			return;
		m->start = next;
		m->size = next_ra_size((uint32_t)(next - index + req_count),
				       max_pages);
	}
	/*
	 * ra->order += 2 (ra->order is 0: page_cache_ra_order() resets it
	 * without large folios), then the window end is rounded down to a
	 * multiple of 1 << min(order, ffs(max_pages) - 1) pages, if the
	 * window keeps at least one page.
	 */
	while (shift < 2 && !(max_pages & (1u << shift)))
		shift++;
	align = 1ull << shift;
	end = m->start + m->size;
	aligned_end = end & ~(align - 1);
	if (aligned_end > m->start && !m->unaligned_async)
		m->size -= (uint32_t)(end - aligned_end);
	m->async_size = m->size;
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

		while (index < last) {
			uint64_t j;

			if (!m->cached[index]) {
				/*
				 * page_cache_sync_ra(): the initial window
				 * (a stream from the file start; reads that
				 * begin elsewhere take the context path,
				 * not modelled).
				 */
				uint64_t req = last - index;
				uint32_t max_pages = max_pages_for(m, req);

				m->major_faults++;
				m->start = index;
				m->size = init_ra_size(req, max_pages);
				m->async_size =
					m->size > req ? m->size - (uint32_t)req
						      : m->size >> 1;
				read_window(m, RA_SYNC, index, file_last(m));
			}
			/* filemap_get_read_batch() stops after a folio
			 * with PG_readahead; filemap_readahead() follows,
			 * with the pages left in the read as req_count. */
			for (j = index; j < last && m->cached[j]; j++) {
				if (m->marker[j]) {
					m->marker[j] = 0;
					async_ra(m, j, last - j, file_last(m));
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
	/*
	 * fault_ra_limit() of the lab patches: max_index = the VMA's last
	 * page, always (VMA-limited) or when vma_end - page < ra_pages
	 * (conditional), for the sync and the async fault path alike.
	 */
	bool clamp_start = m->policy != RA_POLICY_CURRENT;
	bool limited = m->policy == RA_POLICY_VMA_LIMITED ||
		       (m->policy == RA_POLICY_VMA_CONDITIONAL &&
			vma_last + 1 - page < m->ra_pages);
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
	m->major_faults++;
	if (m->exec) {
		/*
		 * do_sync_mmap_readahead(), VM_EXEC (6.17+, order 0 on
		 * x86): from the faulting page (not before the VMA start),
		 * ra_pages, cut at the VMA end, async_size 0.
		 */
		uint64_t end = page + m->ra_pages;

		m->start = page < vma_first ? vma_first : page;
		if (end > vma_last + 1)
			end = vma_last + 1;
		m->size = (uint32_t)(end - m->start);
		m->async_size = 0;
	} else {
		/* do_sync_mmap_readahead(): read-around */
		m->start = page > m->ra_pages / 2 ? page - m->ra_pages / 2 : 0;
		if (clamp_start && m->start < vma_first)
			m->start = vma_first;
		m->size = m->ra_pages;
		m->async_size = m->ra_pages / 4;
	}
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
