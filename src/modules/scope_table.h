/**
 * @file scope_table.h
 * The outermost code scopes of one compilation unit (functions, found through namespaces and, for
 * Rust, types), by address: built with one walk of the unit, then binary-searched.
 *
 * Why: finding the function of a pc walks the unit's top-level DIEs (modules/scopes.h), and a unit
 * without DW_AT_sibling links (clang) makes every skip over a type read all of its members. A
 * frame's pc is looked up several times (symbols, inline frames, values, call sites, blame), and
 * a large C++ unit has hundreds of thousands of DIEs: walking it once per unit instead of once per
 * lookup is what keeps the first analysis of a program with 200 MB of DWARF fast.
 */
#ifndef CT_SCOPE_TABLE_H
#define CT_SCOPE_TABLE_H

#include <elfutils/libdw.h>
#include <stdbool.h>

/** Ranges kept per unit (a hostile unit could claim millions); past it lookups walk the unit. */
#define CT_SCOPE_TABLE_MAX_RANGES (1u << 20)

struct ct_scope_table;

/** Walks unit @p cu once; NULL when out of memory or when the unit has more ranges than the cap. */
struct ct_scope_table *ct_scope_table_build(Dwarf_Die *cu);
void ct_scope_table_destroy(struct ct_scope_table *table);

/**
 * The scopes of DWARF address @p pc in the table's unit, as ct_dwarf_scopes gives them (same DIEs,
 * same order, *@p scopes malloc'ed); 0 when no function of the unit holds @p pc.
 */
int ct_scope_table_scopes(const struct ct_scope_table *table, Dwarf_Addr pc, Dwarf_Die **scopes);

#endif
