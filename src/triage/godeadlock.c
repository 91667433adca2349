// Rule "go-deadlock" (issue 26, docs/classes.md): Go's scheduler found every goroutine asleep
// (runtime.checkdead) and threw "all goroutines are asleep - deadlock!"; with GOTRACEBACK=crash the
// runtime then aborts. The class is decided by the message read from the dump (ct_go_fatal_read),
// never from the frames alone; the evidence is each goroutine's wait reason from the runtime stage.
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/hang.h"
#include "triage/triage.h"

/** Goroutines named one by one in the evidence; the rest are counted by wait reason only. */
#define GO_DEADLOCK_LISTED 16

// runtime/proc.go checkdead's two deadlock throws (Go 1.19; the same words since Go 1.0).
static const char *const deadlock_messages[] = { "all goroutines are asleep - deadlock!",
						  "no goroutines (main called runtime.Goexit) - deadlock!", NULL };

bool ct_when_go_deadlock(const struct ct_facts *f)
{
	if (!f->sig.fatal || f->sig.signo != CT_SIGABRT || !f->go_fatal.message)
		return false;
	for (const char *const *m = deadlock_messages; *m; m++) {
		if (strcmp(f->go_fatal.message, *m) == 0)
			return true;
	}
	return false;
}

void ct_fill_go_deadlock(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_go_fatal_facts *g = &f->go_fatal;
	const struct ct_runtime *rt = f->runtime && f->runtime->present && f->runtime->num_goroutines ? f->runtime : NULL;
	r->crash.cls = CT_CLASS_DEADLOCK;
	r->crash.subclass = ct_strpool_intern(r->strings, "go-all-asleep");
	r->crash.confidence = CT_CONFIDENCE_HIGH;
	ct_crash_add_evidence(&r->crash, r->strings,
			      "Go fatal error \"%s\": the string %s passed to systemstack, read from its closure at 0x%llx on the g0 stack the signal frame interrupted",
			      g->message, g->function, (unsigned long long)g->closure);
	ct_crash_add_detail_string(&r->crash, r->strings, "message", g->message);
	ct_crash_add_detail_string(&r->crash, r->strings, "runtime", "go");
	if (!rt) {
		ct_crash_add_evidence(&r->crash, r->strings, "the goroutines were not read (runtime stage off or failed): no wait reasons");
		r->crash.summary = ct_strpool_printf(r->strings, "Go deadlock: %s (runtime.checkdead)", g->message);
		return;
	}
	const struct ct_go_hang *gh = f->hang && f->hang->go.present ? &f->hang->go : NULL;
	size_t listed = 0;
	for (size_t k = 0; k < rt->num_goroutines && listed < GO_DEADLOCK_LISTED; k++) {
		const struct ct_goroutine *go = &rt->goroutines[k];
		const struct ct_runtime_frame *own = go->status == CT_GO_DEAD ? NULL : ct_goroutine_own_frame(go);
		if (!own)
			continue;
		listed++;
		ct_crash_add_evidence(&r->crash, r->strings, "goroutine %lld [%s] in %s", (long long)go->id,
				      go->wait ? go->wait : ct_go_status_to_string(go->status), own->function);
	}
	if (!gh) {
		r->crash.summary = ct_strpool_printf(r->strings, "Go deadlock: %s (runtime.checkdead)", g->message);
		return;
	}
	// The counts are the hang analysis' (gohang.c), made before the rules ran.
	const char *counts = ct_go_hang_counts_text(r->strings, gh);
	ct_crash_add_evidence(&r->crash, r->strings, "%zu goroutines by wait reason: %s", gh->goroutines, counts);
	ct_crash_add_detail_int(&r->crash, r->strings, "goroutines", (long long)gh->goroutines);
	r->crash.summary =
		ct_strpool_printf(r->strings, "Go deadlock: %s (runtime.checkdead; %zu goroutines: %s)", g->message, gh->goroutines, counts);
}
