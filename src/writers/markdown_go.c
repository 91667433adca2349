// The "Goroutines" section of the Markdown report (docs/runtimes.md "Go"): each group of identical
// goroutines in one fenced block, in the words of Go's own traceback.
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "writers/present.h"
#include "writers/runtime_writers.h"
#include "writers/sanitize.h"

static void block_text(FILE *out, const char *s)
{
	ct_text_put(out, s, CT_TEXT_MD_BLOCK, SIZE_MAX);
}

static void place(FILE *out, const struct ct_runtime_frame *f, const struct ct_write_options *o)
{
	fputc('\t', out);
	block_text(out, f->file ? ct_display_path(f->file, o) : "???");
	if (f->line)
		fprintf(out, ":%d", f->line);
	fputc('\n', out);
}

void ct_markdown_goroutines(FILE *out, const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_runtime *rt = &r->runtime;
	if (!rt->present || !rt->language || strcmp(rt->language, "go") != 0)
		return;
	fprintf(out, "\n#### Goroutines (%zu; layout %s)\n\n~~~~\n", rt->num_goroutines, rt->layout ? rt->layout : "?");
	struct ct_goroutine_groups g;
	ct_goroutine_groups_init(&g, rt);
	for (size_t gi = 0; gi < g.num_groups; gi++) {
		const struct ct_thread_group *gr = &g.groups[gi];
		const struct ct_goroutine *first = &rt->goroutines[g.members[gr->start]];
		fprintf(out, "%sgoroutine %" PRId64, gi ? "\n" : "", first->id);
		if (gr->count > 1)
			fprintf(out, " and %zu more like it", gr->count - 1);
		fputs(" [", out);
		block_text(out, first->wait ? first->wait : ct_go_status_to_string(first->status));
		fputs(first->crashed ? "] (crashed):\n" : "]:\n", out);
		if (first->stack_from == CT_GO_STACK_NONE && first->status == CT_GO_RUNNING)
			fprintf(out, "running on thread %d: its stack is that thread's native stack\n", first->tid);
		for (size_t i = 0; i < first->num_frames; i++) {
			const struct ct_runtime_frame *f = &first->frames[i];
			block_text(out, f->function ? f->function : "???");
			fputs(f->inlined ? "(...)\n" : "()\n", out);
			place(out, f, o);
		}
		if (first->truncated)
			fputs("(the goroutine's stack is cut here: see the diagnostics)\n", out);
		if (first->created_by.function) {
			fputs("created by ", out);
			block_text(out, first->created_by.function);
			fputc('\n', out);
			place(out, &first->created_by, o);
		}
	}
	fputs("~~~~\n", out);
	ct_goroutine_groups_deinit(&g);
}
