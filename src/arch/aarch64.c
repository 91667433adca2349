// aarch64: NT_PRSTATUS pr_reg is struct user_pt_regs {x0..x30, sp, pc, pstate}
// (arch/arm64/include/uapi/asm/ptrace.h); DWARF numbers from the AAPCS64 DWARF supplement
// (x0-x30 = 0-30, sp = 31; pc has no DWARF number and is handed to libdwfl separately).
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"
#include "util/bytes.h"

#define X(n) { "x" #n, n, (n) * 8, 8 }

static const struct ct_arch_reg regs_aarch64[] = {
	X(0),  X(1),  X(2),  X(3),  X(4),  X(5),  X(6),  X(7),  X(8),  X(9),  X(10),
	X(11), X(12), X(13), X(14), X(15), X(16), X(17), X(18), X(19), X(20), X(21),
	X(22), X(23), X(24), X(25), X(26), X(27), X(28), X(29), X(30),
	{ "sp", 31, 31 * 8, 8 }, { "pc", -1, 32 * 8, 8 }, { "pstate", -1, 33 * 8, 8 },
};

// bl (0x94000000/0xfc000000) and blr (0xd63f0000/0xfffffc1f), little-endian.
static bool is_after_call_aarch64(const uint8_t *b, size_t len)
{
	if (len < 4)
		return false;
	const uint8_t *p = b + len - 4;
	uint32_t insn = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
	return (insn & 0xfc000000) == 0x94000000 || (insn & 0xfffffc1f) == 0xd63f0000;
}

// ESR_ELx of a kernel fault (arch/arm64/include/asm/esr.h): EC in bits 26-31; instruction aborts
// (0x20 lower EL, 0x21 same EL) are fetches, data aborts (0x24, 0x25) say WnR in ISS bit 6.
static enum ct_access kernel_fault_access_aarch64(uint64_t esr)
{
	unsigned ec = (unsigned)(esr >> 26) & 0x3f;
	if (ec == 0x20 || ec == 0x21)
		return CT_ACCESS_EXEC;
	if (ec == 0x24 || ec == 0x25)
		return esr & (1u << 6) ? CT_ACCESS_WRITE : CT_ACCESS_READ;
	return CT_ACCESS_NONE;
}

// The kernel's struct rt_sigframe (arch/arm64/kernel/signal.c): siginfo (128 bytes), then struct
// ucontext whose uc_mcontext (struct sigcontext, 16-byte aligned) is at offset 176: fault_address,
// regs[31], sp, pc, pstate, then __reserved[] records (esr_context among them). The handler returns
// to the restorer with sp = the frame's start.
#define XS(n) { n, 8 + (n) * 8 }
static const struct ct_arch_sigreg sigregs_aarch64[] = {
	XS(0),	XS(1),	XS(2),	XS(3),	XS(4),	XS(5),	XS(6),	XS(7),	XS(8),	XS(9),	XS(10),
	XS(11), XS(12), XS(13), XS(14), XS(15), XS(16), XS(17), XS(18), XS(19), XS(20), XS(21),
	XS(22), XS(23), XS(24), XS(25), XS(26), XS(27), XS(28), XS(29), XS(30), { 31, 256 },
};

// mov x8, #139 (__NR_rt_sigreturn); svc #0
static const uint8_t restorer_aarch64[] = { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 };

static const struct ct_arch_sigframe sigframe_aarch64 = {
	.ucontext_at = 128,
	.siginfo_at = 0,
	.mcontext = 176,
	.pc = 264,
	.sp = 256,
	.trapno = -1,
	.err = -1,
	.cr2 = -1,
	.fault_address = 0,
	.reserved = 288,
	.word = 8,
	.regs = sigregs_aarch64,
	.num_regs = sizeof(sigregs_aarch64) / sizeof(sigregs_aarch64[0]),
	.restorer = restorer_aarch64,
	.restorer_len = sizeof(restorer_aarch64),
};

// NT_FPREGSET is struct user_fpsimd_state: vregs[32] (128 bits each) first, then fpsr and fpcr.
static const struct ct_arch_vregs vregs_aarch64[] = {
	{ .note_type = NT_FPREGSET, .dwarf_first = 64, .count = 32, .offset = 0, .size = 16, .stride = 16 },
};

