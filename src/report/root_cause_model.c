// The root-cause section of the model (docs/root-cause.md): the step kinds' table and its teardown.
#include <stdlib.h>
#include <string.h>

#include "coretriage/report.h"

static const char *const step_kind_names[CT_ROOT_STEP_NUM_] = {
	[CT_ROOT_STEP_RETURN_OF] = "return-of", [CT_ROOT_STEP_PARAM_OF] = "param-of",
	[CT_ROOT_STEP_LOAD_FROM] = "load-from", [CT_ROOT_STEP_CONSTANT] = "constant",
	[CT_ROOT_STEP_ARITH] = "arith",		[CT_ROOT_STEP_STOPPED] = "stopped",
};

const char *ct_root_step_kind_to_string(enum ct_root_step_kind kind)
{
	return (unsigned)kind < CT_ROOT_STEP_NUM_ ? step_kind_names[kind] : step_kind_names[CT_ROOT_STEP_STOPPED];
}

void ct_root_cause_free(struct ct_root_cause *rc)
{
	free(rc->steps);
	memset(rc, 0, sizeof(*rc));
}
