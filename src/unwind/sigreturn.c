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
	// The target's byte order (s390x, ppc64 and mips are big-endian).
	bool be = core->arch && core->arch->big_endian;
	*ret = size == 8 ? ct_load64(b, be) : ct_load32(b, be);
	return true;
}

bool ct_sigcontext_read(const struct ct_core *core, const struct ct_arch_sigframe *l, uint64_t sp,
			struct ct_sigcontext *ret)
{
	const struct ct_arch_info *arch = core->arch;
	if (!l || !arch)
		return false;
	struct ct_sigcontext c = { 0 };
	uint64_t uc = sp + (uint64_t)(int64_t)l->ucontext_at;
	if (l->ucontext_indirect && !ct_sigcontext_field(core, uc, arch->pointer_size, &uc))
		return false;
	c.ucontext = uc;
	c.mcontext = uc + l->mcontext;
	if (l->regs_ptr_search) {
		uint64_t found = 0, v, w = arch->pointer_size;
		for (uint64_t p = c.mcontext + l->regs_ptr_at; !found && p < c.mcontext + l->regs_ptr_at + l->regs_ptr_search; p += w) {
			if (ct_sigcontext_field(core, p, (unsigned)w, &v) && v == p + w)
				found = p - l->regs_ptr_at;
		}
		if (!found)
			return false;
		c.mcontext = found;
	}
	c.siginfo = l->no_siginfo ? 0 : sp + (uint64_t)(int64_t)l->siginfo_at;
	if (l->siginfo_search) {
		uint64_t w = arch->pointer_size, v, puc;
		c.siginfo = 0;
		for (uint64_t p = uc + (uint64_t)l->siginfo_at; !c.siginfo && p < uc + l->siginfo_at + l->siginfo_search; p += w) {
			if (ct_sigcontext_field(core, p, (unsigned)w, &v) && v == p + 2 * w &&
			    ct_sigcontext_field(core, p + w, (unsigned)w, &puc) && puc == uc)
				c.siginfo = v;
		}
	}
	if (c.siginfo && l->siginfo_indirect && !ct_sigcontext_field(core, c.siginfo, arch->pointer_size, &c.siginfo))
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

const struct ct_arch_sigframe *ct_unwind_sigframe_at(struct ct_module_set *s, uint64_t pc)
{
	const struct ct_arch_info *arch = s->core->arch;
	uint8_t code[16];
	// A handful of layouts per architecture at most; the cap guards a cyclic table.
	const struct ct_arch_sigframe *l = arch ? arch->sigframe : NULL;
	for (int n = 0; l && n < 8; l = l->next, n++) {
		if (l->restorer_len && l->restorer_len <= sizeof(code) && ct_modules_read_code(s, pc, code, l->restorer_len) &&
		    memcmp(code, l->restorer, l->restorer_len) == 0)
			return l;
	}
	return NULL;
}

bool ct_unwind_is_restorer(struct ct_module_set *s, uint64_t pc)
{
	return ct_unwind_sigframe_at(s, pc) != NULL;
}
