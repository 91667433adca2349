// The caller's sp from the callee's CFA (cfa_sp.h). libdwfl recovers sp by the callee's CFI rule for
// it; s390x leaf functions keep r15 in a floating-point register (CFI: r15 in f0), which qemu-user's
// cores do not dump (no NT_PRFPREG), so libdwfl has the return address but no sp. By the ABI the
// caller's sp is the CFA less the register save area (arch->cfa_sp_offset), and the CFA rule needs
// only a general register (on_reload: r11 + 328). Only the def_cfa rule (one DW_OP_bregx): a
// DW_CFA_def_cfa_expression is left alone.
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>

#include "modules/cfi_frame.h"
#include "unwind/cfa_sp.h"

bool ct_unwind_caller_sp_from_cfa(struct ct_module_set *s, const struct ct_raw_stack *st,
				  const struct ct_raw_frame *callee, uint64_t *ret)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint64_t lookup = callee->exact ? callee->pc : callee->pc - 1;
	Dwarf_Frame *frame = ct_cfi_frame_at(s->dwfl, lookup);
	if (!frame)
		return false;
	Dwarf_Op *ops = NULL;
	size_t n = 0;
	uint64_t base;
	bool ok = dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_bregx &&
		  ct_raw_frame_reg(st, callee, (unsigned)ops[0].number, &base);
	uint64_t cfa = ok ? base + ops[0].number2 : 0;
	free(frame);
	if (!ok || cfa < arch->cfa_sp_offset)
		return false;
	*ret = cfa - arch->cfa_sp_offset;
	return true;
}
