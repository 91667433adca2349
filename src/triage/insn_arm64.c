// aarch64 instruction facts with capstone 4 (CS_ARCH_ARM64, CS_OPT_DETAIL): the memory operand's
// base, index (extended and shifted) and displacement and its effective address from the thread's
// registers (x0..x30, sp), the access kind (loads read, stores write, atomics read first), br/blr/ret
// targets, udf/brk traps. Call sites and PLT stubs are decoded by hand (fixed 32-bit encodings, Arm
// ARM DDI 0487 C6).
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "triage/insn.h"

/** Bits of a data address that are translated (the top byte is ignored, TBI). */
#define TBI_MASK 0x00ffffffffffffffULL

static uint32_t word_at(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ULL << (bits - 1);
	v &= (1ULL << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

/**
 * DWARF number and width of a general register; -1 for none. The zero registers give -2 (value 0).
 * AAPCS64 DWARF supplement: x0..x30 = 0..30 (x29 fp and x30 lr as the arch table has them), sp.
 * capstone 4 numbers x0..x28 and w0..w30 contiguously, x29/x30 apart (arm64.h).
 */
int ct_insn_arm64_reg_dwarf(unsigned r, unsigned *size)
{
	*size = 8;
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r == ARM64_REG_X29)
		return ct_arch_aarch64.fp_dwarf;
	if (r == ARM64_REG_X30)
		return ct_arch_aarch64.ra_dwarf;
	if (r == ARM64_REG_SP)
		return ct_arch_aarch64.sp_dwarf;
	if (r == ARM64_REG_XZR)
		return -2;
	*size = 4;
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0);
	if (r == ARM64_REG_WSP)
		return ct_arch_aarch64.sp_dwarf;
	if (r == ARM64_REG_WZR)
		return -2;
	return -1;
}

static bool reg_value(const struct ct_insn_ctx *ctx, arm64_reg r, uint64_t *ret)
{
	unsigned size;
	int d = ct_insn_arm64_reg_dwarf(r, &size);
	if (d == -2) {
		*ret = 0;
		return true;
	}
	if (d < 0 || (size_t)d >= ctx->num_regs || !ctx->valid[d])
		return false;
	uint64_t v = ctx->regs[d];
	*ret = size == 4 ? v & 0xffffffffULL : v;
	return true;
}

/** Bytes moved per register named @p name ("x3" 8, "w3" 4, "q0" 16, "d0" 8, "s0" 4, "h0" 2, "b0" 1). */
static unsigned reg_bytes(const char *name)
{
	switch (name ? name[0] : 0) {
	case 'x': return 8;
	case 'w': return 4;
	case 'q': return 16;
	case 'v': return 16;
	case 'd': return 8;
	case 's': return name[1] == 'p' ? 8 : 4;
	case 'h': return 2;
	case 'b': return 1;
	default: return 0;
	}
}

static bool prefix_in(const char *m, const char *const *list)
{
	for (; *list; list++) {
		if (strncmp(m, *list, strlen(*list)) == 0)
			return true;
	}
	return false;
}

// Read-modify-write atomics (ARMv8.1 LSE) and exclusives: the read comes first.
static const char *const atomics[] = { "cas", "swp", "ldadd", "ldclr", "ldeor", "ldset", "ldsmax", "ldsmin",
				       "ldumax", "ldumin", "stadd", "stclr", "steor", "stset", "stsmax", "stsmin",
				       "stumax", "stumin", NULL };
static const char *const store_exclusives[] = { "stxr", "stlxr", "stxp", "stlxp", NULL };
static const char *const pairs[] = { "ldp", "stp", "ldnp", "stnp", "ldxp", "ldaxp", "stxp", "stlxp", NULL };
// Need natural alignment whatever SCTLR.A says (Arm ARM B2.5.2): exclusives, acquire/release, atomics.
static const char *const aligned_always[] = { "ldxr", "ldaxr", "stxr", "stlxr", "ldxp", "ldaxp", "stxp", "stlxp",
					      "ldar", "stlr", "ldapr", "ldlar", "stllr", NULL };

