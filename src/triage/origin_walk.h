/**
 * @file origin_walk.h
 * The part of the value-origin walk every architecture shares (origin_walk.c): one function decoded
 * with capstone into struct ct_vinsn, each instruction's predecessors (fall-through and direct
 * jumps), and the backward search from an instruction over every path to the instruction that
 * defined a location, with the merge of what the paths found. What one instruction does to the
 * tracked location is the architecture's (struct ct_varch: origin_x86.c, origin_arm64.c). Only the
 * walkers include this header.
 */
#ifndef CT_TRIAGE_ORIGIN_WALK_H
#define CT_TRIAGE_ORIGIN_WALK_H

#include <capstone/capstone.h>

#include "arch/arch.h"
#include "triage/origin.h"

enum ct_vflow { CT_VFLOW_NEXT, CT_VFLOW_JMP, CT_VFLOW_JCC, CT_VFLOW_RET, CT_VFLOW_CALL, CT_VFLOW_IJMP, CT_VFLOW_END };

enum ct_vop_type { CT_VOP_NONE, CT_VOP_REG, CT_VOP_IMM, CT_VOP_MEM };

/** An explicit operand, in DWARF register numbers. */
struct ct_vop {
	uint8_t type; /**< enum ct_vop_type */
	uint8_t size; /**< bytes */
	uint8_t access; /**< CS_AC_READ / CS_AC_WRITE */
	int8_t reg; /**< DWARF, -1 not a general register (-2: a zero register, which reads 0) */
	int8_t base, index; /**< DWARF, -1 none (x86: 16 rip) */
	uint8_t scale; /**< a memory operand's index scale; aarch64: a shifted register operand's 1 << shift */
	/** A memory operand's index register: its bytes (aarch64: 4 for `w1` of `[x8, w1, sxtw #2]`, else 8). */
	uint8_t index_size;
	/** aarch64: the register (or a memory operand's index) is sign-extended (`sxtw`); else a 4-byte one is zero-extended. */
	bool sext;
	bool seg; /**< x86: a segment override */
	int64_t disp, imm;
};

/** One decoded instruction: what the shared walk needs, and the architecture's operands. */
struct ct_vinsn {
	uint64_t addr;
	uint32_t off; /**< of its bytes in code_copy */
	uint8_t size;
	/** The first instruction of a range: nothing falls through into it. */
	bool range_start;
	uint8_t flow; /**< enum ct_vflow */
	unsigned id; /**< capstone's instruction id */
	bool has_target;
	uint64_t target;
	uint64_t full_writes; /**< DWARF registers written whole (x86: 64- or zero-extending 32-bit) */
	uint64_t part_writes; /**< written in part (x86: 8- or 16-bit; aarch64: movk) */
	uint8_t nops;
	struct ct_vop op[3];
	bool mem_write; /**< writes memory */
	/** aarch64: the memory operand's base changes by wb (pre- or post-index writeback). */
	bool writeback;
	int64_t wb;
	/** aarch64: a shift of the immediate (movz/movk #imm, lsl #shift). */
	uint8_t shift;
	/** aarch64: b.cond's condition (capstone's arm64_cc), 0 for none. */
	uint8_t cc;
	/** aarch64: the instruction sets the flags (subs, adds; capstone 4 decodes subs as sub). */
	bool sets_flags;
	/** aarch64: the address the memory operand or the add computes, known by decoding (adrp pairs, literals). */
	bool has_abs;
	uint64_t abs;
};

struct ct_vwalk;
struct ct_vstate;

