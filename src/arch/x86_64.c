// x86-64 and x32: NT_PRSTATUS layout (struct user_regs_struct, arch/x86/include/asm/user_64.h) and
// DWARF numbers (System V AMD64 psABI, figure 3.36). x32 (ELFCLASS32, EM_X86_64) has the same
// registers, 8 bytes wide, after a 32-bit prstatus header: pr_reg at offset 72 (elfutils
// backends/x32_corenote.c); pointers are 4 bytes but calls and pushes still move 8.
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"
#include "arch/x86_dwarf.h"
#include "arch/x86_plt.h"

#define R(name, dwarf, index) { name, dwarf, (index) * 8, 8 }

static const struct ct_arch_reg regs_x86_64[] = {
	R("rax", CT_X86_64_DWARF_RAX, 10), R("rbx", 3, 5),  R("rcx", 2, 11), R("rdx", CT_X86_64_DWARF_RDX, 12), R("rsi", 4, 13),
	R("rdi", 5, 14), R("rbp", 6, 4),  R("rsp", 7, 19), R("r8", 8, 9),   R("r9", 9, 8),
	R("r10", 10, 7), R("r11", 11, 6), R("r12", 12, 3), R("r13", 13, 2), R("r14", 14, 1),
	R("r15", 15, 0), R("rip", 16, 16), R("eflags", 49, 18), R("cs", 51, 17), R("ss", 52, 20),
	R("fs_base", CT_X86_64_DWARF_FS_BASE, 21), R("gs_base", CT_X86_64_DWARF_GS_BASE, 22), R("orig_rax", -1, 15),
};

// Call encodings that can end right before a return address: e8 rel32 (5 bytes), ff /2 with
// modrm forms of 2, 3, 6 and 7 bytes (register, [reg], [reg+disp8], [reg+disp32], rip-relative).
// The direct call e8 rel32 ending at the return address (x86-64 and x32: rel32 from the next
// instruction); indirect calls (ff /2) have no static target.
static bool call_target_x86_64(const uint8_t *b, size_t len, uint64_t ret_addr, uint64_t *target)
{
	if (len < 5 || b[len - 5] != 0xe8)
		return false;
	const uint8_t *p = b + len - 4;
	int32_t rel = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
	*target = ret_addr + (uint64_t)(int64_t)rel;
	return true;
}

static bool is_after_call_x86_64(const uint8_t *b, size_t len)
{
	if (len >= 5 && b[len - 5] == 0xe8)
		return true;
	for (size_t n = 2; n <= 7 && n <= len; n++) {
		const uint8_t *p = b + len - n;
		if (p[0] != 0xff)
			continue;
		uint8_t modrm = p[1], reg = (modrm >> 3) & 7, mod = modrm >> 6, rm = modrm & 7;
		if (reg != 2)
			continue;
		size_t want = 2;
		if (mod == 0 && rm == 5)
			want = 6;
		else if (mod == 1)
			want = 3;
		else if (mod == 2)
			want = 6;
		if (mod != 3 && rm == 4)
			want++; // SIB byte
		if (mod == 0 && rm == 4 && n >= 3 && (p[2] & 7) == 5)
			want += 4; // SIB with no base: disp32
		if (want == n)
			return true;
	}
	// REX-prefixed indirect call (41 ff d0: call r8).
	if (len >= 3 && (b[len - 3] & 0xf0) == 0x40 && b[len - 2] == 0xff && ((b[len - 1] >> 3) & 7) == 2 &&
	    (b[len - 1] >> 6) == 3)
		return true;
	return false;
}

// NT_FPREGSET is the FXSAVE area (user_fpregs_struct): st0-7 at 32 (16-byte slots, 10 bytes used,
// in ST(i) order as DWARF numbers them), xmm0-15 at 160. NT_X86_XSTATE is the XSAVE area in the
// standard format; the upper halves of ymm0-15 are its AVX component at 576 (XSTATE_BV bit 2).
static const struct ct_arch_vregs vregs_x86_64[] = {
	{ .note_type = NT_FPREGSET, .dwarf_first = 17, .count = 16, .offset = 160, .size = 16, .stride = 16 },
	{ .note_type = NT_FPREGSET, .dwarf_first = 33, .count = 8, .offset = 32, .size = 10, .stride = 16 },
	{ .note_type = NT_X86_XSTATE, .dwarf_first = 17, .count = 16, .offset = 576, .size = 16, .stride = 16,
	  .value_offset = 16, .xstate_bit = 1u << 2 },
};

