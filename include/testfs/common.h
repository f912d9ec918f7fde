/* SPDX-License-Identifier: MIT */
/**
 * @file testfs/common.h
 *
 * libtestfs, part of <testfs.h> (include that): what every part shares,
 * the page size, C++ linkage and the initialisers of the sized structs
 * (the rule they follow is at the top of <testfs.h>).
 */
#ifndef TESTFS_COMMON_H
#define TESTFS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
#define TESTFS_BEGIN_DECLS extern "C" {
#define TESTFS_END_DECLS }
#else
#define TESTFS_BEGIN_DECLS
#define TESTFS_END_DECLS
#endif

/**
 * 4 KiB: the page size of x86-64 and of most arm64 kernels, and the
 * unit a hand-made log without a page size is read in. Not the unit of
 * the library's page numbers: those are the kernel's pages,
 * testfs_log_page_size() in a log and testfs_page_size() for the
 * running kernel (arm64 kernels may have 16 KiB or 64 KiB pages). Kept
 * for source compatibility: before TESTFS_0.7 every page number was in
 * units of it.
 */
#define TESTFS_PAGE_SIZE 4096u

TESTFS_BEGIN_DECLS

/**
 * The running kernel's page size in bytes (sysconf(_SC_PAGESIZE)): the
 * unit of the page numbers the calls that map, read, advise or ask the
 * page cache take and return, and of the page numbers in a snapshot of a
 * mount on this kernel.
 */
uint32_t testfs_page_size(void);

TESTFS_END_DECLS

/**
 * The initialiser of a sized struct @Type (one whose first field is
 * `size_t struct_size`): struct_size set to this header's sizeof(@Type),
 * every other field zero. Each sized struct has its own, e.g.
 *
 *	struct testfs_usage u = TESTFS_USAGE_INIT;
 *
 * Designated initialisers work as well:
 *
 *	struct testfs_config cfg = {
 *		.struct_size = sizeof(cfg), .files = files, .ra_kb = 512,
 *	};
 */
#define TESTFS_SIZED_INIT(Type)                                                \
	{                                                                      \
		.struct_size = sizeof(Type)                                    \
	}

/*
 * The wrapper of a function that fills a sized output struct @Type
 * (struct testfs_usage ...): the header defines a macro of the
 * function's own name that passes its output through @Type_out_(), so a
 * program built against this header always passes the size it was
 * built with: the call sets @out->struct_size (an output struct needs no
 * initialiser). (function)(...) calls the function as declared.
 */
#define TESTFS_SIZED_OUT_(Type)                                                \
	static inline struct Type *Type##_out_(struct Type *p)                 \
	{                                                                      \
		if (p)                                                         \
			p->struct_size = sizeof(*p);                           \
		return p;                                                      \
	}

#endif
