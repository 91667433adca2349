/**
 * @file elfview.h
 * One bounded view of ELF headers, program headers and notes, over bytes that are not trusted (a
 * core file, a module's first page read from a dump, a vmcore head). Used by the core loader
 * (elfcore.c, notes.c), module discovery (modules/modules.c) and the kernel probe
 * (dump/probe_vmcore.c). Nothing here reads outside the given bytes; a cut table or note area yields
 * what is whole.
 *
 * Not libelf: libelf refuses a file whose program header table or notes run past its end, and a
 * cut core must still open with what it holds (elf_memory is still used for libdwfl's view).
 */
#ifndef CT_DUMP_ELFVIEW_H
#define CT_DUMP_ELFVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/error.h"
#include "util/bytes.h"

/** The fields of an ELF header this project reads, in host order. */
struct ct_elf_header {
	uint8_t elf_class; /**< ELFCLASS32 or ELFCLASS64 */
	bool big_endian;
	uint16_t type, machine;
	uint32_t flags;
	uint64_t entry, phoff, shoff;
	unsigned phentsize, shentsize;
	/** e_phnum as stored (PN_XNUM included: see ct_elf_phnum). */
	uint64_t phnum;
};

/** One program header, in host order. */
struct ct_elf_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

/**
 * Reads the ELF header at the start of @p file. Errors (CT_ERROR_CORRUPT): not an ELF file, bad class
 * or byte order, header cut short. @p file's byte order is ignored (the header says it).
 */
struct ct_error *ct_elf_header_read(const struct ct_bytes *file, struct ct_elf_header *ret);

/** Size of one program header of the class: 56 (ELF64) or 32 (ELF32). */
size_t ct_elf_phdr_size(uint8_t elf_class);

/**
 * The number of program headers: e_phnum, or for PN_XNUM section header 0's sh_info (gABI,
 * "Extended numbering"). False when PN_XNUM points at a section header outside @p file.
 */
bool ct_elf_phnum(const struct ct_bytes *file, const struct ct_elf_header *h, uint64_t *ret);

/** Reads the program header at byte @p off of @p b (class @p elf_class, @p b's byte order). */
bool ct_elf_phdr_read(const struct ct_bytes *b, uint8_t elf_class, uint64_t off, struct ct_elf_phdr *ret);

/** One note of a note area; name and desc point into the area. */
struct ct_elf_note {
	uint32_t type;
	/** n_namesz bytes (the terminating NUL included when the writer put one). */
	const char *name;
	uint32_t namesz;
	struct ct_bytes desc;
	/** Offset of the note header in the area. */
	uint64_t offset;
};

/** Walks the notes of one area (4-byte aligned, as Linux writes them for both classes). */
struct ct_note_iter {
	struct ct_bytes area;
	uint64_t off;
	/** Set when the walk stopped at a note that runs past the area (its header fields below). */
	bool malformed;
	uint64_t bad_offset, bad_namesz, bad_descsz;
};

void ct_note_iter_init(struct ct_note_iter *it, const struct ct_bytes *area);
/** The next note; false at the end of the area or at a malformed note (then it->malformed). */
bool ct_note_iter_next(struct ct_note_iter *it, struct ct_elf_note *ret);
/**
 * The note the walk stopped at (it->malformed), when its header and name are whole but its desc is
 * cut (a dump cut short); ret->desc then holds what is there. False otherwise.
 */
bool ct_note_iter_cut(const struct ct_note_iter *it, struct ct_elf_note *ret);
/** True when @p n is owned by @p name ("CORE", "GNU", "VMCOREINFO": n_namesz counts the NUL). */
bool ct_elf_note_is(const struct ct_elf_note *n, const char *name);

#endif
