// riscv64: NT_PRSTATUS pr_reg is struct user_regs_struct {pc, ra, sp, gp, tp, t0..t6, s0..s11,
// a0..a7} (arch/riscv/include/uapi/asm/ptrace.h), i.e. pc then x1..x31. DWARF x0-x31 = 0-31; pc
// has no DWARF number. Capstone 4 has no RISC-V: triage decodes by hand (insn_riscv.c).
#include <elf.h>

#include "arch/arch.h"
#include "util/bytes.h"

#define X(name, n) { name, n, (n) * 8, 8 }
static const struct ct_arch_reg regs_riscv64[32] = {
	{ "pc", -1, 0, 8 },
	X("ra", 1), X("sp", 2), X("gp", 3), X("tp", 4), X("t0", 5), X("t1", 6),
	X("t2", 7), X("s0", 8), X("s1", 9), X("a0", 10), X("a1", 11), X("a2", 12),
	X("a3", 13), X("a4", 14), X("a5", 15), X("a6", 16), X("a7", 17), X("s2", 18),
	X("s3", 19), X("s4", 20), X("s5", 21), X("s6", 22), X("s7", 23), X("s8", 24),
	X("s9", 25), X("s10", 26), X("s11", 27), X("t3", 28), X("t4", 29), X("t5", 30),
	X("t6", 31),
};

// jal/jalr with rd = ra: 4-byte forms; c.jalr (2 bytes) with rs1 != 0.
static bool is_after_call_riscv64(const uint8_t *b, size_t len)
{
	if (len >= 4) {
		const uint8_t *p = b + len - 4;
		uint32_t insn = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		uint32_t opcode = insn & 0x7f, rd = (insn >> 7) & 0x1f;
		if ((opcode == 0x6f || opcode == 0x67) && rd == 1)
			return true;
	}
	if (len >= 2) {
		uint16_t c = b[len - 2] | b[len - 1] << 8;
		if ((c & 0xf07f) == 0x9002 && ((c >> 7) & 0x1f) != 0)
			return true;
	}
	return false;
}

// The kernel's struct rt_sigframe (arch/riscv/kernel/signal.c): siginfo (128 bytes), then struct
// ucontext (asm/ucontext.h): uc_flags, uc_link, uc_stack, uc_sigmask, padding to 168, then struct
// sigcontext, 16-byte aligned at 176: sc_regs is struct user_regs_struct (pc, then x1..x31). The
// handler returns to the vdso's __vdso_rt_sigreturn with sp = the frame.
#define XS(n) { n, (n) * 8 }
static const struct ct_arch_sigreg sigregs_riscv64[] = {
	XS(1),	XS(2),	XS(3),	XS(4),	XS(5),	XS(6),	XS(7),	XS(8),	XS(9),	XS(10), XS(11),
	XS(12), XS(13), XS(14), XS(15), XS(16), XS(17), XS(18), XS(19), XS(20), XS(21), XS(22),
	XS(23), XS(24), XS(25), XS(26), XS(27), XS(28), XS(29), XS(30), XS(31),
};

// li a7, 139 (__NR_rt_sigreturn); ecall
static const uint8_t restorer_riscv64[] = { 0x93, 0x08, 0xb0, 0x08, 0x73, 0x00, 0x00, 0x00 };

static const struct ct_arch_sigframe sigframe_riscv64 = {
	.ucontext_at = 128,
	.siginfo_at = 0,
	.mcontext = 176,
	.pc = 0,
	.sp = 16,
	CT_SIGFRAME_NO_TRAP_FIELDS,
	.word = 8,
	.regs = sigregs_riscv64,
	.num_regs = sizeof(sigregs_riscv64) / sizeof(sigregs_riscv64[0]),
	.restorer = restorer_riscv64,
	.restorer_len = sizeof(restorer_riscv64),
};

/** t3 = x28, the register BFD ld's stubs load the slot into. */
#define PLT_REG_T3 28

static bool plt_slot_riscv64(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot_ret)
{
	(void)got_base;
	// BFD ld's riscv PLT entry (elfnn-riscv.c riscv_make_plt_entry): auipc t3, %pcrel_hi(slot);
	// ld t3, %pcrel_lo(slot)(t3); jalr t1, t3; nop.
	if (len < 8)
		return false;
	uint32_t a = ct_load32(code, false), l = ct_load32(code + 4, false);
	if ((a & 0xfff) != (0x17 | PLT_REG_T3 << 7))
		return false;
	// ld: opcode 0x03, funct3 3, rd = rs1 = t3.
	if ((l & 0xfffff) != (0x03 | PLT_REG_T3 << 7 | 3 << 12 | PLT_REG_T3 << 15))
		return false;
	*slot_ret = stub + (uint64_t)ct_sign_extend(a & 0xfffff000, 32) + (uint64_t)ct_sign_extend(l >> 20, 12);
	return true;
}

// BFD ld's riscv PLT (elfnn-riscv.c: PLT_HEADER_SIZE 32, PLT_ENTRY_SIZE 16; GOTPLT_HEADER_SIZE two words).
static const struct ct_arch_plt plt_riscv64[] = { { ".plt", 32, 16, false, NULL }, { NULL, 0, 0, false, NULL } };

const struct ct_arch_info ct_arch_riscv64 = {
	.name = "riscv64",
	.e_machine = EM_RISCV,
	.elf_class = ELFCLASS64,
	.pointer_size = 8,
	.regs = regs_riscv64,
	.num_regs = 32,
	.pc_dwarf = -1,
	.sp_dwarf = 2,
	.fp_dwarf = 8,
	.ra_dwarf = 1,
	.pc_index = 0,
	.num_dwarf = 32,
	.callee_saved = (3ULL << 8) | (0x3ffULL << 18), // s0-s1 (x8-x9), s2-s11 (x18-x27) (RISC-V psABI)
	.prstatus_reg_offset = 112,
	.prstatus_reg_size = 32 * 8,
	.bad_call = CT_BAD_CALL_LINK_REGISTER,
	.fp_saved_fp_offset = -16,
	.fp_saved_ra_offset = -8,
	.cs_arch = -1,
	.cs_mode = -1,
	.user_address_limit = 0,
	.is_after_call = is_after_call_riscv64,
	.fp_rule = CT_FP_CHAIN,
	.insn_decoder = CT_INSN_RISCV64,
	.plt = plt_riscv64,
	.plt_irelative = R_RISCV_IRELATIVE,
	.plt_slot = plt_slot_riscv64,
	.plt_got_reserved = 2,
	.kernel_address_start = 0xffffffc000000000ULL,
	.syscall_nr_index = 17, // a7
	.syscall_ret_index = 10, // a0
	.syscall_arg_index = { -1, 11, 12, 13, 14, 15 }, // a0 already holds the return value
	.syscall_insn = { 0x73, 0x00, 0x00, 0x00 }, // ecall
	.syscall_insn_len = 4,
	.syscalls = ct_syscalls_generic,
	.num_syscalls = &ct_num_syscalls_generic,
	// struct elf_prstatus: pr_pid, pr_ppid, pr_pgrp, pr_sid, then pr_utime, pr_stime (timevals of longs).
	.prstatus_utime_offset = 48,
	.prstatus_time_word = 8,
	.sigframe = &sigframe_riscv64,
};
