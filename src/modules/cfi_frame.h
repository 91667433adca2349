/**
 * @file cfi_frame.h
 * The CFI rules of a pc, looked up as libdwfl looks them up for a step (__libdwfl_frame_unwind):
 * the module's .eh_frame first, then its .debug_frame. One place for the unwinder's own CFI uses
 * (the cached step, kept registers, the caller's sp from the CFA) and the values' CFA.
 */
#ifndef CT_CFI_FRAME_H
#define CT_CFI_FRAME_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

/** The rules at @p pc (a lookup pc: pc - 1 in a caller) of the module holding it; NULL when none. free() it. */
Dwarf_Frame *ct_cfi_frame_at(Dwfl *dwfl, uint64_t pc);

#endif
