// riscv64 call sites and PLT stubs, decoded by hand (capstone 4 has no RISC-V; the RISC-V
// Unprivileged ISA 20191213, ch. 2 and 16, gives the encodings). Only what the abort-family
// evidence needs: the call that ends at a return address, and the GOT slot of a PLT stub.
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

bool ct_insn_plt_slot_riscv64(const uint8_t *code, size_t len, uint64_t stub, uint64_t *slot_ret)
{
	// BFD ld's riscv PLT entry (elfnn-riscv.c riscv_make_plt_entry): auipc t3, %pcrel_hi(slot);
	// ld t3, %pcrel_lo(slot)(t3); jalr t1, t3; nop.
	if (len < 8)
		return false;
	uint32_t a = word_at(code), l = word_at(code + 4);
	if ((a & 0xfff) != (0x17 | REG_T3 << 7))
		return false;
	// ld: opcode 0x03, funct3 3, rd = rs1 = t3.
	if ((l & 0xfffff) != (0x03 | REG_T3 << 7 | 3 << 12 | REG_T3 << 15))
		return false;
	*slot_ret = stub + (uint64_t)sext(a & 0xfffff000, 32) + (uint64_t)sext(l >> 20, 12);
	return true;
}
