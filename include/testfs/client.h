/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/client.h
 *
 * libtestfs, part of <testfs.h> (include that): client helpers: map, split,
 * touch, read, advise, and what is resident.
 */
#ifndef TESTFS_CLIENT_H
#define TESTFS_CLIENT_H

#include <testfs/common.h>
#include <testfs/extents.h>
#include <testfs/instance.h>

TESTFS_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Client helpers                                                      */
/* ------------------------------------------------------------------ */

/** A mapping of a page range of a testfs file. */
struct testfs_map {
	char *addr;
	size_t len;
	/** First file page mapped and the number of pages. */
	uint64_t first_page;
	uint64_t npages;
	int fd;
	int prot;
};

/**
 * Maps pages [@first_page, @first_page + @npages) of file @name with
 * @prot and @flags (MAP_SHARED or MAP_PRIVATE, ...).
 *
 * @return 0, or -errno (-EINVAL for an empty or out-of-file range).
 */
int testfs_map(struct testfs_mount *fs, const char *name, uint64_t first_page,
	       uint64_t npages, int prot, int flags, struct testfs_map *out);

/** Unmaps and closes; @m may be unmapped twice. */
int testfs_unmap(struct testfs_map *m);

/**
 * Splits @m into VMAs of @vma_pages pages by mprotect(): the first keeps
 * @prot_a, the second gets @prot_b, alternating (e.g. PROT_READ and
 * PROT_READ | PROT_WRITE, which needs MAP_PRIVATE).
 *
 * @return the number of VMAs, or -errno.
 */
int testfs_split(struct testfs_map *m, uint64_t vma_pages, int prot_a,
		 int prot_b);

/** madvise() over the whole mapping. */
int testfs_madvise(const struct testfs_map *m, int advice);

enum testfs_order {
	/** Pages first to last. */
	TESTFS_ORDER_FORWARD,
	/** Pages last to first. */
	TESTFS_ORDER_REVERSE,
	/** Every @arg-th page from the first (arg >= 1). */
	TESTFS_ORDER_STRIDE,
	/** Every page once, shuffled by seed @arg (reproducible). */
	TESTFS_ORDER_RANDOM,
};

/**
 * Reads one byte of each mapped page in @order, and adds the file pages
 * touched to @touched if non-NULL. Pages that cannot be read are skipped
 * (left out of the count and of @touched) instead of faulting: those
 * whose VMA lacks PROT_READ (e.g. after testfs_split(..., PROT_NONE)) and
 * holes the caller unmapped, as /proc/self/maps shows them.
 *
 * @return pages touched; -EACCES if no page of @m can be read, -EINVAL
 *	   (NULL or unmapped @m, bad order or stride), -ENOMEM, or -errno.
 */
int64_t testfs_touch(const struct testfs_map *m, enum testfs_order order,
		     uint64_t arg, struct testfs_extents *touched);

/**
 * read(2)s pages [@first_page, @first_page + @npages) of @fd in @order,
 * @block bytes at a time (a multiple of 4096 dividing the range, or 0
 * for one page), and adds the pages read to @touched if non-NULL.
 *
 * @return bytes read, or -errno.
 */
int64_t testfs_read_pages(int fd, uint64_t first_page, uint64_t npages,
			  size_t block, enum testfs_order order, uint64_t arg,
			  struct testfs_extents *touched);

/**
 * posix_fadvise() over pages [@first_page, @first_page + @npages).
 *
 * @npages 0 means from @first_page to the end of the file (posix_fadvise()
 * with len 0), whatever the file's size. What the kernel does with that
 * range depends on @advice (mm/fadvise.c):
 *  - POSIX_FADV_WILLNEED reads at most max(ra_pages, io_pages) pages from
 *    @first_page per call (force_page_cache_ra()), not the whole file:
 *    measured on 6.18 with a 64 MiB file and @first_page 100, pages
 *    [100, 131] at read_ahead_kb 128, [100, 355] at 1024 and [100, 1123]
 *    at 4096; a range given with @npages is capped the same way.
 *  - POSIX_FADV_DONTNEED evicts the clean cached pages of the range (to
 *    the end with @npages 0).
 *  - POSIX_FADV_SEQUENTIAL, POSIX_FADV_RANDOM and POSIX_FADV_NORMAL apply
 *    to the whole open file whatever the range (SEQUENTIAL doubles its
 *    ra_pages, RANDOM switches readahead off).
 *
 * @return 0, -EOVERFLOW (a range past the largest off_t), or the -errno
 *	   of posix_fadvise() (-EBADF, -EINVAL for an unknown @advice,
 *	   -ESPIPE).
 */
int testfs_fadvise(int fd, uint64_t first_page, uint64_t npages, int advice);

/**
 * The pages of file @name resident in the page cache, by mincore() on a
 * fresh mapping (which faults nothing in), into @out (emptied first).
 */
int testfs_resident(struct testfs_mount *fs, const char *name,
		    struct testfs_extents *out);

/** Page-cache totals of a file, from cachestat(2) (Linux 6.5). */
struct testfs_cachestat {
	/**
	 * sizeof this struct as the caller's header declares it (a sized
	 * struct, see <testfs.h>); TESTFS_CACHESTAT_INIT sets it.
	 * testfs_cachestat() sets it to the bytes it filled.
	 */
	size_t struct_size;
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

#define TESTFS_CACHESTAT_INIT TESTFS_SIZED_INIT(struct testfs_cachestat)

/**
 * cachestat(2) over pages [@first_page, @first_page + @npages) of file
 * @name (@npages 0: to the end of the file).
 *
 * @return 0, -ENOSYS on kernels without cachestat, or -errno.
 */
int testfs_cachestat(struct testfs_mount *fs, const char *name,
		     uint64_t first_page, uint64_t npages,
		     struct testfs_cachestat *out);

/* (testfs_cachestat)(...) calls the function as declared. */
TESTFS_SIZED_OUT_(testfs_cachestat)
#ifndef testfs_cachestat
#define testfs_cachestat(fs, name, first_page, npages, out)                    \
	testfs_cachestat(fs, name, first_page, npages,                         \
			 testfs_cachestat_out_(out))
#endif

TESTFS_END_DECLS

#endif
