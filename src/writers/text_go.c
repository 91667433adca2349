// The "Goroutines" section of the text report (docs/runtimes.md "Go"): every goroutine in the
// words of Go's own traceback (`goroutine 1 [chan receive]:`, each frame's function then its
// file:line, `created by`), identical ones grouped with their ids and a count, the crashed one first.
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "writers/present.h"
#include "writers/runtime_writers.h"
#include "writers/sanitize.h"

/** Ids listed in a group's title before "…". */
#define TITLE_IDS 10

static void txt(FILE *out, const char *s)
{
	ct_text_put(out, s, CT_TEXT_TERMINAL, SIZE_MAX);
}

static void place(FILE *out, const struct ct_runtime_frame *f, const struct ct_write_options *o)
{
	fputs("        ", out);
	txt(out, f->file ? ct_display_path(f->file, o) : "???");
	if (f->line)
		fprintf(out, ":%d", f->line);
	fputc('\n', out);
}

void ct_text_goroutines(FILE *out, const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_runtime *rt = &r->runtime;
	if (!rt->present || !rt->language || strcmp(rt->language, "go") != 0)
		return;
	fprintf(out, "\nGoroutines (%zu; ", rt->num_goroutines);
	txt(out, rt->version ? rt->version : "go");
	fprintf(out, ", layout %s%s)\n", rt->layout ? rt->layout : "?",
		rt->found_by && strcmp(rt->found_by, "search") == 0 ? ", runtime state found by a search: no symbols" : "");
	struct ct_goroutine_groups g;
	ct_goroutine_groups_init(&g, rt);
	for (size_t gi = 0; gi < g.num_groups; gi++) {
		const struct ct_thread_group *gr = &g.groups[gi];
		const struct ct_goroutine *first = &rt->goroutines[g.members[gr->start]];
		fputs("  goroutine ", out);
		for (size_t k = 0; k < gr->count && k < TITLE_IDS; k++)
			fprintf(out, "%s%" PRId64, k ? ", " : "", rt->goroutines[g.members[gr->start + k]].id);
		if (gr->count > TITLE_IDS)
			fputs(", …", out);
		fputs(" [", out);
		txt(out, first->wait ? first->wait : ct_go_status_to_string(first->status));
		if (first->locked_to_thread)
			fputs(", locked to thread", out);
		fputs("]", out);
		if (gr->count > 1)
			fprintf(out, " (%zu goroutines)", gr->count);
		if (first->crashed)
			fputs(" (crashed)", out);
		fputs(":\n", out);
		if (first->stack_from == CT_GO_STACK_NONE && first->status == CT_GO_RUNNING)
			fprintf(out, "    running on thread %d: its stack is that thread's native stack\n", first->tid);
		for (size_t i = 0; i < first->num_frames; i++) {
			const struct ct_runtime_frame *f = &first->frames[i];
			fputs("    ", out);
			txt(out, f->function ? f->function : "???");
			fputs(f->inlined ? "(...)\n" : "()\n", out);
			place(out, f, o);
		}
		if (first->truncated)
			fputs("    (the goroutine's stack is cut here: see the diagnostics)\n", out);
		if (first->created_by.function) {
			fputs("    created by ", out);
			txt(out, first->created_by.function);
			fputc('\n', out);
			place(out, &first->created_by, o);
		}
	}
	if (rt->goroutines_truncated)
		fputs("  (not every goroutine was read: see the diagnostics)\n", out);
	ct_goroutine_groups_deinit(&g);
}
