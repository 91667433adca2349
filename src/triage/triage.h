/**
 * @file triage.h
 * The triage stage of a process core: facts gathered from the stage outputs (the core, the module
 * set, the unwound stacks), the ordered rules, the signature. The process pipeline calls it once,
 * after threads, frames and modules are in the report.
 */
#ifndef CT_TRIAGE_H
#define CT_TRIAGE_H

#include "modules/modules.h"

/** Classifies the crash into report->crash, fills the abort message and the signature. */
void ct_triage_process(struct ct_session *s);

#endif
