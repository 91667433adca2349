/**
 * @file elf_section.h
 * A section of a module's ELF file by name, with its bytes borrowed from libelf's mapping: Go's
 * .gopclntab, .go.buildinfo, .noptrdata and .bss, which no program header names.
 */
#ifndef CT_ELF_SECTION_H
#define CT_ELF_SECTION_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

struct ct_elf_section {
	uint64_t addr, size; /**< address with the module's bias */
	const uint8_t *bytes; /**< borrowed; NULL for NOBITS (.bss) */
};

/** Section @p name of @p elf (loaded at @p bias); false when absent or outside the file. */
bool ct_elf_section(Elf *elf, uint64_t bias, const char *name, struct ct_elf_section *ret);

#endif
