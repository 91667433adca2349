/**
 * @file step.h
 * The step kinds every unwinder shares, and the one loop that runs them (loop.c). A step works on a
 * memory-read callback (struct ct_unwind_mem: a process core's segments or a vmcore's kernel memory)
 * and the registers of the frame it starts from; what a step validates (is this a return address
 * into code?) is the caller's callback, so the same step serves process cores and kernel dumps:
 *  - frame records (step_frame_record.c): {caller's fp, return address} at the arch table's offsets;
 *  - a bounded stack scan (step_scan.c): each word of a range handed to the caller's validator;
 *  - ORC (step_orc.c): the x86-64 kernel's own unwind tables, entries found by the caller.
 * DWARF CFI is the fourth kind, through libdwfl (unwind_dwfl.c), whose fallbacks (fallback.c) are
 * the frame-record and scan steps above.
 */
#ifndef CT_UNWIND_STEP_H
#define CT_UNWIND_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "unwind/unwind.h"

/** The dump's memory as a step reads it. */
struct ct_unwind_mem {
	const struct ct_arch_info *arch;
	/** Reads all @p len bytes at @p addr; false when any is not in the dump. */
	bool (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
};

/** A word (the architecture's pointer size, its byte order) at @p addr. */
bool ct_unwind_mem_word(const struct ct_unwind_mem *m, uint64_t addr, uint64_t *ret);
/** A process core's memory (its segment table) as a struct ct_unwind_mem (a vmcore's: ct_vmcore_mem()). */
struct ct_unwind_mem ct_unwind_core_mem(const struct ct_core *core);

/* --- step_frame_record.c ------------------------------------------------------------------------ */

/**
 * The frame record at @p fp: the caller's frame pointer at fp + arch->fp_saved_fp_offset and the
 * return address at fp + arch->fp_saved_ra_offset. False when either is not in the dump.
 */
bool ct_step_frame_record(const struct ct_unwind_mem *m, uint64_t fp, uint64_t *caller_fp, uint64_t *ra);

/* --- step_scan.c -------------------------------------------------------------------------------- */

/** Called for each word of a scan with its address; true ends the scan there. */
typedef bool (*ct_unwind_scan_fn)(void *arg, uint64_t slot, uint64_t value);

enum ct_scan_result {
	CT_SCAN_STOPPED, /**< the callback ended the scan */
	CT_SCAN_END, /**< every word of the range was looked at */
	CT_SCAN_UNREADABLE, /**< a word of the range is not in the dump: the scan ends before it */
};

/**
 * Hands every word of [@p start, @p end) (@p start aligned by the caller) to @p fn, reading the dump
 * in page-bounded chunks: the reads stay linear in the range and stop at the first missing word.
 */
enum ct_scan_result ct_step_scan(const struct ct_unwind_mem *m, uint64_t start, uint64_t end, ct_unwind_scan_fn fn,
				 void *arg);

/* --- step_orc.c --------------------------------------------------------------------------------- */

/** ORC's register numbers (Linux 6.1 arch/x86/include/asm/orc_types.h). */
enum {
	CT_ORC_REG_UNDEFINED = 0,
	CT_ORC_REG_PREV_SP = 1,
	CT_ORC_REG_DX = 2,
	CT_ORC_REG_DI = 3,
	CT_ORC_REG_BP = 4,
	CT_ORC_REG_SP = 5,
	CT_ORC_REG_R10 = 6,
	CT_ORC_REG_R13 = 7,
	CT_ORC_REG_BP_INDIRECT = 8,
	CT_ORC_REG_SP_INDIRECT = 9,
};

enum { CT_ORC_TYPE_CALL = 0, CT_ORC_TYPE_REGS = 1, CT_ORC_TYPE_REGS_PARTIAL = 2 };

/** One decoded struct orc_entry (6 bytes packed: s16 sp_offset, s16 bp_offset, sp_reg:4 bp_reg:4 type:2 end:1). */
struct ct_orc_entry {
	int16_t sp_offset, bp_offset;
	uint8_t sp_reg, bp_reg, type;
	bool end;
};

/** Size of one struct orc_entry in the kernel's tables. */
#define CT_ORC_ENTRY_SIZE 6
/** Decodes the CT_ORC_ENTRY_SIZE little-endian bytes at @p b. */
void ct_orc_entry_decode(const uint8_t *b, struct ct_orc_entry *ret);

/** Where a frame's registers beyond ip, sp and bp are known. */
struct ct_orc_regs {
	enum { CT_ORC_REGS_NONE, CT_ORC_REGS_SAVED, CT_ORC_REGS_MEMORY } kind;
	/** CT_ORC_REGS_MEMORY: the address of a pt_regs (laid out as the arch table's pr_reg offsets). */
	uint64_t addr;
};

/** The state an ORC walk carries from frame to frame (unwind_orc.c's struct unwind_state). */
struct ct_orc_state {
	uint64_t ip, sp, bp;
	bool signal; /**< ip was interrupted (not a return address): look it up as is, not ip - 1 */
	struct ct_orc_regs regs, prev_regs;
	bool full_regs;
	bool bp_valid; /**< false after a scanned frame: the code stepped over may have changed bp unseen */
	bool recovered; /**< this step found bp by scanning (the frame is trust scan) */
	/** CT_ORC_REGS_SAVED: the dump's saved registers, in the order of arch->regs[]. */
	const uint64_t *saved;
	size_t num_saved;
};

/** What the ORC step asks its caller: the tables, and the return slot a scan finds. */
struct ct_orc_ops {
	/** The entry covering @p ip; false when no table covers it. */
	bool (*find)(void *arg, uint64_t ip, struct ct_orc_entry *ret);
	/** The slot (at or above @p sp) of the return address into the function holding @p ip. */
	bool (*return_slot)(void *arg, uint64_t sp, uint64_t ip, uint64_t *slot);
	void *arg;
};

/** What one step did. */
enum ct_step_result {
	CT_STEP_OK, /**< the caller's frame is known */
	CT_STEP_LAST, /**< the step read a valid record that says the walk ends (after the loop's checks) */
	CT_STEP_END, /**< the outermost frame: the walk ends normally */
	CT_STEP_FAIL, /**< the step cannot go on: the walk ends early */
	CT_STEP_NO_DATA, /**< this step kind has nothing for the pc: another kind may */
};

/**
 * One step of unwind_orc.c unwind_next_frame() (Linux 6.1) from @p st, crossing pt_regs frames of
 * exceptions and interrupts; registers other than ip/sp/bp come from the arch table's pt_regs layout.
 * On CT_STEP_END/CT_STEP_FAIL *@p why says why.
 */
enum ct_step_result ct_step_orc(const struct ct_unwind_mem *m, const struct ct_orc_ops *ops, struct ct_orc_state *st,
				enum ct_stop_reason *why);

/* --- loop.c ------------------------------------------------------------------------------------- */

/** A frame one step found. */
struct ct_unwind_frame {
	uint64_t pc;
	uint64_t sp;
	bool has_sp;
	bool exact; /**< pc was interrupted, not a return address: looked up as is */
	enum ct_trust trust;
	/** The address the loop checks moves outward (0: none; the walk ends at this frame anyway). */
	uint64_t cfa;
	/** Where a scan of the rest of the stack would start after this frame. */
	uint64_t resume;
};

/**
 * The rule every walk's frames obey, the libdwfl loop's (unwind_dwfl.c) and ct_unwind_loop_run()'s:
 * a caller's cfa (its sp) lies outward of its callee's on the same stack; another stack (a kernel's
 * interrupt stack back to the task's) is allowed max_switches times.
 */
struct ct_unwind_policy {
	/** Stacks are this big and this aligned: a cfa on another stack is a stack switch (0: one stack). */
	uint64_t stack_size;
	unsigned max_switches;
	/** An equal cfa is accepted for another pc (a leaf without a frame of its own), never for the same. */
	bool equal_cfa_ok;
};

enum ct_policy_verdict { CT_POLICY_OK, CT_POLICY_NOT_OUTWARD, CT_POLICY_TOO_MANY_SWITCHES };

/** Checks a caller (@p cfa, @p pc) against its callee (@p prev_cfa, @p prev_pc); *@p switches counts. */
enum ct_policy_verdict ct_unwind_policy_check(const struct ct_unwind_policy *p, unsigned *switches, uint64_t prev_cfa,
					      uint64_t prev_pc, uint64_t cfa, uint64_t pc);

/** The loop's policy and the step it runs. */
struct ct_unwind_loop {
	/** Frames already in the stack and the cap on all of them. */
	size_t frames, max_frames;
	struct ct_unwind_policy policy;
	/** The reasons this kind of walk reports for the loop's own stops. */
	enum ct_stop_reason not_outward, too_many_switches;
	/** The next frame from the step's own state, *why set for every result but CT_STEP_OK. */
	enum ct_step_result (*step)(void *arg, struct ct_unwind_frame *next, enum ct_stop_reason *why);
	/** Takes the frame; false when it cannot (out of memory: the walk ends without a reason). */
	bool (*emit)(void *arg, const struct ct_unwind_frame *f);
	void *arg;
};

/** How a loop ended. */
struct ct_unwind_end {
	enum ct_stop_reason reason; /**< CT_STOP_NONE when emit refused a frame */
	bool failed; /**< a step failed or the loop's check stopped it: frames may be missing */
	bool truncated; /**< the frame cap */
	size_t added;
	uint64_t resume; /**< the last frame's resume address (the start's when none) */
};

/**
 * Runs @p l from a frame whose cfa is @p cfa: the frame cap, then a step, then the check that every
 * frame's cfa moves outward on its stack (a switch to another stack allowed max_switches times).
 */
void ct_unwind_loop_run(const struct ct_unwind_loop *l, uint64_t cfa, uint64_t resume, struct ct_unwind_end *ret);

#endif
