// The ORC step: one step of the x86-64 kernel's own unwinder (Linux 6.1 arch/x86/kernel/unwind_orc.c
// unwind_next_frame()) over any memory and any entry lookup: where the tables are (kallsyms, struct
// module) is the kernel pipeline's business (kernel/orc.c). pt_regs words are found by the arch
// table's pr_reg offsets of their DWARF registers (a vmcore's NT_PRSTATUS pr_reg is the same struct).
#include "arch/x86_dwarf.h"
#include "unwind/step.h"

void ct_orc_entry_decode(const uint8_t *e, struct ct_orc_entry *ret)
{
	uint16_t bits = (uint16_t)(e[4] | e[5] << 8);
	ret->sp_offset = (int16_t)(uint16_t)(e[0] | e[1] << 8);
	ret->bp_offset = (int16_t)(uint16_t)(e[2] | e[3] << 8);
	ret->sp_reg = bits & 0xf;
	ret->bp_reg = (bits >> 4) & 0xf;
	ret->type = (bits >> 8) & 3;
	ret->end = (bits >> 10) & 1;
}

// Byte offset of DWARF register @p dwarf in pt_regs (the arch table's pr_reg offset), -1 when absent.
static int64_t pt_offset(const struct ct_arch_info *arch, int dwarf)
{
	int i = ct_arch_reg_index(arch, dwarf);
	return i < 0 ? -1 : (int64_t)arch->regs[i].offset;
}

static bool regs_get(const struct ct_unwind_mem *m, const struct ct_orc_state *st, struct ct_orc_regs r, int dwarf,
		     uint64_t *ret)
{
	if (r.kind == CT_ORC_REGS_SAVED) {
		int i = ct_arch_reg_index(m->arch, dwarf);
		if (i < 0 || (size_t)i >= st->num_saved)
			return false;
		*ret = st->saved[i];
		return true;
	}
	int64_t off = pt_offset(m->arch, dwarf);
	return r.kind == CT_ORC_REGS_MEMORY && off >= 0 && ct_unwind_mem_word(m, r.addr + (uint64_t)off, ret);
}

// unwind_orc.c get_reg(): full pt_regs, else the full ones a partial frame interrupted.
static bool get_reg(const struct ct_unwind_mem *m, const struct ct_orc_state *st, int dwarf, uint64_t *ret)
{
	if (st->regs.kind == CT_ORC_REGS_NONE)
		return false;
	return regs_get(m, st, st->full_regs ? st->regs : st->prev_regs, dwarf, ret);
}

// The DWARF register of an ORC register that holds a frame's stack pointer, -1 for other values.
static int orc_sp_dwarf(uint8_t reg)
{
	switch (reg) {
	case CT_ORC_REG_R10:
		return CT_X86_64_DWARF_R10;
	case CT_ORC_REG_R13:
		return CT_X86_64_DWARF_R13;
	case CT_ORC_REG_DI:
		return CT_X86_64_DWARF_RDI;
	case CT_ORC_REG_DX:
		return CT_X86_64_DWARF_RDX;
	default:
		return -1;
	}
}