static bool plt_slot_aarch64(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot_ret)
{
	(void)got_base;
	// BFD ld's PLT entry (elfnn-aarch64.c elfNN_aarch64_small_plt_entry): adrp x16, slot page;
	// ldr x17, [x16, #slot offset]; add x16, x16, #offset; br x17. With BTI a "bti c" comes first.
	size_t at = 0;
	if (len >= 4 && ct_load32(code, false) == 0xd503245f)
		at = 4;
	if (len < at + 8)
		return false;
	uint32_t adrp = ct_load32(code + at, false), ldr = ct_load32(code + at + 4, false);
	if ((adrp & 0x9f00001f) != 0x90000010) // adrp x16
		return false;
	if ((ldr & 0xffc003ff) != 0xf9400211) // ldr x17, [x16, #imm12 * 8]
		return false;
	uint64_t imm = ((adrp >> 29) & 3) | (((uint64_t)(adrp >> 5) & 0x7ffff) << 2);
	uint64_t page = ((stub + at) & ~0xfffULL) + (uint64_t)(ct_sign_extend(imm, 21) * 4096);
	*slot_ret = page + ((ldr >> 10) & 0xfff) * 8;
	return true;
}

// BFD ld's elfNN_aarch64_small_plt0_entry (32 bytes) and small_plt_entry (16); lld's are the same.
// The BTI/PAC variants' 24-byte stubs do not fit the table: their PLT stays unnamed.
static const struct ct_arch_plt plt_aarch64[] = { { ".plt", 32, 16, false, NULL }, { NULL, 0, 0, false, NULL } };

const struct ct_arch_info ct_arch_aarch64 = {
	.name = "aarch64",
	.e_machine = EM_AARCH64,
	.elf_class = ELFCLASS64,
	.pointer_size = 8,
	.regs = regs_aarch64,
	.num_regs = sizeof(regs_aarch64) / sizeof(regs_aarch64[0]),
	.pc_dwarf = -1,
	.sp_dwarf = 31,
	.fp_dwarf = 29,
	.ra_dwarf = 30,
	.pc_index = 32,
	.num_dwarf = 32,
	.callee_saved = 0x3ffULL << 19 | 1ULL << 29, // x19-x28, fp (AAPCS64 6.1.1)
	.prstatus_reg_offset = 112,
	.prstatus_reg_size = 34 * 8,
	.bad_call = CT_BAD_CALL_LINK_REGISTER,
	.fp_saved_fp_offset = 0,
	.fp_saved_ra_offset = 8,
	.cs_arch = CS_ARCH_ARM64,
	.cs_mode = CS_MODE_ARM,
	.user_address_limit = 1ULL << 48,
	.is_after_call = is_after_call_aarch64,
	.fp_rule = CT_FP_CHAIN,
	.insn_decoder = CT_INSN_AARCH64,
	.plt = plt_aarch64,
	.plt_irelative = R_AARCH64_IRELATIVE,
	.plt_slot = plt_slot_aarch64,
	.plt_got_reserved = 3,
	.kernel_address_start = 0xffff000000000000ULL,
	.sigframe = &sigframe_aarch64,
	.go_stacks = true,
	.go_injected_lr_slot = 16,
	.vregs = vregs_aarch64,
	.num_vregs = sizeof(vregs_aarch64) / sizeof(vregs_aarch64[0]),
	.syscall_nr_index = 8, // x8
	.syscall_ret_index = 0,
	.syscall_arg_index = { -1, 1, 2, 3, 4, 5 }, // x0 already holds the return value
	.syscall_insn = { 0x01, 0x00, 0x00, 0xd4 }, // svc #0
	// AAPCS64 6.8.2: x0..x7.
	.call_arg_dwarf = { 0, 1, 2, 3, 4, 5, 6, 7 },
	.num_call_args = 8,
	.syscall_insn_len = 4,
	.syscalls = ct_syscalls_generic,
	.num_syscalls = &ct_num_syscalls_generic,
	// struct elf_prstatus: pr_pid, pr_ppid, pr_pgrp, pr_sid, then pr_utime, pr_stime (timevals of longs).
	.prstatus_utime_offset = 48,
	.prstatus_time_word = 8,
	// Debian's arm64 kernel: CONFIG_ARM64_VA_BITS=48 (kernel addresses have bits 48-63 set), 4 KiB pages,
	// THREAD_SIZE 16 KiB, frame pointers.
	.canonical_bit = 48,
	// MODULES_VADDR (_PAGE_END(VA_BITS_MIN)) up to VMALLOC_END's 4 TiB below the vmemmap: with KASLR
	// and ARM64_MODULE_PLTS (Debian) module_alloc() places text anywhere in a 4 GiB window around the
	// randomized image, inside this range (arch/arm64/kernel/module.c, kaslr.c).
	.kernel_modules_start = 0xffff800000000000ULL,
	.kernel_modules_end = 0xfffffc0000000000ULL,
	.kernel_stack_size = 16 * 1024,
	.kernel_unwind = CT_KUNWIND_FP,
	.kernel_ra_signed = true,
	.vmcoreinfo_key = "NUMBER(kimage_voffset)",
	.kernel_fault_access = kernel_fault_access_aarch64,
};
