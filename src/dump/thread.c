// The registers of a dump's thread: one pr_reg reader for process cores and kernel dumps.
#include "dump/thread.h"

void ct_thread_read_pr_reg(const struct ct_arch_info *arch, const struct ct_bytes *regs, struct ct_core_thread *t)
{
	for (size_t i = 0; i < arch->num_regs && i < CT_THREAD_MAX_VALUES; i++) {
		const struct ct_arch_reg *r = &arch->regs[i];
		uint64_t v = ct_bytes_uint_or0(regs, r->offset, r->size);
		t->values[i] = v;
		if (r->dwarf >= 0 && r->dwarf < CT_MAX_DWARF_REGS) {
			t->dwarf[r->dwarf] = v;
			t->valid[r->dwarf] = true;
		}
	}
	t->num_values = arch->num_regs;
	t->pc = t->values[arch->pc_index];
	if (arch->pc_mask)
		t->pc &= arch->pc_mask;
	// The stack address (sparc64's sp is biased); the register itself stays as dumped.
	t->sp = t->dwarf[arch->sp_dwarf] + arch->stack_bias;
	t->has_regs = true;
}

uint64_t ct_thread_reg(const struct ct_arch_info *arch, const struct ct_core_thread *t, int dwarf)
{
	int i = ct_arch_reg_index(arch, dwarf);
	return i >= 0 && i < CT_THREAD_MAX_VALUES ? t->values[i] : 0;
}

bool ct_thread_set_reg(const struct ct_arch_info *arch, struct ct_core_thread *t, int dwarf, uint64_t value)
{
	int i = ct_arch_reg_index(arch, dwarf);
	if (i < 0 || i >= CT_THREAD_MAX_VALUES)
		return false;
	t->values[i] = value;
	if (dwarf >= 0 && dwarf < CT_MAX_DWARF_REGS) {
		t->dwarf[dwarf] = value;
		t->valid[dwarf] = true;
	}
	return true;
}
