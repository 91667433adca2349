// Rule "go-deadlock" (issue 26, docs/classes.md): Go's scheduler found every goroutine asleep
// (runtime.checkdead) and threw "all goroutines are asleep - deadlock!"; with GOTRACEBACK=crash the
// runtime then aborts. The class is decided by the message read from the dump (ct_go_fatal_read),
// never from the frames alone; the evidence is each goroutine's wait reason from the runtime stage.
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/triage.h"

/** Goroutines named one by one in the evidence; the rest are counted by wait reason only. */
#define GO_DEADLOCK_LISTED 16
/** Distinct wait reasons counted. */
#define GO_DEADLOCK_REASONS 32

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

/** The goroutine's innermost frame outside the runtime (where the program waits), NULL when none. */
static const char *own_frame(const struct ct_goroutine *g)
{
	for (size_t k = 0; k < g->num_frames; k++) {
		const char *fn = g->frames[k].function;
		// sync.runtime_SemacquireMutex and the like are the runtime's, linked into the package.
		if (fn && !ct_function_is_go_runtime(fn) && !strstr(fn, ".runtime_"))
			return fn;
	}
	return NULL;
}

void ct_fill_go_deadlock(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_go_fatal_facts *g = &f->go_fatal;
	const struct ct_runtime *rt = f->runtime && f->runtime->present && f->runtime->num_goroutines ? f->runtime : NULL;
	r->cls = CT_CLASS_DEADLOCK;
	r->crash.subclass = ct_strpool_intern(r->strings, "go-all-asleep");
	r->confidence = CT_CONFIDENCE_HIGH;
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
	const char *reasons[GO_DEADLOCK_REASONS];
	size_t counts[GO_DEADLOCK_REASONS], num_reasons = 0, live = 0, listed = 0;
	for (size_t k = 0; k < rt->num_goroutines; k++) {
		const struct ct_goroutine *go = &rt->goroutines[k];
		if (go->status == CT_GO_DEAD)
			continue;
		live++;
		const char *why = go->wait ? go->wait : ct_go_status_to_string(go->status);
		size_t j = 0;
		while (j < num_reasons && strcmp(reasons[j], why) != 0)
			j++;
		if (j == num_reasons && num_reasons < GO_DEADLOCK_REASONS) {
			reasons[num_reasons] = why;
			counts[num_reasons++] = 0;
		}
		if (j < num_reasons)
			counts[j]++;
		const char *own = own_frame(go);
		if (listed < GO_DEADLOCK_LISTED && own) {
			listed++;
			ct_crash_add_evidence(&r->crash, r->strings, "goroutine %lld [%s] in %s", (long long)go->id, why, own);
		}
	}
	char buf[512];
	size_t used = 0;
	buf[0] = '\0';
	for (size_t j = 0; j < num_reasons && used < sizeof(buf); j++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%zu %s", j ? ", " : "", counts[j], reasons[j]);
	ct_crash_add_evidence(&r->crash, r->strings, "%zu goroutines by wait reason: %s", live, buf);
	ct_crash_add_detail_int(&r->crash, r->strings, "goroutines", (long long)live);
	r->crash.summary = ct_strpool_printf(r->strings, "Go deadlock: %s (runtime.checkdead; %zu goroutines: %s)", g->message, live, buf);
}
