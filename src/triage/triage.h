/**
 * @file triage.h
 * The triage stage: facts gathered from the stage outputs (the dump, its signal facts, the module
 * set, the symbolized stacks), the ordered rules, the signature, returned as a struct ct_verdict.
 * The process pipeline calls it once, after unwinding and symbolizing, and hands the verdict to the
 * report; the kernel pipeline fills the same type with its own rule table (kernel/kclass.c).
 * Triage neither reads nor writes the report model (tests/check_layers.py checks it): its text goes
 * to the sink of its input.
 */
#ifndef CT_TRIAGE_H
#define CT_TRIAGE_H

#include "coretriage/report.h"
#include "dump/elfcore.h"
#include "modules/modules.h"
#include "unwind/stacks.h"

/** What triage reads (all borrowed), and where its text goes. */
struct ct_triage_input {
	const struct ct_core *core; /**< the dump: memory, threads with registers, auxv */
	/** The module set: symbols, DWARF, code bytes (debug files load lazily: not const). */
	struct ct_module_set *mods;
	/** Dump facts: the signal as the report carries it and the thread it was delivered to (NULL
	 * for a snapshot such as gcore). */
	const struct ct_signal_info *signal;
	const struct ct_core_thread *crashed;
	/** The symbolized stacks (read only: each thread's wait state goes into the verdict). */
	const struct ct_stacks *stacks;
	/** Where triage's strings and diagnostics go (the report's pool and list). */
	struct ct_sink out;
	/** The runtime stage's Python stacks (read only; NULL or not present when none). */
	const struct ct_runtime *runtime;
};

/**
 * Triage's output: why the process died. The class and confidence are typed (the pipeline and the
 * signature compare them); `crash` holds the rest of the crash section (summary, evidence, access,
 * address, instruction, blamed frame, details) with its class and confidence strings filled by
 * ct_verdict_move_to_report(). Arrays are owned; strings live in the sink's pool.
 */
struct ct_verdict {
	/** The class and confidence are the crash's (crash.cls, crash.confidence): one place. */
	struct ct_crash crash;
	struct ct_abort_message abort_message;
	/** The wait-for graph: locks, cycles, contention lines. */
	struct ct_hang hang;
	/** Each thread's blocking call, in the order of the input's stacks (owned; NULL when the dump's
	 * architecture has no system call table). The hand-off puts them into the report's threads. */
	struct ct_wait *waits;
	size_t num_waits;
	struct ct_signature signature;
	/** Where the bad value came from (triage/origin.h); steps owned. */
	struct ct_root_cause root_cause;
	/** The glibc heap around the crash's pointer (triage/heap.h). */
	struct ct_heap_state heap;
	/** The pool its strings live in (the input's sink's), for the rules that make text. */
	struct ct_strpool *strings;
};

/** An empty verdict (class unknown, confidence low) whose strings go to @p strings. */
void ct_verdict_init(struct ct_verdict *verdict, struct ct_strpool *strings);
/** Gathers the facts, runs the rules and builds the signature into @p out (freed by the two below). */
void ct_triage_process(const struct ct_triage_input *in, struct ct_verdict *out);
/** Hands the verdict to @p report (the arrays move, each wait goes to its thread): call it after the stacks moved into the report. */
void ct_verdict_move_to_report(struct ct_verdict *verdict, struct ct_report *report);
/** Frees a verdict not moved into a report. */
void ct_verdict_free(struct ct_verdict *verdict);

#endif
