// The crash summary names the Python code a native crash ran under (docs/runtimes.md): an engineer
// reading "null-deref in strlen" of a Python program needs the .py line that called it. The blamed
// frame stays the native one: that is where the fault is.
#include <string.h>

#include "triage/gather.h"

/** Python frames listed in the evidence line, innermost first. */
#define EVIDENCE_FRAMES 8

void ct_triage_runtime_summary(const struct ct_triage_input *s, struct ct_verdict *r)
{
	if (!s->runtime || !s->runtime->present || !s->crashed)
		return;
	const struct ct_runtime_thread *t = ct_runtime_find_thread(s->runtime, s->crashed->tid);
	if (!t || !t->num_frames)
		return;
	const struct ct_runtime_frame *f = &t->frames[0];
	const char *fn = f->function ? f->function : "???", *file = f->file ? f->file : "???";
	if (r->crash.summary)
		r->crash.summary = ct_strpool_printf(s->out.strings, "%s, called from Python `%s` at %s:%d", r->crash.summary,
						     fn, file, f->line);
	char line[1024];
	size_t o = 0;
	for (size_t i = 0; i < t->num_frames && i < EVIDENCE_FRAMES && o < sizeof(line); i++) {
		const struct ct_runtime_frame *p = &t->frames[i];
		const char *base = p->file ? strrchr(p->file, '/') : NULL;
		int n = snprintf(line + o, sizeof(line) - o, "%s%s (%s:%d)", i ? " ← " : "", p->function ? p->function : "???",
				 base ? base + 1 : p->file ? p->file : "???", p->line);
		o += n > 0 ? (size_t)n : 0;
	}
	ct_crash_add_evidence(&r->crash, r->strings, "Python %s stack of thread %d, innermost first: %s%s",
			      s->runtime->version ? s->runtime->version : "", t->tid, line,
			      t->num_frames > EVIDENCE_FRAMES ? " ← …" : "");
}
