/**
 * @file values.h
 * Arguments and locals of frames, and tail-call frames, from DWARF (docs/unwinding.md "Values"):
 *  - tail-call frames: when the call site at a caller's return address calls X but the callee
 *    frame is Y, the unique chain of DW_AT_call_tail_call call sites X → … → Y is inserted (as gdb
 *    does: nothing when there is more than one chain, and a diagnostic says so);
 *  - values: location expressions evaluated against each frame's unwound registers and the dump's
 *    memory, DW_OP_entry_value resolved through the caller's DW_TAG_call_site_parameter, rendered
 *    as gdb prints them.
 * Per-analysis caches (scopes by pc, call sites by return address) live in struct ct_values.
 * The stage reads what struct ct_values_input names and nothing else of the pipeline.
 */
#ifndef CT_VALUES_H
#define CT_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "coretriage/report.h"
#include "modules/modules.h"
#include "unwind/unwind.h"

struct ct_values;

/**
 * What the values stage reads (all borrowed): the dump's memory and registers, the module set
 * (DWARF, symbols; its debug files load lazily, so it is not const), the stage's own caches, and
 * where its text goes (a sink: the report's string pool and diagnostics, nothing else of the
 * report), the work budget (may be NULL).
 */
struct ct_values_input {
	const struct ct_core *core;
	struct ct_module_set *mods;
	struct ct_values *values;
	struct ct_sink out;
	struct ct_budget *budget;
};

/** Creates the per-session caches; NULL when out of memory. */
/**
 * The element count of each dimension of DWARF array type @p t (DW_TAG_subrange_type: DW_AT_count,
 * or DW_AT_upper_bound less DW_AT_lower_bound plus one) into @p dims (room for 8), -1 for an unknown
 * bound (a flexible array member). Returns the number of dimensions.
 */
int ct_dwarf_array_dims(Dwarf_Die *t, int64_t *dims);

struct ct_values *ct_values_create(void);
/** Frees the caches; accepts NULL. */
void ct_values_destroy(struct ct_values *values);

/**
 * Inserts tail-call frames into @p raw (innermost first) where DWARF call sites say which
 * functions ran in between. Ambiguous chains are left out with an info diagnostic for @p tid.
 */
void ct_values_tail_calls(const struct ct_values_input *s, struct ct_raw_stack *raw, int tid, size_t limit);

/**
 * Fills the parameters (and, when @p locals, the locals) of @p t's frames [@p first, @p first +
 * @p count), which are the inline expansion of raw frame @p index (innermost first) of the dumped
 * thread @p thread. Values go into @p t's variable pool; problems into the sink's diagnostics.
 */
void ct_values_frame(const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t index,
		     const struct ct_core_thread *thread, struct ct_thread *t, size_t first, size_t count, bool locals);

/** What a call site passed in one register by its DW_AT_call_value, when that is a simple form. */
enum ct_call_value_kind {
	CT_CALL_VALUE_NONE, /**< no call site at the return address, no parameter for the register, no value */
	CT_CALL_VALUE_CONST, /**< a constant (DW_OP_litN, DW_OP_constN, DW_OP_addr): value */
	CT_CALL_VALUE_REG, /**< the caller's register reg at the call (DW_OP_bregN 0) */
	CT_CALL_VALUE_ENTRY, /**< the caller's register reg at its own entry (DW_OP_entry_value(DW_OP_regN)) */
	CT_CALL_VALUE_OTHER, /**< another expression */
};
struct ct_call_value {
	enum ct_call_value_kind kind;
	unsigned reg; /**< DWARF number */
	uint64_t value;
};

/**
 * The value the call whose return address is @p return_pc passed in DWARF register @p regno, from
 * the DW_TAG_call_site_parameter of its DW_TAG_call_site (DWARF 5, or GCC's GNU forms) into *@p ret.
 * False (kind NONE) when the DWARF has no such value. Reads no registers or memory: the root-cause
 * walk (triage/origin.c) decides what the form means for its chain.
 */
bool ct_callsite_value_at(struct ct_module_set *mods, uint64_t return_pc, unsigned regno, struct ct_call_value *ret);

#endif
