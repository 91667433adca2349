// Zydis 4 (libzydis-dev): the x86 decoder used when capstone 4 cannot decode the faulting
// instruction — AVX-512 (EVEX), AMX and newer encodings that glibc's string functions use on recent
// CPUs (__strlen_evex: vpcmpeqb k0, ymm16, [rdi]). Fills the same facts as insn_x86.c's capstone
// path: text, memory operands with base/index/displacement and effective address, access kind,
// alignment, branch kind. The only file that includes Zydis.
#include <Zydis/Zydis.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_dwarf.h"
#include "triage/insn.h"

// EVEX/VEX moves that fault (#GP) on a misaligned operand: the operand size is the alignment.
static const char *const aligned_moves[] = { "vmovaps", "vmovapd", "vmovdqa", "vmovdqa32", "vmovdqa64",
					     "vmovntps", "vmovntpd", "vmovntdq", "vmovntdqa", NULL };

/** DWARF number of a general register (the largest enclosing one), -1 for others. */
static int reg_dwarf(ZydisMachineMode mode, ZydisRegister reg, bool is64)
{
	ZydisRegister full = ZydisRegisterGetLargestEnclosing(mode, reg);
	// Zydis orders them rax rcx rdx rbx rsp rbp rsi rdi r8..r15 (eax … edi in 32-bit mode).
	static const int dwarf64[16] = { 0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15 };
	if (is64 && full >= ZYDIS_REGISTER_RAX && full <= ZYDIS_REGISTER_R15)
		return dwarf64[full - ZYDIS_REGISTER_RAX];
	// i386 DWARF: eax ecx edx ebx esp ebp esi edi = 0..7, Zydis's order.
	if (!is64 && full >= ZYDIS_REGISTER_EAX && full <= ZYDIS_REGISTER_EDI)
		return (int)(full - ZYDIS_REGISTER_EAX);
	return -1;
}

static bool reg_value(const struct ct_insn_ctx *ctx, ZydisMachineMode mode, bool is64, ZydisRegister reg,
		      uint64_t next_pc, uint64_t *ret)
{
	if (reg == ZYDIS_REGISTER_RIP || reg == ZYDIS_REGISTER_EIP) {
		*ret = next_pc;
		return true;
	}
	int d = reg_dwarf(mode, reg, is64);
	if (d < 0 || (size_t)d >= ctx->num_regs || !ctx->valid[d])
		return false;
	uint64_t v = ctx->regs[d];
	ZyanU16 bits = ZydisRegisterGetWidth(mode, reg);
	if (bits && bits < 64)
		v &= (1ULL << bits) - 1;
	*ret = v;
	return true;
}

static void mem_text(ZydisMachineMode mode, const ZydisDecodedOperand *op, char *buf, size_t size)
{
	const ZydisDecodedOperandMem *m = &op->mem;
	const char *seg = m->segment == ZYDIS_REGISTER_FS || m->segment == ZYDIS_REGISTER_GS
		? ZydisRegisterGetString(m->segment)
		: NULL;
	const char *base = m->base != ZYDIS_REGISTER_NONE ? ZydisRegisterGetString(m->base) : NULL;
	const char *index = m->index != ZYDIS_REGISTER_NONE ? ZydisRegisterGetString(m->index) : NULL;
	char idx[32] = "", disp[32] = "";
	if (index)
		snprintf(idx, sizeof(idx), "%s%s*%u", base ? " + " : "", index, m->scale);
	int64_t d = m->disp.has_displacement ? m->disp.value : 0;
	if (d || (!base && !index))
		snprintf(disp, sizeof(disp), "%s0x%llx", base || index ? (d < 0 ? " - " : " + ") : "",
			 (unsigned long long)(d < 0 && (base || index) ? -(uint64_t)d : (uint64_t)d));
	snprintf(buf, size, "%s%s[%s%s%s]", seg ? seg : "", seg ? ":" : "", base ? base : "", idx, disp);
}

