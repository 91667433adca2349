// x86-64 and i386 instruction facts with capstone 4 (CS_OPT_DETAIL): memory operands and their
// effective addresses from the thread's registers, access kind, branches, division operands,
// alignment-checked SSE/AVX accesses, ud2/int3.
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_dwarf.h"
#include "triage/insn.h"

struct reg_map {
	x86_reg reg;
	int dwarf64, dwarf32; /**< DWARF numbers on x86-64 / i386, -1 none */
	unsigned size;
	bool high8; /**< ah, bh, ch, dh */
};

// DWARF numbering: x86-64 psABI §3.6.2 (rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7, r8-r15,
// rip 16, fs.base 58, gs.base 59); i386 psABI (eax 0, ecx 1, edx 2, ebx 3, esp 4, ebp 5, esi 6, edi 7, eip 8).
static const struct reg_map reg_maps[] = {
	{ X86_REG_RAX, 0, -1, 8, false },  { X86_REG_EAX, 0, 0, 4, false },   { X86_REG_AX, 0, 0, 2, false },
	{ X86_REG_AL, 0, 0, 1, false },	   { X86_REG_AH, 0, 0, 1, true },     { X86_REG_RDX, 1, -1, 8, false },
	{ X86_REG_EDX, 1, 2, 4, false },   { X86_REG_DX, 1, 2, 2, false },    { X86_REG_DL, 1, 2, 1, false },
	{ X86_REG_DH, 1, 2, 1, true },	   { X86_REG_RCX, 2, -1, 8, false },  { X86_REG_ECX, 2, 1, 4, false },
	{ X86_REG_CX, 2, 1, 2, false },	   { X86_REG_CL, 2, 1, 1, false },    { X86_REG_CH, 2, 1, 1, true },
	{ X86_REG_RBX, 3, -1, 8, false },  { X86_REG_EBX, 3, 3, 4, false },   { X86_REG_BX, 3, 3, 2, false },
	{ X86_REG_BL, 3, 3, 1, false },	   { X86_REG_BH, 3, 3, 1, true },     { X86_REG_RSI, 4, -1, 8, false },
	{ X86_REG_ESI, 4, 6, 4, false },   { X86_REG_SI, 4, 6, 2, false },    { X86_REG_SIL, 4, -1, 1, false },
	{ X86_REG_RDI, 5, -1, 8, false },  { X86_REG_EDI, 5, 7, 4, false },   { X86_REG_DI, 5, 7, 2, false },
	{ X86_REG_DIL, 5, -1, 1, false },  { X86_REG_RBP, 6, -1, 8, false },  { X86_REG_EBP, 6, 5, 4, false },
	{ X86_REG_BP, 6, 5, 2, false },	   { X86_REG_BPL, 6, -1, 1, false },  { X86_REG_RSP, 7, -1, 8, false },
	{ X86_REG_ESP, 7, 4, 4, false },   { X86_REG_SP, 7, 4, 2, false },    { X86_REG_SPL, 7, -1, 1, false },
	{ X86_REG_R8, 8, -1, 8, false },   { X86_REG_R8D, 8, -1, 4, false },  { X86_REG_R8W, 8, -1, 2, false },
	{ X86_REG_R8B, 8, -1, 1, false },  { X86_REG_R9, 9, -1, 8, false },   { X86_REG_R9D, 9, -1, 4, false },
	{ X86_REG_R9W, 9, -1, 2, false },  { X86_REG_R9B, 9, -1, 1, false },  { X86_REG_R10, 10, -1, 8, false },
	{ X86_REG_R10D, 10, -1, 4, false }, { X86_REG_R10W, 10, -1, 2, false }, { X86_REG_R10B, 10, -1, 1, false },
	{ X86_REG_R11, 11, -1, 8, false }, { X86_REG_R11D, 11, -1, 4, false }, { X86_REG_R11W, 11, -1, 2, false },
	{ X86_REG_R11B, 11, -1, 1, false }, { X86_REG_R12, 12, -1, 8, false }, { X86_REG_R12D, 12, -1, 4, false },
	{ X86_REG_R12W, 12, -1, 2, false }, { X86_REG_R12B, 12, -1, 1, false }, { X86_REG_R13, 13, -1, 8, false },
	{ X86_REG_R13D, 13, -1, 4, false }, { X86_REG_R13W, 13, -1, 2, false }, { X86_REG_R13B, 13, -1, 1, false },
	{ X86_REG_R14, 14, -1, 8, false }, { X86_REG_R14D, 14, -1, 4, false }, { X86_REG_R14W, 14, -1, 2, false },
	{ X86_REG_R14B, 14, -1, 1, false }, { X86_REG_R15, 15, -1, 8, false }, { X86_REG_R15D, 15, -1, 4, false },
	{ X86_REG_R15W, 15, -1, 2, false }, { X86_REG_R15B, 15, -1, 1, false },
};

