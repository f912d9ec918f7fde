// SPDX-License-Identifier: MIT
/*
 * elfdeps.h: PT_INTERP and DT_NEEDED of a 64-bit little-endian ELF file
 * (the arm64 guests' binaries), read with pread() only.
 */
#include "elfdeps.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PHDRS 64

struct elf {
	int fd;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[MAX_PHDRS];
	unsigned nph;
};

static int elf_open(struct elf *e, const char *path)
{
	unsigned i;

	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0)
		return -errno;
	if (pread(e->fd, &e->eh, sizeof(e->eh), 0) != (ssize_t)sizeof(e->eh) ||
	    memcmp(e->eh.e_ident, ELFMAG, SELFMAG) ||
	    e->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    e->eh.e_phentsize != sizeof(Elf64_Phdr))
		return -ENOEXEC;
	e->nph = e->eh.e_phnum < MAX_PHDRS ? e->eh.e_phnum : MAX_PHDRS;
	for (i = 0; i < e->nph; i++)
		if (pread(e->fd, &e->ph[i], sizeof(e->ph[i]),
			  (off_t)(e->eh.e_phoff +
				  (Elf64_Off)i * sizeof(Elf64_Phdr))) !=
		    (ssize_t)sizeof(e->ph[i]))
			return -ENOEXEC;
	return 0;
}

/* The file offset of virtual address @va (a PT_LOAD maps it), or -1. */
static off_t va_to_off(const struct elf *e, Elf64_Addr va)
{
	unsigned i;

	for (i = 0; i < e->nph; i++) {
		const Elf64_Phdr *p = &e->ph[i];

		if (p->p_type == PT_LOAD && va >= p->p_vaddr &&
		    va < p->p_vaddr + p->p_filesz)
			return (off_t)(p->p_offset + (va - p->p_vaddr));
	}
	return -1;
}

/* A NUL-ended string at @off (at most @len - 1 bytes) into @out. */
static int read_str(int fd, off_t off, char *out, size_t len)
{
	ssize_t n = pread(fd, out, len - 1, off);

	if (n <= 0)
		return -ENOEXEC;
	out[n] = '\0';
	return memchr(out, '\0', (size_t)n) ? 0 : -ENOEXEC;
}

/* DT_RUNPATH or DT_RPATH @rp with $ORIGIN as @path's folder. */
static void runpath(const char *path, const char *rp, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 1;
	size_t used = 0;

	out[0] = '\0';
	while (*rp && used + 1 < len) {
		if (!strncmp(rp, "$ORIGIN", 7)) {
			used += (size_t)snprintf(out + used, len - used, "%.*s",
						 dirlen, slash ? path : ".");
			rp += 7;
		} else {
			out[used++] = *rp++;
			out[used] = '\0';
		}
	}
	out[len - 1] = '\0';
}

static int needed(struct elf *e, const char *path, const Elf64_Phdr *dynp,
		  char **out, size_t *n, char *rpath, size_t rlen)
{
	size_t ndyn = dynp->p_filesz / sizeof(Elf64_Dyn), i, used = 0;
	Elf64_Dyn *dyn = malloc(ndyn * sizeof(*dyn) + 1);
	Elf64_Addr strtab = 0;
	char name[256];
	off_t base;
	int err = 0;

	if (!dyn)
		return -ENOMEM;
	if (pread(e->fd, dyn, ndyn * sizeof(*dyn), (off_t)dynp->p_offset) !=
	    (ssize_t)(ndyn * sizeof(*dyn))) {
		free(dyn);
		return -ENOEXEC;
	}
	for (i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
	base = va_to_off(e, strtab);
	for (i = 0; !err && base >= 0 && i < ndyn && dyn[i].d_tag != DT_NULL;
	     i++) {
		char *grown;
		size_t l;

		if ((dyn[i].d_tag == DT_RUNPATH || dyn[i].d_tag == DT_RPATH) &&
		    !read_str(e->fd, base + (off_t)dyn[i].d_un.d_val, name,
			      sizeof(name)))
			runpath(path, name, rpath, rlen);
		if (dyn[i].d_tag != DT_NEEDED)
			continue;
		err = read_str(e->fd, base + (off_t)dyn[i].d_un.d_val, name,
			       sizeof(name));
		if (err)
			break;
		l = strlen(name) + 1;
		grown = realloc(*out, used + l);
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		*out = grown;
		memcpy(*out + used, name, l);
		used += l;
		(*n)++;
	}
	free(dyn);
	return base < 0 && strtab ? -ENOEXEC : err;
}

int elf_needed(const char *path, char *interp, size_t ilen, char **out,
	       size_t *n, char *rpath, size_t rlen)
{
	struct elf e;
	unsigned i;
	int err = elf_open(&e, path);

	*out = NULL;
	*n = 0;
	interp[0] = '\0';
	rpath[0] = '\0';
	for (i = 0; !err && i < e.nph; i++) {
		if (e.ph[i].p_type == PT_INTERP)
			err = read_str(e.fd, (off_t)e.ph[i].p_offset, interp,
				       ilen);
		else if (e.ph[i].p_type == PT_DYNAMIC)
			err = needed(&e, path, &e.ph[i], out, n, rpath, rlen);
	}
	if (e.fd >= 0)
		close(e.fd);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

int elf_find_lib(const char *const *dirs, const char *soname, char *out,
		 size_t len)
{
	for (; *dirs; dirs++) {
		snprintf(out, len, "%s/%s", *dirs, soname);
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}
