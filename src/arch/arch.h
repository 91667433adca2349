/**
 * @file arch.h
 * Per-architecture tables. The target architecture comes only from the dump (e_machine), never
 * from the host; everything that differs between architectures is data in struct ct_arch_info.
 *
 * To add an architecture:
 *  1. Write src/arch/<name>.c with its register table (name, DWARF number, offset and size in
 *     NT_PRSTATUS pr_reg), the pc/sp/fp/return-address numbers, how many DWARF registers libdwfl
 *     takes (its backend's frame_nregs bounds them), the prstatus layout, byte order, capstone
 *     arch/mode (or -1) and the instruction decoder of triage (enum ct_insn_decoder), the
 *     frame-pointer rule, the bad-call rule (where the return address is right after a call),
 *     the call-instruction check, how far the CFA lies above the caller's sp (cfa_sp_offset:
 *     the CIE's def_cfa offset, s390's 160), the user/kernel address split, signal numbering when it is
 *     not asm-generic, and the interrupted-system-call fields (docs/hangs.md; syscalls = NULL
 *     leaves them out); its signal frame (struct ct_arch_sigframe: the kernel's rt_sigframe layout
 *     and the rt_sigreturn trampoline's bytes) for signal-frame facts and sigreturn without CFI; and
 *     the offset of pr_utime in NT_PRSTATUS (threads' CPU time, docs/trail.md); where its
 *     float/vector registers sit in NT_FPREGSET (struct ct_arch_vregs: frame 0's float arguments);
 *     for kernel dumps (src/kernel/) the canonical-address bit, the module area, the kernel stack
 *     size, how kernel stacks are unwound (enum ct_kernel_unwind) and the VMCOREINFO key that names
 *     the architecture (docs/vmcore.md).
 *  2. Add it to the list in arch.c (and its name to ct_arch_machine_name when new).
 *  3. If capstone decodes it, the register names capstone prints must match the table's (or get an
 *     alias in triage/insn_generic.c); give POINTER_BYTES in tests/cross/check_cross.py.
 *  4. Add cores: a row in tests/cross/arches.tsv (cross compiler and qemu-user runner; the cases of
 *     tests/cross/cases.tsv then run for it, tests/cross.cmake) and, for the corpus, rows in
 *     tests/corpus/arch_expectations.tsv; list it in README.md "Architectures" and in the table of
 *     docs/architectures.md, each cell naming its test.
 */
#ifndef CT_ARCH_H
#define CT_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/syscalls.h"
#include "coretriage/report.h"

/**
 * Enough DWARF register slots for the general registers of every supported architecture (the
 * highest used is ppc's link register, 65; s390 access registers go to 63).
 */
#define CT_MAX_DWARF_REGS 72

/**
 * Bytes before a return address that is_after_call() and call_target() need to see the call: the
 * longest call they check is 8 bytes (mips and sparc: the call and its delay slot; x86: 7). The
 * decoders of triage/insn.h read more (CT_INSN_CALL_WINDOW): they decode whole call sequences.
 */
#define CT_ARCH_CALL_BYTES 8

struct ct_arch_reg {
	const char *name;
	/** DWARF register number, or -1 when the register has none. */
	int dwarf;
	/** Offset of the register in NT_PRSTATUS pr_reg. */
	uint16_t offset;
	/** Size in bytes (4 or 8). */
	uint8_t size;
};

/**
 * A PLT section as the linkers lay it out (BFD ld and lld alike): a header of @c header bytes, then
 * stubs of @c entry bytes (0: the section's sh_entsize). Stub i is tied to its GOT slot one of the
 * two ways BFD's synthetic symbols (gdb's "puts@plt") tie it: @c by_code, the slot its jump reads,
 * decoded from the stub (x86: elfxx-x86.c, which names .plt.got's GLOB_DAT stubs too; s390x, whose
 * slots do not start at DT_PLTGOT + 3 words); else by
 * order, slot DT_PLTGOT + (plt_got_reserved + i) words, one stub per PLT relocation (DT_PLTRELSZ;
 * the generic _bfd_elf_get_synthetic_symtab). The relocation that fills the slot names the stub.
 * A section is left unnamed when the file also has section @c unless (x86 with IBT: the lazy .plt
 * beside .plt.sec, which gdb leaves unnamed too).
 */
