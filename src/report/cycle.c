// Detection of repeated frame cycles (recursion) for collapsing long stacks in reports.
#include "report/writers.h"

/** Longest recursion cycle looked for (mutual recursion of up to 8 functions). */
#define MAX_PERIOD 8

static bool same_frame(const struct ct_frame *a, const struct ct_frame *b)
{
	return a->pc == b->pc && a->function == b->function && a->inlined == b->inlined;
}

bool ct_find_cycle(const struct ct_thread *t, size_t i, size_t min_frames, size_t *period, size_t *repeats)
{
	size_t best_len = 0, best_p = 0;
	for (size_t p = 1; p <= MAX_PERIOD && i + 2 * p <= t->num_frames; p++) {
		size_t j = i + p;
		while (j < t->num_frames && same_frame(&t->frames[j], &t->frames[j - p]))
			j++;
		size_t reps = (j - i) / p;
		if (reps >= 2 && reps * p > best_len) {
			best_len = reps * p;
			best_p = p;
		}
	}
	if (!best_p || best_len < min_frames)
		return false;
	*period = best_p;
	*repeats = best_len / best_p;
	return true;
}
