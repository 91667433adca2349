// Faulting-instruction facts from capstone's operand details for the architectures without a
// decoder of their own (32-bit arm, ppc, s390, mips, sparc): the text, calls/returns/jumps (capstone
// groups), the memory operand's effective address from the thread's registers (base + index +
// displacement, registers matched to the arch table by name), the access kind (arm: capstone's
// operand access; elsewhere load/store mnemonics), and traps (udf/bkpt, tw/td/trap, break/teq,
// ta). What x86 and aarch64 also get and these do not (divisor values, alignment rules, PLT and
// frame-slot patterns) is listed in docs/architectures.md.
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "triage/insn.h"

/** capstone's register names that differ from the arch tables' (arm's APCS names, s390 numbers). */
static const char *canonical_reg_name(const struct ct_arch_info *arch, const char *name, char *buf, size_t size)
{
	static const char *const arm_alias[][2] = { { "sb", "r9" }, { "sl", "r10" }, { "fp", "r11" }, { "ip", "r12" } };
	if (arch->cs_arch == CS_ARCH_ARM) {
		for (size_t i = 0; i < sizeof(arm_alias) / sizeof(arm_alias[0]); i++) {
			if (strcmp(name, arm_alias[i][0]) == 0)
				return arm_alias[i][1];
		}
	}
	if (arch->cs_arch == CS_ARCH_SYSZ && name[0] >= '0' && name[0] <= '9') {
		snprintf(buf, size, "r%s", name);
		return buf;
	}
	if (arch->cs_arch == CS_ARCH_MIPS && strcmp(name, "s8") == 0)
		return "fp";
	return name;
}

/** The arch table's entry for capstone register @p reg, NULL when it has none. */
static const struct ct_arch_reg *table_reg(const struct ct_arch_info *arch, csh h, unsigned reg)
{
	const char *name = reg ? cs_reg_name(h, reg) : NULL;
	if (!name)
		return NULL;
	char buf[16];
	name = canonical_reg_name(arch, name, buf, sizeof(buf));
	for (size_t i = 0; i < arch->num_regs; i++) {
		if (strcmp(arch->regs[i].name, name) == 0)
			return &arch->regs[i];
	}
	return NULL;
}

/** DWARF number of capstone register @p reg, -2 for a register that reads as zero, -1 unknown. */
static int reg_dwarf(const struct ct_arch_info *arch, csh h, unsigned reg)
{
	const struct ct_arch_reg *r = table_reg(arch, h, reg);
	if (r && (strcmp(r->name, "zero") == 0 || strcmp(r->name, "g0") == 0))
		return -2;
	return r ? r->dwarf : -1;
}

/** A static name for capstone register @p reg: the arch table's, else capstone's. */
static const char *reg_name(const struct ct_arch_info *arch, csh h, unsigned reg)
{
	const struct ct_arch_reg *r = table_reg(arch, h, reg);
	return r ? r->name : cs_reg_name(h, reg);
}

