// The unit of an address by one pass over `.debug_aranges` (aranges_scan.h). DWARF 5 §6.1.2: sets of
// a header (unit_length, version 2, debug_info_offset, address_size, segment_selector_size) and
// (address, length) tuples from the first multiple of twice the address size, ended by (0, 0).
#include <gelf.h>
#include <string.h>

#include "modules/aranges_scan.h"
#include "util/bytes.h"

static uint64_t get(const uint8_t *p, size_t n, bool be)
{
	return n == 8 ? ct_load64(p, be) : n == 4 ? ct_load32(p, be) : ct_load16(p, be);
}

static void find_section(struct ct_aranges_scan *s, Dwarf *dw)
{
	s->state = -1;
	Elf *elf = dwarf_getelf(dw);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	const char *ident = elf_getident(elf, NULL);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name || strcmp(name, ".debug_aranges") != 0)
			continue;
		// libdw decompressed its debug sections in place when it opened the file; a section still
		// compressed (or NOBITS) is left to libdw.
		Elf_Data *d = sh.sh_type == SHT_PROGBITS && !(sh.sh_flags & SHF_COMPRESSED) ? elf_getdata(scn, NULL) : NULL;
		if (d && d->d_buf && d->d_size && ident) {
			s->data = d->d_buf;
			s->size = d->d_size;
			s->big_endian = ident[EI_DATA] == ELFDATA2MSB;
			s->state = 1;
		}
		return;
	}
}

/** The unit DIE of the unit header at @p off in .debug_info. */
static bool unit_die(Dwarf *dw, Dwarf_Off off, Dwarf_Die *cu)
{
	Dwarf_Off next;
	size_t header;
	if (dwarf_next_unit(dw, off, &next, &header, NULL, NULL, NULL, NULL, NULL, NULL) != 0)
		return false;
	return dwarf_offdie(dw, off + header, cu) != NULL;
}

int ct_aranges_scan(struct ct_aranges_scan *s, Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu)
{
	if (s->state == 0)
		find_section(s, dw);
	if (s->state != 1 || s->scans >= CT_ARANGES_SCANS)
		return -1;
	s->scans++;
	const uint8_t *p = s->data, *end = s->data + s->size;
	bool be = s->big_endian, found = false;
	Dwarf_Off unit = 0;
	while (end - p >= 4) {
		const uint8_t *set = p;
		uint64_t len = get(p, 4, be);
		size_t off_size = 4;
		p += 4;
		if (len == 0xffffffff) {
			if (end - p < 8)
				return -1;
			len = get(p, 8, be);
			off_size = 8;
			p += 8;
		} else if (len >= 0xfffffff0) {
			return -1;
		}
		if (len > (uint64_t)(end - p) || len < 2 + off_size + 2)
			return -1;
		const uint8_t *set_end = p + len;
		unsigned version = (unsigned)get(p, 2, be);
		Dwarf_Off info = get(p + 2, off_size, be);
		unsigned asize = p[2 + off_size], seg = p[3 + off_size];
		if (version != 2 || (asize != 4 && asize != 8) || seg != 0)
			return -1;
		// Tuples start at a multiple of their size from the set's start.
		size_t tuple = 2 * asize, at = (size_t)(p + 4 + off_size - set);
		at = (at + tuple - 1) / tuple * tuple;
		for (p = set + at; set_end - p >= (ptrdiff_t)tuple; p += tuple) {
			uint64_t lo = get(p, asize, be), n = get(p + asize, asize, be);
			if (lo == 0 && n == 0)
				break;
			if (addr - lo < n) {
				// Two units claiming it: which one libdw's sorted table answers is its business.
				if (found && unit != info)
					return -1;
				found = true;
				unit = info;
			}
		}
		p = set_end;
	}
	if (!found)
		return 0;
	return unit_die(dw, unit, cu) ? 1 : -1;
}
