// The runtime section of the model (docs/runtimes.md): the language runtime's own threads and frames.
#include <stdlib.h>
#include <string.h>

#include "coretriage/report.h"

static const char *const gil_states[CT_GIL_NUM_] = {
	[CT_GIL_UNKNOWN] = NULL,
	[CT_GIL_HELD] = "held",
	[CT_GIL_WAITING] = "waiting",
	[CT_GIL_RELEASED] = "released",
};

const char *ct_gil_state_to_string(enum ct_gil_state gil)
{
	return (unsigned)gil < CT_GIL_NUM_ ? gil_states[gil] : NULL;
}

void ct_runtime_free(struct ct_runtime *rt)
{
	for (size_t i = 0; i < rt->num_threads; i++)
		free(rt->threads[i].frames);
	free(rt->threads);
	memset(rt, 0, sizeof(*rt));
}

const struct ct_runtime_thread *ct_runtime_find_thread(const struct ct_runtime *rt, int tid)
{
	for (size_t i = 0; i < rt->num_threads; i++) {
		if (rt->threads[i].tid == tid)
			return &rt->threads[i];
	}
	return NULL;
}
