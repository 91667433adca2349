/**
 * @file triage.h
 * The triage stage of a process core: facts gathered from the stage outputs (the dump, its signal
 * facts, the module set, the symbolized stacks), the ordered rules, the signature. The process
 * pipeline calls it once, after unwinding and symbolizing, before the stacks move into the report:
 * triage reads no thread, frame or module of the report model (tests/check_layers.py checks it).
 */
#ifndef CT_TRIAGE_H
#define CT_TRIAGE_H

#include "coretriage/report.h"
#include "dump/elfcore.h"
#include "modules/modules.h"
#include "unwind/stacks.h"

/** What triage reads (all borrowed), and where its verdict goes. */
struct ct_triage_input {
	const struct ct_core *core; /**< the dump: memory, threads with registers, auxv */
	/** The module set: symbols, DWARF, code bytes (debug files load lazily: not const). */
	struct ct_module_set *mods;
	/** Dump facts: the signal as the report carries it and the thread it was delivered to (NULL
	 * for a snapshot such as gcore). */
	const struct ct_signal_info *signal;
	const struct ct_core_thread *crashed;
	/** The symbolized stacks; the hang analysis sets each thread's wait state. */
	struct ct_stacks *stacks;
	/** Where the verdict goes: the crash, abort message, signature, hang summary, diagnostics and
	 * pooled strings. Its threads are still empty: they are the stacks above. */
	struct ct_report *report;
};

/** Classifies the crash into report->crash, fills the abort message, the hang summary and the signature. */
void ct_triage_process(const struct ct_triage_input *in);

#endif
