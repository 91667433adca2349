/**
 * @file die_skip.h
 * The next sibling of a DIE whose children must be stepped over, read straight from the unit's
 * bytes with the unit's abbreviations. libdw's dwarf_siblingof does this through an abbreviation
 * lookup (locked, hashed) for every descendant when the DIE has no DW_AT_sibling, which clang never
 * emits: a C++ type with 80 members costs ~800 instructions per member there, ~40 here. Any form
 * this reader does not know makes it give up (the caller then uses dwarf_siblingof).
 */
#ifndef CT_DIE_SKIP_H
#define CT_DIE_SKIP_H

#include <elfutils/libdw.h>

struct ct_die_skip;

/** The reader for unit @p cu (a DW_TAG_compile_unit/partial_unit DIE); NULL when it cannot work. */
struct ct_die_skip *ct_die_skip_create(Dwarf_Die *cu);
void ct_die_skip_destroy(struct ct_die_skip *k);

/** *@p next = the sibling after @p die (of the unit) and its children: 0; 1 no more siblings; -1 unknown. */
int ct_die_skip_sibling(const struct ct_die_skip *k, const Dwarf_Die *die, Dwarf_Die *next);

#endif
