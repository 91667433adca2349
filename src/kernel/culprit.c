// A hung task's culprit: its Call Trace starts in the scheduler (__schedule, schedule, schedule_timeout,
// wait_for_completion …, all in .sched.text or .lock.text); the first entry outside those sections is the
// code that chose to wait, as get_wchan() finds it.
#include <string.h>

#include "kernel/vmcore.h"

void ct_panic_culprit_from_trace(struct ct_strpool *pool, const struct ct_kallsyms *ks, struct ct_panic_record *rec)
{
	if (rec->culprit_function || !rec->hung_task || !ks->sched_start)
		return;
	for (size_t i = 0; i < rec->num_call_trace; i++) {
		struct ct_ksym_text t;
		const char *line = rec->call_trace[i];
		if (!ct_ksym_text_parse(line, strlen(line), &t) || t.unreliable)
			continue;
		uint64_t a;
		// Module functions are not in the core tables: never scheduler code.
		if (!*t.module && ct_kallsyms_find(ks, t.function, &a) && ct_kallsyms_is_sched(ks, a))
			continue;
		ct_panic_set_culprit(pool, rec, &t, line, "hung task's Call Trace, past the scheduler's functions");
		return;
	}
}
