// SPDX-License-Identifier: MIT
/*
 * elf-startup: map an ELF file the way glibc's dynamic loader maps a
 * shared object, then touch what a start-up touches.
 *
 * The mapping follows _dl_map_segments() (glibc elf/dl-map-segments.h):
 * one private mapping as long as the whole span of the PT_LOAD segments,
 * mapped from the first segment's file offset with the first segment's
 * protection (the loader's way to reserve address space for all of
 * them); if the segments are not contiguous, the part after the first
 * segment's file data up to the last segment's start is made PROT_NONE;
 * every further segment is then mapped over its place with MAP_FIXED,
 * from its own (page-aligned) file offset, with its own protection.
 * Where p_memsz exceeds p_filesz the loader zeroes the rest of the last
 * file page by hand (a write to that page) and maps anonymous memory for
 * the pages after it. Segment bounds are p_vaddr rounded down and
 * p_vaddr + p_filesz rounded up to a page, offsets p_offset rounded
 * down. Unlike the loader, an ET_EXEC file is placed where the kernel
 * chooses (as an ET_DYN one), and the reservation is not over-aligned to
 * a p_align larger than a page (glibc 2.35+): neither changes which file
 * pages are mapped or touched.
 */
#include "elf_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const char *elf_step_name(enum elf_step s)
{
	static const char *const names[ELF_NSTEPS] = {
		"header",	 "zero_fill", "dynamic", "reloc_tables",
		"reloc_targets", "relro",     "entry",	 "text",
	};

	return (unsigned)s < ELF_NSTEPS ? names[s] : "?";
}

/* The segment whose memory [mapstart, allocend rounded up) holds @va. */
static int seg_alloc_of(const struct elf_image *img, uint64_t va)
{
	size_t i;

	for (i = 0; i < img->nseg; i++) {
		const struct elf_seg *s = &img->seg[i];
		uint64_t end = (s->allocend + ELF_PAGE - 1) & ~(ELF_PAGE - 1);

		if (va >= s->mapstart && va < end)
			return s->prot ? (int)i : -1;
	}
	return -1;
}

