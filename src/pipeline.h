/**
 * @file pipeline.h
 * The one pipeline every kind of dump runs (dump/kind.h): ct_analyze() picks the kind by the format
 * the probe chain found and hands it here.
 */
#ifndef CT_PIPELINE_H
#define CT_PIPELINE_H

#include "dump/kind.h"

/**
 * Runs @p kind's stages over the dump of @p env in the order of dump/kind.h, filling env->report.
 * Errors: those of the kind's open, facts and modules stages (the report keeps what was found).
 */
struct ct_error *ct_pipeline_run(const struct ct_dump_kind *kind, const struct ct_dump_env *env);

#endif
