/**
 * @file insn.h
 * Decoding the faulting instruction into struct ct_insn_facts, behind an architecture switch. Only
 * insn_<arch>.c files include capstone.
 */
#ifndef CT_TRIAGE_INSN_H
#define CT_TRIAGE_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "triage/facts.h"

/** What decoding may look at: the thread's registers and the dumped memory. */
struct ct_insn_ctx {
	/** Registers in DWARF numbering, with validity; borrowed. */
	const uint64_t *regs;
	const bool *valid;
	size_t num_regs;
	uint64_t pc;
	/** Reads data memory of the target (little-endian words); NULL when none. */
	bool (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
};

/**
 * Decodes the instruction in @p code (@p len bytes read at ctx->pc) for architecture @p arch
 * ("x86_64", "i386"). @p before holds the @p before_len bytes that end at pc (for int3 detection),
 * or NULL. Fills *@p ret (always: have_bytes, bytes; decoded when capstone decoded it). Returns false
 * when the architecture has no decoder.
 */
bool ct_insn_decode(const char *arch, const uint8_t *code, size_t len, const uint8_t *before, size_t before_len,
		    const struct ct_insn_ctx *ctx, struct ct_insn_facts *ret);

/**
 * x86 -O0 pattern: in @p code (instructions from @p start up to pc), the last instruction before pc
 * that writes DWARF register @p reg, when it loads it from a frame slot ("mov rax, [rbp - 0x10]").
 * Sets the slot's base register (DWARF) and displacement. False when there is no such load.
 */
bool ct_insn_find_slot_load(const char *arch, const uint8_t *code, size_t len, uint64_t start, uint64_t pc, int reg,
			    int *base_ret, int64_t *disp_ret);

#endif
