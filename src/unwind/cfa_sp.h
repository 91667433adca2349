/**
 * @file cfa_sp.h
 * A caller's sp from its callee's CFA, for a step where libdwfl recovered the pc but not the sp.
 */
#ifndef CT_UNWIND_CFA_SP_H
#define CT_UNWIND_CFA_SP_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/unwind.h"

/**
 * The stack address of @p callee's caller (its sp + stack bias), as the ABI defines it: the CFA of
 * @p callee (by its CFI's register + offset rule, with the registers @p st holds for it) less the
 * table's cfa_sp_offset. False when the callee has no such rule or lacks the register.
 */
bool ct_unwind_caller_sp_from_cfa(struct ct_module_set *s, const struct ct_raw_stack *st,
				  const struct ct_raw_frame *callee, uint64_t *ret);

#endif
