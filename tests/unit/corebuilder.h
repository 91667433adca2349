/**
 * @file corebuilder.h
 * Builds small ELF64 little-endian x86-64 core images in memory for unit tests: program headers
 * (PT_NOTE first, then PT_LOADs) and notes, laid out exactly as the kernel does.
 */
#ifndef CT_COREBUILDER_H
#define CT_COREBUILDER_H

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cb_note {
	const char *name;
	uint32_t type;
	const void *desc;
	size_t descsz;
};

struct cb_load {
	uint64_t vaddr, memsz, filesz;
	uint32_t flags;
	const void *data;
};

static inline size_t cb_align4(size_t v)
{
	return (v + 3) & ~(size_t)3;
}

/** Returns a malloc'd image and its size in *size. */
static inline uint8_t *cb_build(const struct cb_note *notes, size_t nnotes, const struct cb_load *loads,
				size_t nloads, size_t *size)
{
	size_t notes_size = 0;
	for (size_t i = 0; i < nnotes; i++)
		notes_size += 12 + cb_align4(strlen(notes[i].name) + 1) + cb_align4(notes[i].descsz);
	size_t phoff = sizeof(Elf64_Ehdr), nph = 1 + nloads;
	size_t off = phoff + nph * sizeof(Elf64_Phdr);
	size_t notes_off = off;
	off += notes_size;
	size_t load_off = (off + 4095) & ~(size_t)4095;
	size_t total = load_off;
	for (size_t i = 0; i < nloads; i++)
		total += loads[i].filesz;
	uint8_t *img = calloc(1, total);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_CORE;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = phoff;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = (uint16_t)nph;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + phoff);
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = notes_off;
	ph[0].p_filesz = notes_size;
	uint8_t *p = img + notes_off;
	for (size_t i = 0; i < nnotes; i++) {
		uint32_t namesz = (uint32_t)strlen(notes[i].name) + 1, descsz = (uint32_t)notes[i].descsz;
		memcpy(p, &namesz, 4);
		memcpy(p + 4, &descsz, 4);
		memcpy(p + 8, &notes[i].type, 4);
		memcpy(p + 12, notes[i].name, namesz);
		p += 12 + cb_align4(namesz);
		if (descsz)
			memcpy(p, notes[i].desc, descsz);
		p += cb_align4(descsz);
	}
	size_t lo = load_off;
	for (size_t i = 0; i < nloads; i++) {
		ph[1 + i].p_type = PT_LOAD;
		ph[1 + i].p_offset = lo;
		ph[1 + i].p_vaddr = loads[i].vaddr;
		ph[1 + i].p_memsz = loads[i].memsz;
		ph[1 + i].p_filesz = loads[i].filesz;
		ph[1 + i].p_flags = loads[i].flags;
		if (loads[i].filesz && loads[i].data)
			memcpy(img + lo, loads[i].data, loads[i].filesz);
		lo += loads[i].filesz;
	}
	*size = total;
	return img;
}

#endif
