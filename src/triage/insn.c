// The architecture switch of instruction decoding: the name comes from the dump (struct ct_arch_info),
// never from the host. Back ends: insn_x86.c (x86-64, i386; capstone), insn_arm64.c (aarch64;
// capstone), insn_riscv.c (riscv64: call sites and PLT stubs only, capstone 4 has no RISC-V).
#include <string.h>

#include "triage/insn.h"

enum insn_arch { ARCH_NONE, ARCH_X86_64, ARCH_I386, ARCH_AARCH64, ARCH_RISCV64 };

static enum insn_arch arch_of(const char *arch)
{
	if (!arch)
		return ARCH_NONE;
	if (strcmp(arch, "x86_64") == 0)
		return ARCH_X86_64;
	if (strcmp(arch, "i386") == 0)
		return ARCH_I386;
	if (strcmp(arch, "aarch64") == 0)
		return ARCH_AARCH64;
	if (strcmp(arch, "riscv64") == 0)
		return ARCH_RISCV64;
	return ARCH_NONE;
}

bool ct_insn_decode(const char *arch, const uint8_t *code, size_t len, const uint8_t *before, size_t before_len,
		    const struct ct_insn_ctx *ctx, struct ct_insn_facts *ret)
{
	struct ct_insn_facts f = { .fault_mem = -1, .address = ctx->pc };
	if (code && len) {
		f.have_bytes = true;
		f.size = len < sizeof(f.bytes) ? len : sizeof(f.bytes);
		memcpy(f.bytes, code, f.size);
	}
	bool known = true;
	switch (arch_of(arch)) {
	case ARCH_X86_64: ct_insn_decode_x86(true, code, len, before, before_len, ctx, &f); break;
	case ARCH_I386: ct_insn_decode_x86(false, code, len, before, before_len, ctx, &f); break;
	case ARCH_AARCH64: ct_insn_decode_arm64(code, len, ctx, &f); break;
	default: known = false; break;
	}
	f.has_decoder = known;
	*ret = f;
	return known;
}

bool ct_insn_call_before(const char *arch, const uint8_t *code, size_t len, uint64_t ret_addr,
			 struct ct_call_site *ret)
{
	if (!code || !len)
		return false;
	switch (arch_of(arch)) {
	case ARCH_X86_64: return ct_insn_call_before_x86(true, code, len, ret_addr, ret);
	case ARCH_I386: return ct_insn_call_before_x86(false, code, len, ret_addr, ret);
	case ARCH_AARCH64: return ct_insn_call_before_arm64(code, len, ret_addr, ret);
	case ARCH_RISCV64: return ct_insn_call_before_riscv64(code, len, ret_addr, ret);
	default: return false;
	}
}

bool ct_insn_plt_slot(const char *arch, const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base,
		      uint64_t *slot_ret)
{
	if (!code || !len)
		return false;
	switch (arch_of(arch)) {
	case ARCH_X86_64: return ct_insn_plt_slot_x86(true, code, len, stub, got_base, slot_ret);
	case ARCH_I386: return ct_insn_plt_slot_x86(false, code, len, stub, got_base, slot_ret);
	case ARCH_AARCH64: return ct_insn_plt_slot_arm64(code, len, stub, slot_ret);
	case ARCH_RISCV64: return ct_insn_plt_slot_riscv64(code, len, stub, slot_ret);
	default: return false;
	}
}
