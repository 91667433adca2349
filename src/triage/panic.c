// Runtime panics (issue 16, docs/classes.md "panic"): Rust's panic path and Go's runtime.gopanic /
// fatalpanic / throw end in abort(); the class is panic, with the message and location when the
// dump holds them, and the blame is the first frame in the program's own code. A fault that Go's
// runtime.sigpanic turned into a panic is its fault class at the Go frame. Pure rules over facts.
#include <inttypes.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/triage.h"

static const char *const go_panic_frames[] = { "runtime.gopanic", "runtime.fatalpanic", "runtime.throw",
					       "runtime.fatalthrow", NULL };

static bool name_is(const char *fn, const char *const *list)
{
	for (; fn && *list; list++) {
		if (strcmp(fn, *list) == 0)
			return true;
	}
	return false;
}

void ct_panic_find(struct ct_facts *f)
{
	struct ct_panic_facts p = { .frame = -1, .sigpanic_caller = -1 };
	// The last name found to be no panic frame: names are pooled, and a deep recursion repeats one
	// frame's 100,000 times (four string compares each were 4 % of such an analysis).
	const char *not_panic = NULL;
	for (size_t i = 0; i < f->num_frames; i++) {
		const char *fn = f->frames[i].function;
		if (!fn || (!p.runtime && fn == not_panic))
			continue;
		if (!p.runtime && (strncmp(fn, "rust_panic", 10) == 0 || strncmp(fn, "__rust_start_panic", 18) == 0 ||
				   strncmp(fn, "std::panicking::", 16) == 0 || strncmp(fn, "core::panicking::", 17) == 0)) {
			p.runtime = "rust";
			p.frame = (long)i;
		} else if (!p.runtime && name_is(fn, go_panic_frames)) {
			p.runtime = "go";
			p.frame = (long)i;
		} else if (!p.runtime) {
			not_panic = fn;
			continue;
		}
		if (p.runtime && strcmp(p.runtime, "go") == 0 && strcmp(fn, "runtime.sigpanic") == 0 &&
		    i + 1 < f->num_frames) {
			p.go_sigpanic = true;
			p.sigpanic_caller = (long)i + 1;
		}
		// The runtime function that raised the Go panic: the outermost runtime frame before user code.
		if (p.runtime && strcmp(p.runtime, "go") == 0 && ct_function_is_go_runtime(fn) && i + 1 < f->num_frames &&
		    !ct_function_is_go_runtime(f->frames[i + 1].function))
			p.raiser = p.raiser ? p.raiser : fn;
	}
	const char *msg = f->panic.message, *file = f->panic.file;
	int line = f->panic.line, col = f->panic.column;
	f->panic = p;
	f->panic.message = msg;
	f->panic.file = file;
	f->panic.line = line;
	f->panic.column = col;
}

static bool self_abort(const struct ct_facts *f)
{
	return f->sig.fatal && f->sig.signo == CT_SIGABRT &&
	       (!f->sig.has_code || f->sig.user_sent || f->sig.code == CT_SI_KERNEL);
}

bool ct_when_panic(const struct ct_facts *f)
{
	return self_abort(f) && f->panic.runtime && !f->panic.go_sigpanic;
}

static const char *where(const struct ct_facts *f, struct ct_verdict *r)
{
	if (f->blame < 0 || (size_t)f->blame >= f->num_frames)
		return "";
	const struct ct_frame_fact *b = &f->frames[f->blame];
	const char *fn = b->function ? b->function : b->module ? b->module : "??";
	if (b->file && b->line) {
		const char *base = strrchr(b->file, '/');
		return ct_strpool_printf(r->strings, " in %s (%s:%d)", fn, base ? base + 1 : b->file, b->line);
	}
	return ct_strpool_printf(r->strings, " in %s", fn);
}