struct ct_arch_plt {
	const char *section;
	uint8_t header, entry;
	bool by_code;
	const char *unless;
};

/** How the return address is found right after a call to a bad pc. */
enum ct_bad_call_kind {
	/** The call pushed the return address at [sp] (x86). */
	CT_BAD_CALL_STACK,
	/** The call put it in the link register (aarch64 x30, riscv ra, arm lr, ppc lr, s390 r14, mips ra,
	 sparc o7 + ra_offset). */
	CT_BAD_CALL_LINK_REGISTER,
};

/** How a caller's frame is found without unwind information. */
enum ct_fp_rule {
	/** No frame-pointer step (sparc register windows, s390 without -mbackchain, arm). */
	CT_FP_NONE,
	/** fp points at {saved fp, return address} (x86, aarch64, riscv: at fp + the two offsets). */
	CT_FP_CHAIN,
	/** [sp] holds the caller's sp (the ppc back chain); the return address is at caller sp + ra offset. */
	CT_FP_BACK_CHAIN,
};

/** The instruction decoder triage uses for the faulting instruction (triage/insn.c dispatches on it). */
enum ct_insn_decoder {
	CT_INSN_NONE,
	CT_INSN_X86_64,
	CT_INSN_I386,
	CT_INSN_AARCH64,
	/** By hand (capstone 4 has no RISC-V): the faulting instruction, call sites and PLT stubs. */
	CT_INSN_RISCV64,
	/** capstone's operand details (arm, ppc, s390, mips, sparc): memory operands and traps. */
	CT_INSN_GENERIC,
	CT_INSN_NUM_,
};

/** How src/kernel/kstack.c walks a kernel stack of the architecture. */
enum ct_kernel_unwind {
	/** Kernel stacks are not unwound (registers are shown, frame 0 is named). */
	CT_KUNWIND_NONE,
	/** The kernel's ORC tables (x86-64, CONFIG_UNWINDER_ORC), then a validated stack scan. */
	CT_KUNWIND_ORC,
	/** Frame records {saved fp, return address} at fp (arm64 x29, CONFIG_FRAME_POINTER). */
	CT_KUNWIND_FP,
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
	/* Fields added for the architectures beyond x86 and aarch64 (issue 13). */
	/**
	 * Another frame layout of the architecture, or the same one behind another restorer encoding,
	 * told apart by its restorer bytes (the non-SA_SIGINFO sigframe of i386, arm, s390 and mips o32;
	 * arm's Thumb and ARM restorers); NULL ends the list. The first layout is the default for a
	 * signal frame whose trampoline matches none (one found by CFI).
	 */
	const struct ct_arch_sigframe *next;
	/** The frame has no siginfo (the non-SA_SIGINFO frames; ppc64, where its place depends on the kernel). */
	bool no_siginfo;
	/**
	 * ppc64: the sigcontext's regs pointer (at regs_ptr_at in it) points right after itself, at the
	 * registers; the sigcontext is where that holds within regs_ptr_search bytes from mcontext
	 * (qemu-user puts it 16 bytes later than the kernel). 0 = mcontext is exact.
	 */
	uint16_t regs_ptr_at, regs_ptr_search;
	/**
	 * ppc64: the siginfo follows the pointers pinfo (to it) and puc (to the ucontext) somewhere in
	 * [ucontext + siginfo_at, + siginfo_search): where a word p holds p + 2 words and the next one the
	 * ucontext's address, the siginfo is at p + 2 words. 0 = siginfo_at is exact.
	 */
	uint16_t siginfo_search;
};

/** The sigcontext fields only x86 (trapno, err, cr2) and aarch64 (fault_address, __reserved) have. */
#define CT_SIGFRAME_NO_TRAP_FIELDS .trapno = -1, .err = -1, .cr2 = -1, .fault_address = -1, .reserved = -1

