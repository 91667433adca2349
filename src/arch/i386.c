// i386: NT_PRSTATUS layout (struct user_regs_struct, arch/x86/include/asm/user_32.h) and DWARF
// numbers (i386 psABI).
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"
#include "arch/x86_dwarf.h"
#include "arch/x86_plt.h"

#define R(name, dwarf, index) { name, dwarf, (index) * 4, 4 }

static const struct ct_arch_reg regs_i386[] = {
	R("eax", CT_I386_DWARF_EAX, 6), R("ecx", 1, 1), R("edx", CT_I386_DWARF_EDX, 2), R("ebx", 3, 0), R("esp", 4, 15),
	R("ebp", 5, 5), R("esi", 6, 3), R("edi", 7, 4), R("eip", 8, 12), R("eflags", 9, 14),
	R("orig_eax", -1, 11),
};

static bool is_after_call_i386(const uint8_t *b, size_t len)
{
	if (len >= 5 && b[len - 5] == 0xe8)
		return true;
	for (size_t n = 2; n <= 7 && n <= len; n++) {
		const uint8_t *p = b + len - n;
		if (p[0] == 0xff && ((p[1] >> 3) & 7) == 2)
			return true;
	}
	return false;
}

// The kernel's ia32 struct rt_sigframe (arch/x86/include/asm/sigframe.h): pretcode, sig, pinfo, puc,
// siginfo, ucontext. At the restorer sp = &sig, so the ucontext is at the pointer at sp + 8 and the
// siginfo at the one at sp + 4. uc_mcontext is struct sigcontext_32 at offset 20. (Handlers without
// SA_SIGINFO get the older struct sigframe: pretcode, sig, then struct sigcontext_32; its restorer,
// the vdso's __kernel_sigreturn, pops sig first, so at its start sp = &sig and the sigcontext is at sp + 4.)
static const struct ct_arch_sigreg sigregs_i386[] = {
	{ 7, 16 }, { 6, 20 }, { 5, 24 }, { 4, 28 }, { 3, 32 }, { 2, 36 }, { 1, 40 }, { 0, 44 }, { 8, 56 },
};

// mov eax, 173 (__NR_rt_sigreturn); int 0x80
static const uint8_t restorer_i386[] = { 0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80 };

// pop eax; mov eax, 119 (__NR_sigreturn); int 0x80
static const uint8_t restorer_i386_legacy[] = { 0x58, 0xb8, 0x77, 0x00, 0x00, 0x00, 0xcd, 0x80 };

// Both frames hold struct sigcontext_32; they differ in where it is and in the siginfo.
#define SIGFRAME_I386(code, more, ...)                                                                  \
	{                                                                                                 \
		__VA_ARGS__, .pc = 56, .sp = 28, .trapno = 48, .err = 52, .cr2 = 84, .fault_address = -1,   \
		.reserved = -1, .word = 4, .regs = sigregs_i386,                                             \
		.num_regs = sizeof(sigregs_i386) / sizeof(sigregs_i386[0]), .restorer = code,               \
		.restorer_len = sizeof(code), .next = more,                                                 \
	}
static const struct ct_arch_sigframe sigframe_i386_legacy =
	SIGFRAME_I386(restorer_i386_legacy, NULL, .ucontext_at = 4, .mcontext = 0, .no_siginfo = true);
static const struct ct_arch_sigframe sigframe_i386 =
	SIGFRAME_I386(restorer_i386, &sigframe_i386_legacy, .ucontext_at = 8, .ucontext_indirect = true,
		      .siginfo_at = 4, .siginfo_indirect = true, .mcontext = 20);

// BFD ld's elf_i386_lazy_plt (and _pic_plt: jmp *slot(%ebx)) and the IBT pair: as x86-64's.
static const struct ct_arch_plt plt_i386[] = {
	{ ".plt.sec", 0, 16, true, NULL },
	{ ".plt", 16, 16, true, ".plt.sec" },
	{ ".plt.got", 0, 0, true, NULL },
	{ NULL, 0, 0, false, NULL },
};

const struct ct_arch_info ct_arch_i386 = {
	.name = "i386",
	.e_machine = EM_386,
	.elf_class = ELFCLASS32,
	.pointer_size = 4,
	.regs = regs_i386,
	.num_regs = sizeof(regs_i386) / sizeof(regs_i386[0]),
	.pc_dwarf = 8,
	.sp_dwarf = 4,
	.fp_dwarf = 5,
	.ra_dwarf = 8,
	.pc_index = 8,
	.num_dwarf = 9,
	.callee_saved = (1ULL << 3) | (1ULL << 5) | (1ULL << 6) | (1ULL << 7), // ebx, ebp, esi, edi (SysV i386 ABI)
	.prstatus_reg_offset = 72,
	.prstatus_reg_size = 17 * 4,
	.bad_call = CT_BAD_CALL_STACK,
	.fp_saved_fp_offset = 0,
	.fp_saved_ra_offset = 4,
	.cs_arch = CS_ARCH_X86,
	.cs_mode = CS_MODE_32,
	.user_address_limit = 0,
	.is_after_call = is_after_call_i386,
	.fp_rule = CT_FP_CHAIN,
	.insn_decoder = CT_INSN_I386,
	.plt = plt_i386,
	.plt_irelative = R_386_IRELATIVE,
	.plt_slot = ct_i386_plt_slot,
	.plt_got_reserved = 3,
	.kernel_address_start = 0, // compat tasks on a 64-bit kernel use all 4 GiB
	.sigframe = &sigframe_i386,
	.syscall_nr_index = 10, // orig_eax
	.syscall_ret_index = 0,
	.syscall_arg_index = { 3, 1, 2, 6, 7, 5 }, // ebx ecx edx esi edi ebp
	// int $0x80; the vdso's sysenter path returns to just after its own int $0x80 as well.
	.syscall_insn = { 0xcd, 0x80 },
	.syscall_insn_len = 2,
	.syscalls = ct_syscalls_i386,
	.num_syscalls = &ct_num_syscalls_i386,
	// struct elf_prstatus: pr_pid, pr_ppid, pr_pgrp, pr_sid, then pr_utime, pr_stime (timevals of longs).
	.prstatus_utime_offset = 40,
	.prstatus_time_word = 4,
};