static bool reg_value(const struct ct_arch_info *arch, csh h, const struct ct_insn_ctx *ctx, unsigned reg,
		      uint64_t *ret)
{
	int d = reg_dwarf(arch, h, reg);
	if (d == -2) {
		*ret = 0;
		return true;
	}
	if (d < 0 || (size_t)d >= ctx->num_regs || !ctx->valid[d])
		return false;
	*ret = ctx->regs[d];
	return true;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/** Access of a load/store by its mnemonic, for capstone back ends without operand access. */
static enum ct_access access_by_mnemonic(const struct ct_arch_info *arch, const char *m)
{
	switch (arch->cs_arch) {
	case CS_ARCH_PPC:
		return m[0] == 's' && m[1] == 't' ? CT_ACCESS_WRITE : m[0] == 'l' ? CT_ACCESS_READ : CT_ACCESS_NONE;
	case CS_ARCH_SYSZ:
		// st* stores; mvc/xc/nc/oc write their first operand; l*, c* (compare), a*, n*, o*, x* read.
		if (starts_with(m, "st") || starts_with(m, "mv") || !strcmp(m, "xc") || !strcmp(m, "nc") ||
		    !strcmp(m, "oc"))
			return CT_ACCESS_WRITE;
		return CT_ACCESS_READ;
	case CS_ARCH_MIPS:
		return m[0] == 's' && strchr("bhwdc", m[1]) ? CT_ACCESS_WRITE : m[0] == 'l' ? CT_ACCESS_READ : CT_ACCESS_NONE;
	case CS_ARCH_SPARC:
		return starts_with(m, "st") ? CT_ACCESS_WRITE : starts_with(m, "ld") ? CT_ACCESS_READ : CT_ACCESS_NONE;
	default: return CT_ACCESS_NONE;
	}
}

static bool is_trap_mnemonic(const struct ct_arch_info *arch, const char *m, bool *breakpoint)
{
	*breakpoint = false;
	switch (arch->cs_arch) {
	case CS_ARCH_ARM:
		*breakpoint = !strcmp(m, "bkpt");
		return !strcmp(m, "udf") || *breakpoint;
	case CS_ARCH_PPC:
		return !strcmp(m, "trap") || (m[0] == 't' && (m[1] == 'w' || m[1] == 'd'));
	case CS_ARCH_MIPS:
		*breakpoint = !strcmp(m, "break") || !strcmp(m, "sdbbp");
		return *breakpoint || (m[0] == 't' && (starts_with(m, "teq") || starts_with(m, "tne") ||
						      starts_with(m, "tge") || starts_with(m, "tlt")));
	case CS_ARCH_SPARC:
		return m[0] == 't' && strlen(m) <= 4; // ta, tne, … (trap on condition)
	default: return false;
	}
}

struct mem_ref {
	unsigned base, index;
	int64_t disp;
	enum ct_access access; // CT_ACCESS_NONE: by the mnemonic
};

/** The (first) memory operand of @p insn, false when it has none. */
static bool memory_operand(const struct ct_arch_info *arch, const cs_insn *insn, struct mem_ref *ret)
{
	const cs_detail *d = insn->detail;
	memset(ret, 0, sizeof(*ret));
	switch (arch->cs_arch) {
	case CS_ARCH_ARM:
		for (uint8_t i = 0; i < d->arm.op_count; i++) {
			const cs_arm_op *o = &d->arm.operands[i];
			if (o->type != ARM_OP_MEM)
				continue;
			ret->base = o->mem.base;
			ret->index = o->mem.index;
			ret->disp = o->subtracted ? -(int64_t)o->mem.disp : o->mem.disp;
			ret->access = o->access & CS_AC_WRITE ? CT_ACCESS_WRITE : o->access & CS_AC_READ ? CT_ACCESS_READ
													 : CT_ACCESS_NONE;
			return true;
		}
		return false;
	case CS_ARCH_PPC:
		for (uint8_t i = 0; i < d->ppc.op_count; i++) {
			if (d->ppc.operands[i].type == PPC_OP_MEM) {
				ret->base = d->ppc.operands[i].mem.base;
				ret->disp = d->ppc.operands[i].mem.disp;
				return true;
			}
		}
		return false;
	case CS_ARCH_SYSZ:
		for (uint8_t i = 0; i < d->sysz.op_count; i++) {
			if (d->sysz.operands[i].type == SYSZ_OP_MEM) {
				ret->base = d->sysz.operands[i].mem.base;
				ret->index = d->sysz.operands[i].mem.index;
				ret->disp = d->sysz.operands[i].mem.disp;
				return true;
			}
		}
		return false;
	case CS_ARCH_MIPS:
		for (uint8_t i = 0; i < d->mips.op_count; i++) {
			if (d->mips.operands[i].type == MIPS_OP_MEM) {
				ret->base = d->mips.operands[i].mem.base;
				ret->disp = d->mips.operands[i].mem.disp;
				return true;
			}
		}
		return false;
	case CS_ARCH_SPARC:
		for (uint8_t i = 0; i < d->sparc.op_count; i++) {
			if (d->sparc.operands[i].type == SPARC_OP_MEM) {
				ret->base = d->sparc.operands[i].mem.base;
				ret->index = d->sparc.operands[i].mem.index;
				ret->disp = d->sparc.operands[i].mem.disp;
				return true;
			}
		}
		return false;
	default: return false;
	}
}

// s390's index register 0 and base 0 mean "none" (register 0 is never an address there).
static bool reg_absent(const struct ct_arch_info *arch, csh h, unsigned reg)
{
	if (!reg)
		return true;
	const char *name = cs_reg_name(h, reg);
	return arch->cs_arch == CS_ARCH_SYSZ && name && strcmp(name, "0") == 0;
}

/**
 * arm's push and vpush (stmdb/vstmdb sp!) name no memory operand: they store their register list
 * just below sp. The bytes they store, 0 for any other instruction. The stack overflow of 32-bit arm
 * code faults on the push of a function's prologue, and qemu-user's cores carry no fault address.
 */
static unsigned arm_push_bytes(const struct ct_arch_info *arch, csh h, const cs_insn *insn)
{
	if (arch->cs_arch != CS_ARCH_ARM || (insn->id != ARM_INS_PUSH && insn->id != ARM_INS_VPUSH))
		return 0;
	unsigned bytes = 0;
	for (uint8_t i = 0; i < insn->detail->arm.op_count; i++) {
		const cs_arm_op *o = &insn->detail->arm.operands[i];
		if (o->type != ARM_OP_REG)
			continue;
		const char *name = cs_reg_name(h, (unsigned)o->reg);
		// vpush of d registers stores 8 bytes each, of s registers (and push of r registers) 4.
		bytes += insn->id == ARM_INS_VPUSH && name && name[0] == 'd' ? 8 : 4;
	}
	return bytes;
}

bool ct_insn_decode_generic(const struct ct_arch_info *arch, const uint8_t *code, size_t len,
			    const struct ct_insn_ctx *ctx, struct ct_insn_facts *f)
{
	if (!code || !len || arch->cs_arch < 0)
		return false;
	csh h;
	int mode = ct_arch_cs_mode(arch, ctx->values, ctx->num_values);
	if (cs_open((cs_arch)arch->cs_arch, (cs_mode)mode, &h) != CS_ERR_OK)
		return false;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = NULL;
	size_t n = cs_disasm(h, code, len, ctx->pc, 1, &insn);
	if (n == 0) {
		cs_close(&h);
		return false;
	}
	f->decoded = true;
	f->size = insn->size;
	snprintf(f->text, sizeof(f->text), "%.31s%s%.63s", insn->mnemonic, insn->op_str[0] ? " " : "", insn->op_str);
	f->is_call = cs_insn_group(h, insn, CS_GRP_CALL);
	f->is_ret = cs_insn_group(h, insn, CS_GRP_RET);
	f->is_jump = cs_insn_group(h, insn, CS_GRP_JUMP) && !f->is_call && !f->is_ret;
	f->is_privileged = cs_insn_group(h, insn, CS_GRP_PRIVILEGE);
	bool bp;
	f->is_trap = is_trap_mnemonic(arch, insn->mnemonic, &bp);
	f->is_breakpoint = bp;
	struct mem_ref m;
	if (memory_operand(arch, insn, &m) && f->num_mem < CT_MAX_MEM_OPERANDS) {
		struct ct_mem_operand *op = &f->mem[f->num_mem];
		memset(op, 0, sizeof(*op));
		op->access = m.access != CT_ACCESS_NONE ? m.access : access_by_mnemonic(arch, insn->mnemonic);
		uint64_t base = 0, index = 0;
		op->base_dwarf = -1;
		op->disp = m.disp;
		if (!reg_absent(arch, h, m.base)) {
			op->base = reg_name(arch, h, m.base);
			op->base_dwarf = reg_dwarf(arch, h, m.base);
			op->has_base_value = reg_value(arch, h, ctx, m.base, &base);
			op->base_value = base;
		}
		if (!reg_absent(arch, h, m.index))
			op->index = reg_name(arch, h, m.index);
		bool ok = reg_absent(arch, h, m.base) || op->has_base_value;
		ok = ok && (reg_absent(arch, h, m.index) || reg_value(arch, h, ctx, m.index, &index));
		if (ok) {
			op->has_address = true;
			op->address = base + index + (uint64_t)m.disp;
			if (arch->pointer_size == 4)
				op->address &= 0xffffffffULL;
		}
		f->access = op->access;
		f->fault_mem = (int)f->num_mem;
		f->num_mem++;
	} else {
		unsigned bytes = arm_push_bytes(arch, h, insn);
		int sp = arch->sp_dwarf;
		if (bytes && sp >= 0 && (size_t)sp < ctx->num_regs && ctx->valid[sp]) {
			f->access = CT_ACCESS_WRITE;
			f->fault_mem = -1;
			f->has_implicit_address = true;
			f->implicit_address = (ctx->regs[sp] - bytes) & 0xffffffffULL;
		}
	}
	cs_free(insn, n);
	cs_close(&h);
	return true;
}
