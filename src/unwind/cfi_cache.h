/**
 * @file cfi_cache.h
 * The cached CFI step (docs/unwinding.md): libdwfl's step from a frame to its caller by DWARF CFI,
 * done from rules compiled once per distinct lookup pc. libdwfl searches the FDE and runs the
 * CIE and FDE programs again on every frame (~5,000 instructions), although a deep recursion has
 * a handful of distinct pcs. The step gives the caller exactly the registers libdwfl's
 * handle_cfi would (elfutils 0.188, libdwfl/frame_unwind.c); whatever it cannot redo (signal
 * frames, expression rules, no CFI, an undefined return address) it leaves to libdwfl.
 */
#ifndef CT_UNWIND_CFI_CACHE_H
#define CT_UNWIND_CFI_CACHE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "dump/elfcore.h"

/** A frame's registers as libdwfl's Dwfl_Frame holds them: DWARF 0..63, bit r of set when known. */
struct ct_cfi_state {
	uint64_t pc;
	uint64_t set;
	uint64_t regs[64];
};

/** Compiled rules by lookup pc: a fixed table (a core with more distinct pcs recompiles, no more memory). */
struct ct_cfi_cache;

/** A cache for @p arch; NULL when the architecture has no cached step (cfi_cache_step) or out of memory. */
struct ct_cfi_cache *ct_cfi_cache_new(const struct ct_arch_info *arch);
void ct_cfi_cache_free(struct ct_cfi_cache *c);
/** Forgets the stack segment remembered for reads: the core's segments were replaced in place
 * (coretriage sample swaps each tick's image into one struct ct_core). The rules by pc stay. */
void ct_cfi_cache_forget_memory(struct ct_cfi_cache *c);

/**
 * The caller @p out of the frame @p in whose CFI is looked up at @p lookup (its pc, or pc - 1 for
 * a return address), as libdwfl would unwind it with @p dwfl's modules and @p core's memory. False
 * when the step is not one the cache does: libdwfl must take it, from @p in.
 */
bool ct_cfi_step(struct ct_cfi_cache *c, Dwfl *dwfl, const struct ct_core *core, uint64_t lookup,
		 const struct ct_cfi_state *in, struct ct_cfi_state *out);

/** Takes one frame of a cached walk (@p exact: the walk's first frame); non-zero stops the walk. */
typedef int ct_cfi_frame_fn(void *arg, const struct ct_cfi_state *frame, bool exact);

/**
 * Walks from @p start (the registers and pc libdwfl's walk would start from) with cached steps,
 * handing each frame whose caller the cache found to @p fn, as libdwfl's dwfl_getthread_frames
 * would. Returns @p fn's non-zero result when it stopped the walk; else 0 and the state libdwfl
 * must walk on from in @p resume (pc: the frame's lookup pc, which libdwfl's first frame looks up
 * unchanged) and in *@p skip the frames of that walk already handed to @p fn (0 or 1).
 */
int ct_cfi_walk(struct ct_cfi_cache *c, Dwfl *dwfl, const struct ct_core *core, const struct ct_cfi_state *start,
		ct_cfi_frame_fn *fn, void *arg, struct ct_cfi_state *resume, int *skip);

/** Counters of @p c (for the tests): compiled rule sets, and lookups the cache answered. */
void ct_cfi_cache_stats(const struct ct_cfi_cache *c, uint64_t *compiled, uint64_t *hits);

#endif
