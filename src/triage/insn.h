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

#include "arch/arch.h"
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
	/** The thread's registers in arch->regs order (arm's CPSR picks Thumb); borrowed, may be NULL. */
	const uint64_t *values;
	size_t num_values;
};

/**
 * Decodes the instruction in @p code (@p len bytes read at ctx->pc) with the decoder the
 * architecture table @p arch names (NULL: none). @p before holds the @p before_len bytes that end at pc (for int3 detection),
 * or NULL. Fills *@p ret (always: have_bytes, bytes; decoded when capstone decoded it). Returns false
 * when the architecture has no decoder.
 */
bool ct_insn_decode(const struct ct_arch_info *arch, const uint8_t *code, size_t len, const uint8_t *before, size_t before_len,
		    const struct ct_insn_ctx *ctx, struct ct_insn_facts *ret);

/**
 * x86 -O0 pattern: in @p code (instructions from @p start up to pc), the last instruction before pc
 * that writes DWARF register @p reg, when it loads it from a frame slot ("mov rax, [rbp - 0x10]").
 * Sets the slot's base register (DWARF) and displacement. False when there is no such load.
 */
/** The call instruction that ends at a return address (what the caller was calling). */
struct ct_call_site {
	uint64_t address; /**< of the call instruction */
	/** Direct call: the target (a PLT stub or a function). */
	bool has_target;
	uint64_t target;
	/** Call through a memory word (x86 `call [rip + X]`, -fno-plt): the word's address (a GOT slot). */
	bool has_slot;
	uint64_t slot;
};

/**
 * Bytes before a return address given to ct_insn_call_before: more than an architecture's
 * is_after_call check needs (CT_ARCH_CALL_BYTES, 8), as the decoders take whole call forms and
 * sequences (x86 calls with prefixes, riscv's auipc + jalr pair).
 */
#define CT_INSN_CALL_WINDOW 16

/**
 * Decodes the call that ends at @p ret_addr. @p code holds the @p len bytes that end at @p ret_addr
 * (code[len - 1] is at ret_addr - 1). Pure. False when there is no call there (or no decoder for
 * @p arch); *@p ret is written only on success.
 */
bool ct_insn_call_before(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t ret_addr,
			 struct ct_call_site *ret);

/**
 * The GOT slot a PLT stub jumps through: @p code holds @p len bytes at @p stub (the call's target).
 * @p got_base is the ABI's GOT pointer for i386 PIC stubs (`jmp [ebx + X]`: DT_PLTGOT plus the
 * load bias), 0 when unknown. Pure. False when the bytes are not a PLT stub we know.
 */
bool ct_insn_plt_slot(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base,
		      uint64_t *slot_ret);

/* Per-architecture back ends of the functions above (insn_<arch>.c). */
bool ct_insn_decode_x86(bool is64, const uint8_t *code, size_t len, const uint8_t *before, size_t before_len,
			const struct ct_insn_ctx *ctx, struct ct_insn_facts *f);
bool ct_insn_call_before_x86(bool is64, const uint8_t *code, size_t len, uint64_t ret_addr,
			     struct ct_call_site *ret);
/** x86-64 DWARF number of capstone register @p reg (an x86_reg), -1 when it is not a general register. */
int ct_insn_x86_reg_dwarf(unsigned reg);
/** Width in bytes of capstone x86 register @p reg (8, 4, 2, 1), 0 when not a general register. */
unsigned ct_insn_x86_reg_size(unsigned reg);
bool ct_insn_decode_arm64(const uint8_t *code, size_t len, const struct ct_insn_ctx *ctx, struct ct_insn_facts *f);
/**
 * DWARF number and width (*@p size: 8 or 4) of capstone aarch64 register @p reg (an arm64_reg): x0..x30,
 * w0..w30, sp; -2 for xzr/wzr (reads 0), -1 for any other register.
 */
int ct_insn_arm64_reg_dwarf(unsigned reg, unsigned *size);
struct cs_insn;
/**
 * What the aarch64 instruction @p insn (decoded with detail by capstone handle @p h) does to memory:
 * *@p access_ret (read, write, none) and the bytes moved (*@p size_ret, both registers of a pair).
 * True for a read-modify-write atomic.
 */
bool ct_insn_arm64_access(size_t h, const struct cs_insn *insn, enum ct_access *access_ret, unsigned *size_ret);
bool ct_insn_call_before_arm64(const uint8_t *code, size_t len, uint64_t ret_addr, struct ct_call_site *ret);
/** riscv64's faulting instruction (insn_riscv.c): loads, stores, AMOs, jumps, traps. */
bool ct_insn_decode_riscv64(const uint8_t *code, size_t len, const struct ct_insn_ctx *ctx, struct ct_insn_facts *f);
bool ct_insn_call_before_riscv64(const uint8_t *code, size_t len, uint64_t ret_addr, struct ct_call_site *ret);

bool ct_insn_find_slot_load(const struct ct_arch_info *arch, const uint8_t *code, size_t len, uint64_t start,
			    uint64_t pc, int reg, int *base_ret, int64_t *disp_ret);
bool ct_insn_find_slot_load_x86(bool is64, const uint8_t *code, size_t len, uint64_t start, uint64_t pc, int reg,
				int *base_ret, int64_t *disp_ret);
bool ct_insn_decode_generic(const struct ct_arch_info *arch, const uint8_t *code, size_t len,
			    const struct ct_insn_ctx *ctx, struct ct_insn_facts *f);
/**
 * Zydis fallback for x86 (insn_zydis.c, built when libzydis is found: CT_HAVE_ZYDIS): decodes what
 * capstone 4 cannot (AVX-512/EVEX, AMX). Fills *@p f like the capstone path; false when Zydis cannot
 * decode it either.
 */
bool ct_insn_decode_zydis(bool is64, const uint8_t *code, size_t len, const struct ct_insn_ctx *ctx,
			  struct ct_insn_facts *f);

#endif
