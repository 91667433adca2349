/**
 * @file stacks.h
 * The symbolized stacks of a process core: the stage output between unwinding and triage. One
 * struct ct_thread (the model's thread type) per dumped thread: frames innermost first with pc,
 * function, module, file:line, trust, inline and signal-frame flags and sp, their parameters and
 * locals, the stop reason; the crashing thread first, then by tid. The pipeline makes it (unwind →
 * symbolize → values), triage reads it (its wait states go into the verdict), then the pipeline
 * moves the threads into the report: no frame is copied, so a 262k-frame overflow costs its frames
 * once.
 */
#ifndef CT_STACKS_H
#define CT_STACKS_H

#include <stdbool.h>
#include <stddef.h>

#include "coretriage/report.h"

struct ct_stacks {
	struct ct_thread *items; /**< owned until ct_stacks_move_to_report() */
	size_t count, capacity;
};

/** Room for @p count threads (zeroed); false when out of memory (then no thread can be added). */
bool ct_stacks_reserve(struct ct_stacks *st, size_t count);
/** The next zeroed thread; NULL when the reserved room is used up. */
struct ct_thread *ct_stacks_add(struct ct_stacks *st);
/** Orders the threads: the crashing thread first, then by tid. */
void ct_stacks_sort(struct ct_stacks *st);
/** The thread the signal was delivered to, NULL for none (a snapshot). */
const struct ct_thread *ct_stacks_crashed(const struct ct_stacks *st);
/** The thread a report is about: the crashing thread, else the first; NULL when there is none. */
const struct ct_thread *ct_stacks_subject(const struct ct_stacks *st);
/** The thread with @p tid, NULL when none (linear: for the few lookups of a hang summary). */
const struct ct_thread *ct_stacks_find(const struct ct_stacks *st, int tid);
/** Hands the threads to @p report, which has none yet (the arrays move, nothing is copied). */
void ct_stacks_move_to_report(struct ct_stacks *st, struct ct_report *report);
/** Frees the threads not moved into a report. */
void ct_stacks_free(struct ct_stacks *st);

#endif
