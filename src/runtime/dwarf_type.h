/**
 * @file dwarf_type.h
 * Structure layouts from DWARF for the runtime stage (python_dwarf.c, go_dwarf.c).
 */
#ifndef CT_RUNTIME_DWARF_TYPE_H
#define CT_RUNTIME_DWARF_TYPE_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>

/** Through typedefs and qualifiers to the structure or union itself; false for a declaration or another tag. */
bool ct_dwarf_strip_to_struct(Dwarf_Die *die);
/** Offset of the member at dotted @p path ("ceval.gil.last_holder", "sched.pc") in @p type. */
bool ct_dwarf_member_offset(const Dwarf_Die *type, const char *path, uint32_t *ret);

#endif
