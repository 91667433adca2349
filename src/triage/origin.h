/**
 * @file origin.h
 * Where the bad value came from (issue 24, docs/root-cause.md): from the faulting instruction's
 * operand back over the decoded instructions of the crashing function, through register moves, stack
 * spills and reloads, to the instruction that made the value: a call's return, the function's entry
 * (a parameter: the walk goes on in the caller at its call site), a load from memory, a constant or a
 * computation. A step that cannot be decided stops the chain with its reason; nothing is guessed.
 *
 * Two layers: the walk over one function's decoded instructions (pure: bytes in, one definition out;
 * origin_walk.c the search, origin_x86.c and origin_arm64.c each instruction's step) and the chain
 * over frames with names and lines (origin.c, reads the dump).
 */
#ifndef CT_TRIAGE_ORIGIN_H
#define CT_TRIAGE_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "triage/facts.h"
#include "triage/triage.h"

/** Where a tracked value lives: a register, or a stack slot addressed from the frame or stack pointer. */
struct ct_vloc {
	bool slot;
	int reg; /**< DWARF number of the register (slot: of its base: x86-64 6 rbp or 7 rsp, aarch64 29 or 31 sp) */
	int64_t disp; /**< slot: displacement from the base */
	unsigned size; /**< bytes: 8 for a pointer, 4 for an int */
};

enum ct_vdef_kind {
	CT_VDEF_ENTRY, /**< the value was in loc at the function's entry */
	CT_VDEF_CALL, /**< the return register (rax, x0) after the call at pc */
	CT_VDEF_LOAD, /**< loaded from memory that is not a stack slot of the frame */
	CT_VDEF_CONST, /**< an immediate or an address (lea of rip, adrp + add) */
	CT_VDEF_ARITH, /**< computed by the instruction at pc */
	CT_VDEF_STOP, /**< undecidable: see reason */
	CT_VDEF_NUM_
};

/** What the walk found for one function. */
struct ct_vdef {
	enum ct_vdef_kind kind;
	uint64_t pc; /**< the defining instruction (ENTRY: the function's start; STOP: where it stopped) */
	struct ct_vloc loc; /**< ENTRY: the location at entry */
	/** CALL: the target of a direct call; a call through a register or memory has none. */
	bool has_target;
	uint64_t target;
	/** CALL through memory (`call [rip + X]`, -fno-plt): the slot's address. */
	bool has_slot;
	uint64_t slot;
	/** LOAD: the operand; base and index DWARF numbers (-1 none, 16 rip), rip-relative or adrp-paired address. */
	int base, index;
	unsigned scale;
	int64_t disp;
	bool has_abs;
	uint64_t abs;
	/**
	 * ARITH: the value is [base] + [index] * scale + disp of the registers just before pc, in 64 bits
	 * (lea, add, sub of an immediate, shl; aarch64 add, sub, lsl, sbfiz): the decomposition of an
	 * address follows it (origin.c). @p index_size: the index register's bytes (4: a `w` register,
	 * sign-extended when @p index_sext, else zero-extended).
	 */
	bool affine;
	unsigned index_size;
	bool index_sext;
	/** CONST: the value. */
	uint64_t value;
	/** STOP: why (static text). */
	const char *reason;
	/** Register moves, spills and reloads passed on the way. */
	unsigned copies;
	/** The defining instruction's text ("call 0x1139", "mov rax, qword ptr [rbx + 8]"). */
	char text[96];
};

/** A decoded function: its instructions and their predecessors. */
struct ct_vfunc;

/** Instructions decoded per function at most: a bound on the walk's cost (16 KiB of code is more). */
#define CT_VFUNC_MAX_INSNS 4096

/** One contiguous part of a function's code (the function, or its .cold part). */
struct ct_vrange {
	const uint8_t *code;
	size_t len;
	uint64_t start;
};

/**
 * Decodes the x86-64 function made of @p nranges parts (in address order; a function and its .cold
 * part jump into each other) entered at @p entry into *@p ret, to be freed by ct_vfunc_destroy().
 * False (with *@p reason_ret, static) when it cannot: too large, a byte that does not decode.
 */
bool ct_vfunc_decode_x86(const struct ct_vrange *ranges, size_t nranges, uint64_t entry, struct ct_vfunc **ret,
			 const char **reason_ret);
/** One architecture's steps of the walk (origin_walk.h; origin_x86.c, origin_arm64.c). */
struct ct_varch;
/** Decodes with the steps of @p arch, as ct_vfunc_decode_x86() does with x86-64's (origin_walk.c). */
bool ct_vfunc_decode(const struct ct_varch *arch, const struct ct_vrange *ranges, size_t nranges, uint64_t entry,
		     struct ct_vfunc **ret, const char **reason_ret);
