/**
 * @file scopes.h
 * The DWARF scopes around an address, found by descending from the unit's root.
 *
 * libdw's dwarf_getscopes fails as a whole when an inlined call's abstract origin lives in another
 * unit (gcc -flto refers to the early-debug unit through DW_FORM_ref_addr; dwz through partial
 * units): it looks the origin up in the same unit. Here the concrete tree alone is walked, which
 * is all a location needs: names come from the origins (dwarf_name.h), wherever they are.
 */
#ifndef CT_SCOPES_H
#define CT_SCOPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>

/** Nesting deeper than this is not followed (real code: tens). */
#define CT_SCOPES_MAX_DEPTH 256

/**
 * The DIEs of unit @p cu whose ranges hold DWARF address @p pc, innermost first and @p cu last:
 * lexical blocks, inlined subroutines, the subprogram (and any enclosing one), with namespaces and
 * modules passed through. Returns the count and sets *@p scopes (malloc'ed; the caller frees it),
 * or returns 0 with *@p scopes NULL when no function holds @p pc (or on allocation failure).
 */
int ct_dwarf_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes);

/** As ct_dwarf_scopes, given the outermost code scope @p outer of @p cu that holds @p pc (NULL: find it). */
int ct_dwarf_scopes_from(Dwarf_Die *cu, Dwarf_Die *outer, Dwarf_Addr pc, Dwarf_Die **scopes);

/** The walk's rules, for modules/scope_table.c: Rust units nest functions in types; which tags
 *  hold code; which are passed through. */
bool ct_dwarf_scopes_rust(Dwarf_Die *cu);
bool ct_dwarf_scope_is_code(int tag);
bool ct_dwarf_scope_is_container(int tag, bool rust);

#endif
