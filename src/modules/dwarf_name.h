/**
 * @file dwarf_name.h
 * The name gdb gives a frame whose function has debug info: taken from the subprogram (or inlined
 * call) DIE through DW_AT_abstract_origin / DW_AT_specification, not from the symbol table, so a
 * compiler clone (`give_up.cold`, `msort_with_tmp.part.0`, `f.constprop.0.isra.0`) shows its source
 * function. C++: the demangled linkage name without parameters or return type
 * (`std::sort<int*>`, `ns::Registry<ns::Item>::quantity_of`); Rust: the DWARF name qualified with
 * its namespaces (`crashme::deref_null`, `core::ptr::drop_in_place<...>`), as gdb prints Rust;
 * C and Go: DW_AT_name as it is (`main.main`, `runtime.gopanic`).
 */
#ifndef CT_DWARF_NAME_H
#define CT_DWARF_NAME_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

#include "coretriage/report.h"
#include "coretriage/strpool.h"

/** Qualified names longer than this are cut. */
#define CT_DWARF_NAME_MAX 4096

/** The display name of function DIE @p die (subprogram or inlined subroutine), pooled; NULL without one. */
const char *ct_dwarf_function_name(struct ct_strpool *strings, Dwarf_Die *die);

/** Namespaces, classes, structs, unions, enums and interfaces: the DIEs that qualify what they hold. */
bool ct_dwarf_is_scope_tag(int tag);
/**
 * What scope DIE @p die (of tag @p tag) adds to the qualified names of what it holds: its name,
 * "(anonymous namespace)" for a namespace without one; NULL for none.
 */
const char *ct_dwarf_scope_part(Dwarf_Die *die, int tag);
/**
 * @p die's DW_AT_name qualified with the namespaces and types that enclose it ("core::option::
 * Option<u32>::Some"), as gdb names Rust types; written to @p buf (cut to @p cap - 1 bytes).
 * False when the DIE has no name.
 */
bool ct_dwarf_qualified_name(Dwarf_Die *die, char *buf, size_t cap);

#endif