/** The program's read-only data for the walk (a switch's table): @p len bytes at @p addr. */
struct ct_vmem {
	bool (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
};
/**
 * Resolves @p fn's indirect jumps that are switches through a bounded table (the architecture's
 * jump_table) into jumps to their targets, so that the paths into pc are known again. Every one
 * must resolve: one that does not leaves the function with has_indirect_jump (the walk then stops
 * there, as before). False only when memory ran out.
 */
bool ct_vfunc_resolve_tables(struct ct_vfunc *fn, const struct ct_vmem *mem);
/** Up to @p max targets of direct jumps that leave the decoded parts (tail calls, a .cold part). */
size_t ct_vfunc_outside_jumps(const struct ct_vfunc *fn, uint64_t *targets, size_t max);
void ct_vfunc_destroy(struct ct_vfunc *fn);

/**
 * The definition of the value in @p loc just before the instruction at @p at_pc, over every path of
 * @p fn that reaches it. @p has_value / @p value: the value known there (frame 0), which rules out
 * paths whose constant differs. Pure.
 */
void ct_vfunc_trace(const struct ct_vfunc *fn, uint64_t at_pc, struct ct_vloc loc, bool has_value, uint64_t value,
		    struct ct_vdef *ret);

/**
 * True when register @p reg keeps its value from after the instruction at @p from_pc up to (not
 * including) @p to_pc: one straight-line run without branch targets in between and no write of it.
 */
bool ct_vfunc_unchanged(const struct ct_vfunc *fn, uint64_t from_pc, uint64_t to_pc, int reg);

/** A memory operand: base + index * scale + disp, registers by DWARF number (-1 none). */
struct ct_vaddr {
	int base, index;
	unsigned index_size; /**< the index register's bytes (aarch64 `w1, sxtw`: 4) */
	bool index_sext; /**< a 4-byte index is sign-extended, else zero-extended */
	unsigned scale;
	int64_t disp;
};

/**
 * The one memory operand of the instruction at @p pc, given by registers (no rip-relative or literal
 * address, no segment, no writeback). False otherwise.
 */
bool ct_vfunc_mem_operand(const struct ct_vfunc *fn, uint64_t pc, struct ct_vaddr *ret);

/** The instruction that ends at @p end (a return address): its address. False when none. */
bool ct_vfunc_insn_ending(const struct ct_vfunc *fn, uint64_t end, uint64_t *pc_ret);

/** The call at @p pc: whether it is direct and its target. False when @p pc is not a call. */
bool ct_vfunc_call_target(const struct ct_vfunc *fn, uint64_t pc, bool *direct_ret, uint64_t *target_ret);
/** The divisor of the div/idiv at @p pc as a location (a register of 4 or 8 bytes, or a frame slot). */
bool ct_vfunc_div_operand(const struct ct_vfunc *fn, uint64_t pc, struct ct_vloc *ret);

/**
 * One architecture's walk: its steps (origin_x86.c, origin_arm64.c) for ct_vfunc_decode(); the
 * functions above work on what any of them decoded. The chain (origin.c) picks it by the dump's architecture; the calling
 * convention comes from the src/arch table (call_arg_dwarf, callee_saved, sp_dwarf, fp_dwarf).
 */
struct ct_vwalker {
	const char *arch; /**< the src/arch table's name ("x86_64") */
	int num_regs; /**< general registers the chain tracks: DWARF 0 .. num_regs - 1 */
	const struct ct_varch *steps; /**< what its decoder and each instruction's step are */
	/** The divisor of a dividing instruction that traps at pc; NULL when division does not trap. */
	bool (*div_operand)(const struct ct_vfunc *fn, uint64_t pc, struct ct_vloc *ret);
};

/** The x86-64 walk (origin_x86.c). */
extern const struct ct_vwalker ct_vwalker_x86_64;
/** The aarch64 walk (origin_arm64.c). */
extern const struct ct_vwalker ct_vwalker_aarch64;

/**
 * The root cause of the crash in @p facts into @p verdict->root_cause (left empty when not traced:
 * another architecture, no decodable fault operand, no own frame 0). @p regs / @p valid: the crashing
 * thread's registers in DWARF numbering.
 */
void ct_root_cause_trace(const struct ct_triage_input *s, const struct ct_facts *facts, const uint64_t *regs,
			 const bool *valid, struct ct_verdict *verdict);

#endif