static const struct reg_map *find_reg(x86_reg reg)
{
	for (size_t i = 0; i < sizeof(reg_maps) / sizeof(reg_maps[0]); i++) {
		if (reg_maps[i].reg == reg)
			return &reg_maps[i];
	}
	return NULL;
}

/** The value of DWARF register @p dwarf in @p ctx, false when the dump does not hold it. */
static bool dwarf_value(const struct ct_insn_ctx *ctx, int dwarf, uint64_t *ret)
{
	if (dwarf < 0 || (size_t)dwarf >= ctx->num_regs || !ctx->valid[dwarf])
		return false;
	*ret = ctx->regs[dwarf];
	return true;
}

/** DWARF number of @p reg (the full register), -1 when none. */
static int reg_dwarf(x86_reg reg, bool is64)
{
	const struct reg_map *m = find_reg(reg);
	if (!m)
		return -1;
	return is64 ? m->dwarf64 : m->dwarf32;
}

int ct_insn_x86_reg_dwarf(unsigned reg)
{
	return reg_dwarf((x86_reg)reg, true);
}

unsigned ct_insn_x86_reg_size(unsigned reg)
{
	const struct reg_map *m = find_reg((x86_reg)reg);
	return m ? m->size : 0;
}

/** Value of @p reg (zero-extended to its size) for the instruction at @p insn. */
static bool reg_value(const struct ct_insn_ctx *ctx, bool is64, x86_reg reg, const cs_insn *insn, uint64_t *ret)
{
	if (reg == X86_REG_RIP || reg == X86_REG_EIP) {
		*ret = insn->address + insn->size; // rip-relative: relative to the next instruction
		return true;
	}
	const struct reg_map *m = find_reg(reg);
	if (!m)
		return false;
	int d = is64 ? m->dwarf64 : m->dwarf32;
	if (d < 0 || (size_t)d >= ctx->num_regs || !ctx->valid[d])
		return false;
	uint64_t v = ctx->regs[d];
	if (m->high8)
		v >>= 8;
	if (m->size < 8)
		v &= (1ULL << (8 * m->size)) - 1;
	*ret = v;
	return true;
}

