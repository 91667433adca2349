// ppc64 (big-endian ELFv1), ppc64le (ELFv2) and 32-bit ppc: NT_PRSTATUS pr_reg is struct pt_regs
// {gpr[32], nip, msr, orig_gpr3, ctr, link, xer, ccr, softe/mq, trap, dar, dsisr, result}, 48
// words (arch/powerpc/include/uapi/asm/ptrace.h). DWARF r0..r31 = 0..31, cr 64, lr 65 (what
// .eh_frame uses; elfutils maps .debug_frame's 108 onto it), msr 66; the pc (nip) has none.
// The frame chain is the ABI's back chain: [sp] holds the caller's sp, and the caller's frame
// saves lr at +16 (64-bit) or +4 (32-bit).
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"
#include "util/bytes.h"

#define G(n, w) { "r" #n, n, (n) * (w), w }
#define S(name, dwarf, i, w) { name, dwarf, (i) * (w), w }
#define REGS(w)                                                                                          \
	G(0, w), G(1, w), G(2, w), G(3, w), G(4, w), G(5, w), G(6, w), G(7, w), G(8, w), G(9, w), G(10, w), \
		G(11, w), G(12, w), G(13, w), G(14, w), G(15, w), G(16, w), G(17, w), G(18, w), G(19, w),   \
		G(20, w), G(21, w), G(22, w), G(23, w), G(24, w), G(25, w), G(26, w), G(27, w), G(28, w),   \
		G(29, w), G(30, w), G(31, w), S("nip", -1, 32, w), S("msr", 66, 33, w),                     \
		S("orig_gpr3", -1, 34, w), S("ctr", -1, 35, w), S("lr", 65, 36, w), S("xer", -1, 37, w),   \
		S("cr", 64, 38, w), S("softe", -1, 39, w), S("trap", -1, 40, w), S("dar", -1, 41, w),      \
		S("dsisr", -1, 42, w)

static const struct ct_arch_reg regs_ppc64[] = { REGS(8) };
static const struct ct_arch_reg regs_ppc[] = { REGS(4) };

// bl (opcode 18 with LK), bctrl, blrl.
static bool is_call_ppc(uint32_t insn)
{
	return (insn & 0xfc000003) == 0x48000001 || insn == 0x4e800421 || insn == 0x4e800021;
}

static bool is_after_call_ppc_be(const uint8_t *b, size_t len)
{
	return len >= 4 && is_call_ppc(ct_load32(b + len - 4, true));
}

static bool is_after_call_ppc_le(const uint8_t *b, size_t len)
{
	return len >= 4 && is_call_ppc(ct_load32(b + len - 4, false));
}

