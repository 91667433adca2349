// sparc64 (V9, big-endian): NT_PRSTATUS pr_reg is 36 words {g0..g7, o0..o7, l0..l7, i0..i7,
// tstate, tpc, tnpc, y}; the kernel fills the locals and ins from the register window saved on
// the stack (elfutils backends/sparc_corenote.c). DWARF g/o/l/i = 0..31; the pc has no number
// libdwfl takes (it is handed separately). sp (o6) and fp (i6) are biased by 2047, and o7 holds a
// call's own address: the return address is o7 + 8 (after the delay slot).
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"
#include "util/bytes.h"

#define R(name, n) { name, n, (n) * 8, 8 }

static const struct ct_arch_reg regs_sparc64[] = {
	R("g0", 0),  R("g1", 1),  R("g2", 2),	R("g3", 3),   R("g4", 4),   R("g5", 5),	  R("g6", 6),
	R("g7", 7),  R("o0", 8),  R("o1", 9),	R("o2", 10),  R("o3", 11),  R("o4", 12),  R("o5", 13),
	R("sp", 14), R("o7", 15), R("l0", 16),	R("l1", 17),  R("l2", 18),  R("l3", 19),  R("l4", 20),
	R("l5", 21), R("l6", 22), R("l7", 23),	R("i0", 24),  R("i1", 25),  R("i2", 26),  R("i3", 27),
	R("i4", 28), R("i5", 29), R("fp", 30),	R("i7", 31),  { "tstate", -1, 32 * 8, 8 },
	{ "pc", -1, 33 * 8, 8 }, { "npc", -1, 34 * 8, 8 }, { "y", -1, 35 * 8, 4 },
};

// call (op 01) or jmpl with rd = o7 (op 10, op3 111000, rd 15), followed by the delay slot.
static bool is_after_call_sparc64(const uint8_t *b, size_t len)
{
	if (len < 8)
		return false;
	uint32_t insn = ct_load32(b + len - 8, true);
	return insn >> 30 == 1 || (insn & 0xfff80000) == 0x9fc00000;
}

// Linux sparc signal numbers -> asm-generic (arch/sparc/include/uapi/asm/signal.h).
static const uint8_t generic_signal_sparc[32] = {
	[10] = 7,  [12] = 31, [16] = 23, [17] = 19, [18] = 20, [19] = 18, [20] = 17, [23] = 29,
	[29] = 30, [30] = 10, [31] = 12,
};

// The kernel's struct rt_signal_frame (arch/sparc/kernel/signal_64.c): struct sparc_stackf (192
// bytes), siginfo at 192, struct pt_regs at 320 (u_regs[16]: g0-g7, o0-o7; tstate, tpc, tnpc). The
// handler runs with sp = the frame - the stack bias; glibc's __rt_sigreturn_stub (mov 101, %g1;
// ta 0x6d) is reached with the same sp. The interrupted locals and ins are in the register window
// the interrupted sp points at, not in the frame: only the globals and outs are read here.
#define SC_SPARC(n) { n, (n) * 8 }
static const struct ct_arch_sigreg sigregs_sparc64[] = {
	SC_SPARC(1), SC_SPARC(2),  SC_SPARC(3),	 SC_SPARC(4),  SC_SPARC(5),  SC_SPARC(6),  SC_SPARC(7),	 SC_SPARC(8),
	SC_SPARC(9), SC_SPARC(10), SC_SPARC(11), SC_SPARC(12), SC_SPARC(13), SC_SPARC(14), SC_SPARC(15),
};
static const uint8_t restorer_sparc64[] = { 0x82, 0x10, 0x20, 0x65, 0x91, 0xd0, 0x20, 0x6d };
static const struct ct_arch_sigframe sigframe_sparc64 = {
	.ucontext_at = 320,
	.siginfo_at = 192,
	.mcontext = 0,
	.pc = 16 * 8 + 8,
	.sp = 14 * 8,
	CT_SIGFRAME_NO_TRAP_FIELDS,
	.word = 8,
	.regs = sigregs_sparc64,
	.num_regs = sizeof(sigregs_sparc64) / sizeof(sigregs_sparc64[0]),
	.restorer = restorer_sparc64,
	.restorer_len = sizeof(restorer_sparc64),
};

const struct ct_arch_info ct_arch_sparc64 = {
	.name = "sparc64",
	.e_machine = EM_SPARCV9,
	.elf_class = ELFCLASS64,
	.pointer_size = 8,
	.regs = regs_sparc64,
	.num_regs = sizeof(regs_sparc64) / sizeof(regs_sparc64[0]),
	.pc_dwarf = -1,
	.sp_dwarf = 14,
	.fp_dwarf = 30,
	.ra_dwarf = 15,
	.pc_index = 33,
	.num_dwarf = 32,
	.prstatus_reg_offset = 112,
	.prstatus_reg_size = 36 * 8,
	.bad_call = CT_BAD_CALL_LINK_REGISTER,
	.cs_arch = CS_ARCH_SPARC,
	.cs_mode = CS_MODE_V9 | CS_MODE_BIG_ENDIAN,
	.user_address_limit = 0,
	.is_after_call = is_after_call_sparc64,
	.big_endian = true,
	// Register windows: callers' frames are found by CFI (libdwfl's backend) only.
	.fp_rule = CT_FP_NONE,
	.insn_decoder = CT_INSN_GENERIC,
	.kernel_address_start = 0,
	.stack_bias = 2047,
	.ra_offset = 8,
	.generic_signal = generic_signal_sparc,
	.sigframe = &sigframe_sparc64,
	// struct elf_prstatus: pr_pid at 32, pr_ppid, pr_pgrp, pr_sid, pr_utime at 48.
	.prstatus_utime_offset = 48,
	.prstatus_time_word = 8,
};