static int64_t sign_extend(uint64_t v, unsigned size)
{
	if (size >= 8)
		return (int64_t)v;
	unsigned bits = 8 * size;
	uint64_t m = 1ULL << (bits - 1);
	v &= (1ULL << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

static bool read_mem(const struct ct_insn_ctx *ctx, uint64_t addr, unsigned size, uint64_t *ret)
{
	uint8_t b[8] = { 0 };
	if (!ctx->read || size > 8 || !ctx->read(ctx->arg, addr, b, size))
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)b[i] << (8 * i);
	*ret = v;
	return true;
}

static const char *reg_text(csh h, x86_reg reg)
{
	return reg == X86_REG_INVALID ? NULL : cs_reg_name(h, reg);
}

static bool mnemonic_in(const char *m, const char *const *list)
{
	for (; *list; list++) {
		if (strcmp(m, *list) == 0)
			return true;
	}
	return false;
}

// Always alignment-checked (Intel SDM vol. 1 §14.9, §15.7): their memory operand must be aligned to its size.
static const char *const aligned_always[] = {
	"movaps", "movapd", "movdqa", "movntps", "movntpd", "movntdq", "movntdqa", "vmovaps", "vmovapd", "vmovdqa",
	"vmovdqa32", "vmovdqa64", "vmovntps", "vmovntpd", "vmovntdq", "vmovntdqa", "fxsave", "fxrstor", "fxsave64",
	"fxrstor64", "cmpxchg16b", NULL,
};
// Legacy-SSE instructions with a 16-byte memory operand that do not need alignment.
static const char *const unaligned_ok[] = { "movups", "movupd", "movdqu", "lddqu", "maskmovdqu", "fxsave",
					    "fxrstor", "xsave", "xrstor", "xsave64", "xrstor64", NULL };
// Privileged in user mode (#GP → SIGSEGV, or SIGILL for some).
static const char *const privileged[] = { "hlt", "cli", "sti", "in", "out", "insb", "insw", "insd", "outsb",
					  "outsw", "outsd", "lgdt", "lidt", "lldt", "ltr", "wrmsr", "rdmsr", "invd",
					  "wbinvd", "clts", "lmsw", "swapgs", "sysret", "sysexit", NULL };

static void fill_from_insn(csh h, const cs_insn *insn, bool is64, const struct ct_insn_ctx *ctx,
			   struct ct_insn_facts *f)
{
	const cs_x86 *x = &insn->detail->x86;
	unsigned ptr = is64 ? 8 : 4;
	int spd = is64 ? 7 : 4;
	f->decoded = true;
	f->decoder = "capstone";
	f->address = insn->address;
	snprintf(f->text, sizeof(f->text), "%.31s%s%.63s", insn->mnemonic, insn->op_str[0] ? " " : "", insn->op_str);
	f->fault_mem = -1;
	f->size = insn->size < sizeof(f->bytes) ? insn->size : sizeof(f->bytes);
	memcpy(f->bytes, insn->bytes, f->size);
	const char *mn = insn->mnemonic;
	bool has_sp = (size_t)spd < ctx->num_regs && ctx->valid[spd];
	uint64_t sp = has_sp ? ctx->regs[spd] : 0;

	for (uint8_t i = 0; i < x->op_count && f->num_mem < CT_MAX_MEM_OPERANDS; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (op->type != X86_OP_MEM)
			continue;
		struct ct_mem_operand *m = &f->mem[f->num_mem++];
		m->base = reg_text(h, op->mem.base);
		m->index = reg_text(h, op->mem.index);
		m->base_dwarf = op->mem.base == X86_REG_RIP ? -1 : reg_dwarf(op->mem.base, is64);
		m->disp = op->mem.disp;
		m->size = op->size;
		m->access = op->access & CS_AC_READ ? CT_ACCESS_READ : op->access & CS_AC_WRITE ? CT_ACCESS_WRITE
												: CT_ACCESS_NONE;
		// lea and nop compute an address without accessing it.
		if (strcmp(mn, "lea") == 0 || strncmp(mn, "nop", 3) == 0 || strncmp(mn, "prefetch", 8) == 0)
			m->access = CT_ACCESS_NONE;
		// Text of the operand: capstone prints the operands together; rebuild the memory one.
		char seg[8] = "";
		if (op->mem.segment != X86_REG_INVALID)
			snprintf(seg, sizeof(seg), "%s:", cs_reg_name(h, op->mem.segment));
		char idx[32] = "";
		if (m->index)
			snprintf(idx, sizeof(idx), "%s%s*%d", m->base ? " + " : "", m->index, op->mem.scale);
		char disp[32] = "";
		if (m->disp || (!m->base && !m->index))
			snprintf(disp, sizeof(disp), "%s0x%llx", m->base || m->index ? (m->disp < 0 ? " - " : " + ") : "",
				 (unsigned long long)(m->disp < 0 && (m->base || m->index) ? -(uint64_t)m->disp : (uint64_t)m->disp));
		snprintf(m->text, sizeof(m->text), "%s[%s%s%s]", seg, m->base ? m->base : "", idx, disp);
		uint64_t base = 0, index = 0;
		bool ok = true;
		if (op->mem.base != X86_REG_INVALID) {
			ok = reg_value(ctx, is64, op->mem.base, insn, &base);
			m->has_base_value = ok && op->mem.base != X86_REG_RIP;
			m->base_value = base;
		}
		if (ok && op->mem.index != X86_REG_INVALID)
			ok = reg_value(ctx, is64, op->mem.index, insn, &index);
		uint64_t seg_base = 0;
		if (ok && op->mem.segment == X86_REG_FS)
			ok = is64 && dwarf_value(ctx, CT_X86_64_DWARF_FS_BASE, &seg_base);
		else if (ok && op->mem.segment == X86_REG_GS)
			ok = is64 && dwarf_value(ctx, CT_X86_64_DWARF_GS_BASE, &seg_base);
		if (ok) {
			m->has_address = true;
			m->address = seg_base + base + index * (uint64_t)op->mem.scale + (uint64_t)m->disp;
			if (!is64)
				m->address &= 0xffffffffULL;
		}
	}
	// The first access is the one that faults: a read comes before a write of the same instruction.
	for (size_t i = 0; i < f->num_mem && f->fault_mem < 0; i++) {
		if (f->mem[i].access == CT_ACCESS_READ)
			f->fault_mem = (int)i;
	}
	for (size_t i = 0; i < f->num_mem && f->fault_mem < 0; i++) {
		if (f->mem[i].access == CT_ACCESS_WRITE)
			f->fault_mem = (int)i;
	}
	if (f->fault_mem >= 0)
		f->access = f->mem[f->fault_mem].access;

	for (uint8_t g = 0; g < insn->detail->groups_count; g++) {
		switch (insn->detail->groups[g]) {
		case X86_GRP_CALL: f->is_call = true; break;
		case X86_GRP_JUMP: f->is_jump = true; break;
		case X86_GRP_RET: f->is_ret = true; break;
		case X86_GRP_PRIVILEGE: f->is_privileged = true; break;
		default: break;
		}
	}
	if (mnemonic_in(mn, privileged))
		f->is_privileged = true;
	if ((f->is_call || f->is_jump) && x->op_count == 1 && x->operands[0].type != X86_OP_IMM) {
		f->is_indirect_branch = true;
		const cs_x86_op *op = &x->operands[0];
		uint64_t t;
		if (op->type == X86_OP_REG && reg_value(ctx, is64, op->reg, insn, &t)) {
			f->has_branch_target = true;
			f->branch_target = t;
		} else if (op->type == X86_OP_MEM && f->num_mem && f->mem[0].has_address &&
			   read_mem(ctx, f->mem[0].address, ptr, &t)) {
			f->has_branch_target = true;
			f->branch_target = t;
		}
	} else if ((f->is_call || f->is_jump) && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		f->has_branch_target = true;
		f->branch_target = (uint64_t)x->operands[0].imm;
	}
	// Implicit stack accesses.
	if (has_sp) {
		if (f->is_call || strncmp(mn, "push", 4) == 0) {
			unsigned size = strncmp(mn, "push", 4) == 0 && x->op_count && x->operands[0].size ? x->operands[0].size
													: ptr;
			f->has_implicit_address = true;
			f->implicit_address = sp - size;
			if (f->fault_mem < 0)
				f->access = CT_ACCESS_WRITE;
		} else if (f->is_ret || strncmp(mn, "pop", 3) == 0) {
			f->has_implicit_address = true;
			f->implicit_address = sp;
			if (f->fault_mem < 0)
				f->access = CT_ACCESS_READ;
		}
	}
	if (f->is_ret && has_sp) {
		uint64_t ra;
		if (read_mem(ctx, sp, ptr, &ra)) {
			f->has_return_address = true;
			f->return_address = ra;
		}
	}
	// Division: divisor is the operand, the dividend is [e|r]dx:[e|r]ax (ax for 8-bit).
	if (strcmp(mn, "div") == 0 || strcmp(mn, "idiv") == 0) {
		f->is_div = true;
		f->is_signed_div = mn[0] == 'i';
		const cs_x86_op *op = &x->operands[0];
		unsigned size = op->size;
		f->div_size = size;
		uint64_t v;
		bool ok = op->type == X86_OP_REG ? reg_value(ctx, is64, op->reg, insn, &v)
			: op->type == X86_OP_MEM && f->num_mem && f->mem[0].has_address
			? read_mem(ctx, f->mem[0].address, size, &v)
			: false;
		if (ok && size) {
			f->has_divisor = true;
			f->divisor = f->is_signed_div ? sign_extend(v, size) : (int64_t)v;
		}
		// The dividend is rdx:rax (edx:eax; ax for 8-bit divisions).
		uint64_t lo = 0, hi = 0;
		bool have_lo = dwarf_value(ctx, is64 ? CT_X86_64_DWARF_RAX : CT_I386_DWARF_EAX, &lo);
		bool have_hi = size == 1 || dwarf_value(ctx, is64 ? CT_X86_64_DWARF_RDX : CT_I386_DWARF_EDX, &hi);
		if (have_lo && have_hi && size) {
			unsigned bits = 8 * size;
			uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
			if (size == 1) {
				// 8-bit: ax is the whole dividend.
				f->dividend = sign_extend(lo & 0xffff, 2);
				f->dividend_is_min = (lo & 0xffff) == 0x8000;
			} else {
				f->dividend = f->is_signed_div ? sign_extend(lo & mask, size) : (int64_t)(lo & mask);
				uint64_t min = 1ULL << (bits - 1);
				f->dividend_is_min = (lo & mask) == min && (hi & mask) == mask;
			}
			f->has_dividend = true;
		}
	}
	// Alignment-checked accesses.
	if (f->num_mem && f->mem[0].size >= 16) {
		if (mnemonic_in(mn, aligned_always)) {
			f->needs_alignment = true;
			f->alignment = strncmp(mn, "fx", 2) == 0 || strcmp(mn, "cmpxchg16b") == 0 ? 16 : f->mem[0].size;
		} else if (mn[0] != 'v' && f->mem[0].size == 16 && !mnemonic_in(mn, unaligned_ok)) {
			// Legacy SSE with an m128 operand: #GP unless 16-byte aligned (SDM vol. 1 §11.4.1).
			f->needs_alignment = true;
			f->alignment = 16;
		}
	}
	if (strcmp(mn, "ud2") == 0 || strcmp(mn, "ud1") == 0 || strcmp(mn, "ud0") == 0 || strcmp(mn, "ud2b") == 0)
		f->is_trap = true;
	if (strcmp(mn, "int3") == 0)
		f->is_breakpoint = true;
}

bool ct_insn_decode_x86(bool is64, const uint8_t *code, size_t len, const uint8_t *before, size_t before_len,
			const struct ct_insn_ctx *ctx, struct ct_insn_facts *f)
{
	csh h;
	if (cs_open(CS_ARCH_X86, is64 ? CS_MODE_64 : CS_MODE_32, &h) != CS_ERR_OK)
		return true;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = NULL;
	size_t n = code && len ? cs_disasm(h, code, len, ctx->pc, 1, &insn) : 0;
	if (n == 1)
		fill_from_insn(h, insn, is64, ctx, f);
	if (n)
		cs_free(insn, n);
#if CT_HAVE_ZYDIS
	// Capstone 4 stops at AVX-512 (EVEX) and newer encodings: Zydis knows them.
	if (n != 1)
		ct_insn_decode_zydis(is64, code, len, ctx, f);
#endif
	// SIGTRAP from int3 leaves pc after the breakpoint byte (0xcc, or cd 03 for "int 3").
	if (before && before_len >= 1 && before[before_len - 1] == 0xcc)
		f->is_breakpoint = true;
	if (before && before_len >= 2 && before[before_len - 2] == 0xcd && before[before_len - 1] == 0x03)
		f->is_breakpoint = true;
	cs_close(&h);
	return true;
}

/** True when @p insn is a call; fills the target or the memory slot it calls through. */
static bool call_site_from(const cs_insn *insn, bool is64, struct ct_call_site *site)
{
	bool call = false;
	for (uint8_t g = 0; g < insn->detail->groups_count; g++)
		call |= insn->detail->groups[g] == X86_GRP_CALL;
	if (!call)
		return false;
	const cs_x86 *x = &insn->detail->x86;
	struct ct_call_site s = { .address = insn->address };
	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		s.has_target = true;
		s.target = (uint64_t)x->operands[0].imm & (is64 ? ~0ULL : 0xffffffffULL);
	} else if (x->op_count == 1 && x->operands[0].type == X86_OP_MEM && x->operands[0].mem.index == X86_REG_INVALID &&
		   x->operands[0].mem.segment == X86_REG_INVALID) {
		// call [rip + X] (x86-64 -fno-plt) or call [X] (i386 absolute): a GOT slot.
		const x86_op_mem *m = &x->operands[0].mem;
		if (m->base == X86_REG_RIP) {
			s.has_slot = true;
			s.slot = insn->address + insn->size + (uint64_t)m->disp;
		} else if (m->base == X86_REG_INVALID) {
			s.has_slot = true;
			s.slot = (uint64_t)m->disp & (is64 ? ~0ULL : 0xffffffffULL);
		}
	}
	*site = s;
	return true;
}

