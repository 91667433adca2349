// DIE references into a DWARF 5 supplementary file (see dwarf_ref.h).
#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>

#include "modules/dwarf_ref.h"

/** Abstract-origin / specification links followed (libdw follows 16; a cycle ends here). */
#define MAX_ORIGIN_HOPS 16

// The offset a ref_sup attribute holds, in the byte order of the file it is read from.
static bool sup_offset(Dwarf_Attribute *attr, unsigned size, Dwarf_Off *ret)
{
	Elf *elf = dwarf_getelf(dwarf_cu_getdwarf(attr->cu));
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;
	if (!ident || !attr->valp)
		return false;
	// libdw sized the form when it found the attribute (the bytes are inside the unit).
	const unsigned char *p = attr->valp;
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[ident[EI_DATA] == ELFDATA2MSB ? i : size - 1 - i] << (8 * (size - 1 - i));
	*ret = v;
	return true;
}

Dwarf_Die *ct_dwarf_ref_die(Dwarf_Attribute *attr, Dwarf_Die *ret)
{
	if (!attr)
		return NULL;
	unsigned form = dwarf_whatform(attr);
	if (form != DW_FORM_ref_sup4 && form != DW_FORM_ref_sup8)
		return dwarf_formref_die(attr, ret);
	// Never the referring file: without its supplementary file the reference names nothing.
	Dwarf *alt = attr->cu ? dwarf_getalt(dwarf_cu_getdwarf(attr->cu)) : NULL;
	Dwarf_Off off;
	if (!alt || !sup_offset(attr, form == DW_FORM_ref_sup4 ? 4 : 8, &off))
		return NULL;
	return dwarf_offdie(alt, off, ret);
}

Dwarf_Attribute *ct_dwarf_attr_integrate(Dwarf_Die *die, unsigned int name, Dwarf_Attribute *ret)
{
	Dwarf_Die cur = *die;
	for (int hop = 0; hop < MAX_ORIGIN_HOPS; hop++) {
		if (dwarf_attr(&cur, name, ret))
			return ret;
		Dwarf_Attribute link;
		Dwarf_Die next;
		if (!(dwarf_attr(&cur, DW_AT_abstract_origin, &link) || dwarf_attr(&cur, DW_AT_specification, &link)) ||
		    !ct_dwarf_ref_die(&link, &next))
			return NULL;
		cur = next;
	}
	return NULL;
}

const char *ct_dwarf_diename(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	return dwarf_formstring(ct_dwarf_attr_integrate(die, DW_AT_name, &attr));
}
