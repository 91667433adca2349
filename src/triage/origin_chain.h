/**
 * @file origin_chain.h
 * What the root-cause chain's files share (origin.c: the chain over frames; origin_index.c: a bad
 * subscript, from the faulting access's address to the array, the subscript and its bound): the
 * chain's state, the DWARF helpers both use, and the index findings origin.c turns into its first
 * step. Private to src/triage/origin*.c.
 */
#ifndef CT_TRIAGE_ORIGIN_CHAIN_H
#define CT_TRIAGE_ORIGIN_CHAIN_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "triage/origin.h"
#include "triage/origin_walk.h"

/** Physical frames the chain crosses: parameters passed on further are rare and each costs a decode. */
#define MAX_HOPS 8
/** Steps kept: one per hop and the origin. */
#define MAX_STEPS (MAX_HOPS + 2)

/** One chain being traced: the dump, its architecture's walk, the facts, the steps so far. */
struct chain {
	const struct ct_triage_input *s;
	const struct ct_arch_info *arch; /**< the dump's: its calling convention */
	const struct ct_vwalker *w; /**< its walk */
	const struct ct_facts *f;
	const struct ct_thread *thread;
	struct ct_root_step steps[MAX_STEPS];
	size_t n;
};

/** One register in the decomposition of an address: @p reg as read just before @p pc, times @p coef bytes. */
struct term {
	int reg;
	unsigned size; /**< 4: a `w` register read, sign-extended when sext, else zero-extended */
	bool sext;
	uint64_t pc;
	int64_t coef;
	bool known; /**< the value: read from the register at the fault, or solved from the address */
	int64_t value;
	struct ct_vdef def; /**< what wrote it (ARITH: a computation the decomposition does not follow) */
};

/** What the fault's access says of an array member it indexes (member_index), for its step. */
struct member_bound {
	bool found;
	int64_t index, bound;
	const char *array; /**< "r->slots[8]", pooled */
};

/** The array the decomposition found the access in, for its step. */
struct grid_bound {
	bool found;
	int dims; /**< its dimensions: 1 only for an array member of a struct a loaded pointer points to */
	int dimension; /**< the subscript that is out of its bound, 1 the leftmost (0: none decided) */
	int64_t index, bound;
	const char *array; /**< "grid[4][8]", "b->cells[4][8]", "g_table->items[16]"; pooled */
	/** The term of that subscript: the chain starts there. */
	struct term term;
	/** Why the subscripts are not told apart (static or pooled); NULL when they are. */
	const char *merged;
	uint64_t merged_pc;
};

/* --- DWARF helpers (origin.c) ------------------------------------------------------------------- */

/** DW_AT_name of @p die (through DW_AT_abstract_origin / specification), NULL when none. */
const char *ct_origin_die_name(Dwarf_Die *die);
/** The DIE DW_AT_type of @p die refers to into *@p ret; false when none. */
bool ct_origin_die_type(Dwarf_Die *die, Dwarf_Die *ret);
/** The DWARF parameter of the function at @p pc passed in argument register @p slot (0 = rdi). */
bool ct_origin_param_die(const struct ct_triage_input *s, uint64_t pc, int slot, Dwarf_Die *ret);
/** The position of argument register @p reg in the calling convention (0 = the first), -1 when none. */
int ct_origin_arg_slot(const struct ct_arch_info *a, int reg);

/* --- A bad subscript (origin_index.c) --------------------------------------------------------------- */

/** Puts on the fault's step @p st its element @p index into @p array of @p bound elements (of its
 * subscript @p dimension, 1 the leftmost; else 0); *@p past: negative or not below the bound. */
void ct_origin_say_index(struct ct_root_step *st, int64_t index, int64_t bound, int dimension, const char *array,
			 bool *past);
/** A bad index into an array member of a struct a pointer parameter (register @p base of the fault's
 * access @p m, unchanged since entry) points to (`r->slots[i]`). */
void ct_origin_member_index(const struct chain *c, const struct ct_vfunc *fn, int base, const struct ct_mem_operand *m,
			    const uint64_t *regs, const bool *valid, struct member_bound *ret);
/** A bad index into a one-dimensional global or frame-0 local array that @p array_at lies in, onto
 * @p st: true when decided, *@p out when past its bound. */
bool ct_origin_index_bound(const struct chain *c, const struct ct_mem_operand *m, uint64_t array_at,
			   const uint64_t *regs, const bool *valid, struct ct_root_step *st, bool *out);
/** A bad subscript of a multi-dimensional array, or of a struct's array member through a loaded
 * pointer, from the decomposition of the access's @p address. */
void ct_origin_grid_index(const struct chain *c, const struct ct_vfunc *fn, uint64_t address, const uint64_t *regs,
			  const bool *valid, struct grid_bound *ret);

#endif
