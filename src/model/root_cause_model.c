// The root-cause and heap sections of the model (docs/root-cause.md): the step kinds' and bin kinds'
// tables, the steps' teardown.
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

static const char *const bin_kind_names[CT_HEAP_BIN_NUM_] = {
	[CT_HEAP_BIN_TCACHE] = "tcache", [CT_HEAP_BIN_FASTBIN] = "fastbin", [CT_HEAP_BIN_UNSORTED] = "unsorted",
	[CT_HEAP_BIN_SMALL] = "small",	 [CT_HEAP_BIN_LARGE] = "large",
};

const char *ct_heap_bin_kind_to_string(enum ct_heap_bin_kind kind)
{
	return (unsigned)kind < CT_HEAP_BIN_NUM_ ? bin_kind_names[kind] : NULL;
}

void ct_root_cause_free(struct ct_root_cause *rc)
{
	free(rc->steps);
	memset(rc, 0, sizeof(*rc));
}
