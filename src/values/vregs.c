// Float and vector registers for the expression evaluator: the dumped values of the innermost
// frame (dump/vregs.h). In callers they stay unknown: the ABIs make them caller-saved and the
// unwinder recovers none, so a guess would show the callee's value as the caller's.
#include <string.h>

#include "dump/vregs.h"
#include "values/internal.h"

bool ct_frame_vreg(const struct ct_frame_ctx *fc, unsigned regno, uint8_t *out, size_t *len)
{
	*len = 0;
	if (!fc->thread || fc->index != 0)
		return false;
	return ct_core_vreg(fc->s->core, fc->thread, regno, out, len);
}

const struct ct_core_thread *ct_values_core_thread(const struct ct_session *s, const struct ct_thread *t)
{
	// The report's threads are made in the core's order (process.c): the same index first, so that
	// a core with 100,000 threads costs no search per thread.
	const struct ct_report *r = s->report;
	if (t >= r->threads && t < r->threads + r->num_threads) {
		size_t i = (size_t)(t - r->threads);
		if (i < s->core->num_threads && s->core->threads[i].tid == t->tid)
			return &s->core->threads[i];
	}
	for (size_t i = 0; i < s->core->num_threads; i++) {
		if (s->core->threads[i].tid == t->tid)
			return &s->core->threads[i];
	}
	return NULL;
}
