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

static const char *const go_statuses[CT_GO_STATUS_NUM_] = {
	[CT_GO_IDLE] = "idle", [CT_GO_RUNNABLE] = "runnable", [CT_GO_RUNNING] = "running",
	[CT_GO_SYSCALL] = "syscall", [CT_GO_WAITING] = "waiting", [CT_GO_DEAD] = "dead",
	[CT_GO_COPYSTACK] = "copystack", [CT_GO_PREEMPTED] = "preempted", [CT_GO_UNKNOWN] = "unknown",
};

const char *ct_go_status_to_string(enum ct_go_status status)
{
	return (unsigned)status < CT_GO_STATUS_NUM_ ? go_statuses[status] : "unknown";
}

static const char *const stack_froms[CT_GO_STACK_FROM_NUM_] = {
	[CT_GO_STACK_NONE] = "none", [CT_GO_STACK_SCHED] = "sched", [CT_GO_STACK_SYSCALL] = "syscall", [CT_GO_STACK_THREAD] = "thread",
};

const char *ct_go_stack_from_to_string(enum ct_go_stack_from from)
{
	return (unsigned)from < CT_GO_STACK_FROM_NUM_ ? stack_froms[from] : "none";
}

void ct_runtime_free(struct ct_runtime *rt)
{
	for (size_t i = 0; i < rt->num_threads; i++)
		free(rt->threads[i].frames);
	free(rt->threads);
	for (size_t i = 0; i < rt->num_goroutines; i++)
		free(rt->goroutines[i].frames);
	free(rt->goroutines);
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
