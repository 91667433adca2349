/**
 * @file sample.h
 * `coretriage sample -p PID`: whole-process stack samples of a live process at a rate, each
 * thread's stack rooted at its state, unwound after the sampling from the copied stack bytes.
 */
#ifndef CT_PROCESS_SAMPLE_H
#define CT_PROCESS_SAMPLE_H

#include "coretriage/coretriage.h"
#include "coretriage/profile.h"

struct ct_sample_options {
	int pid;
	double duration_s;
	unsigned rate_hz;
};

/**
 * Samples process @p so->pid for @p so->duration_s seconds at @p so->rate_hz into @p out (zeroed
 * here; ct_profile_free() after any outcome). Each tick stops every thread only to copy its
 * registers and stack (src/live/), and resumes it; the stacks are unwound and merged afterwards with
 * one module set. Errors: those of ct_live_capture() for the first tick; later ticks that fail end
 * the sampling with out->note saying why.
 */
struct ct_error *ct_sample_process(const struct ct_options *opts, const struct ct_sample_options *so,
				   struct ct_profile *out);

#endif
