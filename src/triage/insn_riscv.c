// riscv64 instructions decoded by hand (capstone 4 has no RISC-V and Zydis is x86 only). Encodings
// from the RISC-V Unprivileged ISA 20191213: ch. 2 (RV32I loads, stores, jal, jalr), 5 (RV64I),
// 8 (A: lr, sc, amo*), 11-12 (F, D loads and stores) and 16 (C: the compressed forms, which objdump
// and gdb print expanded, as here). What triage needs: the faulting instruction's memory access and
// its address, calls, jumps, returns and traps; the call that ends at a return address; the GOT slot
// of a PLT stub. Anything else stays undecoded.
#include <stdio.h>
#include <string.h>

#include "triage/insn.h"

/** Register numbers of the psABI: ra = x1, t3 = x28. */
#define REG_RA 1
#define REG_T3 28

static uint32_t word_at(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ULL << (bits - 1);
	v &= (bits >= 64 ? ~0ULL : (1ULL << bits) - 1);
	return (int64_t)((v ^ m) - m);
}

static int64_t jal_offset(uint32_t w)
{
	// imm[20|10:1|11|19:12] in bits 31..12.
	uint64_t imm = ((uint64_t)(w >> 31) << 20) | (((w >> 21) & 0x3ff) << 1) | (((w >> 20) & 1) << 11) |
		       (((w >> 12) & 0xff) << 12);
	return sext(imm, 21);
}

bool ct_insn_call_before_riscv64(const uint8_t *code, size_t len, uint64_t ret_addr, struct ct_call_site *ret)
{
	if (len >= 4 && ret_addr >= 4) {
		uint32_t w = word_at(code + len - 4);
		uint64_t at = ret_addr - 4;
		// jal ra, offset: opcode 0x6f, rd = ra.
		if ((w & 0xfff) == (0x6f | REG_RA << 7)) {
			*ret = (struct ct_call_site){ .address = at, .has_target = true,
						      .target = at + (uint64_t)jal_offset(w) };
			return true;
		}
		// jalr ra, lo(rs1): opcode 0x67, funct3 0, rd = ra. With "auipc rs1, hi" just before it
		// (the `call` pseudo-instruction) the target is known.
		if ((w & 0x7fff) == (0x67 | REG_RA << 7)) {
			unsigned rs1 = (w >> 15) & 0x1f;
			struct ct_call_site s = { .address = at };
			if (len >= 8) {
				uint32_t a = word_at(code + len - 8);
				if ((a & 0x7f) == 0x17 && ((a >> 7) & 0x1f) == rs1 && rs1) {
					s.address = at - 4;
					s.has_target = true;
					s.target = s.address + (uint64_t)sext(a & 0xfffff000, 32) + (uint64_t)sext(w >> 20, 12);
				}
			}
			*ret = s;
			return true;
		}
	}
	// c.jalr rs1 (16-bit): funct4 1001, rs2 0, op 10; an indirect call.
	if (len >= 2 && ret_addr >= 2) {
		uint16_t h = (uint16_t)(code[len - 2] | code[len - 1] << 8);
		if ((h & 0xf07f) == 0x9002 && ((h >> 7) & 0x1f)) {
			*ret = (struct ct_call_site){ .address = ret_addr - 2 };
			return true;
		}
	}
	return false;
}

static const char *const xreg[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};
static const char *const freg[32] = {
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5",
	"fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
};

// x0 reads as zero; other registers from the thread's (DWARF x0-x31 = 0-31).
static bool xvalue(const struct ct_insn_ctx *ctx, unsigned r, uint64_t *v)
{
	if (r == 0) {
		*v = 0;
		return true;
	}
	if (r >= ctx->num_regs || !ctx->valid[r])
		return false;
	*v = ctx->regs[r];
	return true;
}

