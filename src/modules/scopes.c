// The concrete DWARF scopes around an address (see scopes.h for why not dwarf_getscopes).
#include <dwarf.h>
#include <stdlib.h>

#include "modules/scopes.h"

/** Children of one DIE looked at (a hostile file could chain millions of siblings). */
#define MAX_CHILDREN (1 << 22)

// DIEs that hold code directly.
static bool is_code_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_entry_point || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

// DIEs without code of their own whose children may be functions: namespaces, Fortran modules,
// and for Rust the types (rustc puts the methods of `impl Option<T>` inside `Option<u32>`). C and
// C++ bodies of types hold only declarations (definitions sit at namespace level): skipping them
// keeps a lookup in a large C++ unit from reading every member of every class.
static bool is_container(int tag, bool types)
{
	if (tag == DW_TAG_namespace || tag == DW_TAG_module)
		return true;
	return types && (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			 tag == DW_TAG_enumeration_type || tag == DW_TAG_class_type);
}

// The child of @p parent whose ranges hold @p pc (looking through namespaces), into @p ret.
static bool search_children(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *ret, int depth, bool types)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return false;
	int seen = 0;
	do {
		int tag = dwarf_tag(&child);
		if (is_code_scope(tag)) {
			if (dwarf_haspc(&child, pc) == 1) {
				*ret = child;
				return true;
			}
		} else if (is_container(tag, types) && depth < CT_SCOPES_MAX_DEPTH) {
			// The function inside a namespace is the scope; the namespace is passed through.
			if (search_children(&child, pc, ret, depth + 1, types))
				return true;
		}
	} while (++seen < MAX_CHILDREN && dwarf_siblingof(&child, &child) == 0);
	return false;
}

bool ct_dwarf_scopes_rust(Dwarf_Die *cu)
{
	return dwarf_srclang(cu) == DW_LANG_Rust;
}

bool ct_dwarf_scope_is_code(int tag)
{
	return is_code_scope(tag);
}

bool ct_dwarf_scope_is_container(int tag, bool rust)
{
	return is_container(tag, rust);
}

int ct_dwarf_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	return ct_dwarf_scopes_from(cu, NULL, pc, scopes);
}

int ct_dwarf_scopes_from(Dwarf_Die *cu, Dwarf_Die *outer, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	*scopes = NULL;
	Dwarf_Die chain[CT_SCOPES_MAX_DEPTH];
	int n = 0;
	Dwarf_Die cur = *cu, next;
	bool types = ct_dwarf_scopes_rust(cu);
	if (outer) {
		chain[n++] = *outer;
		cur = *outer;
	}
	while (n < CT_SCOPES_MAX_DEPTH - 1 && search_children(&cur, pc, &next, n, types)) {
		chain[n++] = next;
		cur = next;
	}
	if (n == 0)
		return 0;
	Dwarf_Die *out = malloc((size_t)(n + 1) * sizeof(*out));
	if (!out)
		return 0;
	for (int i = 0; i < n; i++)
		out[i] = chain[n - 1 - i];
	out[n] = *cu;
	*scopes = out;
	return n + 1;
}