void ct_fill_panic(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_panic_facts *p = &f->panic;
	bool rust = strcmp(p->runtime, "rust") == 0;
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	ct_crash_add_evidence(&r->crash, r->strings, "frame #%ld is %s, %s's panic path", p->frame + (long)f->frame_base,
			      f->frames[p->frame].function, rust ? "Rust std" : "the Go runtime");
	if (p->raiser)
		ct_crash_add_evidence(&r->crash, r->strings, "the panic was raised by %s", p->raiser);
	if (p->message) {
		ct_crash_add_evidence(&r->crash, r->strings, "panic message: \"%s\"", p->message);
		ct_crash_add_detail_string(&r->crash, r->strings, "message", p->message);
	}
	if (p->file) {
		ct_crash_add_evidence(&r->crash, r->strings, "panic location %s:%d:%d (core::panic::Location in the dump)", p->file, p->line,
				      p->column);
		ct_crash_add_detail_string(&r->crash, r->strings, "panic_file", p->file);
		ct_crash_add_detail_int(&r->crash, r->strings, "panic_line", p->line);
	}
	if (f->blame < 0)
		c = CT_CONFIDENCE_MEDIUM;
	ct_crash_add_detail_string(&r->crash, r->strings, "runtime", p->runtime);
	r->crash.cls = CT_CLASS_PANIC;
	r->crash.subclass = NULL;
	r->crash.confidence = c;
	const char *what = p->message ? ct_strpool_printf(r->strings, ": %s", p->message)
			   : p->raiser ? ct_strpool_printf(r->strings, " (%s)", p->raiser) : "";
	// The panic's own location when the dump has it, else the blamed frame's line.
	const struct ct_frame_fact *b = f->blame >= 0 ? &f->frames[f->blame] : NULL;
	if (p->file)
		r->crash.summary = ct_strpool_printf(r->strings, "%s panic%s at %s:%d:%d%s%s", rust ? "Rust" : "Go", what, p->file,
						    p->line, p->column, b && b->function ? " in " : "",
						    b && b->function ? b->function : "");
	else
		r->crash.summary = ct_strpool_printf(r->strings, "%s panic%s%s", rust ? "Rust" : "Go", what, where(f, r));
}

bool ct_when_go_fault(const struct ct_facts *f)
{
	return self_abort(f) && f->panic.runtime && f->panic.go_sigpanic;
}

void ct_fill_go_fault(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_panic_facts *p = &f->panic;
	const struct ct_frame_fact *at = &f->frames[p->sigpanic_caller];
	const char *m = p->message ? p->message : "";
	// runtime.panicmem's message, or the other faults sigpanic turns into panics (signal_unix.go).
	enum ct_class cls = strstr(m, "nil pointer dereference")    ? CT_CLASS_NULL_DEREF
			    : strstr(m, "divide by zero")	    ? CT_CLASS_DIVIDE_BY_ZERO
			    : strstr(m, "unexpected fault address") ? CT_CLASS_WILD_POINTER
			    : strstr(m, "floating point")	    ? CT_CLASS_FLOATING_POINT_EXCEPTION
								    : CT_CLASS_UNKNOWN;
	enum ct_confidence c = CT_CONFIDENCE_HIGH;
	ct_crash_add_evidence(&r->crash, r->strings, "frame #%ld %s faulted; Go's signal handler turned the fault into a call of runtime.sigpanic",
			      p->sigpanic_caller + (long)f->frame_base, at->function ? at->function : "??");
	if (p->message)
		ct_crash_add_evidence(&r->crash, r->strings, "panic message: \"%s\"", p->message);
	if (cls == CT_CLASS_UNKNOWN) {
		// Without the message: Go faults are nil dereferences far more often than anything else,
		// but the dump does not say so here.
		ct_crash_add_evidence(&r->crash, r->strings, "the panic message was not recovered: a memory fault is assumed");
		cls = CT_CLASS_NULL_DEREF;
		c = CT_CONFIDENCE_MEDIUM;
	}
	if (p->message)
		ct_crash_add_detail_string(&r->crash, r->strings, "message", p->message);
	ct_crash_add_detail_string(&r->crash, r->strings, "runtime", "go");
	r->crash.cls = cls;
	r->crash.subclass = NULL;
	r->crash.confidence = c;
	r->crash.summary = ct_strpool_printf(r->strings, "Go %s%s%s (runtime.sigpanic, then GOTRACEBACK's abort)",
					    cls == CT_CLASS_NULL_DEREF ? "nil pointer dereference" : ct_class_to_string(cls),
					    p->message ? "" : "", where(f, r));
}
