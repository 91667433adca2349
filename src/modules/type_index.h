/**
 * @file type_index.h
 * The complete definitions of a module's named aggregate types, by qualified name, so that a type
 * a unit only declares (DW_AT_declaration: Rust's generic std types, clang's -fno-standalone-debug
 * C++ classes) can be shown with its members as gdb shows it, from the unit that defines it.
 * Built once per Dwarf on first need, by walking each unit's types and namespaces only (not
 * function bodies), with a cap on the DIEs visited; lookups confirm the name, so a hash collision
 * cannot give a wrong type.
 */
#ifndef CT_TYPE_INDEX_H
#define CT_TYPE_INDEX_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

/** DIEs visited while building one index (a hostile or huge file stops here: the index is partial). */
#define CT_TYPE_INDEX_MAX_DIES (4u << 20)
/** Definitions kept in one index. */
#define CT_TYPE_INDEX_MAX_TYPES (1u << 20)

struct ct_type_index;

/** The index of @p dbg's units; NULL when out of memory. */
struct ct_type_index *ct_type_index_build(Dwarf *dbg);
void ct_type_index_free(struct ct_type_index *ix);

/**
 * The definition of declaration @p decl (a structure, class, union or enumeration type with
 * DW_AT_declaration) from @p ix, built from @p decl's Dwarf; false when none is known.
 */
bool ct_type_index_find(const struct ct_type_index *ix, Dwarf *dbg, Dwarf_Die *decl, Dwarf_Die *ret);

#endif
