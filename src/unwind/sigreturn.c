// Signal frames without CFI (issue 16): Go's runtime.sigreturn and any restorer whose unwind table
// does not mark it ('S' augmentation). A frame whose pc is at the rt_sigreturn trampoline's code
// (arch->sigframe->restorer) is a signal frame, and the interrupted registers are read from the
// sigcontext the kernel saved at its sp (arch->sigframe layout).
#include <string.h>

#include "unwind/unwind.h"
#include "util/bytes.h"

bool ct_sigcontext_field(const struct ct_core *core, uint64_t addr, unsigned size, uint64_t *ret)
{
	uint8_t b[8];
	if ((size != 4 && size != 8) || !ct_core_read_fast(core, addr, b, size))
		return false;
	// Every architecture with a sigframe table is little-endian.
	*ret = size == 8 ? ct_load64(b, false) : ct_load32(b, false);
	return true;
}

bool ct_sigcontext_read(const struct ct_core *core, const struct ct_arch_info *arch, uint64_t sp,
			struct ct_sigcontext *ret)
{
	const struct ct_arch_sigframe *l = arch ? arch->sigframe : NULL;
	if (!l)
		return false;
	struct ct_sigcontext c = { 0 };
	uint64_t uc = sp + (uint64_t)(int64_t)l->ucontext_at;
	if (l->ucontext_indirect && !ct_sigcontext_field(core, uc, arch->pointer_size, &uc))
		return false;
	c.ucontext = uc;
	c.mcontext = uc + l->mcontext;
	c.siginfo = sp + (uint64_t)(int64_t)l->siginfo_at;
	if (l->siginfo_indirect && !ct_sigcontext_field(core, c.siginfo, arch->pointer_size, &c.siginfo))
		c.siginfo = 0;
	if (!ct_sigcontext_field(core, c.mcontext + (uint64_t)l->pc, l->word, &c.pc) ||
	    !ct_sigcontext_field(core, c.mcontext + (uint64_t)l->sp, l->word, &c.sp))
		return false;
	for (size_t i = 0; i < l->num_regs; i++) {
		int d = l->regs[i].dwarf;
		if (d >= 0 && d < CT_MAX_DWARF_REGS)
			c.valid[d] = ct_sigcontext_field(core, c.mcontext + l->regs[i].offset, l->word, &c.regs[d]);
	}
	*ret = c;
	return true;
}

bool ct_unwind_is_restorer(struct ct_module_set *s, uint64_t pc)
{
	const struct ct_arch_info *arch = s->core->arch;
	const struct ct_arch_sigframe *l = arch ? arch->sigframe : NULL;
	uint8_t code[16];
	if (!l || !l->restorer_len || l->restorer_len > sizeof(code) || !ct_modules_read_code(s, pc, code, l->restorer_len))
		return false;
	return memcmp(code, l->restorer, l->restorer_len) == 0;
}
