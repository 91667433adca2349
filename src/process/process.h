/**
 * @file process.h
 * Analysis of a process core: its stages of the one pipeline (dump → modules → unwind → triage → report model).
 */
#ifndef CT_PROCESS_H
#define CT_PROCESS_H

#include "coretriage/coretriage.h"
#include "dump/kind.h"
#include "dump/mapped_file.h"
#include "modules/modules.h"

struct ct_budget;

/**
 * The stages of a process core (dump/kind.h), run by ct_pipeline_run() over the ELF core in the
 * input's bytes (borrowed; they stay mapped for the duration). A NULL env->budget gets one of its own
 * from the options. Errors: see ct_analyze().
 */
extern const struct ct_dump_kind ct_process_kind;

/** Fills @p report's disasm with the instructions around @p pc (capstone), read through @p mods. */
void ct_process_disassemble(struct ct_module_set *mods, uint64_t pc, struct ct_report *report);

#endif