// ppc64's struct rt_sigframe (arch/powerpc/kernel/signal_64.c) starts with struct ucontext, and the
// handler is entered, and returns to its trampoline, with r1 = the frame - __SIGNAL_FRAMESIZE (128).
// ucontext (asm/ucontext.h): uc_flags, uc_link, uc_stack, uc_sigmask, __unused[15], then struct
// sigcontext at 168, whose gp_regs (at 64) are pt_regs: gpr[32], nip, msr, orig_gpr3, ctr, link.
// qemu-user 7.2's sigcontext is 16 bytes later (at 184): the sigcontext is found by its regs pointer
// (at 56, pointing at gp_regs). The siginfo follows the ucontext (two of them when the kernel has
// CONFIG_PPC_TRANSACTIONAL_MEM, one in qemu-user's frame), _unused[2], the trampoline words and the
// pointers pinfo and puc: it is found by that pointer pair. The trampoline: li r0, 172 (__NR_rt_sigreturn); sc (qemu-user's; the kernel's vdso
// trampoline has CFI).
// The saved pt_regs (gpr[32], nip, msr, orig_gpr3, ctr, link) at @p base in the sigcontext or mcontext.
#define SC_PPC(n, base, w) { n, (base) + (n) * (w) }
#define SIGREGS_PPC(base, w)                                                                              \
	SC_PPC(0, base, w), SC_PPC(1, base, w), SC_PPC(2, base, w), SC_PPC(3, base, w), SC_PPC(4, base, w),    \
		SC_PPC(5, base, w), SC_PPC(6, base, w), SC_PPC(7, base, w), SC_PPC(8, base, w),               \
		SC_PPC(9, base, w), SC_PPC(10, base, w), SC_PPC(11, base, w), SC_PPC(12, base, w),            \
		SC_PPC(13, base, w), SC_PPC(14, base, w), SC_PPC(15, base, w), SC_PPC(16, base, w),           \
		SC_PPC(17, base, w), SC_PPC(18, base, w), SC_PPC(19, base, w), SC_PPC(20, base, w),           \
		SC_PPC(21, base, w), SC_PPC(22, base, w), SC_PPC(23, base, w), SC_PPC(24, base, w),           \
		SC_PPC(25, base, w), SC_PPC(26, base, w), SC_PPC(27, base, w), SC_PPC(28, base, w),           \
		SC_PPC(29, base, w), SC_PPC(30, base, w), SC_PPC(31, base, w), { 65, (base) + 36 * (w) } /* link */
static const struct ct_arch_sigreg sigregs_ppc64[] = { SIGREGS_PPC(64, 8) };
static const uint8_t restorer_ppc64_be[] = { 0x38, 0x00, 0x00, 0xac, 0x44, 0x00, 0x00, 0x02 };
static const uint8_t restorer_ppc64_le[] = { 0xac, 0x00, 0x00, 0x38, 0x02, 0x00, 0x00, 0x44 };
#define SIGFRAME_PPC64(code)                                                                             \
	{                                                                                                 \
		.ucontext_at = 128, .siginfo_at = 1024, .siginfo_search = 3072, .mcontext = 168, .pc = 64 + 32 * 8, .sp = 64 + 8,   \
		CT_SIGFRAME_NO_TRAP_FIELDS, .word = 8,           \
		.regs = sigregs_ppc64, .num_regs = sizeof(sigregs_ppc64) / sizeof(sigregs_ppc64[0]),        \
		.restorer = code, .restorer_len = sizeof(code), .regs_ptr_at = 56, .regs_ptr_search = 64,      \
	}
static const struct ct_arch_sigframe sigframe_ppc64 = SIGFRAME_PPC64(restorer_ppc64_be);
static const struct ct_arch_sigframe sigframe_ppc64le = SIGFRAME_PPC64(restorer_ppc64_le);

// ppc (32-bit) has two frames (arch/powerpc/kernel/signal_32.c; qemu-user 7.2's linux-user/ppc/signal.c
// lays them out the same, checked in the cross cores). struct rt_sigframe (SA_SIGINFO): siginfo (128
// bytes), then struct ucontext, whose struct mcontext (pt_regs as 48 words first: gpr[32], nip, msr,
// orig_gpr3, ctr, link) is at 192 (after uc_regs at 48, uc_sigmask and glibc's 1024-bit mask room);
// the handler gets r1 = the frame - (__SIGNAL_FRAMESIZE 64 + 16). struct sigframe (sa_handler): struct
// sigcontext {_unused[4], signal, handler, oldmask, regs}, whose regs pointer (at 28) leads to the
// mcontext that follows it; r1 = the frame - 64. The trampolines: li r0, 172 (__NR_rt_sigreturn) or
// 119 (__NR_sigreturn); sc (in the mcontext's mc_pad, or on qemu-user's trampoline page; the kernel's
// vdso ones have CFI).
static const struct ct_arch_sigreg sigregs_ppc[] = { SIGREGS_PPC(0, 4) };
static const uint8_t restorer_ppc_rt[] = { 0x38, 0x00, 0x00, 0xac, 0x44, 0x00, 0x00, 0x02 };
static const uint8_t restorer_ppc[] = { 0x38, 0x00, 0x00, 0x77, 0x44, 0x00, 0x00, 0x02 };
#define SIGFRAME_PPC(code, more, ...)                                                                     \
	{                                                                                                 \
		.pc = 32 * 4, .sp = 4, CT_SIGFRAME_NO_TRAP_FIELDS, .word = 4, .regs = sigregs_ppc,           \
		.num_regs = sizeof(sigregs_ppc) / sizeof(sigregs_ppc[0]), .restorer = code,                  \
		.restorer_len = sizeof(code), .next = more, __VA_ARGS__                                     \
	}
