// The capstone-detail decoder of the architectures without a hand-written one (insn_generic.c):
// arm's push/vpush store below sp without naming a memory operand, so the access is computed from
// sp; a store with a memory operand takes its address from the operand. Encodings from the ARM ARM.
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "test.h"
#include "triage/insn.h"

#define CPSR_THUMB (1u << 5)

static bool decode_arm(const uint8_t *code, size_t len, bool thumb, struct ct_insn_facts *f)
{
	const struct ct_arch_info *arch = ct_arch_find(EM_ARM, ELFCLASS32);
	uint64_t regs[16] = { 0 }, values[18] = { 0 };
	bool valid[16];
	for (int i = 0; i < 16; i++)
		valid[i] = true;
	regs[3] = 0x40000fd4; // r3
	regs[13] = 0x40001000; // sp, at the low end of the stack mapping
	values[16] = thumb ? CPSR_THUMB : 0; // cpsr, in the table's order (r0..r15, cpsr)
	struct ct_insn_ctx ctx = { .regs = regs, .valid = valid, .num_regs = 16, .pc = 0x10842, .values = values,
				   .num_values = 18 };
	memset(f, 0, sizeof(*f));
	return arch && ct_insn_decode_generic(arch, code, len, &ctx, f);
}

TEST(arm_thumb_push_writes_below_sp)
{
	static const uint8_t push_r7_lr[] = { 0x80, 0xb5 }; // push {r7, lr}
	struct ct_insn_facts f;
	CHECK(decode_arm(push_r7_lr, sizeof(push_r7_lr), true, &f));
	CHECK_STR(f.text, "push {r7, lr}");
	CHECK(f.access == CT_ACCESS_WRITE);
	CHECK(f.has_implicit_address);
	CHECK_EQ(f.implicit_address, 0x40001000u - 8);
	CHECK_EQ(f.fault_mem, -1);
}

TEST(arm_push_and_vpush_sizes)
{
	static const uint8_t push_r4_r11_lr[] = { 0xf0, 0x4f, 0x2d, 0xe9 }; // push {r4-r11, lr}: 9 words
	static const uint8_t vpush_d8_d9[] = { 0x04, 0x8b, 0x2d, 0xed }; // vpush {d8, d9}: 16 bytes
	struct ct_insn_facts f;
	CHECK(decode_arm(push_r4_r11_lr, sizeof(push_r4_r11_lr), false, &f));
	CHECK(f.has_implicit_address);
	CHECK_EQ(f.implicit_address, 0x40001000u - 36);
	CHECK(decode_arm(vpush_d8_d9, sizeof(vpush_d8_d9), false, &f));
	CHECK(f.has_implicit_address);
	CHECK_EQ(f.implicit_address, 0x40001000u - 16);
}

TEST(arm_store_takes_its_operand)
{
	static const uint8_t str_r0_r3[] = { 0x18, 0x60 }; // str r0, [r3]
	struct ct_insn_facts f;
	CHECK(decode_arm(str_r0_r3, sizeof(str_r0_r3), true, &f));
	CHECK(!f.has_implicit_address);
	CHECK(f.fault_mem == 0);
	CHECK(f.access == CT_ACCESS_WRITE);
	CHECK(f.mem[0].has_address);
	CHECK_EQ(f.mem[0].address, 0x40000fd4u);
}

TEST_MAIN()
