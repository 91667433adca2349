// s390x and 31-bit s390: NT_PRSTATUS pr_reg is s390_regs {psw mask, psw addr, gprs[16], acrs[16]
// (4 bytes each), orig_gpr2} (arch/s390/include/uapi/asm/ptrace.h), in the class's word size;
// DWARF r0..r15 = 0..15, a0..a15 = 48..63, pswm 64, pswa 65 (s390x ELF ABI). libdwfl's backend
// unwinds r0..r15 (frame_nregs 32 with the fprs) and takes the pc separately. The 31-bit psw
// address carries the addressing-mode bit 0x80000000 (elfutils s390_normalize_pc clears it).
// Big-endian.
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"
#include "util/bytes.h"

#define G(n, w) { "r" #n, n, (2 + (n)) * (w), w }
#define A(n, w) { "a" #n, 48 + (n), 18 * (w) + (n) * 4, 4 }
#define REGS(w)                                                                                          \
	{ "pswm", 64, 0, w }, { "pswa", -1, w, w }, G(0, w), G(1, w), G(2, w), G(3, w), G(4, w), G(5, w),  \
		G(6, w), G(7, w), G(8, w), G(9, w), G(10, w), G(11, w), G(12, w), G(13, w), G(14, w),       \
		G(15, w), A(0, w), A(1, w), A(2, w), A(3, w), A(4, w), A(5, w), A(6, w), A(7, w), A(8, w),  \
		A(9, w), A(10, w), A(11, w), A(12, w), A(13, w), A(14, w), A(15, w),                        \
		{ "orig_gpr2", -1, 18 * (w) + 64, w }

static const struct ct_arch_reg regs_s390x[] = { REGS(8) };
static const struct ct_arch_reg regs_s390[] = { REGS(4) };

// brasl %r14 (c0e5 + 4 bytes), bras %r14 (a7e5 + 2 bytes), basr %r14,rX (0d eX), bas %r14 (4d e + 2 bytes).
static bool is_after_call_s390(const uint8_t *b, size_t len)
{
	if (len >= 6 && b[len - 6] == 0xc0 && (b[len - 5] & 0x0f) == 0x05)
		return true;
	if (len >= 4 && ((b[len - 4] == 0xa7 && (b[len - 3] & 0x0f) == 0x05) || b[len - 4] == 0x4d))
		return true;
	return len >= 2 && b[len - 2] == 0x0d && (b[len - 1] & 0x0f) != 0;
}

// s390x's signal frames (arch/s390/kernel/signal.c): both start with callee_used_stack[160] (the
// handler is entered, and returns to its restorer, with r15 = the frame). struct rt_sigframe: then
// svc_insn (2 bytes), siginfo at 168, struct ucontext_extended at 296 (uc_flags, uc_link, uc_stack,
// then _sigregs: psw mask, psw addr, gprs[16]). struct sigframe (sa_handler): then struct sigcontext
// {oldmask, sregs}: sregs at 168 points to its _sigregs. The restorer is svc 173 (rt_sigreturn) or
// svc 119 (sigreturn): the vdso's, qemu-user's, or older kernels' svc_insn in the frame.
#define SC_S390(n) { n, 16 + (n) * 8 }
static const struct ct_arch_sigreg sigregs_s390x[] = {
	SC_S390(0), SC_S390(1), SC_S390(2),   SC_S390(3),   SC_S390(4),	  SC_S390(5),	SC_S390(6),   SC_S390(7),
	SC_S390(8), SC_S390(9), SC_S390(10), SC_S390(11), SC_S390(12), SC_S390(13), SC_S390(14), SC_S390(15),
};
static const uint8_t restorer_s390_rt[] = { 0x0a, 0xad };
static const uint8_t restorer_s390[] = { 0x0a, 0x77 };

#define SIGFRAME_S390X(uc, indirect, mc, code, more)                                                     \
	{                                                                                                 \
		.ucontext_at = uc, .ucontext_indirect = indirect, .siginfo_at = 168, .no_siginfo = indirect,  \
		.mcontext = mc, .pc = 8, .sp = 16 + 15 * 8, CT_SIGFRAME_NO_TRAP_FIELDS, .word = 8,           \
		.regs = sigregs_s390x, .num_regs = sizeof(sigregs_s390x) / sizeof(sigregs_s390x[0]),        \
		.restorer = code, .restorer_len = sizeof(code), .next = more,                               \
	}
