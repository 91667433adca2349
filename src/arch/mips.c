// mips o32 (ELFCLASS32) and n64 (ELFCLASS64), both byte orders: NT_PRSTATUS pr_reg is 45 words
// {(o32: 6 unused), r0..r31, lo, hi, cp0_epc, cp0_badvaddr, cp0_status, cp0_cause}
// (arch/mips/include/asm/reg.h, EF_R0 = 6 on 32-bit, 0 on 64-bit). DWARF r0..r31 = 0..31; the pc
// (epc) has none. elfutils 0.188 has no mips backend: libdwfl cannot unwind these (see
// docs/architectures.md); our own walk (registers, the prologue's stack adjustment and return-address
// slot, the link register, validated scan) unwinds them.
// n32 is ELFCLASS32 with the 64-bit register layout after a 32-bit prstatus header (pr_reg at 72,
// 440-byte NT_PRSTATUS); cores do not set EF_MIPS_ABI2, so the note's size tells n32 from o32.
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"
#include "util/bytes.h"

#define REG(name, n, w, base) { name, n, ((base) + (n)) * (w), w }
#define REGS(w, b)                                                                                       \
	REG("zero", 0, w, b), REG("at", 1, w, b), REG("v0", 2, w, b), REG("v1", 3, w, b), REG("a0", 4, w, b), \
		REG("a1", 5, w, b), REG("a2", 6, w, b), REG("a3", 7, w, b), REG("t0", 8, w, b),               \
		REG("t1", 9, w, b), REG("t2", 10, w, b), REG("t3", 11, w, b), REG("t4", 12, w, b),            \
		REG("t5", 13, w, b), REG("t6", 14, w, b), REG("t7", 15, w, b), REG("s0", 16, w, b),           \
		REG("s1", 17, w, b), REG("s2", 18, w, b), REG("s3", 19, w, b), REG("s4", 20, w, b),           \
		REG("s5", 21, w, b), REG("s6", 22, w, b), REG("s7", 23, w, b), REG("t8", 24, w, b),           \
		REG("t9", 25, w, b), REG("k0", 26, w, b), REG("k1", 27, w, b), REG("gp", 28, w, b),           \
		REG("sp", 29, w, b), REG("fp", 30, w, b), REG("ra", 31, w, b), { "lo", -1, ((b) + 32) * (w), w }, \
		{ "hi", -1, ((b) + 33) * (w), w }, { "pc", -1, ((b) + 34) * (w), w },                         \
		{ "badvaddr", -1, ((b) + 35) * (w), w }, { "status", -1, ((b) + 36) * (w), w },                \
		{ "cause", -1, ((b) + 37) * (w), w }

static const struct ct_arch_reg regs_mips[] = { REGS(4, 6) };
static const struct ct_arch_reg regs_mips64[] = { REGS(8, 0) };

// jal (op 3), jalr (SPECIAL funct 9), bal/bgezal/bltzal (REGIMM rt 0x10/0x11), then the delay slot.
static bool is_call_mips(uint32_t insn)
{
	uint32_t op = insn >> 26;
	return op == 3 || (op == 0 && (insn & 0x3f) == 9) || (op == 1 && ((insn >> 16) & 0x1e) == 0x10);
}

static bool is_after_call_mips_be(const uint8_t *b, size_t len)
{
	return len >= 8 && is_call_mips(ct_load32(b + len - 8, true));
}

static bool is_after_call_mips_le(const uint8_t *b, size_t len)
{
	return len >= 8 && is_call_mips(ct_load32(b + len - 8, false));
}

// Linux mips signal numbers -> asm-generic (arch/mips/include/uapi/asm/signal.h).
static const uint8_t generic_signal_mips[32] = {
	[10] = 7,  [12] = 31, [16] = 10, [17] = 12, [18] = 17, [19] = 30, [20] = 28, [21] = 23,
	[22] = 29, [23] = 19, [24] = 20, [25] = 18, [26] = 21, [27] = 22, [28] = 26, [29] = 27,
	[30] = 24, [31] = 25,
};