bool ct_insn_call_before_x86(bool is64, const uint8_t *code, size_t len, uint64_t ret_addr,
			     struct ct_call_site *ret)
{
	csh h;
	if (!code || cs_open(CS_ARCH_X86, is64 ? CS_MODE_64 : CS_MODE_32, &h) != CS_ERR_OK)
		return false;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	// Candidate lengths, most likely first: e8 rel32 (5), ff 15 disp32 (6), a prefixed form (bnd or
	// notrack: 6, 7), then the register and short memory forms (ff d0: 2, ff 50 08: 3, 41 ff d3: 3, …).
	static const size_t sizes[] = { 5, 6, 7, 2, 3, 4 };
	bool found = false;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !found; i++) {
		size_t k = sizes[i];
		if (k > len || k > ret_addr)
			continue;
		cs_insn *insn = NULL;
		size_t n = cs_disasm(h, code + len - k, k, ret_addr - k, 1, &insn);
		if (n == 1 && insn->size == k)
			found = call_site_from(insn, is64, ret);
		if (n)
			cs_free(insn, n);
	}
	cs_close(&h);
	return found;
}

bool ct_insn_find_slot_load_x86(bool is64, const uint8_t *code, size_t len, uint64_t start, uint64_t pc, int reg,
				int *base_ret, int64_t *disp_ret)
{
	csh h;
	if (cs_open(CS_ARCH_X86, is64 ? CS_MODE_64 : CS_MODE_32, &h) != CS_ERR_OK)
		return false;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = NULL;
	size_t n = cs_disasm(h, code, len, start, 0, &insn);
	bool found = false;
	// Walk backwards from the instruction before pc to the last write of reg (straight-line code only:
	// a branch target in between is not detected, so the caller treats the result as a hint).
	size_t at = n;
	for (size_t i = 0; i < n; i++) {
		if (insn[i].address == pc)
			at = i;
	}
	for (size_t i = at; i-- > 0;) {
		const cs_x86 *x = &insn[i].detail->x86;
		bool writes = false;
		for (uint8_t k = 0; k < x->op_count; k++) {
			if (x->operands[k].type == X86_OP_REG && (x->operands[k].access & CS_AC_WRITE) &&
			    reg_dwarf(x->operands[k].reg, is64) == reg)
				writes = true;
		}
		if (!writes)
			continue;
		if (strcmp(insn[i].mnemonic, "mov") == 0 && x->op_count == 2 && x->operands[1].type == X86_OP_MEM &&
		    x->operands[1].mem.index == X86_REG_INVALID && x->operands[1].mem.segment == X86_REG_INVALID) {
			int b = reg_dwarf(x->operands[1].mem.base, is64);
			if (b >= 0) {
				*base_ret = b;
				*disp_ret = x->operands[1].mem.disp;
				found = true;
			}
		}
		break;
	}
	if (n)
		cs_free(insn, n);
	cs_close(&h);
	return found;
}
