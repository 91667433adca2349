/**
 * @file thread.h
 * The thread of every dump: a process core's thread (NT_PRSTATUS), a kernel dump's CPU (its
 * NT_PRSTATUS, read by libkdumpfile) or a sleeping task's saved context, and (next) a live
 * thread stopped by ptrace. Registers are kept twice: by DWARF number, what unwinders, values and
 * decoders ask for, and in the order of the architecture table's regs[], what the report shows and
 * what the kernel's pt_regs-based steps index. One reader fills both from a pr_reg block.
 */
#ifndef CT_DUMP_THREAD_H
#define CT_DUMP_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "util/bytes.h"

/** Registers of arch->regs[] kept in table order: more than any table lists (aarch64: 34). */
#define CT_THREAD_MAX_VALUES 80

struct ct_core_thread {
	/** The thread id (pr_pid) of a process; the CPU number of a kernel dump's CPU. */
	int tid, ppid;
	/** pr_cursig: the signal that stopped this thread, 0 for none. */
	int cursig;
	/** A kernel dump's CPU: pr_pid, a task pid for kdump, the vCPU number + 1 for QEMU dumps. */
	bool has_pid;
	int pid;
	/** Registers in DWARF numbering; valid[] says which were present. */
	uint64_t dwarf[CT_MAX_DWARF_REGS];
	bool valid[CT_MAX_DWARF_REGS];
	/** Values of arch->regs[] in table order (for display, and the pt_regs order of kernel steps). */
	uint64_t values[CT_THREAD_MAX_VALUES];
	size_t num_values;
	/** The program counter (arch->pc_mask applied) and the stack address (sparc64's bias added). */
	uint64_t pc, sp;
	bool has_regs;
	/** The registers are a sleeping task's saved context: its pc is a return address (looked up
	 * at pc - 1), not the pc of an interrupted instruction. */
	bool pc_is_return;
	/** pr_utime and pr_stime in microseconds, when the architecture table knows where they are. */
	bool has_cpu_time;
	uint64_t user_usec, system_usec;
	/** The thread's NT_FPREGSET and NT_X86_XSTATE notes, into the mapped core (size 0: absent);
	 * read through ct_core_vreg (dump/vregs.h). */
	struct ct_bytes fpregset, xstate;
};

/**
 * Reads the registers of @p t from @p regs, the pr_reg block of an NT_PRSTATUS (arch->
 * prstatus_reg_size bytes, the kernel's pt_regs layout), as @p arch lays them out: the table-order
 * values, the DWARF-numbered ones, pc and sp; sets has_regs. The one pr_reg reader of process cores
 * and kernel dumps.
 */
void ct_thread_read_pr_reg(const struct ct_arch_info *arch, const struct ct_bytes *regs, struct ct_core_thread *t);

/** The register of DWARF number @p dwarf as dumped (table order, no mask or bias); 0 when the table has
 * no such register. */
uint64_t ct_thread_reg(const struct ct_arch_info *arch, const struct ct_core_thread *t, int dwarf);
/** Sets the register of DWARF number @p dwarf (both views); false when the table has none. */
bool ct_thread_set_reg(const struct ct_arch_info *arch, struct ct_core_thread *t, int dwarf, uint64_t value);

#endif
