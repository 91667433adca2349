// 32-bit arm (EABI): NT_PRSTATUS pr_reg is struct user_regs {r0..r15, cpsr, orig_r0}
// (arch/arm/include/asm/user.h), pr_reg at offset 72 (elfutils backends/arm_corenote.c). DWARF
// r0..r15 = 0..15 (ARM DWARF ABI); libdwfl's backend unwinds the 16 core registers. Whether the
// interrupted code ran in Thumb state is CPSR bit 5 (T).
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"

#define R(name, n) { name, n, (n) * 4, 4 }

static const struct ct_arch_reg regs_arm[] = {
	R("r0", 0),   R("r1", 1),   R("r2", 2),	  R("r3", 3), R("r4", 4),   R("r5", 5),
	R("r6", 6),   R("r7", 7),   R("r8", 8),	  R("r9", 9), R("r10", 10), R("r11", 11),
	R("r12", 12), R("sp", 13),  R("lr", 14),  R("pc", 15), { "cpsr", -1, 16 * 4, 4 },
	{ "orig_r0", -1, 17 * 4, 4 },
};

#define CPSR_INDEX 16
#define CPSR_T (1u << 5)

static uint32_t le16(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8;
}

// The caller may be ARM or Thumb code: bl/blx (ARM, cond != 0xf; blx imm has cond 0xf), blx reg;
// Thumb-2 bl/blx imm (two halfwords 11110… then 11x1…) and Thumb blx reg (0100 0111 1xxx x000).
static bool is_after_call_arm(const uint8_t *b, size_t len)
{
	if (len >= 4) {
		const uint8_t *p = b + len - 4;
		uint32_t insn = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		if ((insn & 0x0f000000) == 0x0b000000 || (insn & 0xfe000000) == 0xfa000000 ||
		    (insn & 0x0ffffff0) == 0x012fff30)
			return true;
		uint32_t hi = le16(p), lo = le16(p + 2);
		if ((hi & 0xf800) == 0xf000 && ((lo & 0xd000) == 0xd000 || (lo & 0xd001) == 0xc000))
			return true;
	}
	return len >= 2 && (le16(b + len - 2) & 0xff87) == 0x4780;
}

static int32_t sext32(uint32_t v, unsigned bits)
{
	uint32_t m = 1u << (bits - 1);
	v &= (bits == 32 ? 0xffffffffu : (1u << bits) - 1);
	return (int32_t)((v ^ m) - m);
}

// Direct calls (ARM ARM DDI 0406C A8.8.25): ARM bl (cond 1011, imm24 << 2, pc + 8) and blx imm (H
// bit), Thumb-2 bl/blx (S, J1, J2, imm10, imm11; I1 = !(J1 ^ S), I2 = !(J2 ^ S); pc + 4).
static bool call_target_arm(const uint8_t *b, size_t len, uint64_t ret_addr, uint64_t *target)
{
	if (len < 4)
		return false;
	const uint8_t *p = b + len - 4;
	uint32_t call = (uint32_t)ret_addr - 4;
	uint32_t insn = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
	uint32_t hi = le16(p), lo = le16(p + 2);
	if ((hi & 0xf800) == 0xf000 && ((lo & 0xd000) == 0xd000 || (lo & 0xd001) == 0xc000)) {
		uint32_t s = (hi >> 10) & 1, j1 = (lo >> 13) & 1, j2 = (lo >> 11) & 1;
		uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
		uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (hi & 0x3ff) << 12 | (lo & 0x7ff) << 1;
		uint32_t t = call + 4 + (uint32_t)sext32(imm, 25);
		*target = (lo & 0x1000) ? t : t & ~3u; // blx switches to ARM: word-aligned
		return true;
	}
	if ((insn & 0x0f000000) == 0x0b000000 && insn >> 28 != 0xf) {
		*target = call + 8 + (uint32_t)(sext32(insn & 0xffffff, 24) << 2);
		return true;
	}
	if ((insn & 0xfe000000) == 0xfa000000) {
		*target = call + 8 + (uint32_t)(sext32(insn & 0xffffff, 24) << 2) + ((insn >> 23) & 2);
		return true;
	}
	return false;
}

static int cs_mode_arm(const uint64_t *values, size_t n)
{
	return n > CPSR_INDEX && (values[CPSR_INDEX] & CPSR_T) ? CS_MODE_THUMB : CS_MODE_ARM;
}

