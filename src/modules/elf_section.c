// A section of an ELF file by name, bounded by the file's size (elf_section.h).
#include <string.h>

#include "modules/elf_section.h"
#include "util/bytes.h"

bool ct_elf_section(Elf *elf, uint64_t bias, const char *name, struct ct_elf_section *ret)
{
	size_t shstrndx, raw_size;
	const char *raw = elf_rawfile(elf, &raw_size);
	if (!raw || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *n = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		if (!n || strcmp(n, name) != 0)
			continue;
		*ret = (struct ct_elf_section){ .addr = sh->sh_addr + bias, .size = sh->sh_size };
		if (sh->sh_type != SHT_NOBITS) {
			if (!ct_in_bounds(raw_size, sh->sh_offset, sh->sh_size))
				return false;
			ret->bytes = (const uint8_t *)raw + sh->sh_offset;
		}
		return true;
	}
	return false;
}
