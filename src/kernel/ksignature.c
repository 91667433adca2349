// The vmcore's bucket key (docs/signature.md, "Kernel dumps"): the class and, innermost first, the culprit
// and its callers. The functions come from the panic CPU's unwound stack from the blamed (culprit) frame
// outward; when the culprit is not on that stack (a hung task: the panic CPU is khungtaskd's), from the
// log's Call Trace from the culprit on; without a culprit, the panic CPU's frames past the panic path.
// The key and its hash are the one signature module of every dump (src/triage/signature.c).
#include <string.h>

#include "kernel/vmcore.h"
#include "triage/facts.h"
#include "triage/triage.h"

#define KEY_FUNCTIONS 8

// Functions that only say how the kernel went down, not why.
static bool is_panic_path(const char *fn)
{
	static const char *const names[] = { "panic", "vpanic", "nmi_panic", "__crash_kexec", "crash_kexec", "oops_end",
					     "die", "__die", "atomic_notifier_call_chain", "notifier_call_chain",
					     "pvpanic_panic_notify", "check_panic_on_warn", "__warn", "report_bug",
					     "handle_bug", NULL };
	size_t n = strcspn(fn, ".");
	for (const char *const *p = names; *p; p++) {
		if (strlen(*p) == n && strncmp(fn, *p, n) == 0)
			return true;
	}
	return false;
}

void ct_kernel_signature(const struct ct_thread *t, const struct ct_panic_record *rec, struct ct_verdict *verdict)
{
	const char *fns[KEY_FUNCTIONS];
	size_t n = 0;
	long blame = verdict->crash.blame_frame;
	if (t && blame >= 0 && (size_t)blame < t->num_frames) {
		for (size_t i = (size_t)blame; i < t->num_frames && n < KEY_FUNCTIONS; i++)
			fns[n++] = t->frames[i].function;
	} else if (rec->culprit_function) {
		fns[n++] = rec->culprit_function;
		bool after = false;
		for (size_t i = 0; i < rec->num_call_trace && n < KEY_FUNCTIONS; i++) {
			struct ct_ksym_text s;
			const char *line = rec->call_trace[i];
			if (!ct_ksym_text_parse(line, strlen(line), &s) || s.unreliable)
				continue;
			if (after)
				fns[n++] = ct_strpool_intern(verdict->strings, s.function);
			after = after || strcmp(s.function, rec->culprit_function) == 0;
		}
	} else if (t) {
		// Past the last panic-path function among the innermost frames.
		size_t start = 0;
		for (size_t i = 0; i < t->num_frames && i < 16; i++) {
			if (t->frames[i].function && is_panic_path(t->frames[i].function))
				start = i + 1;
		}
		for (size_t i = start; i < t->num_frames && n < KEY_FUNCTIONS; i++)
			fns[n++] = t->frames[i].function;
	}
	ct_signature_from_functions(&verdict->signature, verdict->strings, ct_class_to_string(verdict->crash.cls),
				    verdict->crash.subclass, fns, n);
}