// The prologue gcc emits: addiu/daddiu sp, sp, -N, then sw/sd ra, off(sp) (MIPS32/MIPS64 ISA:
// opcodes 001001/011001 with rs = rt = 29, 101011/111111 with rs = 29, rt = 31). Only instructions
// before the pc count: a crash inside the prologue sees the frame as far as it was built.
static bool prologue_mips(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t *frame_size,
			  int64_t *ra_offset)
{
	bool found = false;
	*frame_size = 0;
	*ra_offset = -1;
	for (size_t i = 0; i + 4 <= len && i < 64 * 4; i += 4) {
		uint32_t insn = ct_load32(code + i, arch->big_endian);
		int16_t imm = (int16_t)(insn & 0xffff);
		uint32_t hi = insn >> 16;
		if ((hi == 0x27bd || hi == 0x67bd) && imm < 0 && !found) {
			*frame_size = (uint64_t)(-(int32_t)imm);
			found = true;
		} else if ((hi == 0xafbf || hi == 0xffbf) && imm >= 0 && found) {
			*ra_offset = imm;
		} else if (insn == 0x03e00008) {
			break; // jr ra: the end of the function, not of its prologue
		}
	}
	return found;
}

// o32's signal frames (arch/mips/kernel/signal.c): both start with 4 argument-save words and 2 pad
// words; the handler is entered, and returns to its trampoline, with sp = the frame. struct sigframe
// (sa_handler): struct sigcontext at 24. struct rt_sigframe: siginfo at 24, struct ucontext at 152
// (uc_flags, uc_link, uc_stack, then struct sigcontext at 24). struct sigcontext (asm/sigcontext.h):
// sc_regmask, sc_status, then sc_pc and sc_regs[32] as 8-byte words even on o32. The trampolines
// (vdso, qemu-user): li v0, 4193 (__NR_rt_sigreturn) or 4119 (__NR_sigreturn); syscall.
#define SC_MIPS(n) { n, 16 + (n) * 8 }
static const struct ct_arch_sigreg sigregs_mips[] = {
	SC_MIPS(1),  SC_MIPS(2),	 SC_MIPS(3),  SC_MIPS(4),  SC_MIPS(5),	SC_MIPS(6),  SC_MIPS(7),  SC_MIPS(8),
	SC_MIPS(9),  SC_MIPS(10), SC_MIPS(11), SC_MIPS(12), SC_MIPS(13), SC_MIPS(14), SC_MIPS(15), SC_MIPS(16),
	SC_MIPS(17), SC_MIPS(18), SC_MIPS(19), SC_MIPS(20), SC_MIPS(21), SC_MIPS(22), SC_MIPS(23), SC_MIPS(24),
	SC_MIPS(25), SC_MIPS(26), SC_MIPS(27), SC_MIPS(28), SC_MIPS(29), SC_MIPS(30), SC_MIPS(31),
};
static const uint8_t restorer_mips_rt_be[] = { 0x24, 0x02, 0x10, 0x61, 0x00, 0x00, 0x00, 0x0c };
static const uint8_t restorer_mips_be[] = { 0x24, 0x02, 0x10, 0x17, 0x00, 0x00, 0x00, 0x0c };
static const uint8_t restorer_mips_rt_le[] = { 0x61, 0x10, 0x02, 0x24, 0x0c, 0x00, 0x00, 0x00 };
static const uint8_t restorer_mips_le[] = { 0x17, 0x10, 0x02, 0x24, 0x0c, 0x00, 0x00, 0x00 };
#define SIGFRAME_MIPS(uc, mc, code, more)                                                                \
	{                                                                                                 \
		.ucontext_at = uc, .siginfo_at = 24, .no_siginfo = (mc) == 0, .mcontext = mc, .pc = 8,      \
		.sp = 16 + 29 * 8, CT_SIGFRAME_NO_TRAP_FIELDS,   \
		.word = 8, .regs = sigregs_mips, .num_regs = sizeof(sigregs_mips) / sizeof(sigregs_mips[0]), \
		.restorer = code, .restorer_len = sizeof(code), .next = more,                                 \
	}
static const struct ct_arch_sigframe sigframe_mips_legacy_be = SIGFRAME_MIPS(24, 0, restorer_mips_be, NULL);
static const struct ct_arch_sigframe sigframe_mips_be = SIGFRAME_MIPS(152, 24, restorer_mips_rt_be, &sigframe_mips_legacy_be);
static const struct ct_arch_sigframe sigframe_mips_legacy_le = SIGFRAME_MIPS(24, 0, restorer_mips_le, NULL);
static const struct ct_arch_sigframe sigframe_mips_le = SIGFRAME_MIPS(152, 24, restorer_mips_rt_le, &sigframe_mips_legacy_le);

