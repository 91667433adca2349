// Member offsets of a runtime's structures from DWARF (CPython's, Go's): the runtime stage's one
// reader of structure layouts, by member name, through typedefs (Go names every type with one).
#include <dwarf.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "runtime/dwarf_type.h"

// Through typedefs and qualifiers to the structure itself.
bool ct_dwarf_strip_to_struct(Dwarf_Die *die)
{
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(die);
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
			return !dwarf_hasattr(die, DW_AT_declaration);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
			return false;
		Dwarf_Attribute a;
		if (!ct_dwarf_ref_die(dwarf_attr(die, DW_AT_type, &a), die))
			return false;
	}
	return false;
}

// Offset of the member at dotted @p path ("ceval.gil.last_holder") in @p type.
bool ct_dwarf_member_offset(const Dwarf_Die *type, const char *path, uint32_t *ret)
{
	Dwarf_Die t = *type;
	uint64_t off = 0;
	char comp[64];
	while (*path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(comp) || !ct_dwarf_strip_to_struct(&t))
			return false;
		memcpy(comp, path, n);
		comp[n] = '\0';
		path += n + (path[n] == '.');
		Dwarf_Die m;
		bool hit = false;
		if (dwarf_child(&t, &m) != 0)
			return false;
		do {
			const char *name = ct_dwarf_diename(&m);
			if (dwarf_tag(&m) == DW_TAG_member && name && !strcmp(name, comp)) {
				hit = true;
				break;
			}
		} while (dwarf_siblingof(&m, &m) == 0);
		Dwarf_Attribute a;
		Dwarf_Word loc;
		if (!hit || dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &a), &loc) != 0)
			return false;
		off += loc;
		if (*path && !ct_dwarf_ref_die(dwarf_attr(&m, DW_AT_type, &a), &t))
			return false;
	}
	if (off > UINT32_MAX)
		return false;
	*ret = (uint32_t)off;
	return true;
}