/** A load or store: @p data the loaded/stored register's name, @p base_reg the address register. */
static void memory(struct ct_insn_facts *f, const struct ct_insn_ctx *ctx, const char *mnemonic, const char *data,
		   unsigned base_reg, int64_t disp, unsigned size, enum ct_access access)
{
	struct ct_mem_operand *op = &f->mem[0];
	memset(op, 0, sizeof(*op));
	op->base = xreg[base_reg];
	op->base_dwarf = (int)base_reg;
	op->disp = disp;
	op->size = size;
	op->access = access;
	uint64_t base;
	op->has_base_value = xvalue(ctx, base_reg, &base);
	if (op->has_base_value) {
		op->base_value = base;
		op->has_address = true;
		op->address = base + (uint64_t)disp;
	}
	snprintf(op->text, sizeof(op->text), "%lld(%s)", (long long)disp, xreg[base_reg]);
	if (data)
		snprintf(f->text, sizeof(f->text), "%s %s, %s", mnemonic, data, op->text);
	else
		snprintf(f->text, sizeof(f->text), "%s %s", mnemonic, op->text);
	f->num_mem = 1;
	f->fault_mem = 0;
	f->access = access;
	f->decoded = true;
}

static void branch_to_register(struct ct_insn_facts *f, const struct ct_insn_ctx *ctx, unsigned rd, unsigned rs1,
			       int64_t imm, const char *text)
{
	f->decoded = true;
	snprintf(f->text, sizeof(f->text), "%s", text);
	if (rd == 0 && rs1 == REG_RA && imm == 0) {
		f->is_ret = true;
		return;
	}
	f->is_call = rd == REG_RA;
	f->is_jump = !f->is_call;
	f->is_indirect_branch = true;
	uint64_t v;
	if (xvalue(ctx, rs1, &v)) {
		f->has_branch_target = true;
		f->branch_target = (v + (uint64_t)imm) & ~1ULL;
	}
}