#define MIPS_COMMON                                                                                       \
	.e_machine = EM_MIPS, .pc_dwarf = -1, .sp_dwarf = 29, .fp_dwarf = 30, .ra_dwarf = 31,               \
	.pc_index = 34, .num_dwarf = 32, .bad_call = CT_BAD_CALL_LINK_REGISTER, .cs_arch = CS_ARCH_MIPS,     \
	.user_address_limit = 0, .fp_rule = CT_FP_NONE, .insn_decoder = CT_INSN_GENERIC,                      \
	.generic_signal = generic_signal_mips, .siginfo_code_first = true, .prologue = prologue_mips

// One table per ABI and byte order: o32 (4-byte registers after 6 unused words, pr_reg at 72),
// n64 (8-byte registers, pr_reg at 112), n32 (n64's registers after o32's header).
#define MIPS_TABLE(sym, str, cls, ptr, reg_table, reg_off, reg_bytes, mode, be, kernel, sf)              \
	const struct ct_arch_info sym = {                                                                 \
		MIPS_COMMON,                                                                              \
		.name = str,                                                                              \
		.elf_class = cls,                                                                         \
		.pointer_size = ptr,                                                                      \
		.regs = reg_table,                                                                        \
		.num_regs = sizeof(reg_table) / sizeof(reg_table[0]),                                     \
		.prstatus_reg_offset = reg_off,                                                           \
		.prstatus_reg_size = 45 * (reg_bytes),                                                    \
		.cs_mode = (mode) | ((be) ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN),                  \
		.is_after_call = (be) ? is_after_call_mips_be : is_after_call_mips_le,                    \
		.big_endian = be,                                                                         \
		.kernel_address_start = kernel,                                                           \
		.sigframe = sf,                                                                           \
		/* struct elf_prstatus (n32: the 32-bit header): pr_utime after pr_pid, pr_ppid, pr_pgrp, pr_sid */ \
		.prstatus_utime_offset = (cls) == ELFCLASS64 ? 48 : 40,                                   \
		.prstatus_time_word = (cls) == ELFCLASS64 ? 8 : 4,                                        \
	}

// Signal frames are described for o32 only (n64 and n32 have their own sigcontext use and numbers).
MIPS_TABLE(ct_arch_mips, "mips", ELFCLASS32, 4, regs_mips, 72, 4, CS_MODE_MIPS32, true, 0x80000000ULL, &sigframe_mips_be);
MIPS_TABLE(ct_arch_mipsel, "mipsel", ELFCLASS32, 4, regs_mips, 72, 4, CS_MODE_MIPS32, false, 0x80000000ULL,
	   &sigframe_mips_le);
MIPS_TABLE(ct_arch_mips64, "mips64", ELFCLASS64, 8, regs_mips64, 112, 8, CS_MODE_MIPS64, true,
	   0x8000000000000000ULL, NULL);
MIPS_TABLE(ct_arch_mips64el, "mips64el", ELFCLASS64, 8, regs_mips64, 112, 8, CS_MODE_MIPS64, false,
	   0x8000000000000000ULL, NULL);
MIPS_TABLE(ct_arch_mipsn32, "mipsn32", ELFCLASS32, 4, regs_mips64, 72, 8, CS_MODE_MIPS64, true, 0x80000000ULL, NULL);
MIPS_TABLE(ct_arch_mipsn32el, "mipsn32el", ELFCLASS32, 4, regs_mips64, 72, 8, CS_MODE_MIPS64, false,
	   0x80000000ULL, NULL);

const struct ct_arch_info *ct_arch_for_prstatus(const struct ct_arch_info *arch, size_t prstatus_size)
{
	if (arch == &ct_arch_mips && prstatus_size >= 72 + 45 * 8)
		return &ct_arch_mipsn32;
	if (arch == &ct_arch_mipsel && prstatus_size >= 72 + 45 * 8)
		return &ct_arch_mipsn32el;
	return arch;
}
