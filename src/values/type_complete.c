// Declarations completed from the unit that defines the type (internal.h, ct_values_complete_type):
// one name index per Dwarf, built the first time a value of a declared type is shown.
#include <dwarf.h>

#include "modules/type_index.h"
#include "values/internal.h"

bool ct_values_complete_type(struct ct_values *v, Dwarf_Die *type, Dwarf_Die *ret)
{
	int tag = dwarf_tag(type);
	if (!v || (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type &&
		   tag != DW_TAG_enumeration_type))
		return false;
	Dwarf *dbg = dwarf_cu_getdwarf(type->cu);
	if (!dbg)
		return false;
	for (size_t i = 0; i < CT_VALUES_TYPE_INDEXES; i++) {
		if (v->type_indexes[i].dbg == dbg)
			return ct_type_index_find(v->type_indexes[i].index, dbg, type, ret);
		if (!v->type_indexes[i].dbg) {
			v->type_indexes[i].dbg = dbg;
			v->type_indexes[i].index = ct_type_index_build(dbg); // NULL (no memory): stays unresolved
			return ct_type_index_find(v->type_indexes[i].index, dbg, type, ret);
		}
	}
	return false;
}
