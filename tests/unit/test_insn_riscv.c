// riscv64's hand decoder (triage/insn_riscv.c) on encodings assembled by hand from the
// RISC-V ISA manual, cross-checked against the words GNU as emits for the same instructions
// (`ld a5,8(a0)` = 00853783, `c.sdsp ra,8(sp)` = e406, `ret` = 8082).
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "triage/insn.h"

static bool decode(uint32_t word, size_t len, struct ct_insn_facts *f)
{
	uint8_t code[4] = { (uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16), (uint8_t)(word >> 24) };
	uint64_t regs[32] = { 0 };
	bool valid[32];
	for (int i = 0; i < 32; i++)
		valid[i] = true;
	regs[1] = 0x10234; // ra
	regs[2] = 0x3ffffff000; // sp
	regs[10] = 0x1000; // a0
	regs[12] = 0xdead0000; // a2
	regs[15] = 0; // a5: NULL
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = 32, .pc = 0x10100 };
	memset(f, 0, sizeof(*f));
	f->fault_mem = -1;
	return ct_insn_decode_riscv64(code, len, &ctx, f);
}

TEST(riscv_loads_and_stores)
{
	struct ct_insn_facts f;
	CHECK(decode(0x00853783, 4, &f)); // ld a5, 8(a0)
	CHECK_STR(f.text, "ld a5, 8(a0)");
	CHECK(f.access == CT_ACCESS_READ);
	CHECK(f.fault_mem == 0 && f.mem[0].has_address);
	CHECK_EQ(f.mem[0].address, 0x1008u);
	CHECK_EQ(f.mem[0].size, 8u);
	CHECK(decode(0x0007a023, 4, &f)); // sw zero, 0(a5): a store through NULL
	CHECK_STR(f.text, "sw zero, 0(a5)");
	CHECK(f.access == CT_ACCESS_WRITE);
	CHECK_EQ(f.mem[0].address, 0u);
	CHECK(decode(0xfea7bc23, 4, &f)); // sd a0, -8(a5): negative S-type offset
	CHECK_EQ(f.mem[0].disp, -8);
	CHECK_STR(f.text, "sd a0, -8(a5)");
}

TEST(riscv_compressed)
{
	struct ct_insn_facts f;
	CHECK(decode(0x651c, 2, &f)); // c.ld a5, 8(a0)
	CHECK_STR(f.text, "ld a5, 8(a0)");
	CHECK_EQ(f.mem[0].address, 0x1008u);
	CHECK_EQ(f.size, 2u);
	CHECK(decode(0xe406, 2, &f)); // c.sdsp ra, 8(sp): a prologue's store, the stack overflow's fault
	CHECK_STR(f.text, "sd ra, 8(sp)");
	CHECK(f.access == CT_ACCESS_WRITE);
	CHECK_EQ(f.mem[0].address, 0x3ffffff008u);
	CHECK(decode(0x8082, 2, &f)); // ret
	CHECK(f.is_ret);
	CHECK(decode(0x9002, 2, &f)); // c.ebreak
	CHECK(f.is_trap && f.is_breakpoint);
	CHECK(decode(0x0000, 2, &f)); // c.unimp
	CHECK(f.is_trap && !f.is_breakpoint);
}

TEST(riscv_atomics_and_branches)
{
	struct ct_insn_facts f;
	CHECK(decode(0x00b6252f, 4, &f)); // amoadd.w a0, a1, (a2)
	CHECK_STR(f.text, "amoadd.w a0, a1, (a2)");
	CHECK(f.access == CT_ACCESS_WRITE);
	CHECK_EQ(f.mem[0].address, 0xdead0000u);
	CHECK(decode(0x000780e7, 4, &f)); // jalr ra, 0(a5): a call through a NULL pointer
	CHECK(f.is_call && f.is_indirect_branch && f.has_branch_target);
	CHECK_EQ(f.branch_target, 0u);
	CHECK(decode(0x00008067, 4, &f)); // ret (jalr zero, 0(ra))
	CHECK(f.is_ret);
	CHECK(decode(0x00100073, 4, &f)); // ebreak
	CHECK(f.is_breakpoint);
	CHECK(!decode(0x00b50533, 4, &f)); // add a0, a0, a1: not an access, left undecoded
	CHECK(!f.decoded);
}

TEST_MAIN()