/**
 * A run of floating-point/vector registers with consecutive DWARF numbers in one of a thread's
 * core notes (NT_FPREGSET = 2, NT_X86_XSTATE = 0x202): register k (DWARF dwarf_first + k) has
 * @p size bytes at @p offset + k * @p stride of the note, which are bytes [value_offset,
 * value_offset + size) of the register's value (the upper half of x86 ymm lies in XSTATE).
 */
struct ct_arch_vregs {
	uint32_t note_type;
	int dwarf_first;
	uint8_t count;
	uint16_t offset;
	uint8_t size, stride, value_offset;
	/** The XSAVE header's XSTATE_BV bit of the component (x86); clear = the component is in its
	 * initial state (zeros). 0: no such bit. */
	uint64_t xstate_bit;
};

/** Bytes of the widest floating-point/vector register value read from the notes (x86 ymm). */
#define CT_VREG_MAX_BYTES 32

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
	/**
	 * DWARF numbers (below 64) of the registers the ABI says a call preserves (callee-saved),
	 * besides sp: in a caller frame only these (and sp, pc) have known values; a callee-saved
	 * register the callee's CFI says nothing about keeps its value.
	 */
	uint64_t callee_saved;
	/**
	 * The C calling convention's integer argument registers in order, as DWARF numbers (SysV x86-64
	 * rdi rsi rdx rcx r8 r9; AAPCS64 x0..x7): where the root-cause chain (src/triage/origin.c)
	 * finds a parameter at a function's entry and continues in the caller. num_call_args 0: the
	 * chain does not trace the architecture.
	 */
	int call_arg_dwarf[8];
	unsigned num_call_args;
	/* Fields added for the architectures beyond x86 and aarch64 (issue 13). */
	/** Byte order of the target (ppc64 and ppc64le share e_machine, so lookups key on it). */
	bool big_endian;
	enum ct_fp_rule fp_rule;
	enum ct_insn_decoder insn_decoder;
	/**
	 * Bits of a pc that address code (s390 31-bit: the top bit is the addressing mode; arm: bit 0
	 * is the Thumb bit of return addresses); 0 = all.
	 */
	uint64_t pc_mask;
	/** Added to the sp register to get the stack address (sparc64's stack bias, 2047). */
	uint64_t stack_bias;
	/** First kernel address (user addresses lie below it; 0 = separate address spaces, s390). */
	uint64_t kernel_address_start;
	/** The return address is this much past the link register (sparc, mips: call + delay slot). */
	unsigned ra_offset;
	/**
	 * Signal numbers of the target turned into asm-generic ones (mips, sparc), indexed by the
	 * target's number (< 32); NULL when the target uses asm-generic numbering.
	 */
	const uint8_t *generic_signal;
	/** siginfo has si_code before si_errno (mips). */
	bool siginfo_code_first;
	/**
	 * Reads a function's prologue (@p code: @p len bytes from its start up to the pc) for
	 * architectures libdwfl cannot unwind (mips): the bytes it subtracted from sp and the offset
	 * from the lowered sp where it saved the return address (-1: not saved, still in the link
	 * register). NULL when the architecture has no such rule.
	 */
	bool (*prologue)(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t *frame_size,
			 int64_t *ra_offset);
	/**
	 * The target of the direct call that ends right before @p ret_addr (@p before: the @p len bytes
	 * ending there), for validating scanned return addresses; NULL when not decoded (i386,
	 * aarch64 and riscv64 have only triage's ct_insn_call_before; x86-64 decodes e8 rel32 here).
	 */
	bool (*call_target)(const uint8_t *before, size_t len, uint64_t ret_addr, uint64_t *target);
	/**
	 * The PLT sections whose stubs are named, ended by a NULL section. NULL when not described
	 * (ppc64's call stubs live in .text; x32, mips, sparc: not checked against gdb).
	 */
	const struct ct_arch_plt *plt;
	/**
	 * The GOT slot a PLT stub jumps through, decoded from its code: @p code holds @p len bytes at
	 * @p stub; @p got_base is the ABI's GOT pointer for i386 PIC stubs (`jmp [ebx + X]`: DT_PLTGOT
	 * plus the load bias), 0 when unknown. Pure. False when the bytes are no stub it knows; NULL
	 * when the architecture has no decoder.
	 */
	bool (*plt_slot)(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot);
	/**
	 * The ELF relocation type R_<arch>_IRELATIVE (a slot filled by an ifunc resolver: no symbol, its
	 * resolver's address as addend; BFD names such a stub "*ABS*+0xADDEND@plt"); 0 when none.
	 */
	uint32_t plt_irelative;
	/** GOT words before the first PLT slot (the dynamic linker's: 3 on x86, aarch64, arm, s390x; 2 riscv). */
	uint8_t plt_got_reserved;
	/** Bytes a call or push moves sp by when not pointer_size (x32: 8); 0 = pointer_size. */
	unsigned stack_slot;
	/** Capstone mode for the thread's state (arm: Thumb when CPSR.T), or NULL for cs_mode. */
	int (*cs_mode_for)(const uint64_t *values, size_t num_values);
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
	/**
	 * Offset in NT_PRSTATUS of pr_utime (struct timeval; pr_stime follows it) and the size of a
	 * timeval word (the target's long). 0 when not known: the threads' CPU time is not shown.
	 */
	uint16_t prstatus_utime_offset;
	uint8_t prstatus_time_word;
	/** Floating-point/vector registers of the thread notes (issue 10: frame 0's float and vector
	 * arguments), NULL when not described. */
	const struct ct_arch_vregs *vregs;
	size_t num_vregs;

	/* Kernel dumps (src/kernel/). A vmcore's NT_PRSTATUS has the same pr_reg (the kernel's pt_regs
	 * as elf_gregset_t) as a process core's: regs[] and prstatus_reg_offset give each CPU's registers. */
	/** An address is canonical when its bits canonical_bit..63 are all equal: x86-64 (4-level paging)
	 * sign-extends bit 47; arm64 with VA_BITS 48 (Debian) has TTBR0 below 2^48 and TTBR1 at bits 48..63
	 * all ones, bit 47 free (the linear map starts at 0xffff000000000000). 0 = no such rule. */
	uint8_t canonical_bit;
	/** The kernel's module area (MODULES_VADDR..MODULES_END, or where module_alloc() can place text);
	 * 0, 0 = unknown. */
	uint64_t kernel_modules_start, kernel_modules_end;
	/** THREAD_SIZE: a kernel stack is this big and this aligned (0 = not known). */
	uint32_t kernel_stack_size;
	enum ct_kernel_unwind kernel_unwind;
	/** Kernel return addresses may carry a pointer-authentication code above canonical_bit (arm64 PAC):
	 * the kernel half's sign extension is restored before a lookup. */
	bool kernel_ra_signed;
	/**
	 * A VMCOREINFO key only this architecture's kernel writes (arch_crash_save_vmcoreinfo()): names
	 * the architecture of a dump whose header does not (QEMU's kdump header says "Unknown" for arm).
	 */
	const char *vmcoreinfo_key;
	/** How a kernel fault accessed memory from the error code its die() header or #PF line prints
	 * (x86 page-fault error code, arm64 ESR); CT_ACCESS_NONE when it does not say. */
	enum ct_access (*kernel_fault_access)(uint64_t error_code);
	/** CONFIG_KALLSYMS_ABSOLUTE_PERCPU (init/Kconfig: default X86_64 && SMP): how kallsyms offsets read. */
	bool kallsyms_absolute_percpu;
	/** Goroutine stacks are walked here (runtime/go.c): gentraceback's frame rule for the machine is
	 * written (the return address above each frame, or arm64's link register saved at its sp). */
	bool go_stacks;
	/** On a link-register machine, where Go's signal handler saves the interrupted function's link
	 * register before it fakes a call (sigpanic, asyncPreempt): that many bytes below its sp
	 * (alignUp(sys.MinFrameSize, sys.StackAlign): arm64 16). */
	uint8_t go_injected_lr_slot;
	/**
	 * The CFA less the caller's stack address (its sp register + stack_bias): 0 where the ABI's CFA
	 * is that address (sparc64's CFA, %sp + 2047, is too); s390x 160 and s390 96: the register
	 * save area a caller provides its callee lies between them (the CFI's def_cfa r15, 160).
	 */
	uint16_t cfa_sp_offset;
	/**
	 * libdwfl's CFI step here is the plain one the cached step (src/unwind/cfi_cache.c) redoes:
	 * its frame registers are exactly DWARF 0..num_dwarf-1 (ebl_frame_nregs), 64-bit values, no
	 * mask on the return address (ebl_func_addr_mask) and no two numbers for one register (ppc).
	 */
	bool cfi_cache_step;
};

