/**
 * @file vregs.h
 * Floating-point and vector registers of a thread at the time of the dump, from its NT_FPREGSET
 * (and on x86 NT_X86_XSTATE) note, as the architecture table (struct ct_arch_vregs) lays them out.
 * Only the innermost frame has these values: they are caller-saved, and the unwinder keeps none.
 */
#ifndef CT_DUMP_VREGS_H
#define CT_DUMP_VREGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump/elfcore.h"

/**
 * The value of DWARF register @p regno of thread @p t: its bytes, in the target's register order
 * (low-order first on little-endian targets), into @p out (CT_VREG_MAX_BYTES), their number into
 * *@p len. False when the register is not a float/vector register of the table or its note is absent
 * or too short.
 */
bool ct_core_vreg(const struct ct_core *core, const struct ct_core_thread *t, unsigned regno, uint8_t *out,
		  size_t *len);

#endif
