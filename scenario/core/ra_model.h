/* SPDX-License-Identifier: MIT */
/*
 * A small model of the page-cache readahead state machine of
 * mm/readahead.c and mm/filemap.c (Linux 6.18, a file system without large
 * folios, such as FUSE), enough to work out by hand what a scenario should
 * observe under each policy: sequential read(2) streams and mmap faults
 * touching VMAs in order. It ignores memory pressure, congestion,
 * mmap_miss and timing: it says which pages are read, in which windows.
 */
#ifndef SCENARIO_RA_MODEL_H
#define SCENARIO_RA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ra_policy {
	/*
	 * Linux 6.18: read-around and async windows ignore VMA bounds,
	 * except on PROT_EXEC mappings (see ra_model.exec).
	 */
	RA_POLICY_CURRENT,
	/*
	 * The 2026 patch (story 1): a hard limit at the faulting VMA's last
	 * page for sync and async fault readahead, read-around start
	 * clamped to the VMA start.
	 */
	RA_POLICY_VMA_LIMITED,
	/*
	 * Its follow-up (story 2): the same hard limit, but only when the
	 * faulting page is fewer than ra_pages pages from the VMA end
	 * (vma_end - page < ra_pages, vma_end one past the last page); the
	 * read-around start is clamped to the VMA start on every fault.
	 */
	RA_POLICY_VMA_CONDITIONAL,
};

#define RA_NPOLICIES 3

const char *ra_policy_name(enum ra_policy p);

/*
 * The policy a testfs lab kernel carries, from its release (uname -r):
 * kernel/build.sh names the variant in it, "6.12.57-lab" (current),
 * "6.12.57-lab+vma-limit", "6.12.57-lab+vma-limit-conditional". -1 for
 * any other kernel: its patches are not known.
 */
int ra_policy_of_release(const char *release);

enum ra_kind { RA_SYNC, RA_ASYNC, RA_READAROUND };

/* One readahead decision and what it read (pages not already cached). */
struct ra_window {
	enum ra_kind kind;
	uint64_t trigger;
	uint64_t start;
	uint32_t size;
	uint32_t async_size;
	/* First page read and pages read (0: nothing, e.g. past a limit). */
	uint64_t first;
	uint64_t pages;
};

struct ra_model {
	uint32_t ra_pages;
	uint64_t file_pages;
	/* Requests are split at this many pages (FUSE max_pages). */
	uint32_t max_request;
	enum ra_policy policy;
	/*
	 * Faults come from a PROT_EXEC mapping (6.17+ do_sync_mmap_readahead):
	 * read from the faulting page (not before it), at most ra_pages,
	 * clamped to the VMA end, no marker, so no async window. Set after
	 * ra_model_init().
	 */
	bool exec;
	/*
	 * Kernels before 6.16 (no ra->order): page_cache_async_ra() does not
	 * round the window end down to a multiple of 4 pages. Set after
	 * ra_model_init().
	 */
	bool unaligned_async;
	/*
	 * The bdi's io_pages (ractl_max_pages()): VM_READAHEAD_PAGES, 128 KiB
	 * in the kernel's pages (32 of 4 KiB, 8 of 16 KiB, 2 of 64 KiB);
	 * ra_model_set_page_size() sets it, 32 until then. From Linux
	 * RA_FUSE_IO_PAGES_SINCE FUSE sets it to its max_pages (max_request):
	 * ra_model_set_release().
	 */
	uint32_t io_pages;

	/* Results. */
	struct ra_window *windows;
	size_t nwindows;
	size_t cap;
	/* Faults that found their page missing (mmap), reads that missed. */
	uint64_t major_faults;

	/* State. */
	uint8_t *cached;
	uint8_t *marker;
	uint64_t start;
	uint32_t size;
	uint32_t async_size;
};

/* Returns 0 or -ENOMEM. */
int ra_model_init(struct ra_model *m, uint64_t file_pages, uint32_t ra_pages,
		  uint32_t max_request, enum ra_policy policy);
void ra_model_free(struct ra_model *m);

/*
 * The kernel's page size, in bytes (4096 until set): what is fixed in
 * bytes in the kernel (io_pages, 128 KiB) becomes pages of that size.
 * The model's other figures (ra_pages, the file's pages, VMA bounds) are
 * in the kernel's pages already.
 */
void ra_model_set_page_size(struct ra_model *m, uint32_t page_size);

/*
 * The first release whose FUSE sets the bdi's io_pages to its max_pages
 * (fs/fuse/inode.c, process_init_reply(): sb->s_bdi->io_pages =
 * fc->max_pages), so that a read(2) larger than ra_pages is read in one
 * window of up to max_pages (ractl_max_pages()). In linux-source-7.3,
 * not in 6.12; measured on Debian's kernels: 7.2.13 reads a 1 MiB read(2)
 * in 32-page windows, 7.3.4 in 256-page ones (docs/kernels.md).
 */
#define RA_FUSE_IO_PAGES_MAJOR 7
#define RA_FUSE_IO_PAGES_MINOR 3
#define RA_FUSE_IO_PAGES_SINCE "7.3"

/* Whether @release (uname -r, "6.18.15+deb13-amd64") is @major.@minor or later.
 */
bool ra_release_at_least(const char *release, unsigned major, unsigned minor);

/* Whether the kernel of @release sets FUSE's io_pages to its max_pages. */
bool ra_fuse_io_pages_of_release(const char *release);

/*
 * The kernel the model stands for, by its release (uname -r): on
 * RA_FUSE_IO_PAGES_SINCE or later io_pages becomes max_request (FUSE's
 * max_pages); before, it is left as ra_model_set_page_size() set it.
 * Before 6.16, unaligned_async. Returns whether io_pages is FUSE's
 * max_pages. Call after ra_model_set_page_size().
 */
bool ra_model_set_release(struct ra_model *m, const char *release);

/* read(2) of pages [@first, @first + @npages), @block pages at a time. */
int ra_model_read(struct ra_model *m, uint64_t first, uint64_t npages,
		  uint32_t block);

/*
 * Faults on page @page of a VMA [@vma_first, @vma_last] (one byte read);
 * returns true if the page was missing (a major fault).
 */
bool ra_model_fault(struct ra_model *m, uint64_t page, uint64_t vma_first,
		    uint64_t vma_last);

/* Whether page @page is cached in the model. */
bool ra_model_cached(const struct ra_model *m, uint64_t page);

/* The pages read, in window order, as requests of <= max_request pages. */
size_t ra_model_requests(const struct ra_model *m);

#endif