static bool decode32(uint32_t w, const struct ct_insn_ctx *ctx, struct ct_insn_facts *f)
{
	unsigned opcode = w & 0x7f, rd = (w >> 7) & 31, funct3 = (w >> 12) & 7, rs1 = (w >> 15) & 31,
		 rs2 = (w >> 20) & 31;
	int64_t imm_i = sext(w >> 20, 12), imm_s = sext(((w >> 25) << 5) | rd, 12);
	static const char *const loads[8] = { "lb", "lh", "lw", "ld", "lbu", "lhu", "lwu", NULL };
	static const char *const stores[8] = { "sb", "sh", "sw", "sd" };
	static const char *const fp[8] = { NULL, "h", "w", "d", "q" }; // flh/flw/fld/flq, fsh/…
	char m[16];
	switch (opcode) {
	case 0x03:
		if (!loads[funct3])
			return false;
		memory(f, ctx, loads[funct3], xreg[rd], rs1, imm_i, 1u << (funct3 & 3), CT_ACCESS_READ);
		return true;
	case 0x23:
		if (funct3 > 3)
			return false;
		memory(f, ctx, stores[funct3], xreg[rs2], rs1, imm_s, 1u << funct3, CT_ACCESS_WRITE);
		return true;
	case 0x07:
	case 0x27:
		if (!fp[funct3]) // the other widths of these opcodes are vector loads and stores
			return false;
		snprintf(m, sizeof(m), "f%s%s", opcode == 0x07 ? "l" : "s", fp[funct3]);
		memory(f, ctx, m, freg[opcode == 0x07 ? rd : rs2], rs1, opcode == 0x07 ? imm_i : imm_s, 1u << funct3,
		       opcode == 0x07 ? CT_ACCESS_READ : CT_ACCESS_WRITE);
		return true;
	case 0x2f: {
		if (funct3 != 2 && funct3 != 3)
			return false;
		static const struct {
			unsigned funct5;
			const char *name;
		} amo[] = { { 0x02, "lr" },     { 0x03, "sc" },     { 0x01, "amoswap" }, { 0x00, "amoadd" },
			    { 0x04, "amoxor" }, { 0x0c, "amoand" }, { 0x08, "amoor" },   { 0x10, "amomin" },
			    { 0x14, "amomax" }, { 0x18, "amominu" }, { 0x1c, "amomaxu" } };
		unsigned funct5 = w >> 27;
		for (size_t i = 0; i < sizeof(amo) / sizeof(amo[0]); i++) {
			if (amo[i].funct5 != funct5)
				continue;
			snprintf(m, sizeof(m), "%s.%c", amo[i].name, funct3 == 2 ? 'w' : 'd');
			// lr reads; sc and the AMOs fault as stores (a store/AMO page fault).
			memory(f, ctx, m, xreg[rd], rs1, 0, funct3 == 2 ? 4 : 8,
			       funct5 == 0x02 ? CT_ACCESS_READ : CT_ACCESS_WRITE);
			// As objdump writes them: "lr.d a0, (a1)", "amoadd.w a0, a1, (a2)".
			if (funct5 == 0x02)
				snprintf(f->text, sizeof(f->text), "%s %s, (%s)", m, xreg[rd], xreg[rs1]);
			else
				snprintf(f->text, sizeof(f->text), "%s %s, %s, (%s)", m, xreg[rd], xreg[rs2], xreg[rs1]);
			return true;
		}
		return false;
	}
	case 0x6f: {
		f->decoded = true;
		f->is_call = rd == REG_RA;
		f->is_jump = !f->is_call;
		f->has_branch_target = true;
		f->branch_target = ctx->pc + (uint64_t)jal_offset(w);
		snprintf(f->text, sizeof(f->text), "%s 0x%llx", f->is_call ? "jal" : "j",
			 (unsigned long long)f->branch_target);
		return true;
	}
	case 0x67: {
		if (funct3 != 0)
			return false;
		char t[48];
		snprintf(t, sizeof(t), "jalr %s, %lld(%s)", xreg[rd], (long long)imm_i, xreg[rs1]);
		branch_to_register(f, ctx, rd, rs1, imm_i, rd == 0 && rs1 == REG_RA && imm_i == 0 ? "ret" : t);
		return true;
	}
	case 0x73:
		if (w == 0x00100073 || w == 0xc0001073) { // ebreak; unimp (csrrw zero, cycle, zero)
			f->decoded = true;
			f->is_trap = true;
			f->is_breakpoint = w == 0x00100073;
			snprintf(f->text, sizeof(f->text), "%s", f->is_breakpoint ? "ebreak" : "unimp");
			return true;
		}
		if (w == 0x00000073) {
			f->decoded = true;
			snprintf(f->text, sizeof(f->text), "ecall");
			return true;
		}
		return false;
	default: return false;
	}
}

