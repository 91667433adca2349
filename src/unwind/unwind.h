/**
 * @file unwind.h
 * The unwinding policy, one loop per thread (docs/unwinding.md):
 *  1. frame 0 from the dump's registers (trust "context");
 *  2. callers by DWARF CFI through libdwfl ("cfi"; libdwfl steps through signal frames: the frame
 *     interrupted by a signal is marked "signal");
 *  3. when the walk stops at a pc outside executable memory: the return address the call left
 *     ([sp] on x86, the link register elsewhere) restarts the walk ("bad-call");
 *  4. else the frame-pointer chain, if it stays in the stack and moves outward ("frame-pointer");
 *  5. else a stack scan for a word that points just after a call instruction in code ("scan").
 * It stops when the stack pointer stops moving outward, at the outermost frame, or at the frame
 * cap, and records why in the thread's stop_reason (enum ct_stop_reason).
 */
#ifndef CT_UNWIND_H
#define CT_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "coretriage/report.h"
#include "dump/elfcore.h"
#include "modules/modules.h"


/** A frame before symbolization. */
struct ct_raw_frame {
	uint64_t pc;
	uint64_t sp;
	bool has_sp;
	/** True when pc is exact (frame 0, or interrupted by a signal): no pc - 1 for lookups. */
	bool exact;
	/** True when this frame is a signal trampoline (the next frame was interrupted). */
	bool signal_trampoline;
	enum ct_trust trust;
	/** A tail-call frame rebuilt from call sites (trust CT_TRUST_CALL_SITE). */
	bool tail_call;
	/**
	 * The frame's known registers (DWARF numbers below 64): bit r set when register r is known,
	 * its value at regs[reg_first + number of set bits below r] of the stack. A caller-saved
	 * register of a caller frame is unknown (CFI does not recover it), never guessed.
	 */
	uint64_t reg_mask;
	uint32_t reg_first;
};

/** Registers with DWARF numbers at or above this are not kept per frame (vector registers). */
#define CT_FRAME_REGS 64

struct ct_raw_stack {
	struct ct_raw_frame *frames; /**< owned */
	size_t count, capacity;
	/** Register values of all frames (see ct_raw_frame.reg_mask); owned. */
	uint64_t *regs;
	size_t num_regs, capacity_regs;
	bool truncated;
	enum ct_stop_reason stop_reason;
	/** CT_STOP_LIBRARY: the unwinding library's own message (static in the library), else NULL. */
	const char *stop_detail;
};

/** The model's stop of @p st (its reason; libdwfl's message beside CT_STOP_LIBRARY, pooled in @p strings). */
struct ct_stop ct_raw_stack_stop(const struct ct_raw_stack *st, struct ct_strpool *strings);

/** libdwfl's state of the core's process: our thread callbacks and the start of the running walk. */
struct ct_dwfl_walker;

/**
 * Attaches our thread callbacks to the module set's Dwfl (once per set). *@p ret belongs to the
 * Dwfl (released by dwfl_end) and is what ct_unwind_thread_dwfl() walks with.
 */
struct ct_error *ct_unwind_attach(struct ct_module_set *s, struct ct_dwfl_walker **ret);

/** The module set's core had its memory replaced in place (coretriage sample: each tick's image
 * swapped into one struct ct_core): forget what the walker remembers of the old segments. */
void ct_unwind_memory_changed(struct ct_dwfl_walker *u);

/**
 * Unwinds one thread with the policy above (libdwfl back end), keeping at most @p max_frames
 * frames (the frame cap, or less when the work budget is short).
 */
void ct_unwind_thread_dwfl(struct ct_module_set *s, struct ct_dwfl_walker *u, const struct ct_core_thread *t,
			   size_t max_frames, struct ct_raw_stack *out);

/**
 * Unwinds one thread with libunwind (the independent second unwinder, --unwinder=libunwind).
 * Errors: CT_ERROR_UNSUPPORTED when built without libunwind or for an architecture other than
 * the build host's (libunwind's coredump accessors are per-host).
 */
struct ct_error *ct_unwind_thread_libunwind(struct ct_module_set *s, const struct ct_core_thread *t,
					    size_t max_frames, struct ct_raw_stack *out);

/** Appends a raw frame; false when out of memory. */
bool ct_raw_stack_push(struct ct_raw_stack *st, const struct ct_raw_frame *f);
/** Inserts @p f before frame @p pos (pos <= count); false when out of memory. */
bool ct_raw_stack_insert(struct ct_raw_stack *st, size_t pos, const struct ct_raw_frame *f);
/**
 * Gives frame @p index the registers @p valid / @p values (indexed by DWARF number, the first
 * CT_FRAME_REGS used). False when out of memory (the frame then has no registers).
 */
