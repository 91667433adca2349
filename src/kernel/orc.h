/**
 * @file orc.h
 * The x86-64 kernel's ORC unwind tables (Linux 6.1 arch/x86/include/asm/orc_types.h), read from the
 * dump's memory through kallsyms (where the tables are is kernel-specific; the entry format and the
 * step that follows an entry are unwind/step.h's). Internal to src/kernel/.
 */
#ifndef CT_KERNEL_ORC_H
#define CT_KERNEL_ORC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/vmcore.h"
#include "unwind/step.h"

/** Slots of the lookup memo: every task's stack of a dump goes through the same few hundred ips
 * (schedule, the wait functions, the syscall entry), and one lookup is ~20 reads of the dump. */
#define CT_ORC_MEMO_SLOTS 256

/** The core kernel's ORC tables in the dump, and through @p modules each module's. */
struct ct_orc {
	uint64_t ip_table; /**< __start_orc_unwind_ip: s32 offsets, each relative to its own address */
	uint64_t entries; /**< __start_orc_unwind: struct orc_entry[num] */
	uint64_t num;
	uint64_t text_start, text_end; /**< ips covered: core kernel text … */
	uint64_t init_start, init_end; /**< … and .init.text (0, 0 when unknown) */
	/** Loaded modules with their own tables (kallsyms' list, borrowed), NULL when unknown. */
	const struct ct_kmodules *modules;
	/** Answers of ct_orc_find by ip, direct-mapped (the dump does not change, so neither do they). */
	struct ct_orc_memo {
		uint64_t ip;
		struct ct_orc_entry entry;
		uint8_t state; /**< 0: empty, 1: found, 2: no entry */
	} memo[CT_ORC_MEMO_SLOTS];
};

/** Finds the tables through kallsyms; false when the symbols are absent or implausible. */
bool ct_orc_init(struct ct_vmcore *vm, const struct ct_kallsyms *ks, struct ct_orc *ret);
/** The entry covering @p ip (rightmost table ip <= @p ip); false when none or unreadable. */
bool ct_orc_find(struct ct_vmcore *vm, struct ct_orc *orc, uint64_t ip, struct ct_orc_entry *ret);

#endif