static bool decode16(uint16_t h, const struct ct_insn_ctx *ctx, struct ct_insn_facts *f)
{
	unsigned q = h & 3, funct3 = h >> 13;
	if (h == 0) { // c.unimp: defined illegal
		f->decoded = true;
		f->is_trap = true;
		snprintf(f->text, sizeof(f->text), "c.unimp");
		return true;
	}
	if (q == 0) {
		// CL/CS: rd'/rs2' in bits 4:2, rs1' in 9:7 (x8-x15); word offsets uimm[5:3|2|6], double
		// offsets uimm[5:3|7:6].
		unsigned r2 = ((h >> 2) & 7) + 8, r1 = ((h >> 7) & 7) + 8;
		unsigned off_w = ((h >> 10) & 7) << 3 | ((h >> 6) & 1) << 2 | ((h >> 5) & 1) << 6;
		unsigned off_d = ((h >> 10) & 7) << 3 | ((h >> 5) & 3) << 6;
		switch (funct3) {
		case 1: memory(f, ctx, "fld", freg[r2], r1, off_d, 8, CT_ACCESS_READ); return true;
		case 2: memory(f, ctx, "lw", xreg[r2], r1, off_w, 4, CT_ACCESS_READ); return true;
		case 3: memory(f, ctx, "ld", xreg[r2], r1, off_d, 8, CT_ACCESS_READ); return true;
		case 5: memory(f, ctx, "fsd", freg[r2], r1, off_d, 8, CT_ACCESS_WRITE); return true;
		case 6: memory(f, ctx, "sw", xreg[r2], r1, off_w, 4, CT_ACCESS_WRITE); return true;
		case 7: memory(f, ctx, "sd", xreg[r2], r1, off_d, 8, CT_ACCESS_WRITE); return true;
		default: return false;
		}
	}
	if (q != 2)
		return false;
	unsigned rd = (h >> 7) & 31, rs2 = (h >> 2) & 31;
	// sp-relative: loads (CI) uimm[5] in bit 12, the rest in 6:2; stores (CSS) in 12:7.
	unsigned lw_sp = ((h >> 12) & 1) << 5 | ((h >> 4) & 7) << 2 | ((h >> 2) & 3) << 6;
	unsigned ld_sp = ((h >> 12) & 1) << 5 | ((h >> 5) & 3) << 3 | ((h >> 2) & 7) << 6;
	unsigned sw_sp = ((h >> 9) & 15) << 2 | ((h >> 7) & 3) << 6;
	unsigned sd_sp = ((h >> 10) & 7) << 3 | ((h >> 7) & 7) << 6;
	switch (funct3) {
	case 1: memory(f, ctx, "fld", freg[rd], 2, ld_sp, 8, CT_ACCESS_READ); return true;
	case 2:
		if (!rd)
			return false;
		memory(f, ctx, "lw", xreg[rd], 2, lw_sp, 4, CT_ACCESS_READ);
		return true;
	case 3:
		if (!rd)
			return false;
		memory(f, ctx, "ld", xreg[rd], 2, ld_sp, 8, CT_ACCESS_READ);
		return true;
	case 5: memory(f, ctx, "fsd", freg[rs2], 2, sd_sp, 8, CT_ACCESS_WRITE); return true;
	case 6: memory(f, ctx, "sw", xreg[rs2], 2, sw_sp, 4, CT_ACCESS_WRITE); return true;
	case 7: memory(f, ctx, "sd", xreg[rs2], 2, sd_sp, 8, CT_ACCESS_WRITE); return true;
	case 4:
		if (rs2 != 0)
			return false; // c.mv, c.add
		if (h & 0x1000) {
			if (rd == 0) { // c.ebreak
				f->decoded = true;
				f->is_trap = f->is_breakpoint = true;
				snprintf(f->text, sizeof(f->text), "ebreak");
				return true;
			}
			char t[24];
			snprintf(t, sizeof(t), "jalr %s", xreg[rd]);
			branch_to_register(f, ctx, REG_RA, rd, 0, t);
			return true;
		}
		if (rd == 0)
			return false;
		char t[24];
		snprintf(t, sizeof(t), "jr %s", xreg[rd]);
		branch_to_register(f, ctx, 0, rd, 0, rd == REG_RA ? "ret" : t);
		return true;
	default: return false;
	}
}

bool ct_insn_decode_riscv64(const uint8_t *code, size_t len, const struct ct_insn_ctx *ctx, struct ct_insn_facts *f)
{
	if (!code || len < 2)
		return false;
	f->decoder = "coretriage";
	if ((code[0] & 3) != 3) {
		f->size = 2;
		return decode16((uint16_t)(code[0] | code[1] << 8), ctx, f);
	}
	// 32-bit forms only: the 48- and 64-bit encodings (bits 4:2 all ones) are reserved.
	if (len < 4 || (code[0] & 0x1c) == 0x1c)
		return false;
	f->size = 4;
	return decode32(word_at(code), ctx, f);
}
