/* SPDX-License-Identifier: MIT */
/*
 * The scenario table: one line per scenario, in `list` order. A scenario
 * NAME is defined in scenario/NAME/NAME.c as
 * `const struct scenario NAME_scenario = { ... };` (docs/scenarios.md
 * tells how to add one).
 */
SCENARIO(vma_boundary)
SCENARIO(mprotect_split)
SCENARIO(seqread)
SCENARIO(folio_order)
SCENARIO(elf_startup)
SCENARIO(transports)
