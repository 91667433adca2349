// The frame-record step: fp points at a record the prologue pushed, the caller's fp and the return
// address at the arch table's offsets (x86's push rbp, arm64's stp x29, x30). The process fallback
// (fallback.c) and the arm64 kernel walk (kernel/kstack.c) both read records here; what makes a
// record believable (inside the stack, a return address into code) is theirs to check.
#include "unwind/step.h"

bool ct_step_frame_record(const struct ct_unwind_mem *m, uint64_t fp, uint64_t *caller_fp, uint64_t *ra)
{
	const struct ct_arch_info *arch = m->arch;
	return ct_unwind_mem_word(m, fp + (uint64_t)(int64_t)arch->fp_saved_fp_offset, caller_fp) &&
	       ct_unwind_mem_word(m, fp + (uint64_t)(int64_t)arch->fp_saved_ra_offset, ra);
}
