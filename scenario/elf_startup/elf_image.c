// SPDX-License-Identifier: MIT
/*
 * The ELF reader of elf-startup: the whole file is read into memory once
 * (never through the mount, so parsing fetches nothing there) and every
 * header, segment and table is checked against the file's size before it
 * is used. What it keeps is what glibc's loader needs to map the file and
 * relocate it (elf/dl-load.c builds the load commands, elf/dl-reloc.c and
 * elf/do-rel.h apply the relocations).
 */
#include "elf_image.h"
#include "strbuf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Relocations beyond this are refused (a program has thousands). */
#define MAX_RELOCS (1u << 22)

/* The machine this scenario runs on: the binaries it can start. */
#if defined(__aarch64__)
#define ELF_MACHINE EM_AARCH64
#define ELF_MACHINE_NAME "arm64"
#else
#define ELF_MACHINE EM_X86_64
#define ELF_MACHINE_NAME "x86-64"
#endif

unsigned long long elf_page_size(void)
{
	static unsigned long long size;

	if (!size) {
		long v = sysconf(_SC_PAGESIZE);

		size = v > 0 ? (unsigned long long)v : 4096;
	}
	return size;
}

struct reader {
	const uint8_t *data;
	uint64_t size;
	struct elf_image *img;
	char *why;
	size_t whylen;
};

static int bad(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, r->whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *elf_flags_text(uint32_t flags)
{
	static const char *const names[8] = { "none", "X",  "W",  "WX",
					      "R",    "RX", "RW", "RWX" };

	return names[((flags & PF_R) ? 4 : 0) | ((flags & PF_W) ? 2 : 0) |
		     ((flags & PF_X) ? 1 : 0)];
}

int elf_seg_of(const struct elf_image *img, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < img->nseg; i++)
		if (vaddr >= img->seg[i].mapstart && vaddr < img->seg[i].mapend)
			return (int)i;
	return -1;
}

uint64_t elf_file_page(const struct elf_image *img, int seg, uint64_t vaddr)
{
	const struct elf_seg *s = &img->seg[seg];

	return (s->mapoff + (vaddr - s->mapstart)) / ELF_PAGE;
}

static uint64_t up(uint64_t v)
{
	return (v + ELF_PAGE - 1) & ~(ELF_PAGE - 1);
}

static uint64_t down(uint64_t v)
{
	return v & ~(ELF_PAGE - 1);
}

/* The file offset of [vaddr, vaddr + len) if it is file data of a PT_LOAD. */
static bool file_offset(const struct elf_image *img, uint64_t vaddr,
			uint64_t len, uint64_t *off)
{
	size_t i;

	for (i = 0; i < img->nseg; i++) {
		const struct elf_seg *s = &img->seg[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr <= s->filesz &&
		    len <= s->filesz - (vaddr - s->vaddr)) {
			*off = s->offset + (vaddr - s->vaddr);
			return true;
		}
	}
	return false;
}

static int check_header(struct reader *r, const Elf64_Ehdr *eh)
{
	static const uint8_t magic[4] = { 0x7f, 'E', 'L', 'F' };

	if (r->size < 4 || memcmp(r->data, magic, 4) != 0)
		return bad(r, "not an ELF file (no \\x7fELF magic)");
	if (r->size < EI_NIDENT)
		return bad(r, "truncated ELF header: %llu bytes",
			   (unsigned long long)r->size);
	if (r->data[EI_CLASS] != ELFCLASS64)
		return bad(r,
			   "a %s ELF file: only 64-bit little-endian x86-64 "
			   "is supported",
			   r->data[EI_CLASS] == ELFCLASS32 ? "32-bit"
							   : "bad-class");
	if (r->data[EI_DATA] != ELFDATA2LSB)
		return bad(r, "a big-endian ELF file: only 64-bit "
			      "little-endian x86-64 is supported");
	if (r->size < sizeof(*eh))
		return bad(r, "truncated ELF header: %llu bytes of %zu",
			   (unsigned long long)r->size, sizeof(*eh));
	if (eh->e_machine != ELF_MACHINE)
		return bad(r,
			   "ELF machine %u, not %s (%u): only 64-bit "
			   "little-endian %s is supported here",
			   eh->e_machine, ELF_MACHINE_NAME, ELF_MACHINE,
			   ELF_MACHINE_NAME);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return bad(r,
			   "ELF type %u: not an executable (ET_EXEC) or a "
			   "shared object/PIE (ET_DYN)",
			   eh->e_type);
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return bad(r, "e_phentsize %u, expected %zu", eh->e_phentsize,
			   sizeof(Elf64_Phdr));
	if (eh->e_phnum == 0 || eh->e_phnum == PN_XNUM)
		return bad(r, "no program headers (e_phnum %u)", eh->e_phnum);
	if (eh->e_phoff > r->size ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > r->size - eh->e_phoff)
		return bad(r,
			   "truncated program headers: %u at offset %llu "
			   "need %llu bytes, the file has %llu",
			   eh->e_phnum, (unsigned long long)eh->e_phoff,
			   (unsigned long long)(eh->e_phoff +
						(uint64_t)eh->e_phnum *
							sizeof(Elf64_Phdr)),
			   (unsigned long long)r->size);
	return 0;
}

