// The walk loop the step kinds run in: the frame cap, one step, then the policy every frame passes
// (its cfa moves outward on its stack; a switch to another stack, such as an interrupt stack back to
// the task's, is allowed a few times). What a frame is worth and where it goes is the caller's.
#include "unwind/step.h"

static bool same_stack(uint64_t a, uint64_t b, uint64_t size)
{
	return size == 0 || (a & ~(size - 1)) == (b & ~(size - 1));
}

void ct_unwind_loop_run(const struct ct_unwind_loop *l, uint64_t cfa, uint64_t resume, struct ct_unwind_end *ret)
{
	*ret = (struct ct_unwind_end){ .reason = CT_STOP_NONE, .resume = resume };
	unsigned switches = 0;
	for (;;) {
		if (l->frames + ret->added >= l->max_frames) {
			ret->reason = CT_STOP_FRAME_CAP;
			ret->truncated = true;
			return;
		}
		struct ct_unwind_frame f = { 0 };
		enum ct_stop_reason why = CT_STOP_NONE;
		enum ct_step_result r = l->step(l->arg, &f, &why);
		if (r == CT_STEP_END || r == CT_STEP_FAIL || r == CT_STEP_NO_DATA) {
			ret->reason = why;
			ret->failed = r != CT_STEP_END;
			return;
		}
		if (f.cfa && cfa) {
			bool same = same_stack(f.cfa, cfa, l->stack_size);
			if (same && f.cfa <= cfa) {
				ret->reason = l->not_outward;
				ret->failed = true;
				return;
			}
			if (!same && ++switches > l->max_switches) {
				ret->reason = l->too_many_switches;
				ret->failed = true;
				return;
			}
		}
		if (r == CT_STEP_LAST) {
			ret->reason = why;
			return;
		}
		if (!l->emit(l->arg, &f))
			return;
		ret->added++;
		ret->resume = f.resume;
		cfa = f.cfa;
	}
}