bool ct_insn_decode_zydis(bool is64, const uint8_t *code, size_t len, const struct ct_insn_ctx *ctx,
			  struct ct_insn_facts *f)
{
	ZydisMachineMode mode = is64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LONG_COMPAT_32;
	ZydisDecoder dec;
	if (!code || !len || !ZYAN_SUCCESS(ZydisDecoderInit(&dec, mode, is64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32)))
		return false;
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code, len, &insn, ops)))
		return false;
	ZydisFormatter fmt;
	char text[96];
	if (!ZYAN_SUCCESS(ZydisFormatterInit(&fmt, ZYDIS_FORMATTER_STYLE_INTEL)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&fmt, &insn, ops, insn.operand_count_visible, text, sizeof(text),
							  ctx->pc, ZYAN_NULL)))
		return false;
	f->decoded = true;
	f->decoder = "zydis";
	f->address = ctx->pc;
	snprintf(f->text, sizeof(f->text), "%s", text);
	f->size = insn.length < sizeof(f->bytes) ? insn.length : sizeof(f->bytes);
	memcpy(f->bytes, code, f->size);
	f->fault_mem = -1;
	uint64_t next = ctx->pc + insn.length;
	const char *mn = ZydisMnemonicGetString(insn.mnemonic);
	for (uint8_t i = 0; i < insn.operand_count_visible && f->num_mem < CT_MAX_MEM_OPERANDS; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		struct ct_mem_operand *m = &f->mem[f->num_mem++];
		m->base = op->mem.base != ZYDIS_REGISTER_NONE ? ZydisRegisterGetString(op->mem.base) : NULL;
		m->index = op->mem.index != ZYDIS_REGISTER_NONE ? ZydisRegisterGetString(op->mem.index) : NULL;
		m->base_dwarf = reg_dwarf(mode, op->mem.base, is64);
		m->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
		m->size = op->size / 8;
		// lea (AGEN) and the MIB form compute an address without accessing it.
		m->access = op->mem.type != ZYDIS_MEMOP_TYPE_MEM ? CT_ACCESS_NONE
			    : op->actions & ZYDIS_OPERAND_ACTION_MASK_READ ? CT_ACCESS_READ
			    : op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE ? CT_ACCESS_WRITE
									     : CT_ACCESS_NONE;
		mem_text(mode, op, m->text, sizeof(m->text));
		uint64_t base = 0, index = 0, seg = 0;
		bool ok = true;
		if (op->mem.base != ZYDIS_REGISTER_NONE) {
			ok = reg_value(ctx, mode, is64, op->mem.base, next, &base);
			m->has_base_value = ok && op->mem.base != ZYDIS_REGISTER_RIP;
			m->base_value = base;
		}
		if (ok && op->mem.index != ZYDIS_REGISTER_NONE)
			ok = reg_value(ctx, mode, is64, op->mem.index, next, &index);
		// The thread's fs_base/gs_base registers.
		int seg_dwarf = op->mem.segment == ZYDIS_REGISTER_FS ? CT_X86_64_DWARF_FS_BASE
				: op->mem.segment == ZYDIS_REGISTER_GS ? CT_X86_64_DWARF_GS_BASE : -1;
		if (ok && seg_dwarf >= 0)
			ok = is64 && (size_t)seg_dwarf < ctx->num_regs && ctx->valid[seg_dwarf] &&
			     (seg = ctx->regs[seg_dwarf], true);
		if (ok) {
			m->has_address = true;
			m->address = seg + base + index * (uint64_t)op->mem.scale + (uint64_t)m->disp;
			if (!is64)
				m->address &= 0xffffffffULL;
		}
	}
	// A read comes before a write of the same instruction: it is the one that faults first.
	for (int pass = 0; pass < 2 && f->fault_mem < 0; pass++) {
		for (size_t i = 0; i < f->num_mem && f->fault_mem < 0; i++) {
			if (f->mem[i].access == (pass ? CT_ACCESS_WRITE : CT_ACCESS_READ))
				f->fault_mem = (int)i;
		}
	}
	if (f->fault_mem >= 0)
		f->access = f->mem[f->fault_mem].access;
	for (const char *const *a = aligned_moves; *a; a++) {
		if (mn && strcmp(mn, *a) == 0 && f->fault_mem >= 0) {
			f->needs_alignment = true;
			f->alignment = f->mem[f->fault_mem].size;
		}
	}
	f->is_call = insn.meta.category == ZYDIS_CATEGORY_CALL;
	f->is_ret = insn.meta.category == ZYDIS_CATEGORY_RET;
	f->is_jump = insn.meta.category == ZYDIS_CATEGORY_COND_BR || insn.meta.category == ZYDIS_CATEGORY_UNCOND_BR;
	f->is_trap = insn.mnemonic == ZYDIS_MNEMONIC_UD2 || insn.mnemonic == ZYDIS_MNEMONIC_UD1 ||
		     insn.mnemonic == ZYDIS_MNEMONIC_UD0;
	f->is_div = insn.mnemonic == ZYDIS_MNEMONIC_DIV || insn.mnemonic == ZYDIS_MNEMONIC_IDIV;
	f->is_signed_div = insn.mnemonic == ZYDIS_MNEMONIC_IDIV;
	return true;
}