static int add_load(struct reader *r, const Elf64_Phdr *ph, unsigned i)
{
	struct elf_image *img = r->img;
	struct elf_seg *s, *prev;

	if (img->nseg == ELF_MAX_LOADS)
		return bad(r, "more than %d PT_LOAD segments: not supported",
			   ELF_MAX_LOADS);
	if (ph->p_offset > r->size || ph->p_filesz > r->size - ph->p_offset)
		return bad(r,
			   "PT_LOAD (program header %u): p_offset %#llx + "
			   "p_filesz %#llx is past the end of the file "
			   "(%llu bytes)",
			   i, (unsigned long long)ph->p_offset,
			   (unsigned long long)ph->p_filesz,
			   (unsigned long long)r->size);
	if (ph->p_memsz < ph->p_filesz)
		return bad(r,
			   "PT_LOAD (program header %u): p_memsz %#llx is "
			   "smaller than p_filesz %#llx",
			   i, (unsigned long long)ph->p_memsz,
			   (unsigned long long)ph->p_filesz);
	if ((ph->p_vaddr - ph->p_offset) % ELF_PAGE)
		return bad(r,
			   "PT_LOAD (program header %u): p_vaddr %#llx and "
			   "p_offset %#llx are not congruent modulo the page "
			   "size (%llu): linked for smaller pages "
			   "(-z max-page-size)",
			   i, (unsigned long long)ph->p_vaddr,
			   (unsigned long long)ph->p_offset, ELF_PAGE);
	if (ph->p_vaddr > ELF_MAX_BYTES * 1024 || ph->p_memsz > ELF_MAX_BYTES)
		return bad(r,
			   "PT_LOAD (program header %u): p_vaddr %#llx, "
			   "p_memsz %#llx: absurd for a program",
			   i, (unsigned long long)ph->p_vaddr,
			   (unsigned long long)ph->p_memsz);
	s = &img->seg[img->nseg];
	prev = img->nseg ? &img->seg[img->nseg - 1] : NULL;
	s->vaddr = ph->p_vaddr;
	s->offset = ph->p_offset;
	s->filesz = ph->p_filesz;
	s->memsz = ph->p_memsz;
	s->flags = ph->p_flags;
	s->prot = ((ph->p_flags & PF_R) ? PROT_READ : 0) |
		  ((ph->p_flags & PF_W) ? PROT_WRITE : 0) |
		  ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
	s->mapstart = down(s->vaddr);
	s->mapend = up(s->vaddr + s->filesz);
	s->dataend = s->vaddr + s->filesz;
	s->allocend = s->vaddr + s->memsz;
	s->mapoff = down(s->offset);
	s->first_page = s->mapoff / ELF_PAGE;
	s->npages = (s->mapend - s->mapstart) / ELF_PAGE;
	if (prev && s->mapstart < up(prev->allocend))
		return bad(r,
			   "PT_LOAD (program header %u) at %#llx overlaps or "
			   "precedes the one before it (ending at %#llx): "
			   "segments must ascend",
			   i, (unsigned long long)s->vaddr,
			   (unsigned long long)prev->allocend);
	if (prev && prev->mapend != s->mapstart)
		img->has_holes = true;
	img->nseg++;
	return 0;
}

