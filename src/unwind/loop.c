// The walk loop the step kinds run in: the frame cap, one step, then the policy every frame passes
// (ct_unwind_policy_check, which the libdwfl loop applies too: the cfa moves outward on its stack; a
// switch to another stack, such as an interrupt stack back to the task's, is allowed a few times).
// What a frame is worth and where it goes is the caller's.
#include "unwind/step.h"

static bool same_stack(uint64_t a, uint64_t b, uint64_t size)
{
	return size == 0 || (a & ~(size - 1)) == (b & ~(size - 1));
}

enum ct_policy_verdict ct_unwind_policy_check(const struct ct_unwind_policy *p, unsigned *switches, uint64_t prev_cfa,
					      uint64_t prev_pc, uint64_t cfa, uint64_t pc)
{
	if (!same_stack(cfa, prev_cfa, p->stack_size))
		return ++*switches > p->max_switches ? CT_POLICY_TOO_MANY_SWITCHES : CT_POLICY_OK;
	// The stack grows down on every supported architecture: a caller's cfa is never below its callee's.
	if (cfa < prev_cfa || (cfa == prev_cfa && (!p->equal_cfa_ok || pc == prev_pc)))
		return CT_POLICY_NOT_OUTWARD;
	return CT_POLICY_OK;
}

void ct_unwind_loop_run(const struct ct_unwind_loop *l, uint64_t cfa, uint64_t resume, struct ct_unwind_end *ret)
{
	*ret = (struct ct_unwind_end){ .reason = CT_STOP_NONE, .resume = resume };
	unsigned switches = 0;
	uint64_t pc = 0; // the callee's pc: none before the first step
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
		enum ct_policy_verdict v = f.cfa && cfa ? ct_unwind_policy_check(&l->policy, &switches, cfa, pc, f.cfa, f.pc)
						       : CT_POLICY_OK;
		if (v != CT_POLICY_OK) {
			ret->reason = v == CT_POLICY_NOT_OUTWARD ? l->not_outward : l->too_many_switches;
			ret->failed = true;
			return;
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
		pc = f.pc;
	}
}