/** The table for @p e_machine / @p elf_class, or NULL when the architecture is not supported. */
const struct ct_arch_info *ct_arch_find(uint16_t e_machine, uint8_t elf_class);
/**
 * The table that matches a thread's NT_PRSTATUS of @p prstatus_size bytes: @p arch itself, or an
 * ABI the ELF header does not tell apart (mips n32 against o32; in mips.c).
 */
const struct ct_arch_info *ct_arch_for_prstatus(const struct ct_arch_info *arch, size_t prstatus_size);
/** Like ct_arch_find for a dump of byte order @p big_endian (ppc64 against ppc64le, mips against mipsel). */
const struct ct_arch_info *ct_arch_find_endian(uint16_t e_machine, uint8_t elf_class, bool big_endian);
/** The asm-generic number of the target's signal @p signo (unchanged on most architectures). */
int ct_arch_generic_signal(const struct ct_arch_info *arch, int signo);
/** Capstone mode for a thread whose register values (arch->regs order) are @p values. */
int ct_arch_cs_mode(const struct ct_arch_info *arch, const uint64_t *values, size_t num_values);
/** The table named @p name ("x86_64", "aarch64"; libkdumpfile's arch names), or NULL. */
const struct ct_arch_info *ct_arch_find_name(const char *name);
/** The table whose vmcoreinfo_key is among @p has_key's keys (called once per table), or NULL. */
const struct ct_arch_info *ct_arch_find_vmcoreinfo(bool (*has_key)(const char *key, void *arg), void *arg);
/** Index in arch->regs[] of the register with DWARF number @p dwarf, or -1. */
int ct_arch_reg_index(const struct ct_arch_info *arch, int dwarf);
/** Index in arch->regs[] of the register at byte offset @p offset of pr_reg (the pt_regs word), or -1. */
int ct_arch_reg_at_offset(const struct ct_arch_info *arch, unsigned offset);
/** True when @p addr is canonical for the architecture (bits canonical_bit..63 all equal). */
bool ct_arch_is_canonical(const struct ct_arch_info *arch, uint64_t addr);
/** True when @p addr is a canonical kernel-half address (at or above kernel_address_start). */
bool ct_arch_is_kernel_address(const struct ct_arch_info *arch, uint64_t addr);
/** True when @p addr lies in the kernel's module area. */
bool ct_arch_in_kernel_modules(const struct ct_arch_info *arch, uint64_t addr);
/** A kernel return address with its pointer-authentication bits (if any) replaced by the sign extension. */
uint64_t ct_arch_kernel_strip_ra(const struct ct_arch_info *arch, uint64_t addr);

/** Name for any e_machine (also unsupported ones), for messages: "s390x", "EM_123". */
const char *ct_arch_machine_name(uint16_t e_machine, uint8_t elf_class);

extern const struct ct_arch_info ct_arch_x86_64, ct_arch_i386, ct_arch_aarch64, ct_arch_riscv64;
extern const struct ct_arch_info ct_arch_x32, ct_arch_arm, ct_arch_s390x, ct_arch_s390, ct_arch_ppc64,
	ct_arch_ppc64le, ct_arch_ppc, ct_arch_sparc64, ct_arch_mips, ct_arch_mipsel, ct_arch_mips64,
	ct_arch_mips64el, ct_arch_mipsn32, ct_arch_mipsn32el;

#endif
