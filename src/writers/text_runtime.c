// The runtime section in the text report (docs/runtimes.md): each thread's Python stack under its
// native frames, in faulthandler's words, and the Python frames beside the evaluation-loop frame
// that ran them.
#include <stdint.h>

#include "writers/present.h"
#include "writers/runtime_writers.h"
#include "writers/sanitize.h"

static void txt(FILE *out, const char *s)
{
	ct_text_put(out, s, CT_TEXT_TERMINAL, SIZE_MAX);
}

static void frame_text(FILE *out, const struct ct_runtime_frame *f, const struct ct_write_options *o)
{
	txt(out, f->function ? f->function : "???");
	fputs(" at ", out);
	txt(out, f->file ? ct_display_path(f->file, o) : "???");
	if (f->line)
		fprintf(out, ":%d", f->line);
}

void ct_text_runtime_frames(FILE *out, const struct ct_report *r, const struct ct_thread *t, size_t index,
			    const struct ct_write_options *o)
{
	const struct ct_runtime_thread *p = r->runtime.present ? ct_runtime_find_thread(&r->runtime, t->tid) : NULL;
	for (size_t i = 0; p && i < p->num_frames; i++) {
		if (p->frames[i].native_frame != (long)index)
			continue;
		fputs("         Python: ", out);
		frame_text(out, &p->frames[i], o);
		fputc('\n', out);
	}
}

void ct_text_runtime_stack(FILE *out, const struct ct_report *r, const struct ct_thread *t,
			   const struct ct_write_options *o)
{
	const struct ct_runtime_thread *p = r->runtime.present ? ct_runtime_find_thread(&r->runtime, t->tid) : NULL;
	if (!p)
		return;
	const char *gil = ct_gil_state_to_string(p->gil);
	fprintf(out, "  Python stack (innermost first%s%s):\n", gil ? "; GIL " : "", gil ? gil : "");
	if (!p->num_frames)
		fputs("    <no Python frame>\n", out);
	for (size_t i = 0; i < p->num_frames; i++) {
		const struct ct_runtime_frame *f = &p->frames[i];
		fputs("    File \"", out);
		txt(out, f->file ? ct_display_path(f->file, o) : "???");
		if (f->line)
			fprintf(out, "\", line %d in ", f->line);
		else
			fputs("\", line ??? in ", out);
		txt(out, f->function ? f->function : "???");
		fputc('\n', out);
	}
	if (p->truncated)
		fputs("    (the Python stack is cut here: see the diagnostics)\n", out);
}
