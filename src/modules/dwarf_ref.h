/**
 * @file dwarf_ref.h
 * References that may point into a DWARF 5 supplementary file. libdw 0.188 follows
 * DW_FORM_GNU_ref_alt into the file set with dwarf_setalt, but resolves DW_FORM_ref_sup4/8 (`dwz -5`)
 * in the referring file itself (libdw/dwarf_formref_die.c takes dwarf_getalt only for the GNU form):
 * the offset of a DIE of the shared file read as one of the debug file's, so an inlined call's origin
 * is some unrelated bytes (its name NULL, or another DIE's name). dwarf_attr_integrate and
 * dwarf_diename go through the same code, and so do dwarf_peel_type, dwarf_aggregate_size and
 * dwarf_getscopes (modules/scopes.h has ct_dwarf_scopes). These do what they do, with the sup forms
 * resolved in the supplementary file; tests/check_libdw_refs.py keeps the libdw ones out of src/.
 */
#ifndef CT_MODULES_DWARF_REF_H
#define CT_MODULES_DWARF_REF_H

#include <elfutils/libdw.h>
#include <stdbool.h>

/** The DIE reference attribute @p attr names (dwarf_formref_die, sup forms included); NULL when none. */
Dwarf_Die *ct_dwarf_ref_die(Dwarf_Attribute *attr, Dwarf_Die *ret);
/** Attribute @p name of @p die or of its abstract origin / specification (dwarf_attr_integrate). */
Dwarf_Attribute *ct_dwarf_attr_integrate(Dwarf_Die *die, unsigned int name, Dwarf_Attribute *ret);
/** @p die's DW_AT_name, through its origins (dwarf_diename); NULL without one. */
const char *ct_dwarf_diename(Dwarf_Die *die);
/** The file that declares @p die, through its origins (dwarf_decl_file): an index into the line
 *  table of the unit holding the attribute (a partial unit of the shared file for a dwz DIE); NULL
 *  without one or when the index is out of the table. */
const char *ct_dwarf_decl_file(Dwarf_Die *die);

/** @p die without typedefs and qualifiers (dwarf_peel_type; the DIEs reached go into @p buf, which
 *  may be @p die): @p die or @p buf; NULL for a qualifier of void, a broken link or a cycle. */
Dwarf_Die *ct_dwarf_peel_type(Dwarf_Die *die, Dwarf_Die *buf);
/** Bytes of type @p die (dwarf_aggregate_size): its DW_AT_byte_size, an array's elements × stride,
 *  a pointer's address size; 0 on success, -1 when unknown. */
int ct_dwarf_aggregate_size(Dwarf_Die *die, Dwarf_Word *size);
/** @p die's DW_AT_byte_size through its origins (dwarf_bytesize), -1 without one. */
int ct_dwarf_bytesize(Dwarf_Die *die);

#endif
