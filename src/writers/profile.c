// The writers of `coretriage sample`'s profile (coretriage/profile.h): a text summary (top wait
// states and top stacks by share of the thread samples), folded stacks and the flame graph, the last
// two through the folded and flame-graph writers every other input uses.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/profile.h"
#include "writers/sanitize.h"
#include "writers/writers.h"

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

// "futex on mutex 0x… owned by thread N (name)": the holder with its name, as a person reads it.
static void put_futex(FILE *out, const struct ct_profile_futex *f)
{
	fprintf(out, "futex on %s%s0x%" PRIx64, f->object ? f->object : "", f->object ? " " : "", f->address);
	if (!f->has_owner)
		return;
	fprintf(out, " owned by thread %d", f->owner);
	if (!f->owner_in_process) {
		fputs(", not in the process", out);
	} else if (f->owner_name[0]) {
		fputs(" (", out);
		ct_text_put(out, f->owner_name, CT_TEXT_TERMINAL, SIZE_MAX);
		fputc(')', out);
	}
}

int ct_write_profile_text(FILE *out, const struct ct_profile *p, size_t top)
{
	fprintf(out, "Sampled ");
	ct_text_put(out, p->command[0] ? p->command : "?", CT_TEXT_TERMINAL, SIZE_MAX);
	fprintf(out, " (pid %d) for %.1f s at %u Hz: %zu ticks, %llu thread samples\n", p->pid, p->duration_s,
		p->rate_hz, p->ticks, (unsigned long long)p->samples);
	double stopped = p->duration_s > 0 ? (double)p->ticks * p->stop_ms_mean / (p->duration_s * 10.0) : 0;
	fprintf(out, "  stopped %.2f ms per tick on average (at most %.2f ms): %.2f %% of the time\n", p->stop_ms_mean,
		p->stop_ms_max, stopped);
	if (p->note) {
		fputs("  note: ", out);
		ct_text_put(out, p->note, CT_TEXT_TERMINAL, SIZE_MAX);
		fputc('\n', out);
	}
	fputs("\nStates (share of thread samples)\n", out);
	for (size_t i = 0; i < p->num_states && i < top; i++) {
		fprintf(out, "  %5.1f %%  %s", share(p->states[i].count, p->samples), p->states[i].on_cpu ? "" : "waiting: ");
		if (p->states[i].is_futex)
			put_futex(out, &p->states[i].futex);
		else
			ct_text_put(out, p->states[i].state, CT_TEXT_TERMINAL, SIZE_MAX);
		fputc('\n', out);
	}
	fputs("\nTop stacks (state first, then outermost to innermost)\n", out);
	for (size_t i = 0; i < p->num_stacks && i < top; i++) {
		const struct ct_profile_stack *s = &p->stacks[i];
		fprintf(out, "  %5.1f %%  ", share(s->count, p->samples));
		for (size_t k = 0; k < s->num_frames; k++) {
			if (k)
				fputs(k == 1 ? ": " : " > ", out);
			ct_text_put(out, s->frames[k], CT_TEXT_TERMINAL, SIZE_MAX);
		}
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

// The profile's stacks as folded stacks with names made safe for the folded format (';' and control
// characters replaced); *names_ret holds the copies for free_folded().
static struct ct_folded_stack *to_folded(const struct ct_profile *p, char ***names_ret, size_t *num_names)
{
	struct ct_folded_stack *stacks = calloc(p->num_stacks ? p->num_stacks : 1, sizeof(*stacks));
	size_t total = 0;
	for (size_t i = 0; i < p->num_stacks; i++)
		total += p->stacks[i].num_frames;
	char **names = calloc(total ? total : 1, sizeof(char *));
	if (!stacks || !names) {
		free(stacks);
		free(names);
		return NULL;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->num_stacks; i++) {
		stacks[i].frames = (const char *const *)&names[n];
		stacks[i].num_frames = p->stacks[i].num_frames;
		stacks[i].count = p->stacks[i].count;
		for (size_t k = 0; k < p->stacks[i].num_frames; k++) {
			char *d = ct_text_dup(p->stacks[i].frames[k], CT_TEXT_FOLDED);
			names[n++] = d ? d : strdup("?");
		}
	}
	*names_ret = names;
	*num_names = n;
	return stacks;
}

static void free_folded(struct ct_folded_stack *stacks, char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(stacks);
}

int ct_write_profile_folded(FILE *out, const struct ct_profile *p)
{
	char **names = NULL;
	size_t n = 0;
	struct ct_folded_stack *stacks = to_folded(p, &names, &n);
	if (!stacks)
		return -1;
	int r = ct_write_folded_stacks(out, stacks, p->num_stacks);
	free_folded(stacks, names, n);
	return r;
}

int ct_write_profile_flamegraph(FILE *out, const struct ct_profile *p)
{
	char **names = NULL;
	size_t n = 0;
	struct ct_folded_stack *stacks = to_folded(p, &names, &n);
	if (!stacks)
		return -1;
	char title[128];
	snprintf(title, sizeof(title), "Wall-clock profile of pid %d: %.1f s at %u Hz, on-CPU and waiting", p->pid,
		 p->duration_s, p->rate_hz);
	int r = ct_write_flamegraph(out, stacks, p->num_stacks, title, "sample");
	free_folded(stacks, names, n);
	return r;
}