// The kernel's signal frames (arch/arm/kernel/signal.c): struct sigframe {struct ucontext uc;
// retcode[]} for sa_handler, struct rt_sigframe {siginfo (128 bytes); struct sigframe sig} for
// SA_SIGINFO; the handler is entered, and its restorer reached, with sp = the frame. ucontext:
// uc_flags, uc_link, uc_stack (20 bytes), then struct sigcontext (asm/sigcontext.h): trap_no,
// error_code, oldmask, r0..r10, fp, ip, sp, lr, pc, cpsr, fault_address.
#define SC_ARM(n) { n, 12 + (n) * 4 }
static const struct ct_arch_sigreg sigregs_arm[] = {
	SC_ARM(0), SC_ARM(1), SC_ARM(2),   SC_ARM(3),	SC_ARM(4),   SC_ARM(5),	  SC_ARM(6),   SC_ARM(7),
	SC_ARM(8), SC_ARM(9), SC_ARM(10), SC_ARM(11), SC_ARM(12), SC_ARM(13), SC_ARM(14), SC_ARM(15),
};

// The restorers: glibc's (Thumb-2: mov.w r7, #nr; svc 0) and the kernel's ARM-state sigreturn_codes
// (mov r7, #nr; swi 0); 119 = __NR_sigreturn, 173 = __NR_rt_sigreturn.
static const uint8_t restorer_arm_rt_thumb[] = { 0x4f, 0xf0, 0xad, 0x07, 0x00, 0xdf };
static const uint8_t restorer_arm_rt[] = { 0xad, 0x70, 0xa0, 0xe3, 0x00, 0x00, 0x00, 0xef };
static const uint8_t restorer_arm_thumb[] = { 0x4f, 0xf0, 0x77, 0x07, 0x00, 0xdf };
static const uint8_t restorer_arm[] = { 0x77, 0x70, 0xa0, 0xe3, 0x00, 0x00, 0x00, 0xef };

#define SIGFRAME_ARM(uc, si, code, more)                                                                 \
	{                                                                                                 \
		.ucontext_at = uc, .siginfo_at = si, .no_siginfo = (uc) == 0, .mcontext = 20, .pc = 72,     \
		.sp = 64, CT_SIGFRAME_NO_TRAP_FIELDS,           \
		.word = 4, .regs = sigregs_arm, .num_regs = sizeof(sigregs_arm) / sizeof(sigregs_arm[0]),   \
		.restorer = code, .restorer_len = sizeof(code), .next = more,                                 \
	}
static const struct ct_arch_sigframe sigframe_arm_legacy = SIGFRAME_ARM(0, 0, restorer_arm, NULL);
static const struct ct_arch_sigframe sigframe_arm_legacy_thumb =
	SIGFRAME_ARM(0, 0, restorer_arm_thumb, &sigframe_arm_legacy);
static const struct ct_arch_sigframe sigframe_arm_rt_arm = SIGFRAME_ARM(128, 0, restorer_arm_rt, &sigframe_arm_legacy_thumb);
static const struct ct_arch_sigframe sigframe_arm = SIGFRAME_ARM(128, 0, restorer_arm_rt_thumb, &sigframe_arm_rt_arm);

// BFD ld's elf32_arm_plt0_entry (20 bytes) and its short 3-word stubs; long (4-word) stubs and
// Thumb entry veneers do not fit the table: their PLT stays unnamed.
static const struct ct_arch_plt plt_arm[] = { { ".plt", 20, 12, false, NULL }, { NULL, 0, 0, false, NULL } };

const struct ct_arch_info ct_arch_arm = {
	.name = "arm",
	.e_machine = EM_ARM,
	.elf_class = ELFCLASS32,
	.pointer_size = 4,
	.regs = regs_arm,
	.num_regs = sizeof(regs_arm) / sizeof(regs_arm[0]),
	.pc_dwarf = 15,
	.sp_dwarf = 13,
	.fp_dwarf = 11,
	.ra_dwarf = 14,
	.pc_index = 15,
	.num_dwarf = 16,
	.prstatus_reg_offset = 72,
	.prstatus_reg_size = 18 * 4,
	.bad_call = CT_BAD_CALL_LINK_REGISTER,
	.cs_arch = CS_ARCH_ARM,
	.cs_mode = CS_MODE_ARM,
	.user_address_limit = 0,
	.is_after_call = is_after_call_arm,
	// gcc's arm frame pointer is r11 in ARM state and r7 in Thumb state, pointing at different
	// places of the frame: no generic chain step, CFI and the validated scan instead.
	.fp_rule = CT_FP_NONE,
	.insn_decoder = CT_INSN_GENERIC,
	.kernel_address_start = 0,
	// Thumb return addresses carry the interworking bit 0 (lr, saved lr, CFI-unwound pcs).
	.pc_mask = 0xfffffffe,
	.cs_mode_for = cs_mode_arm,
	.call_target = call_target_arm,
	.plt = plt_arm,
	.plt_irelative = R_ARM_IRELATIVE,
	.plt_got_reserved = 3,
	.sigframe = &sigframe_arm,
	// struct elf_prstatus with 4-byte longs: pr_pid at 24, pr_ppid, pr_pgrp, pr_sid, pr_utime at 40.
	.prstatus_utime_offset = 40,
	.prstatus_time_word = 4,
};