// The #PF error code: bit 1 "write" (arch/x86/include/asm/trap_pf.h X86_PF_WRITE), bit 4 "instruction fetch".
static enum ct_access kernel_fault_access_x86_64(uint64_t code)
{
	return code & 0x10 ? CT_ACCESS_EXEC : code & 2 ? CT_ACCESS_WRITE : CT_ACCESS_READ;
}

// x86-64 and x32 share registers, DWARF numbers, call encodings and decoder; x32 has 4-byte
// pointers, a 32-bit prstatus header and 8-byte stack slots.
#define X86_64_COMMON                                                                                    \
	.e_machine = EM_X86_64, .regs = regs_x86_64, .num_regs = sizeof(regs_x86_64) / sizeof(regs_x86_64[0]),  \
	.pc_dwarf = 16, .sp_dwarf = 7, .fp_dwarf = 6, .ra_dwarf = 16, .pc_index = 16, .num_dwarf = 17,       \
	.prstatus_reg_size = 27 * 8, .bad_call = CT_BAD_CALL_STACK, .fp_saved_fp_offset = 0,                 \
	.vregs = vregs_x86_64, .num_vregs = sizeof(vregs_x86_64) / sizeof(vregs_x86_64[0]),                   \
	.fp_saved_ra_offset = 8, .cs_arch = CS_ARCH_X86, .cs_mode = CS_MODE_64,                              \
	.is_after_call = is_after_call_x86_64, .call_target = call_target_x86_64, .fp_rule = CT_FP_CHAIN, .insn_decoder = CT_INSN_X86_64,     \
	/* rbx, rbp, r12-r15 are callee-saved (SysV AMD64 ABI 3.2.1; x32 the same) */                     \
	.callee_saved = (1ULL << 3) | (1ULL << 6) | (0xfULL << 12)
// The kernel's struct rt_sigframe (arch/x86/include/asm/sigframe.h): pretcode, then struct ucontext
// (uc_flags, uc_link, uc_stack: 40 bytes, then struct sigcontext of asm/sigcontext.h, 256 bytes, then
// uc_sigmask), then siginfo. At the restorer the handler's ret has popped pretcode: sp = &uc.
#define SC(name, dwarf, off) { dwarf, off }
static const struct ct_arch_sigreg sigregs_x86_64[] = {
	SC(r8, 8, 0),	 SC(r9, 9, 8),	  SC(r10, 10, 16), SC(r11, 11, 24), SC(r12, 12, 32), SC(r13, 13, 40),
	SC(r14, 14, 48), SC(r15, 15, 56), SC(rdi, 5, 64),  SC(rsi, 4, 72),  SC(rbp, 6, 80),  SC(rbx, 3, 88),
	SC(rdx, 1, 96),	 SC(rax, 0, 104), SC(rcx, 2, 112), SC(rsp, 7, 120), SC(rip, 16, 128),
};

