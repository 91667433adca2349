/**
 * @file cu_index.h
 * Address → compilation unit without `.debug_aranges`.
 *
 * libdw 0.188 finds the unit of an address only through `.debug_aranges` (dwarf_addrdie,
 * dwfl_module_addrdie, dwfl_module_getsrc): clang, rustc and Go emit no such section, so every
 * program frame of their binaries had no file:line. This index is built from every unit's own
 * address ranges instead (DW_AT_ranges, or DW_AT_low_pc + DW_AT_high_pc; DWARF 2–5, rnglists and
 * ranges, skeleton units resolved to their split unit; type units hold no code and are skipped; a
 * unit without any range attribute is covered by its top-level subprograms' ranges). It is built
 * lazily, once per module, on the first lookup, sorted and binary-searched.
 */
#ifndef CT_CU_INDEX_H
#define CT_CU_INDEX_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

/** Address ranges per module beyond this are dropped (a hostile file could claim billions); 2M
 * ranges are 64 MiB with the running maxima. */
#define CT_CU_INDEX_MAX_RANGES (1u << 21)
/** Units per module beyond this are not indexed (1M units: 32 MiB of DIE handles). */
#define CT_CU_INDEX_MAX_UNITS (1u << 20)

/** The address → unit indexes of every module of one analysis (one per Dwfl). */
struct ct_cu_index;

struct ct_cu_index *ct_cu_index_create(void);
void ct_cu_index_destroy(struct ct_cu_index *index);

/**
 * Finds the unit DIE of @p mod that holds @p addr (an address as libdwfl takes it, bias included):
 * the split unit for a skeleton. Sets *@p bias to the module's DWARF bias (DWARF address =
 * @p addr - *@p bias). False when the module has no DWARF or no unit covers @p addr.
 * With @p index NULL this is libdwfl's own lookup (dwfl_module_addrdie, which needs aranges).
 */
bool ct_cu_index_find(struct ct_cu_index *index, Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *cu, Dwarf_Addr *bias);

/**
 * The scopes of @p addr (see modules/scopes.h), from the scope table of its unit (built on the
 * unit's first lookup: modules/scope_table.h); *@p scopes malloc'ed, *@p bias the module's bias.
 * 0 when no unit or function holds @p addr. @p index NULL: libdw's unit lookup and a unit walk.
 */
int ct_cu_index_scopes(struct ct_cu_index *index, Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die **scopes,
		       Dwarf_Addr *bias);

#endif