bool ct_raw_stack_set_regs(struct ct_raw_stack *st, size_t index, const bool *valid, const uint64_t *values, int num);
/** Register @p regno of frame @p f of @p st; false when unknown. */
bool ct_raw_frame_reg(const struct ct_raw_stack *st, const struct ct_raw_frame *f, unsigned regno, uint64_t *ret);
void ct_raw_stack_free(struct ct_raw_stack *st);

/** Shared fallbacks (fallback.c): each fills *ret with the caller's registers or returns false. */
struct ct_unwind_regs {
	uint64_t pc, sp, fp;
	bool has_fp;
	uint64_t ra; /**< link register, when the architecture has one */
	bool has_ra;
};
bool ct_unwind_bad_call(struct ct_module_set *s, const struct ct_unwind_regs *cur, struct ct_unwind_regs *ret);
/**
 * The innermost frame's caller from the link register when it holds a validated return address
 * (a leaf function has not saved it yet). For unwinding without libdwfl; sp stays.
 */
bool ct_unwind_link_register(struct ct_module_set *s, const struct ct_unwind_regs *cur, struct ct_unwind_regs *ret);
/**
 * The caller from the function's prologue (arch->prologue: mips): sp + the frame size, the return
 * address from its save slot (or, in the innermost frame of a leaf, the link register), validated.
 */
bool ct_unwind_prologue(struct ct_module_set *s, const struct ct_unwind_regs *cur, bool first_frame,
			struct ct_unwind_regs *ret);
/**
 * The caller of a frame of a Go executable without CFI (-ldflags=-s) from its pclntab
 * (modules/go_symbols.h): sp + pcsp at pc holds the return address. False for any other code,
 * and at the top of a goroutine's or a thread's stack (goexit, mstart: *@p top set, no caller).
 * A function that switches stacks (SPWRITE: mcall, systemstack, morestack) is a top too unless
 * @p stopped_here (the innermost frame, or the pc a signal interrupted): past its call are stale
 * words of the stack it left, where Go's traceback ends as well.
 * *@p exact: the caller's pc is a faulting pc (runtime.sigpanic's caller), looked up as is.
 */
bool ct_unwind_go_pclntab(struct ct_module_set *s, const struct ct_unwind_regs *cur, bool stopped_here,
			  struct ct_unwind_regs *ret, bool *top, bool *exact);
bool ct_unwind_frame_pointer(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t stack_end,
			     struct ct_unwind_regs *ret);
bool ct_unwind_scan(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t stack_end,
		    struct ct_unwind_regs *ret);
/**
 * The outermost validated return address in [cur->sp, limit): used when a frame-pointer step
 * skipped frames, to find the return into the function that owns the frame pointer.
 */
bool ct_unwind_scan_below(struct ct_module_set *s, const struct ct_unwind_regs *cur, uint64_t limit,
			  struct ct_unwind_regs *ret);
/** A signal frame's saved context (the kernel's rt_sigframe or sigframe), read with a struct ct_arch_sigframe. */
struct ct_sigcontext {
	uint64_t ucontext, mcontext; /**< addresses in the dump */
	uint64_t siginfo; /**< address, 0 when unknown */
	uint64_t pc, sp;
	uint64_t regs[CT_MAX_DWARF_REGS]; /**< interrupted registers, DWARF numbering */
	bool valid[CT_MAX_DWARF_REGS];
};
/**
 * Reads the context of the signal frame of layout @p layout (one of core->arch's) whose sigreturn
 * trampoline runs with stack pointer @p sp. False when @p layout is NULL or the context is not in
 * the dump; *@p ret written on success.
 */
bool ct_sigcontext_read(const struct ct_core *core, const struct ct_arch_sigframe *layout, uint64_t sp,
			struct ct_sigcontext *ret);
/** Reads a field of @p size (4 or 8) bytes of a signal frame from the dump, in the target's byte order. */
bool ct_sigcontext_field(const struct ct_core *core, uint64_t addr, unsigned size, uint64_t *ret);
/**
 * The signal-frame layout whose sigreturn trampoline (restorer bytes) is the code at @p pc, NULL
 * when the code there is none of the architecture's trampolines. Borrowed from the arch table.
 */
const struct ct_arch_sigframe *ct_unwind_sigframe_at(struct ct_module_set *s, uint64_t pc);
/** True when the code at @p pc is one of the architecture's sigreturn trampolines. */
bool ct_unwind_is_restorer(struct ct_module_set *s, uint64_t pc);


#endif
