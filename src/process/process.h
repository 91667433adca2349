/**
 * @file process.h
 * Analysis of a process core: dump → modules → unwind → triage → report model.
 */
#ifndef CT_PROCESS_H
#define CT_PROCESS_H

#include "coretriage/coretriage.h"
#include "dump/mapped_file.h"
#include "modules/modules.h"

struct ct_budget;

/**
 * Analyzes the ELF core in @p file (borrowed; stays mapped for the duration) into @p report,
 * spending @p budget (borrowed: the run's, shared with the input and trail stages; NULL for one of
 * its own from @p opts). Errors: see ct_analyze().
 */
struct ct_error *ct_process_analyze(const struct ct_options *opts, const struct ct_mapped_file *file,
				    struct ct_budget *budget, struct ct_report *report);

/** Fills @p report's disasm with the instructions around @p pc (capstone), read through @p mods. */
void ct_process_disassemble(struct ct_module_set *mods, uint64_t pc, struct ct_report *report);

#endif