static void fill_mem(csh h, const cs_arm64_op *op, const struct ct_insn_ctx *ctx,
		     unsigned size, enum ct_access access, struct ct_mem_operand *m)
{
	m->base = op->mem.base != ARM64_REG_INVALID ? cs_reg_name(h, op->mem.base) : NULL;
	m->index = op->mem.index != ARM64_REG_INVALID ? cs_reg_name(h, op->mem.index) : NULL;
	unsigned bsize;
	int bd = ct_insn_arm64_reg_dwarf(op->mem.base, &bsize);
	m->base_dwarf = bd >= 0 ? bd : -1;
	if (op->mem.index != ARM64_REG_INVALID) {
		int id = ct_insn_arm64_reg_dwarf(op->mem.index, &bsize);
		m->has_index_dwarf = id >= 0;
		m->index_dwarf = id;
	}
	m->disp = op->mem.disp;
	m->size = size;
	m->access = access;
	char idx[48] = "";
	if (m->index)
		snprintf(idx, sizeof(idx), ", %s%s%.0u", m->index,
			 op->shift.type == ARM64_SFT_LSL && op->shift.value ? ", lsl #" : "",
			 op->shift.type == ARM64_SFT_LSL ? op->shift.value : 0);
	char disp[32] = "";
	if (m->disp)
		snprintf(disp, sizeof(disp), ", #%s0x%llx", m->disp < 0 ? "-" : "",
			 (unsigned long long)(m->disp < 0 ? -(uint64_t)m->disp : (uint64_t)m->disp));
	snprintf(m->text, sizeof(m->text), "[%s%s%s]", m->base ? m->base : "?", idx, disp);
	uint64_t base = 0, index = 0;
	bool ok = op->mem.base != ARM64_REG_INVALID && reg_value(ctx, op->mem.base, &base);
	m->has_base_value = ok;
	m->base_value = base;
	if (ok && op->mem.index != ARM64_REG_INVALID) {
		ok = reg_value(ctx, op->mem.index, &index);
		// [xn, wm, sxtw #s]: the 32-bit index is sign- or zero-extended, then shifted.
		if (op->ext == ARM64_EXT_SXTW)
			index = (uint64_t)sext(index, 32);
		else if (op->ext == ARM64_EXT_UXTW)
			index &= 0xffffffffULL;
		if (op->shift.type == ARM64_SFT_LSL && op->shift.value < 64)
			index <<= op->shift.value;
	}
	if (ok) {
		// Post-index ([xn], #imm) accesses the base; capstone 4 gives the immediate as a separate
		// operand and disp 0, so base + disp is right for every addressing form.
		// Linux runs EL0 with top-byte-ignore for data accesses (tagged addresses, Documentation/
		// arch/arm64/tagged-pointers.rst): bits 63:56 do not take part in translation, and the
		// kernel reports si_addr with them cleared. The address accessed is the untagged one.
		m->has_address = true;
		m->address = (base + index + (uint64_t)m->disp) & TBI_MASK;
	}
}

bool ct_insn_arm64_access(csh h, const struct cs_insn *insn, enum ct_access *access_ret, unsigned *size_ret)
{
	const cs_arm64 *a = &insn->detail->arm64;
	const char *mn = insn->mnemonic;
	bool atomic = prefix_in(mn, atomics);
	bool load = mn[0] == 'l' && mn[1] == 'd';
	bool store = mn[0] == 's' && mn[1] == 't';
	// prfm/prfum touch no data that can fault.
	bool prefetch = strncmp(mn, "prf", 3) == 0;
	enum ct_access access = atomic || load ? CT_ACCESS_READ : store ? CT_ACCESS_WRITE : CT_ACCESS_NONE;
	if (prefetch)
		access = CT_ACCESS_NONE;
	// Bytes moved: one register (ldr/str), two (ldp/stp), or the register list of ld1-ld4/st1-st4.
	// Store-exclusives name their 32-bit status register first: it moves nothing.
	bool status_first = prefix_in(mn, store_exclusives);
	bool pair = prefix_in(mn, pairs);
	unsigned regs = 0, reg_size = 0;
	for (uint8_t i = status_first ? 1 : 0; i < a->op_count; i++) {
		if (a->operands[i].type != ARM64_OP_REG)
			continue;
		unsigned b = reg_bytes(cs_reg_name(h, a->operands[i].reg));
		if (b && (!reg_size || b == reg_size)) {
			reg_size = b;
			regs++;
		}
	}
	static const struct {
		const char *mnemonic;
		unsigned size;
	} narrow[] = { { "ldrb", 1 },  { "strb", 1 },  { "ldrsb", 1 }, { "ldurb", 1 }, { "sturb", 1 }, { "ldursb", 1 },
		       { "ldrh", 2 },  { "strh", 2 },  { "ldrsh", 2 }, { "ldurh", 2 }, { "sturh", 2 }, { "ldursh", 2 },
		       { "ldrsw", 4 }, { "ldursw", 4 }, { "ldpsw", 4 } };
	for (size_t i = 0; i < sizeof(narrow) / sizeof(narrow[0]); i++) {
		if (strcmp(mn, narrow[i].mnemonic) == 0)
			reg_size = narrow[i].size;
	}
	unsigned size = reg_size * (pair ? 2 : 1);
	// ld1 {v0.16b, v1.16b}, [x0]: the whole register list.
	if ((load || store) && mn[2] >= '1' && mn[2] <= '4' && regs > 1)
		size = reg_size * regs;
	*access_ret = access;
	*size_ret = size;
	return atomic;
}

