/* SPDX-License-Identifier: MIT */
/*
 * elf-startup's loader: what a program's start-up touches, as a plan (the
 * same sequence drives the real run and the model), and the run itself:
 * the file mapped as glibc's _dl_map_segments() maps it, then touched.
 */
#ifndef SCENARIO_ELF_LOAD_H
#define SCENARIO_ELF_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <testfs.h>

#include "elf_image.h"

/* The steps of a start-up, in the order they run. */
enum elf_step {
	/* read(2) of the ELF header (and program headers beyond it). */
	ELF_STEP_HEADER,
	/* The loader zeroes the end of the last file page of a segment. */
	ELF_STEP_ZERO_FILL,
	ELF_STEP_DYNAMIC,
	/* Reads of the relocation entries, and writes of their targets. */
	ELF_STEP_RELOC_TABLE,
	ELF_STEP_RELOC_TARGET,
	/* Reads of PT_GNU_RELRO after it is made read-only. */
	ELF_STEP_RELRO,
	ELF_STEP_ENTRY,
	/* One page in text_stride of each executable segment. */
	ELF_STEP_TEXT,
};

#define ELF_NSTEPS 8

const char *elf_step_name(enum elf_step s);

struct elf_access {
	uint64_t vaddr;
	uint8_t step;
	/* 0 read, 1 store (RELA: the value), 2 add the load bias. */
	uint8_t write;
	uint64_t addend;
};

struct elf_plan {
	/* Bytes read(2) at offset 0, as glibc's open_verify() does. */
	uint64_t header_bytes;
	/* Program headers past them: read(2) of [phdr_off, + phdr_len). */
	uint64_t phdr_off, phdr_len;
	struct elf_access *v;
	size_t n;
	/* Accesses from v[relro_at] on follow mprotect(RELRO, PROT_READ). */
	size_t relro_at;
	/* The page-aligned range made read-only (start == end: none). */
	uint64_t relro_start, relro_end;
	/* Relocation targets in a segment without PF_W: read instead. */
	uint64_t textrel_reads;
	unsigned text_stride;
};

/* The plan for @img; text_stride 0: no text beyond the entry page. */
int elf_plan_build(const struct elf_image *img, unsigned text_stride,
		   struct elf_plan *p);
void elf_plan_free(struct elf_plan *p);

/* A VMA of the mapped file, in file pages. */
struct elf_vma {
	uint64_t first_page;
	uint64_t last_page;
	int prot;
};

/*
 * The file-backed VMA holding @vaddr (its page is file data of a
 * segment), before or after the RELRO mprotect (@relro_done); false for
 * an anonymous page (.bss) or a hole.
 */
bool elf_vma_of(const struct elf_image *img, const struct elf_plan *p,
		uint64_t vaddr, bool relro_done, struct elf_vma *out);

struct elf_run {
	/* File pages accessed, by step and in all. */
	struct testfs_extents touched;
	struct testfs_extents step_touched[ELF_NSTEPS];
	uint64_t accesses[ELF_NSTEPS];
	uint64_t ns;
	/* File-backed VMAs of the mapping after the RELRO mprotect. */
	size_t vmas_seen;
};

/*
 * Maps @img from @fd (a file of the mount) as the loader does, runs the
 * plan, unmaps. Returns 0 or -errno with the failing call in @why.
 */
int elf_run_plan(const struct elf_image *img, const struct elf_plan *p, int fd,
		 struct elf_run *out, char *why, size_t whylen);
void elf_run_free(struct elf_run *r);

#endif
