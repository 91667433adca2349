// i386: NT_PRSTATUS layout (struct user_regs_struct, arch/x86/include/asm/user_32.h) and DWARF
// numbers (i386 psABI).
#include <capstone/capstone.h>
#include <elf.h>

#include "arch/arch.h"

#define R(name, dwarf, index) { name, dwarf, (index) * 4, 4 }

static const struct ct_arch_reg regs_i386[] = {
	R("eax", 0, 6), R("ecx", 1, 1), R("edx", 2, 2), R("ebx", 3, 0), R("esp", 4, 15),
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
	.kernel_address_start = 0, // compat tasks on a 64-bit kernel use all 4 GiB
	.syscall_nr_index = 10, // orig_eax
	.syscall_ret_index = 0,
	.syscall_arg_index = { 3, 1, 2, 6, 7, 5 }, // ebx ecx edx esi edi ebp
	// int $0x80; the vdso's sysenter path returns to just after its own int $0x80 as well.
	.syscall_insn = { 0xcd, 0x80 },
	.syscall_insn_len = 2,
	.syscalls = ct_syscalls_i386,
	.num_syscalls = &ct_num_syscalls_i386,
};