/* Adds a relocation at @target, read from @entry. */
static int add_reloc(struct reader *r, uint64_t entry, uint64_t target,
		     uint64_t addend, uint8_t kind)
{
	struct elf_image *img = r->img;
	struct elf_reloc *v;
	uint64_t lo = img->seg[0].mapstart;
	uint64_t hi = img->seg[img->nseg - 1].allocend;

	if (target < lo || target >= hi || hi - target < 8)
		return bad(r,
			   "relocation target %#llx is outside the mapped "
			   "segments [%#llx, %#llx)",
			   (unsigned long long)target, (unsigned long long)lo,
			   (unsigned long long)hi);
	if (img->nrelocs == MAX_RELOCS)
		return bad(r, "more than %u relocations: not supported",
			   MAX_RELOCS);
	if (!(img->nrelocs & (img->nrelocs + 1))) {
		v = realloc(img->relocs,
			    2 * (img->nrelocs + 1) * sizeof(*img->relocs));
		if (!v)
			return -ENOMEM;
		img->relocs = v;
	}
	img->relocs[img->nrelocs++] =
		(struct elf_reloc){ entry, target, addend, kind };
	return 0;
}

/* Locates table @t (its name @name) in the file, *@off its offset. */
static int table_at(struct reader *r, const struct elf_table *t,
		    const char *name, uint64_t *off)
{
	if (!file_offset(r->img, t->vaddr, t->size, off))
		return bad(r,
			   "%s table at %#llx (%llu bytes) is not in the file "
			   "data of a PT_LOAD segment",
			   name, (unsigned long long)t->vaddr,
			   (unsigned long long)t->size);
	return 0;
}

static int read_rela(struct reader *r, struct elf_table *t, uint8_t kind,
		     const char *name)
{
	uint64_t off = 0, i;
	int err;

	if (!t->size)
		return 0;
	err = table_at(r, t, name, &off);
	if (err)
		return err;
	t->count = t->size / sizeof(Elf64_Rela);
	for (i = 0; i < t->count && !err; i++) {
		Elf64_Rela e;

		memcpy(&e, r->data + off + i * sizeof(e), sizeof(e));
		err = add_reloc(r, t->vaddr + i * sizeof(e), e.r_offset,
				(uint64_t)e.r_addend, kind);
	}
	return err;
}

/*
 * DT_RELR: an even entry is an address to relocate (then the next word
 * is the running address); an odd one is a bitmap of the 63 words after
 * the running address, which then moves on by 63 words.
 */
static int read_relr(struct reader *r, struct elf_table *t)
{
	uint64_t off = 0, i, where = 0;
	int err = 0, bit;

	if (!t->size)
		return 0;
	err = table_at(r, t, "DT_RELR", &off);
	if (err)
		return err;
	for (i = 0; i < t->size / 8 && !err; i++) {
		uint64_t e, entry = t->vaddr + i * 8;

		memcpy(&e, r->data + off + i * 8, 8);
		if (!(e & 1)) {
			err = add_reloc(r, entry, e, 0, ELF_RELR);
			where = e + 8;
			continue;
		}
		for (bit = 1; bit < 64 && !err; bit++)
			if (e >> bit & 1)
				err = add_reloc(r, entry,
						where + (uint64_t)(bit - 1) * 8,
						0, ELF_RELR);
		where += 63 * 8;
	}
	t->count = r->img->nrelocs;
	return err;
}

static int read_dynamic(struct reader *r)
{
	struct elf_image *img = r->img;
	uint64_t off = 0, i, n, pltrel = DT_RELA, relaent = sizeof(Elf64_Rela);
	int err;

	if (!file_offset(img, img->dyn_vaddr, img->dyn_size, &off))
		return bad(r,
			   "PT_DYNAMIC at %#llx (%llu bytes) is not in the "
			   "file data of a PT_LOAD segment",
			   (unsigned long long)img->dyn_vaddr,
			   (unsigned long long)img->dyn_size);
	n = img->dyn_size / sizeof(Elf64_Dyn);
	for (i = 0; i < n; i++) {
		/* The tags read, and where each value goes. */
		static const int64_t tags[] = { DT_RELA,     DT_RELASZ,
						DT_RELAENT,  DT_JMPREL,
						DT_PLTRELSZ, DT_PLTREL,
						DT_RELR,     DT_RELRSZ };
		uint64_t *slot[] = { &img->rela.vaddr,	&img->rela.size,
				     &relaent,		&img->jmprel.vaddr,
				     &img->jmprel.size, &pltrel,
				     &img->relr.vaddr,	&img->relr.size };
		Elf64_Dyn d;
		size_t k;

		memcpy(&d, r->data + off + i * sizeof(d), sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_REL || d.d_tag == DT_RELSZ)
			return bad(r, "DT_REL relocations: x86-64 uses DT_RELA "
				      "only");
		for (k = 0; k < sizeof(tags) / sizeof(tags[0]); k++)
			if (d.d_tag == tags[k])
				*slot[k] = d.d_un.d_val;
	}
	if (img->rela.size && relaent != sizeof(Elf64_Rela))
		return bad(r, "DT_RELAENT %llu, expected %zu",
			   (unsigned long long)relaent, sizeof(Elf64_Rela));
	if (img->jmprel.size && pltrel != DT_RELA)
		return bad(r, "DT_PLTREL %llu: x86-64 uses DT_RELA",
			   (unsigned long long)pltrel);
	/* glibc applies RELR first, then RELA and the PLT's (do-rel.h). */
	err = read_relr(r, &img->relr);
	if (!err)
		err = read_rela(r, &img->rela, ELF_RELA, "DT_RELA");
	/* With lazy binding off or on, the PLT slots are written. */
	if (!err && !(img->jmprel.vaddr >= img->rela.vaddr &&
		      img->jmprel.vaddr + img->jmprel.size <=
			      img->rela.vaddr + img->rela.size &&
		      img->rela.size))
		err = read_rela(r, &img->jmprel, ELF_JMPREL, "DT_JMPREL");
	return err;
}

