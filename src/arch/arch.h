/**
 * @file arch.h
 * Per-architecture tables. The target architecture comes only from the dump (e_machine), never
 * from the host; everything that differs between architectures is data in struct ct_arch_info.
 *
 * To add an architecture:
 *  1. Write src/arch/<name>.c with its register table (name, DWARF number, offset and size in
 *     NT_PRSTATUS pr_reg), the pc/sp/fp/return-address numbers, the prstatus layout, capstone
 *     arch/mode (or -1), and the bad-call rule (where the return address is right after a call);
 *     its signal frame (struct ct_arch_sigframe: the kernel's rt_sigframe layout and the
 *     rt_sigreturn trampoline's bytes) for signal-frame facts and sigreturn without CFI.
 *  2. Add it to the list in arch.c.
 *  3. Add a core to tests (or check the external corpus has one), and list it in README.md
 *     "Architectures" and docs/architectures.md.
 */
#ifndef CT_ARCH_H
#define CT_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/syscalls.h"

/** Enough DWARF register slots for the general registers of every supported architecture. */
#define CT_MAX_DWARF_REGS 72

struct ct_arch_reg {
	const char *name;
	/** DWARF register number, or -1 when the register has none. */
	int dwarf;
	/** Offset of the register in NT_PRSTATUS pr_reg. */
	uint16_t offset;
	/** Size in bytes (4 or 8). */
	uint8_t size;
};

/** How the return address is found right after a call to a bad pc. */
enum ct_bad_call_kind {
	/** The call pushed the return address at [sp] (x86). */
	CT_BAD_CALL_STACK,
	/** The call put it in the link register (aarch64 x30, riscv ra, arm lr). */
	CT_BAD_CALL_LINK_REGISTER,
};

/** A register the kernel saved in a signal frame's sigcontext: DWARF number and offset. */
struct ct_arch_sigreg {
	int dwarf;
	uint16_t offset;
};

/**
 * Where the kernel's rt_sigframe keeps the interrupted context, seen from the sp of the sigreturn
 * trampoline frame (the handler's return popped nothing else). Offsets into struct sigcontext;
 * -1 when the architecture has no such field.
 */
struct ct_arch_sigframe {
	/** ucontext at sp + ucontext_at, or at the pointer stored there when ucontext_indirect. */
	int16_t ucontext_at;
	bool ucontext_indirect;
	/** siginfo likewise (the kernel fills it only for SA_SIGINFO handlers). */
	int16_t siginfo_at;
	bool siginfo_indirect;
	/** Offset of uc_mcontext (struct sigcontext) in the ucontext. */
	uint16_t mcontext;
	/** sigcontext fields: pc, sp; x86 trapno/err/cr2; aarch64 fault_address and __reserved records. */
	int16_t pc, sp, trapno, err, cr2, fault_address, reserved;
	/** Size of a register and of trapno/err/cr2 in the sigcontext (4 or 8). */
	uint8_t word;
	/** The interrupted general registers. */
	const struct ct_arch_sigreg *regs;
	size_t num_regs;
	/**
	 * The code of the rt_sigreturn trampoline (glibc's __restore_rt, Go's runtime.sigreturn, the
	 * vdso's): a frame whose pc is at these bytes is a signal frame even without CFI saying so.
	 */
	const uint8_t *restorer;
	uint8_t restorer_len;
};

struct ct_arch_info {
	const char *name;
	uint16_t e_machine;
	/** ELFCLASS32 or ELFCLASS64 this table applies to. */
	uint8_t elf_class;
	unsigned pointer_size;
	const struct ct_arch_reg *regs;
	size_t num_regs;
	/** DWARF numbers of pc (-1: pc is not a DWARF register, pass it separately), sp, fp, ra. */
	int pc_dwarf, sp_dwarf, fp_dwarf, ra_dwarf;
	/** Index in regs[] of pc (always present). */
	int pc_index;
	/** Number of DWARF registers handed to libdwfl (0..n-1 contiguous). */
	int num_dwarf;
	/** Offset of pr_reg in NT_PRSTATUS and its size. */
	uint16_t prstatus_reg_offset, prstatus_reg_size;
	enum ct_bad_call_kind bad_call;
	/** Where the caller's frame pointer and return address sit relative to fp (fp chain). */
	int fp_saved_fp_offset, fp_saved_ra_offset;
	/** Capstone cs_arch and cs_mode, or -1 when capstone cannot decode it. */
	int cs_arch, cs_mode;
	/** Highest canonical user address + 1 (x86-64: 2^47); 0 = all addresses canonical. */
	uint64_t user_address_limit;
	/**
	 * True when the bytes just before @p ret_addr (given as @p before, @p len bytes ending at
	 * ret_addr) end with a call instruction. Used to validate stack-scan candidates.
	 */
	bool (*is_after_call)(const uint8_t *before, size_t len);
	/** The signal frame's layout (issue 16), NULL when not described. */
	const struct ct_arch_sigframe *sigframe;

	/* The interrupted system call (docs/hangs.md), read from the dump's registers. */
	/** Index in regs[] of the call's number (x86 orig_rax/orig_eax, aarch64 x8, riscv a7), -1 none. */
	int syscall_nr_index;
	/** Index in regs[] of the return value (rax, eax, x0, a0). */
	int syscall_ret_index;
	/** Indices in regs[] of arguments 0..5; -1 when the dump no longer holds one (aarch64 and riscv
	 * return in the first argument's register and the core has no orig_x0). */
	int syscall_arg_index[6];
	/** The system-call instruction that ends at the pc of a thread inside a call (little-endian bytes). */
	uint8_t syscall_insn[4];
	uint8_t syscall_insn_len;
	/** Number → call table of this ABI (src/arch/syscalls.c). */
	const struct ct_syscall_nr *syscalls;
	const size_t *num_syscalls;
};

/** The table for @p e_machine / @p elf_class, or NULL when the architecture is not supported. */
const struct ct_arch_info *ct_arch_find(uint16_t e_machine, uint8_t elf_class);
/** Name for any e_machine (also unsupported ones), for messages: "s390x", "EM_123". */
const char *ct_arch_machine_name(uint16_t e_machine, uint8_t elf_class);

extern const struct ct_arch_info ct_arch_x86_64, ct_arch_i386, ct_arch_aarch64, ct_arch_riscv64;

#endif