static int add(struct elf_plan *p, uint64_t va, uint8_t step, uint8_t write,
	       uint64_t addend)
{
	struct elf_access *v;

	if (!(p->n & (p->n + 1))) {
		v = realloc(p->v, 2 * (p->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
	}
	p->v[p->n++] = (struct elf_access){ va, step, write, addend };
	return 0;
}

/* A read of one byte of each page of [va, va + len) that can be read. */
static int add_range(const struct elf_image *img, struct elf_plan *p,
		     uint64_t va, uint64_t len, uint8_t step)
{
	uint64_t a;
	int err = 0;

	for (a = va; a < va + len && !err; a = (a & ~(ELF_PAGE - 1)) + ELF_PAGE)
		if (seg_alloc_of(img, a) >= 0)
			err = add(p, a, step, 0, 0);
	return err;
}

static int add_relocs(const struct elf_image *img, struct elf_plan *p)
{
	size_t i;
	int err = 0;

	for (i = 0; i < img->nrelocs && !err; i++) {
		const struct elf_reloc *r = &img->relocs[i];
		int s = seg_alloc_of(img, r->target);

		if (seg_alloc_of(img, r->entry) >= 0)
			err = add(p, r->entry, ELF_STEP_RELOC_TABLE, 0, 0);
		if (err || s < 0)
			continue;
		/* A target in a segment without PF_W (a text relocation)
		 * or whose 8 bytes leave the segment: read it. */
		if (!(img->seg[s].prot & PROT_WRITE) ||
		    seg_alloc_of(img, r->target + 7) != s) {
			p->textrel_reads++;
			err = add(p, r->target, ELF_STEP_RELOC_TARGET, 0, 0);
			continue;
		}
		err = add(p, r->target, ELF_STEP_RELOC_TARGET,
			  r->kind == ELF_RELA ? 1 : 2, r->addend);
	}
	return err;
}

int elf_plan_build(const struct elf_image *img, unsigned text_stride,
		   struct elf_plan *p)
{
	uint64_t ph_end = img->phoff + (uint64_t)img->phnum * 56;
	size_t i;
	int err = 0;

	memset(p, 0, sizeof(*p));
	p->text_stride = text_stride;
	/* open_verify(): one read(2) of 832 bytes (FILEBUF_SIZE on 64-bit),
	 * a second of the program headers if they end past it. */
	p->header_bytes = img->size < 832 ? img->size : 832;
	if (ph_end > p->header_bytes) {
		p->phdr_off = img->phoff;
		p->phdr_len = ph_end - img->phoff;
	}
	/* _dl_map_segments() zeroes the rest of a partial last page. */
	for (i = 0; i < img->nseg && !err; i++) {
		const struct elf_seg *s = &img->seg[i];

		if (s->allocend > s->dataend && (s->dataend & (ELF_PAGE - 1)))
			err = add(p, s->dataend, ELF_STEP_ZERO_FILL, 1, 0);
	}
	if (!err && img->has_dynamic)
		err = add_range(img, p, img->dyn_vaddr, img->dyn_size,
				ELF_STEP_DYNAMIC);
	if (!err)
		err = add_relocs(img, p);
	/* _dl_protect_relro(): both ends rounded down to a page. */
	p->relro_at = p->n;
	if (img->has_relro) {
		p->relro_start = img->relro_vaddr & ~(ELF_PAGE - 1);
		p->relro_end =
			(img->relro_vaddr + img->relro_size) & ~(ELF_PAGE - 1);
		if (!err)
			err = add_range(img, p, img->relro_vaddr,
					img->relro_size, ELF_STEP_RELRO);
	}
	if (!err && seg_alloc_of(img, img->entry) >= 0)
		err = add(p, img->entry, ELF_STEP_ENTRY, 0, 0);
	for (i = 0; i < img->nseg && !err && text_stride; i++) {
		const struct elf_seg *s = &img->seg[i];
		uint64_t k;

		if (!(s->flags & 1 /* PF_X */))
			continue;
		for (k = 0; k < s->npages && !err; k += text_stride)
			err = add(p, s->mapstart + k * ELF_PAGE, ELF_STEP_TEXT,
				  0, 0);
	}
	if (err)
		elf_plan_free(p);
	return err;
}

void elf_plan_free(struct elf_plan *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

bool elf_vma_of(const struct elf_image *img, const struct elf_plan *p,
		uint64_t vaddr, bool relro_done, struct elf_vma *out)
{
	int i = elf_seg_of(img, vaddr);
	uint64_t lo, hi;

	if (i < 0)
		return false;
	lo = img->seg[i].mapstart;
	hi = img->seg[i].mapend;
	out->prot = img->seg[i].prot;
	if (relro_done && p->relro_end > p->relro_start &&
	    p->relro_start < hi && p->relro_end > lo) {
		uint64_t rs = p->relro_start > lo ? p->relro_start : lo;
		uint64_t re = p->relro_end < hi ? p->relro_end : hi;

		if (vaddr < rs) {
			hi = rs;
		} else if (vaddr < re) {
			lo = rs;
			hi = re;
			out->prot = PROT_READ;
		} else {
			lo = re;
		}
	}
	out->first_page = elf_file_page(img, i, lo);
	out->last_page = elf_file_page(img, i, hi - 1);
	return true;
}

/* ------------------------------------------------------------------ */
/* The run                                                             */
/* ------------------------------------------------------------------ */

static int fail(char *why, size_t len, const char *what)
{
	int err = errno ? -errno : -EIO;

	snprintf(why, len, "%s: %s", what, strerror(-err));
	return err;
}

static int note(const struct elf_image *img, struct elf_run *r, uint64_t va,
		unsigned step)
{
	int s = elf_seg_of(img, va);
	uint64_t page;
	int err;

	r->accesses[step]++;
	if (s < 0)
		return 0;
	page = elf_file_page(img, s, va);
	err = testfs_extents_add(&r->touched, page, page);
	return err ? err
		   : testfs_extents_add(&r->step_touched[step], page, page);
}

static int read_header(const struct elf_plan *p, int fd, struct elf_run *r)
{
	char buf[832];
	char *ph;
	uint64_t pg;
	int err = 0;

	if (pread(fd, buf, p->header_bytes, 0) != (ssize_t)p->header_bytes)
		return -EIO;
	r->accesses[ELF_STEP_HEADER]++;
	err = testfs_extents_add(&r->touched, 0,
				 (p->header_bytes - 1) / ELF_PAGE);
	if (!err)
		err = testfs_extents_add(&r->step_touched[ELF_STEP_HEADER], 0,
					 (p->header_bytes - 1) / ELF_PAGE);
	if (err || !p->phdr_len)
		return err;
	ph = malloc(p->phdr_len);
	if (!ph)
		return -ENOMEM;
	if (pread(fd, ph, p->phdr_len, (off_t)p->phdr_off) !=
	    (ssize_t)p->phdr_len)
		err = -EIO;
	free(ph);
	r->accesses[ELF_STEP_HEADER]++;
	pg = p->phdr_off / ELF_PAGE;
	if (!err)
		err = testfs_extents_add(&r->touched, pg,
					 (p->phdr_off + p->phdr_len - 1) /
						 ELF_PAGE);
	if (!err)
		err = testfs_extents_add(&r->step_touched[ELF_STEP_HEADER], pg,
					 (p->phdr_off + p->phdr_len - 1) /
						 ELF_PAGE);
	return err;
}

/* _dl_map_segments(), with the zero fill's write noted. */
static int map_segments(const struct elf_image *img, int fd, char **base,
			uint64_t *bias, struct elf_run *r, char *why,
			size_t len)
{
	const struct elf_seg *c = &img->seg[0];
	uint64_t maplength = img->seg[img->nseg - 1].allocend - c->mapstart;
	size_t i;
	char *m;

	m = mmap(NULL, maplength, c->prot, MAP_PRIVATE, fd, (off_t)c->mapoff);
	if (m == MAP_FAILED)
		return fail(why, len, "mmap of the whole span");
	*base = m;
	*bias = (uint64_t)(uintptr_t)m - c->mapstart;
	if (img->has_holes &&
	    mprotect((char *)(uintptr_t)(*bias + c->mapend),
		     img->seg[img->nseg - 1].mapstart - c->mapend, PROT_NONE))
		return fail(why, len, "mprotect of the holes");
	for (i = 0; i < img->nseg; i++) {
		uint64_t zero, zeroend, zeropage;
		char *at;

		c = &img->seg[i];
		if (i && c->mapend > c->mapstart &&
		    mmap((char *)(uintptr_t)(*bias + c->mapstart),
			 c->mapend - c->mapstart, c->prot,
			 MAP_FIXED | MAP_PRIVATE, fd,
			 (off_t)c->mapoff) == MAP_FAILED)
			return fail(why, len, "mmap MAP_FIXED of a segment");
		if (c->allocend <= c->dataend)
			continue;
		zero = *bias + c->dataend;
		zeroend = *bias + c->allocend;
		zeropage = (zero + ELF_PAGE - 1) & ~(ELF_PAGE - 1);
		if (zeroend < zeropage)
			zeropage = zeroend;
		if (zeropage > zero) {
			at = (char *)(uintptr_t)(zero & ~(ELF_PAGE - 1));
			if (!(c->prot & PROT_WRITE) &&
			    mprotect(at, ELF_PAGE, c->prot | PROT_WRITE))
				return fail(why, len, "mprotect (zero fill)");
			memset((char *)(uintptr_t)zero, 0, zeropage - zero);
			if (!(c->prot & PROT_WRITE))
				mprotect(at, ELF_PAGE, c->prot);
			note(img, r, c->dataend, ELF_STEP_ZERO_FILL);
		}
		if (zeroend > zeropage &&
		    mmap((char *)(uintptr_t)zeropage, zeroend - zeropage,
			 c->prot, MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			return fail(why, len, "mmap of the zero pages");
	}
	return 0;
}

/* File-backed VMAs of [lo, hi) in /proc/self/maps. */
static size_t count_vmas(uint64_t lo, uint64_t hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	size_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, ino;
		char perms[8];
		unsigned long long off;
		char dev[16];

		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu", &a, &b, perms,
			   &off, dev, &ino) == 6 &&
		    a >= lo && b <= hi && ino)
			n++;
	}
	fclose(f);
	return n;
}

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int elf_run_plan(const struct elf_image *img, const struct elf_plan *p, int fd,
		 struct elf_run *out, char *why, size_t whylen)
{
	uint64_t span = img->seg[img->nseg - 1].allocend - img->seg[0].mapstart;
	uint64_t bias = 0, t0 = now();
	char *base = NULL;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	err = read_header(p, fd, out);
	if (err) {
		snprintf(why, whylen, "read of the ELF header: %s",
			 strerror(-err));
		return err;
	}
	err = map_segments(img, fd, &base, &bias, out, why, whylen);
	for (i = 0; i < p->n && !err; i++) {
		const struct elf_access *a = &p->v[i];
		volatile uint8_t *b =
			(volatile uint8_t *)(uintptr_t)(bias + a->vaddr);

		if (i == p->relro_at && p->relro_end > p->relro_start &&
		    mprotect((char *)(uintptr_t)(bias + p->relro_start),
			     p->relro_end - p->relro_start, PROT_READ)) {
			err = fail(why, whylen, "mprotect of PT_GNU_RELRO");
			break;
		}
		if (a->step == ELF_STEP_ZERO_FILL)
			continue;
		if (a->write == 1) {
			uint64_t v = bias + a->addend;

			memcpy((void *)(uintptr_t)b, &v, sizeof(v));
		} else if (a->write == 2) {
			uint64_t v;

			memcpy(&v, (void *)(uintptr_t)b, sizeof(v));
			v += bias;
			memcpy((void *)(uintptr_t)b, &v, sizeof(v));
		} else {
			(void)*b;
		}
		err = note(img, out, a->vaddr, a->step);
	}
	if (!err && p->relro_at == p->n && p->relro_end > p->relro_start &&
	    mprotect((char *)(uintptr_t)(bias + p->relro_start),
		     p->relro_end - p->relro_start, PROT_READ))
		err = fail(why, whylen, "mprotect of PT_GNU_RELRO");
	out->ns = now() - t0;
	if (base) {
		out->vmas_seen =
			count_vmas((uint64_t)(uintptr_t)base,
				   (uint64_t)(uintptr_t)base + span + ELF_PAGE);
		munmap(base, span);
	}
	return err;
}

void elf_run_free(struct elf_run *r)
{
	unsigned i;

	testfs_extents_free(&r->touched);
	for (i = 0; i < ELF_NSTEPS; i++)
		testfs_extents_free(&r->step_touched[i]);
}
