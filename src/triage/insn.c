// The architecture switch of instruction decoding: the decoder is named by the dump's architecture
// table (struct ct_arch_info.insn_decoder), never by the host. Back ends: insn_x86.c (x86-64, x32,
// i386), insn_arm64.c (aarch64), insn_riscv.c (riscv64, by hand: capstone
// 4 has no RISC-V), insn_generic.c (arm, ppc, s390, mips, sparc: capstone's operand details).
#include <string.h>

#include "triage/insn.h"

static enum ct_insn_decoder decoder_of(const struct ct_arch_info *arch)
{
	return arch ? arch->insn_decoder : CT_INSN_NONE;
}

bool ct_insn_decode(const struct ct_arch_info *arch, const uint8_t *code, size_t len, const uint8_t *before,
		    size_t before_len, const struct ct_insn_ctx *ctx, struct ct_insn_facts *ret)
{
	struct ct_insn_facts f = { .fault_mem = -1, .address = ctx->pc };
	if (code && len) {
		f.have_bytes = true;
		f.size = len < sizeof(f.bytes) ? len : sizeof(f.bytes);
		memcpy(f.bytes, code, f.size);
	}
	bool known = true;
	switch (decoder_of(arch)) {
	case CT_INSN_X86_64: ct_insn_decode_x86(true, code, len, before, before_len, ctx, &f); break;
	case CT_INSN_I386: ct_insn_decode_x86(false, code, len, before, before_len, ctx, &f); break;
	case CT_INSN_AARCH64: ct_insn_decode_arm64(code, len, ctx, &f); break;
	case CT_INSN_GENERIC: ct_insn_decode_generic(arch, code, len, ctx, &f); break;
	case CT_INSN_RISCV64: ct_insn_decode_riscv64(code, len, ctx, &f); break;
	default: known = false; break;
	}
	f.has_decoder = known;
	*ret = f;
	return known;
}

bool ct_insn_call_before(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t ret_addr,
			 struct ct_call_site *ret)
{
	if (!code || !len)
		return false;
	switch (decoder_of(arch)) {
	case CT_INSN_X86_64: return ct_insn_call_before_x86(true, code, len, ret_addr, ret);
	case CT_INSN_I386: return ct_insn_call_before_x86(false, code, len, ret_addr, ret);
	case CT_INSN_AARCH64: return ct_insn_call_before_arm64(code, len, ret_addr, ret);
	case CT_INSN_RISCV64: return ct_insn_call_before_riscv64(code, len, ret_addr, ret);
	default: return false;
	}
}

bool ct_insn_plt_slot(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t stub,
		      uint64_t got_base, uint64_t *slot_ret)
{
	return code && len && arch && arch->plt_slot && arch->plt_slot(code, len, stub, got_base, slot_ret);
}

bool ct_insn_find_slot_load(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t start,
			    uint64_t pc, int reg, int *base_ret, int64_t *disp_ret)
{
	switch (decoder_of(arch)) {
	case CT_INSN_X86_64: return ct_insn_find_slot_load_x86(true, code, len, start, pc, reg, base_ret, disp_ret);
	case CT_INSN_I386: return ct_insn_find_slot_load_x86(false, code, len, start, pc, reg, base_ret, disp_ret);
	default: return false;
	}
}
