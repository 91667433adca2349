// The runtime section in the Markdown report (docs/runtimes.md): a thread's Python stack, in
// faulthandler's words, in its own fenced block under the native one.
#include <stdint.h>

#include "writers/present.h"
#include "writers/runtime_writers.h"
#include "writers/sanitize.h"

static void block_text(FILE *out, const char *s)
{
	ct_text_put(out, s, CT_TEXT_MD_BLOCK, SIZE_MAX);
}

void ct_markdown_runtime_stack(FILE *out, const struct ct_report *r, const struct ct_thread *t,
			       const struct ct_write_options *o)
{
	const struct ct_runtime_thread *p = r->runtime.present ? ct_runtime_find_thread(&r->runtime, t->tid) : NULL;
	if (!p)
		return;
	const char *gil = ct_gil_state_to_string(p->gil);
	fprintf(out, "\nPython stack (innermost first%s%s):\n\n~~~~\n", gil ? "; GIL " : "", gil ? gil : "");
	if (!p->num_frames)
		fputs("<no Python frame>\n", out);
	for (size_t i = 0; i < p->num_frames; i++) {
		const struct ct_runtime_frame *f = &p->frames[i];
		fputs("File \"", out);
		block_text(out, f->file ? ct_display_path(f->file, o) : "???");
		if (f->line)
			fprintf(out, "\", line %d in ", f->line);
		else
			fputs("\", line ??? in ", out);
		block_text(out, f->function ? f->function : "???");
		fputc('\n', out);
	}
	if (p->truncated)
		fputs("(the Python stack is cut here: see the diagnostics)\n", out);
	fputs("~~~~\n", out);
}