// mov rax, 15 (__NR_rt_sigreturn); syscall
static const uint8_t restorer_x86_64[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

// x86-64 and x32 save the same struct sigcontext; their ucontexts place it differently.
#define SIGFRAME_X86_64(code, si, mc)                                                                   \
	{                                                                                                 \
		.ucontext_at = 0, .siginfo_at = si, .mcontext = mc, .pc = 128, .sp = 120, .err = 152,       \
		.trapno = 160, .cr2 = 176, .fault_address = -1, .reserved = -1, .word = 8,                  \
		.regs = sigregs_x86_64, .num_regs = sizeof(sigregs_x86_64) / sizeof(sigregs_x86_64[0]),     \
		.restorer = code, .restorer_len = sizeof(code),                                             \
	}
// siginfo at 304 = sizeof(struct ucontext)
static const struct ct_arch_sigframe sigframe_x86_64 = SIGFRAME_X86_64(restorer_x86_64, 304, 40);

// x32's struct rt_sigframe_x32 (arch/x86/include/asm/sigframe.h): pretcode (8 bytes), struct
// ucontext_x32 (uc_flags, uc_link, compat uc_stack, a pad: 24 bytes, then the 64-bit struct sigcontext,
// then uc_sigmask: 288 bytes), then the compat siginfo. glibc's x32 __restore_rt: mov rax,
// 0x40000201 (__X32_SYSCALL_BIT | 513, rt_sigreturn); syscall.
static const uint8_t restorer_x32[] = { 0x48, 0xc7, 0xc0, 0x01, 0x02, 0x00, 0x40, 0x0f, 0x05 };

static const struct ct_arch_sigframe sigframe_x32 = SIGFRAME_X86_64(restorer_x32, 288, 24);

// BFD ld's elf_x86_64_lazy_plt / _lazy_ibt_plt / _non_lazy_ibt_plt: a 16-byte PLT0, 16-byte stubs;
// with IBT the stubs code calls are in .plt.sec (no header) and .plt holds only the lazy halves.
// .plt.got: the stubs of imports whose address is taken too (GLOB_DAT slots), 8 or 16 bytes
// (sh_entsize). Every stub is tied to its slot by its jmp, as elfxx-x86.c does.
static const struct ct_arch_plt plt_x86_64[] = {
	{ ".plt.sec", 0, 16, true, NULL },
	{ ".plt", 16, 16, true, ".plt.sec" },
	{ ".plt.got", 0, 0, true, NULL },
	{ NULL, 0, 0, false, NULL },
};

const struct ct_arch_info ct_arch_x86_64 = {
	X86_64_COMMON,
	.name = "x86_64",
	.elf_class = ELFCLASS64,
	.pointer_size = 8,
	.prstatus_reg_offset = 112,
	.user_address_limit = 1ULL << 47,
	.kernel_address_start = 0xffff800000000000ULL,
	.sigframe = &sigframe_x86_64,
	.syscall_nr_index = 22, // orig_rax
	.syscall_ret_index = 0,
	.syscall_arg_index = { 5, 4, 3, 10, 8, 9 }, // rdi rsi rdx r10 r8 r9
	.syscall_insn = { 0x0f, 0x05 }, // syscall
	// SysV AMD64 ABI 3.2.3: rdi rsi rdx rcx r8 r9 (x32 is not traced).
	.call_arg_dwarf = { 5, 4, 1, 2, 8, 9 },
	.num_call_args = 6,
	.syscall_insn_len = 2,
	.syscalls = ct_syscalls_x86_64,
	.num_syscalls = &ct_num_syscalls_x86_64,
	// struct elf_prstatus: pr_pid, pr_ppid, pr_pgrp, pr_sid, then pr_utime, pr_stime (timevals of longs).
	.prstatus_utime_offset = 48,
	.prstatus_time_word = 8,
	.canonical_bit = 47, // 4-level paging; a 5-level kernel's addresses fail is_kernel_address
	// MODULES_VADDR (__START_KERNEL_map + KERNEL_IMAGE_SIZE, 1 GiB with CONFIG_RANDOMIZE_BASE as every
	// distribution builds it) .. MODULES_END (arch/x86/include/asm/pgtable_64_types.h).
	.kernel_modules_start = 0xffffffffc0000000ULL,
	.kernel_modules_end = 0xffffffffff000000ULL,
	.kernel_stack_size = 16 * 1024, // THREAD_SIZE (32 KiB with KASAN: the scan then misses the top)
	.kernel_unwind = CT_KUNWIND_ORC,
	.vmcoreinfo_key = "SYMBOL(init_top_pgt)",
	.kernel_fault_access = kernel_fault_access_x86_64,
	.kallsyms_absolute_percpu = true,
	.go_stacks = true,
	.cfi_cache_step = true, // elfutils' x86_64 backend: frame_nregs 17, no address mask
	.plt = plt_x86_64,
	.plt_irelative = R_X86_64_IRELATIVE,
	.plt_slot = ct_x86_64_plt_slot,
	.plt_got_reserved = 3,
};

const struct ct_arch_info ct_arch_x32 = {
	X86_64_COMMON,
	.name = "x32",
	.elf_class = ELFCLASS32,
	.pointer_size = 4,
	.prstatus_reg_offset = 72,
	.user_address_limit = 1ULL << 32,
	.kernel_address_start = 0,
	.stack_slot = 8,
	.sigframe = &sigframe_x32,
	// struct compat_elf_prstatus: the 32-bit header (compat_timeval of 4-byte words at 40).
	.prstatus_utime_offset = 40,
	.prstatus_time_word = 4,
};