static int parse(struct reader *r)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)r->data;
	struct elf_image *img = r->img;
	unsigned i;
	int err;

	err = check_header(r, eh);
	if (err)
		return err;
	img->type = eh->e_type;
	img->entry = eh->e_entry;
	img->phoff = eh->e_phoff;
	img->phnum = eh->e_phnum;
	for (i = 0; i < eh->e_phnum && !err; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, r->data + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD) {
			err = add_load(r, &ph, i);
		} else if (ph.p_type == PT_DYNAMIC) {
			img->has_dynamic = true;
			img->dyn_vaddr = ph.p_vaddr;
			img->dyn_size = ph.p_filesz;
		} else if (ph.p_type == PT_GNU_RELRO) {
			img->has_relro = true;
			img->relro_vaddr = ph.p_vaddr;
			img->relro_size = ph.p_memsz;
		}
	}
	if (err)
		return err;
	if (!img->nseg)
		return bad(r, "no PT_LOAD segment: nothing to map");
	if (img->seg[img->nseg - 1].allocend - img->seg[0].mapstart >
	    ELF_MAX_BYTES)
		return bad(
			r,
			"the segments span %#llx bytes: absurd for a "
			"program (at most 1 GiB)",
			(unsigned long long)(img->seg[img->nseg - 1].allocend -
					     img->seg[0].mapstart));
	if (img->has_relro && (img->relro_vaddr < img->seg[0].mapstart ||
			       img->relro_vaddr + img->relro_size >
				       img->seg[img->nseg - 1].allocend ||
			       img->relro_size > ELF_MAX_BYTES))
		return bad(r,
			   "PT_GNU_RELRO at %#llx (%llu bytes) is outside "
			   "the mapped segments",
			   (unsigned long long)img->relro_vaddr,
			   (unsigned long long)img->relro_size);
	return img->has_dynamic ? read_dynamic(r) : 0;
}

int elf_image_load(const char *path, struct elf_image *img, char *why,
		   size_t whylen)
{
	struct reader r = { .img = img, .why = why, .whylen = whylen };
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int fd, err;

	memset(img, 0, sizeof(*img));
	/* stat() first: opening a FIFO would wait for a writer. */
	if (stat(path, &st) != 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a regular file%s",
			 S_ISDIR(st.st_mode) ? " (a directory)" : "");
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s",
			 fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > ELF_MAX_BYTES) {
		snprintf(why, whylen, "%llu bytes: larger than 1 GiB",
			 (unsigned long long)st.st_size);
		close(fd);
		return -EINVAL;
	}
	err = strbuf_read_fd(&sb, fd);
	close(fd);
	if (err) {
		snprintf(why, whylen, "%s", strerror(-err));
		strbuf_free(&sb);
		return err == -ENOMEM ? err : -EINVAL;
	}
	img->size = sb.len;
	img->pages = (sb.len + ELF_PAGE - 1) / ELF_PAGE;
	r.data = (const uint8_t *)sb.data;
	r.size = sb.len;
	err = parse(&r);
	strbuf_free(&sb);
	if (err)
		elf_image_free(img);
	return err;
}

void elf_image_free(struct elf_image *img)
{
	free(img->relocs);
	img->relocs = NULL;
	img->nrelocs = 0;
}
