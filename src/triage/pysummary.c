// The crash summary names the Python code a native crash ran under (docs/runtimes.md): an engineer
// reading "null-deref in strlen" of a Python program needs the .py line that called it. The blamed
// frame stays the native one: that is where the fault is.
#include <stdbool.h>
#include <string.h>

#include "triage/gather.h"

/** Python frames listed in the evidence line, innermost first. */
#define EVIDENCE_FRAMES 8

/** The crashing thread's Python stack, NULL when it runs none (or the process is not Python). */
static const struct ct_runtime_thread *crashed_python(const struct ct_triage_input *s)
{
	if (!s->runtime || !s->runtime->present || !s->crashed || !s->runtime->language ||
	    strcmp(s->runtime->language, "python") != 0)
		return NULL;
	const struct ct_runtime_thread *t = ct_runtime_find_thread(s->runtime, s->crashed->tid);
	return t && t->num_frames ? t : NULL;
}

/**
 * Whether @p file is Python's standard library ("/usr/lib/python3.11/ctypes/__init__.py", a
 * "<frozen …>" module): the wrapper every caller goes through, as libc is for native frames.
 * site-packages and dist-packages are libraries of their own, not the standard one.
 */
static bool stdlib_file(const char *file)
{
	if (!file)
		return false;
	if (file[0] == '<')
		return true;
	const char *lib = strstr(file, "/lib/python3.");
	return lib && !strstr(lib, "-packages/");
}

const char *ct_triage_runtime_key(const struct ct_triage_input *s, struct ct_strpool *strings)
{
	const struct ct_runtime_thread *t = crashed_python(s);
	if (!t)
		return NULL;
	// The innermost frame outside the standard library (ctypes.string_at is every caller's), else
	// the innermost.
	const struct ct_runtime_frame *f = &t->frames[0];
	for (size_t i = 0; i < t->num_frames; i++) {
		if (!stdlib_file(t->frames[i].file)) {
			f = &t->frames[i];
			break;
		}
	}
	const char *fn = f->qualname ? f->qualname : f->function;
	if (!fn)
		return NULL;
	// The file by its base name: the directories differ between installs (a venv, site-packages of
	// another Python, a checkout) of the same code. A package's __init__.py or __main__.py keeps its
	// directory, which is the package's name.
	const char *file = f->file ? f->file : "???", *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (base != file && (strcmp(base, "__init__.py") == 0 || strcmp(base, "__main__.py") == 0)) {
		const char *dir = base - 1;
		while (dir > file && dir[-1] != '/')
			dir--;
		base = dir;
	}
	return ct_strpool_printf(strings, "py:%s@%s", fn, base);
}

void ct_triage_runtime_summary(const struct ct_triage_input *s, struct ct_verdict *r)
{
	const struct ct_runtime_thread *t = crashed_python(s);
	if (!t)
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