static const struct ct_arch_sigframe sigframe_s390x_legacy = SIGFRAME_S390X(168, true, 0, restorer_s390, NULL);
static const struct ct_arch_sigframe sigframe_s390x =
	SIGFRAME_S390X(296, false, 40, restorer_s390_rt, &sigframe_s390x_legacy);

#define S390_COMMON                                                                                      \
	.e_machine = EM_S390, .pc_dwarf = -1, .sp_dwarf = 15, .fp_dwarf = 11, .ra_dwarf = 14, .pc_index = 1, \
	.num_dwarf = 16, .bad_call = CT_BAD_CALL_LINK_REGISTER, .cs_arch = CS_ARCH_SYSZ, .cs_mode = CS_MODE_BIG_ENDIAN, \
	.is_after_call = is_after_call_s390, .big_endian = true,                                             \
	/* The back chain exists only with -mbackchain; CFI and the validated scan instead. */              \
	.fp_rule = CT_FP_NONE, .insn_decoder = CT_INSN_GENERIC,                                              \
	/* User and kernel have separate address spaces on s390. */                                         \
	.kernel_address_start = 0

// BFD ld's elf_s390x_first_plt_entry and elf_s390x_plt_entry: 32 bytes each. Stubs are tied to
// their slot by their code: DT_PLTGOT is _GLOBAL_OFFSET_TABLE_ at the start of .got, and binutils
// 2.40's .got.plt (the slots) follows .got's own GLOB_DAT words, so slot i is not DT_PLTGOT + 3 + i
// words (the s390x-abort-dynamic cross core: every stub was named after its neighbour).
static const struct ct_arch_plt plt_s390x[] = { { ".plt", 32, 32, true, NULL }, { NULL, 0, 0, false, NULL } };

// elf_s390x_plt_entry begins `larl %r1, slot` (RIL-b: c0 /0, r1 = 1, a signed halfword offset from
// the instruction); `lg %r1, 0(%r1); br %r1` follow.
static bool plt_slot_s390x(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot)
{
	(void)got_base;
	if (!code || len < 6 || code[0] != 0xc0 || code[1] != 0x10)
		return false;
	*slot = stub + (uint64_t)(int64_t)(int32_t)ct_load32(code + 2, true) * 2;
	return true;
}

const struct ct_arch_info ct_arch_s390x = {
	S390_COMMON,
	.name = "s390x",
	.elf_class = ELFCLASS64,
	.pointer_size = 8,
	.regs = regs_s390x,
	.num_regs = sizeof(regs_s390x) / sizeof(regs_s390x[0]),
	.prstatus_reg_offset = 112,
	.prstatus_reg_size = 27 * 8,
	.user_address_limit = 0,
	.sigframe = &sigframe_s390x,
	// The CFA is the caller's r15 + 160: the caller's register save area (the CFI's def_cfa r15, 160).
	.cfa_sp_offset = 160,
	.plt = plt_s390x,
	.plt_slot = plt_slot_s390x,
	.plt_irelative = R_390_IRELATIVE,
	.plt_got_reserved = 3,
	// struct elf_prstatus: pr_pid at 32, pr_ppid, pr_pgrp, pr_sid, pr_utime at 48.
	.prstatus_utime_offset = 48,
	.prstatus_time_word = 8,
};

const struct ct_arch_info ct_arch_s390 = {
	S390_COMMON,
	.name = "s390",
	.elf_class = ELFCLASS32,
	.pointer_size = 4,
	.regs = regs_s390,
	.num_regs = sizeof(regs_s390) / sizeof(regs_s390[0]),
	.prstatus_reg_offset = 72,
	.prstatus_reg_size = 35 * 4,
	.user_address_limit = 1ULL << 31,
	.pc_mask = 0x7fffffff,
	.cfa_sp_offset = 96,
	// No signal-frame layout: the compat rt_sigframe32's alignment is not checked against a core
	// (no 31-bit compiler or qemu target). struct compat_elf_prstatus: pr_utime at 40, 4-byte words.
	.prstatus_utime_offset = 40,
	.prstatus_time_word = 4,
};