/** One architecture's part of the walk. */
struct ct_varch {
	/** The src/arch table: capstone's arch and mode, the stack pointer (never a tracked register itself). */
	const struct ct_arch_info *info;
	const char *name; /**< for a decoder that does not open ("capstone cannot decode aarch64") */
	int num_regs; /**< general registers tracked, stack and frame pointer included: DWARF 0 .. num_regs - 1 */
	/** Fills @p v (flow, operands, writes) from capstone's detail of @p in. */
	void (*decode_one)(csh h, const cs_insn *in, struct ct_vinsn *v);
	/** Notes on @p fn what @p v does to the frame (its address taken). */
	void (*note)(struct ct_vfunc *fn, const struct ct_vinsn *v);
	/** An indirect jump that leaves the function (a tail call), not one into it (a switch table). */
	bool (*tail_jump)(const struct ct_vinsn *v);
	/** After every instruction is decoded (aarch64: adrp pairs). */
	void (*finish)(struct ct_vfunc *fn);
	/**
	 * The targets of indirect jump @p i when it is a switch's jump through a table the code bounds
	 * (a compare and an unsigned branch before it), read through @p mem; the count (at most @p max),
	 * 0 when not recognized or not every entry is an instruction of @p fn. NULL: none recognized.
	 */
	size_t (*jump_table)(const struct ct_vfunc *fn, size_t i, const struct ct_vmem *mem, uint64_t *targets, size_t max);
	/** One backward step over instruction @p p (a predecessor of s->at) for state @p s. */
	void (*step_over)(struct ct_vwalk *w, uint32_t p, const struct ct_vstate *s);
};

struct ct_vfunc {
	const struct ct_varch *arch;
	struct ct_vinsn *insns;
	size_t n;
	uint64_t entry; /**< where the function is called */
	/** Predecessors: preds[pred_start[i] .. pred_start[i + 1]) are the jumps into i. */
	uint32_t *pred_start, *preds;
	/** Edges from switch jumps to their table's targets (ct_vfunc_resolve_tables): from, to. Owned. */
	uint32_t (*table_edges)[2];
	size_t num_table_edges;
	bool has_indirect_jump;
	/** Some instruction copies the stack or frame pointer, or takes the address of a stack slot. */
	bool stack_escapes;
	/** The lowest frame-pointer displacement whose address is taken (slots at or above it may be aliased). */
	int64_t fp_escape_min;
	bool sp_escape;
	uint8_t code_copy[]; /**< the bytes, for the text of a definition */
};

/** A point of the search: the definition of loc is wanted before instruction at. */
struct ct_vstate {
	uint32_t at;
	struct ct_vloc loc;
	unsigned copies;
};

/** The index of the instruction at @p addr, SIZE_MAX when none starts there. */
size_t ct_vfunc_find(const struct ct_vfunc *fn, uint64_t addr);
/** Instruction @p i is reached only from the one before it: no jump into it, not a range's start. */
bool ct_vfunc_entered_in_line(const struct ct_vfunc *fn, size_t i);
/** Instruction @p i runs right after @p i - 1, and only then (entered in line, and @p i - 1 falls through). */
bool ct_vfunc_straight(const struct ct_vfunc *fn, size_t i);

/** The search goes on before instruction @p at with the value in @p loc (a move passed: @p copies + 1). */
void ct_vwalk_push(struct ct_vwalk *w, uint32_t at, struct ct_vloc loc, unsigned copies);
/** A definition found at @p v (NULL: the function's entry); its pc and text are filled here. */
void ct_vwalk_define(struct ct_vwalk *w, const struct ct_vinsn *v, struct ct_vdef d);
/** The search stops at @p v on this path, for @p reason (static text). */
void ct_vwalk_stop(struct ct_vwalk *w, const struct ct_vinsn *v, const struct ct_vstate *s, const char *reason);
/** The function the search runs over. */
const struct ct_vfunc *ct_vwalk_fn(const struct ct_vwalk *w);

/**
 * The step over a call @p v (instruction @p p) for state @p s: a register is the call's return value
 * when it is the return register (DWARF 0: rax, x0; *@p ret is the definition), stops when the call
 * may change it (@p clobbered, by DWARF number), else goes on; a slot of the stack pointer @p sp
 * below it, or of a frame whose address escapes, stops; any other slot goes on.
 */
void ct_vwalk_over_call(struct ct_vwalk *w, uint32_t p, const struct ct_vstate *s, const struct ct_vdef *ret,
			uint64_t clobbered, int sp);

/** Slot @p l (of base @p base) and the @p size bytes at @p disp from @p base share a byte. */
bool ct_vloc_overlaps(const struct ct_vloc *l, int base, int64_t disp, unsigned size);
/** The slot may be written through a pointer: its frame's address escaped at or below it (@p sp: the stack pointer's number). */
bool ct_vfunc_slot_aliased(const struct ct_vfunc *fn, const struct ct_vloc *l, int sp);

#endif