static const struct ct_arch_sigframe sigframe_ppc_legacy =
	SIGFRAME_PPC(restorer_ppc, NULL, .ucontext_at = 64 + 28, .ucontext_indirect = true, .mcontext = 0,
		     .no_siginfo = true);
static const struct ct_arch_sigframe sigframe_ppc =
	SIGFRAME_PPC(restorer_ppc_rt, &sigframe_ppc_legacy, .ucontext_at = 80 + 128, .siginfo_at = 80, .mcontext = 192);

#define PPC_COMMON                                                                                        \
	.pc_dwarf = -1, .sp_dwarf = 1, .fp_dwarf = 31, .ra_dwarf = 65, .pc_index = 32, .num_dwarf = 66,      \
	.bad_call = CT_BAD_CALL_LINK_REGISTER, .cs_arch = CS_ARCH_PPC, .fp_rule = CT_FP_BACK_CHAIN,           \
	.fp_saved_fp_offset = 0, .insn_decoder = CT_INSN_GENERIC

// ppc64 and ppc64le differ only in byte order; ppc in word size.
#define PPC_TABLE(sym, str, mach, cls, ptr, reg_table, reg_off, ra_off, mode, be, limit, kernel, sf, utime) \
	const struct ct_arch_info sym = {                                                                 \
		PPC_COMMON,                                                                               \
		.name = str,                                                                              \
		.e_machine = mach,                                                                        \
		.elf_class = cls,                                                                         \
		.pointer_size = ptr,                                                                      \
		.regs = reg_table,                                                                        \
		.num_regs = sizeof(reg_table) / sizeof(reg_table[0]),                                     \
		.prstatus_reg_offset = reg_off,                                                           \
		.prstatus_reg_size = 48 * (ptr),                                                          \
		.fp_saved_ra_offset = ra_off,                                                             \
		.cs_mode = (mode) | ((be) ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN),                  \
		.user_address_limit = limit,                                                              \
		.is_after_call = (be) ? is_after_call_ppc_be : is_after_call_ppc_le,                      \
		.big_endian = be,                                                                         \
		.kernel_address_start = kernel,                                                           \
		.sigframe = sf,                                                                           \
		.prstatus_utime_offset = utime,                                                           \
		.prstatus_time_word = ptr,                                                                \
	}

// pr_utime: after pr_pid, pr_ppid, pr_pgrp, pr_sid (48 on 64-bit, 40 on 32-bit), in longs.
PPC_TABLE(ct_arch_ppc64, "ppc64", EM_PPC64, ELFCLASS64, 8, regs_ppc64, 112, 16, CS_MODE_64, true, 1ULL << 52,
	  0xc000000000000000ULL, &sigframe_ppc64, 48);
PPC_TABLE(ct_arch_ppc64le, "ppc64le", EM_PPC64, ELFCLASS64, 8, regs_ppc64, 112, 16, CS_MODE_64, false, 1ULL << 52,
	  0xc000000000000000ULL, &sigframe_ppc64le, 48);
PPC_TABLE(ct_arch_ppc, "ppc", EM_PPC, ELFCLASS32, 4, regs_ppc, 72, 4, CS_MODE_32, true, 0, 0xc0000000ULL, &sigframe_ppc, 40);
