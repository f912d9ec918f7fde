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

/** Bytes per page in every page number this library takes or returns. */
#define TESTFS_PAGE_SIZE 4096u

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
