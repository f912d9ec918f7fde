/* SPDX-License-Identifier: MIT */
/*
 * An ELF file as the dynamic loader sees it (elf-startup): its PT_LOAD
 * segments with the page-aligned bounds glibc's _dl_map_segments()
 * works with, PT_DYNAMIC, PT_GNU_RELRO and the relocation targets of
 * DT_RELA, DT_JMPREL and DT_RELR. 64-bit little-endian binaries of the
 * machine the scenario is built for (ELFCLASS64, ELFDATA2LSB, EM_X86_64
 * or EM_AARCH64), ET_EXEC or ET_DYN.
 */
#ifndef SCENARIO_ELF_IMAGE_H
#define SCENARIO_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The loader's page: the running kernel's, as glibc's (dl_pagesize). */
#define ELF_PAGE elf_page_size()
unsigned long long elf_page_size(void);
#define ELF_MAX_LOADS 16
/* A larger file or span is refused as absurd for a program. */
#define ELF_MAX_BYTES (1ull << 30)

struct elf_seg {
	/* The program header. */
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags;
	/* PROT_* from PF_R, PF_W, PF_X. */
	int prot;
	/*
	 * The loader's view (glibc's struct loadcmd): mapstart = vaddr
	 * rounded down to a page, mapend = vaddr + filesz rounded up,
	 * dataend = vaddr + filesz, allocend = vaddr + memsz, mapoff =
	 * offset rounded down.
	 */
	uint64_t mapstart, mapend, dataend, allocend, mapoff;
	/* File pages mapped: [first_page, first_page + npages). */
	uint64_t first_page, npages;
};

enum elf_reloc_kind { ELF_RELA, ELF_JMPREL, ELF_RELR };

/* A relocation: where its entry is read and the address it writes. */
struct elf_reloc {
	uint64_t entry;
	uint64_t target;
	uint64_t addend;
	uint8_t kind;
};

/* A table of PT_DYNAMIC: virtual address and size in bytes (0: none). */
struct elf_table {
	uint64_t vaddr;
	uint64_t size;
	uint64_t count;
};

struct elf_image {
	uint64_t size;
	uint64_t pages;
	int type;
	uint64_t entry;
	uint64_t phoff;
	unsigned phnum;
	struct elf_seg seg[ELF_MAX_LOADS];
	size_t nseg;
	/* Segments not contiguous: the loader makes the gaps PROT_NONE. */
	bool has_holes;
	bool has_dynamic;
	uint64_t dyn_vaddr, dyn_size;
	bool has_relro;
	uint64_t relro_vaddr, relro_size;
	struct elf_table rela, jmprel, relr;
	/* In the order the loader applies them: DT_RELR, DT_RELA, DT_JMPREL. */
	struct elf_reloc *relocs;
	size_t nrelocs;
};

/*
 * Reads and checks the ELF file @path. Returns 0; -EINVAL with the reason
 * in @why when the file is missing, not a regular file, not a supported
 * ELF file or inconsistent (truncated headers, no PT_LOAD, segments or
 * tables outside the file); -ENOMEM.
 */
int elf_image_load(const char *path, struct elf_image *img, char *why,
		   size_t whylen);
void elf_image_free(struct elf_image *img);

/* The segment whose file data [mapstart, mapend) holds @vaddr, or -1. */
int elf_seg_of(const struct elf_image *img, uint64_t vaddr);

/* The file page of @vaddr in segment @seg (elf_seg_of()). */
uint64_t elf_file_page(const struct elf_image *img, int seg, uint64_t vaddr);

/* "R", "RX", "RW", ... of PF_* @flags. */
const char *elf_flags_text(uint32_t flags);

#endif