static void fill_from_insn(csh h, const cs_insn *insn, const struct ct_insn_ctx *ctx, struct ct_insn_facts *f)
{
	const cs_arm64 *a = &insn->detail->arm64;
	const char *mn = insn->mnemonic;
	f->decoded = true;
	f->address = insn->address;
	snprintf(f->text, sizeof(f->text), "%.31s%s%.63s", mn, insn->op_str[0] ? " " : "", insn->op_str);
	f->size = insn->size;
	memcpy(f->bytes, insn->bytes, insn->size < sizeof(f->bytes) ? insn->size : sizeof(f->bytes));

	enum ct_access access;
	unsigned size;
	bool atomic = ct_insn_arm64_access(h, insn, &access, &size);
	for (uint8_t i = 0; i < a->op_count && f->num_mem < CT_MAX_MEM_OPERANDS; i++) {
		const cs_arm64_op *op = &a->operands[i];
		if (op->type != ARM64_OP_MEM)
			continue;
		fill_mem(h, op, ctx, size, access, &f->mem[f->num_mem++]);
	}
	if (f->num_mem && f->mem[0].access != CT_ACCESS_NONE) {
		f->fault_mem = 0;
		f->access = f->mem[0].access;
	}
	if (prefix_in(mn, aligned_always) || atomic) {
		f->needs_alignment = true;
		f->alignment = size ? size : 8;
	}

	for (uint8_t g = 0; g < insn->detail->groups_count; g++) {
		switch (insn->detail->groups[g]) {
		case ARM64_GRP_CALL: f->is_call = true; break;
		case ARM64_GRP_JUMP: f->is_jump = true; break;
		case ARM64_GRP_RET: f->is_ret = true; break;
		case ARM64_GRP_PRIVILEGE: f->is_privileged = true; break;
		default: break;
		}
	}
	// capstone 4 puts bl/blr in the call group and b/br/cbz/tbz in the jump group; check by id too.
	if (insn->id == ARM64_INS_BL || insn->id == ARM64_INS_BLR)
		f->is_call = true;
	if (insn->id == ARM64_INS_BR || insn->id == ARM64_INS_B)
		f->is_jump = !f->is_call;
	if (insn->id == ARM64_INS_RET)
		f->is_ret = true;
	if (f->is_ret) {
		f->is_jump = false;
		// ret [xn]: x30 by default.
		arm64_reg r = a->op_count && a->operands[0].type == ARM64_OP_REG ? a->operands[0].reg : ARM64_REG_X30;
		uint64_t v;
		if (reg_value(ctx, r, &v)) {
			f->has_return_address = true;
			f->return_address = v;
		}
	} else if ((insn->id == ARM64_INS_BR || insn->id == ARM64_INS_BLR) && a->op_count == 1 &&
		   a->operands[0].type == ARM64_OP_REG) {
		f->is_indirect_branch = true;
		uint64_t v;
		if (reg_value(ctx, a->operands[0].reg, &v)) {
			f->has_branch_target = true;
			f->branch_target = v;
		}
	} else if ((f->is_call || f->is_jump) && a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM) {
		f->has_branch_target = true;
		f->branch_target = (uint64_t)a->operands[a->op_count - 1].imm;
	}
	// brk #imm: __builtin_trap is brk #0x3e8 (GCC, LLVM), SIGTRAP with pc at the brk. hlt: debug halt.
	if (insn->id == ARM64_INS_BRK || insn->id == ARM64_INS_HLT)
		f->is_trap = true;
}

bool ct_insn_decode_arm64(const uint8_t *code, size_t len, const struct ct_insn_ctx *ctx, struct ct_insn_facts *f)
{
	if (!code || len < 4)
		return true;
	uint32_t w = word_at(code);
	// udf #imm16 (0x0000xxxx, permanently undefined): capstone 4 does not decode it.
	if ((w & 0xffff0000) == 0) {
		f->decoded = true;
		f->is_trap = true;
		f->size = 4;
		snprintf(f->text, sizeof(f->text), "udf #0x%x", w & 0xffff);
		return true;
	}
	csh h;
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &h) != CS_ERR_OK)
		return true;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = NULL;
	size_t n = cs_disasm(h, code, 4, ctx->pc, 1, &insn);
	if (n == 1)
		fill_from_insn(h, insn, ctx, f);
	if (n)
		cs_free(insn, n);
	cs_close(&h);
	return true;
}

bool ct_insn_call_before_arm64(const uint8_t *code, size_t len, uint64_t ret_addr, struct ct_call_site *ret)
{
	if (len < 4 || ret_addr < 4)
		return false;
	uint32_t w = word_at(code + len - 4);
	uint64_t at = ret_addr - 4;
	if ((w & 0xfc000000) == 0x94000000) { // bl imm26
		*ret = (struct ct_call_site){ .address = at, .has_target = true,
					      .target = at + (uint64_t)(sext(w & 0x3ffffff, 26) * 4) };
		return true;
	}
	if ((w & 0xfffffc1f) == 0xd63f0000) { // blr xn
		*ret = (struct ct_call_site){ .address = at };
		return true;
	}
	return false;
}

