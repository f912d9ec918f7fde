/* SPDX-License-Identifier: MIT */
/*
 * What an ELF file loads, read from its program headers and dynamic
 * section, for binaries of another architecture than the host's (ldd
 * runs the binary's loader, which cannot run here).
 */
#ifndef TESTFS_MATRIX_ELFDEPS_H
#define TESTFS_MATRIX_ELFDEPS_H

#include <stddef.h>

/*
 * The ELF interpreter of @path into @interp ("" for none), its
 * DT_NEEDED names, malloc'd one after the other into *@needed (each
 * NUL-ended, *@n of them; free() the block), and its DT_RUNPATH (or
 * DT_RPATH) into @rpath with $ORIGIN replaced by @path's folder ("" for
 * none). 0, or -errno (-ENOEXEC: not a 64-bit little-endian ELF file).
 */
int elf_needed(const char *path, char *interp, size_t ilen, char **needed,
	       size_t *n, char *rpath, size_t rlen);

/*
 * The first of @dirs (NULL-ended) holding @soname, its path into @out.
 * 0, or -ENOENT.
 */
int elf_find_lib(const char *const *dirs, const char *soname, char *out,
		 size_t len);

#endif