enum ct_step_result ct_step_orc(const struct ct_unwind_mem *m, const struct ct_orc_ops *ops, struct ct_orc_state *st,
				enum ct_stop_reason *why)
{
	const struct ct_arch_info *arch = m->arch;
	struct ct_orc_entry e;
	st->recovered = false;
	if (!ops->find(ops->arg, st->signal ? st->ip : st->ip - 1, &e))
		return CT_STEP_NO_DATA;
	if (e.sp_reg == CT_ORC_REG_UNDEFINED) {
		*why = e.end ? CT_STOP_ORC_END : CT_STOP_ORC_UNDEFINED_SP;
		return e.end ? CT_STEP_END : CT_STEP_FAIL;
	}
	uint64_t sp, tmp;
	bool indirect = false;
	switch (e.sp_reg) {
	case CT_ORC_REG_SP:
		sp = st->sp + (uint64_t)(int64_t)e.sp_offset;
		break;
	case CT_ORC_REG_BP:
		if (!st->bp_valid) {
			// bp was lost in a frame stepped over by scanning: the return address into this very
			// function found above sp is this frame's (CFA - 8), which gives bp = CFA - sp_offset.
			uint64_t slot;
			if (!ops->return_slot(ops->arg, st->sp, st->signal ? st->ip : st->ip - 1, &slot)) {
				*why = CT_STOP_ORC_BP_LOST;
				return CT_STEP_FAIL;
			}
			st->bp = slot + 8 - (uint64_t)(int64_t)e.sp_offset;
			st->recovered = true;
		}
		sp = st->bp + (uint64_t)(int64_t)e.sp_offset;
		break;
	case CT_ORC_REG_SP_INDIRECT:
		sp = st->sp;
		indirect = true;
		break;
	case CT_ORC_REG_BP_INDIRECT:
		if (!st->bp_valid) {
			*why = CT_STOP_ORC_BP_LOST;
			return CT_STEP_FAIL;
		}
		sp = st->bp + (uint64_t)(int64_t)e.sp_offset;
		indirect = true;
		break;
	default: {
		int reg = orc_sp_dwarf(e.sp_reg);
		if (reg < 0) {
			*why = CT_STOP_ORC_BAD_SP_REG;
			return CT_STEP_FAIL;
		}
		if (!get_reg(m, st, reg, &sp)) {
			*why = CT_STOP_ORC_SP_REG_UNSAVED;
			return CT_STEP_FAIL;
		}
		break;
	}
	}
	if (indirect) {
		if (!ct_unwind_mem_word(m, sp, &sp)) {
			*why = CT_STOP_ORC_NO_INDIRECT_SP;
			return CT_STEP_FAIL;
		}
		if (e.sp_reg == CT_ORC_REG_SP_INDIRECT)
			sp += (uint64_t)(int64_t)e.sp_offset;
	}
	// pt_regs ends in the iret frame (ip, cs, flags, sp, ss): offsets relative to ip's.
	int64_t ip_off = pt_offset(arch, CT_X86_64_DWARF_RIP), cs_off = pt_offset(arch, CT_X86_64_DWARF_CS),
		sp_off = pt_offset(arch, CT_X86_64_DWARF_RSP);
	uint64_t ip, new_sp;
	switch (e.type) {
	case CT_ORC_TYPE_CALL:
		if (!ct_unwind_mem_word(m, sp - 8, &ip)) {
			*why = CT_STOP_ORC_NO_RETURN_ADDRESS;
			return CT_STEP_FAIL;
		}
		new_sp = sp;
		st->regs.kind = CT_ORC_REGS_NONE;
		st->prev_regs.kind = CT_ORC_REGS_NONE;
		st->signal = false;
		break;
	case CT_ORC_TYPE_REGS: {
		uint64_t cs;
		if (ip_off < 0 || cs_off < 0 || sp_off < 0 || !ct_unwind_mem_word(m, sp + (uint64_t)ip_off, &ip) ||
		    !ct_unwind_mem_word(m, sp + (uint64_t)sp_off, &new_sp) || !ct_unwind_mem_word(m, sp + (uint64_t)cs_off, &cs)) {
			*why = CT_STOP_ORC_NO_PT_REGS;
			return CT_STEP_FAIL;
		}
		if (cs & 3) {
			*why = CT_STOP_USER_ENTRY;
			return CT_STEP_END;
		}
		st->regs = (struct ct_orc_regs){ CT_ORC_REGS_MEMORY, sp };
		st->prev_regs.kind = CT_ORC_REGS_NONE;
		st->full_regs = true;
		st->signal = true;
		break;
	}
	case CT_ORC_TYPE_REGS_PARTIAL: {
		uint64_t cs;
		if (ip_off < 0 || cs_off < 0 || sp_off < 0 || !ct_unwind_mem_word(m, sp, &ip) ||
		    !ct_unwind_mem_word(m, sp + (uint64_t)(cs_off - ip_off), &cs) ||
		    !ct_unwind_mem_word(m, sp + (uint64_t)(sp_off - ip_off), &new_sp)) {
			*why = CT_STOP_ORC_NO_IRET_FRAME;
			return CT_STEP_FAIL;
		}
		if (cs & 3) {
			*why = CT_STOP_USER_ENTRY;
			return CT_STEP_END;
		}
		if (st->full_regs)
			st->prev_regs = st->regs;
		else
			st->prev_regs.kind = CT_ORC_REGS_NONE;
		st->regs = (struct ct_orc_regs){ CT_ORC_REGS_MEMORY, sp - (uint64_t)ip_off };
		st->full_regs = false;
		st->signal = true;
		break;
	}
	default:
		*why = CT_STOP_ORC_BAD_TYPE;
		return CT_STEP_FAIL;
	}
	switch (e.bp_reg) {
	case CT_ORC_REG_UNDEFINED:
		if (get_reg(m, st, CT_X86_64_DWARF_RBP, &tmp)) {
			st->bp = tmp;
			st->bp_valid = true;
		}
		break;
	case CT_ORC_REG_PREV_SP:
		if (!ct_unwind_mem_word(m, sp + (uint64_t)(int64_t)e.bp_offset, &st->bp)) {
			*why = CT_STOP_ORC_NO_SAVED_BP;
			return CT_STEP_FAIL;
		}
		st->bp_valid = true;
		break;
	case CT_ORC_REG_BP:
		if (!st->bp_valid || !ct_unwind_mem_word(m, st->bp + (uint64_t)(int64_t)e.bp_offset, &st->bp)) {
			*why = CT_STOP_ORC_NO_SAVED_BP;
			return CT_STEP_FAIL;
		}
		break;
	default:
		break;
	}
	if (e.type == CT_ORC_TYPE_REGS)
		st->bp_valid = true; // full pt_regs: get_reg() above restored it
	st->ip = ip;
	st->sp = new_sp;
	return CT_STEP_OK;
}
