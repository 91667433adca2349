// The deadlock class (docs/classes.md): a cycle in the wait-for graph. It outranks the verdicts that
// only say how the process was stopped (no-signal, external-signal, self-signal): the cycle is why a
// watchdog killed it or someone took a snapshot. Pure over the facts, like the rules of classify.c.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/triage.h"

bool ct_deadlock_outranks(const struct ct_facts *f, enum ct_class rule)
{
	if (!f->hang || !f->hang->num_cycles)
		return false;
	return rule == CT_CLASS_NO_SIGNAL || rule == CT_CLASS_EXTERNAL_SIGNAL || rule == CT_CLASS_SELF_SIGNAL;
}

static const char *label(struct ct_verdict *r, const struct ct_hang *h, long index)
{
	(void)h;
	char buf[512];
	return ct_strpool_intern(r->strings, ct_hang_lock_label(&r->hang, index, buf, sizeof(buf)));
}

void ct_deadlock_fill(const struct ct_facts *f, struct ct_verdict *r)
{
	const struct ct_hang *h = f->hang;
	const struct ct_cycle *c = &h->cycles[0];
	const struct ct_cycle_member *m = &h->members[c->start];
	bool self = c->length == 1;
	r->crash.cls = CT_CLASS_DEADLOCK;
	r->crash.subclass = self ? ct_strpool_intern(r->strings, "self-deadlock") : NULL;
	r->crash.confidence = CT_CONFIDENCE_HIGH;
	if (self) {
		r->crash.summary = ct_strpool_printf(r->strings, "self-deadlock: thread %d%s%s waits for %s, which it holds itself", m->tid,
						    m->function ? " in " : "", m->function ? m->function : "",
						    label(r, h, m->lock));
	} else {
		char buf[512];
		size_t used = (size_t)snprintf(buf, sizeof(buf), "deadlock of %zu threads:", c->length);
		for (size_t k = 0; k < c->length && used < sizeof(buf); k++) {
			const struct ct_cycle_member *x = &h->members[c->start + k];
			const struct ct_cycle_member *next = &h->members[c->start + (k + 1) % c->length];
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s thread %d%s%s waits for %s held by thread %d",
						 k ? "," : "", x->tid, x->function ? " in " : "", x->function ? x->function : "",
						 label(r, h, x->lock), next->tid);
		}
		r->crash.summary = ct_strpool_intern(r->strings, buf);
	}
	if (h->num_cycles > 1)
		ct_crash_add_evidence(&r->crash, r->strings, "%zu wait-for cycles; the first is described", h->num_cycles);
	char tids[256] = "", locks[512] = "";
	size_t tu = 0, lu = 0;
	for (size_t k = 0; k < c->length; k++) {
		const struct ct_cycle_member *x = &h->members[c->start + k];
		const struct ct_cycle_member *prev = &h->members[c->start + (k + c->length - 1) % c->length];
		const struct ct_lock *l = x->lock >= 0 && (size_t)x->lock < h->num_locks ? &h->locks[x->lock] : NULL;
		ct_crash_add_evidence(&r->crash, r->strings, "thread %d%s%s holds %s%s%s%s and waits for %s (owner tid %d from its %s)", x->tid,
				      x->function ? " in " : "", x->function ? x->function : "", label(r, h, prev->lock),
				      x->holds_as ? " (`" : "", x->holds_as ? x->holds_as : "", x->holds_as ? "` in its frame)" : "",
				      label(r, h, x->lock), l ? l->owner : 0, l && l->owner_field ? l->owner_field : "owner field");
		if (tu < sizeof(tids))
			tu += (size_t)snprintf(tids + tu, sizeof(tids) - tu, "%s%d", k ? " -> " : "", x->tid);
		if (lu < sizeof(locks))
			lu += (size_t)snprintf(locks + lu, sizeof(locks) - lu, "%s%s", k ? ", " : "", label(r, h, x->lock));
	}
	if (f->sig.fatal && f->sig.user_sent)
		ct_crash_add_evidence(&r->crash, r->strings, "the process was stopped by %s from %s: the cycle explains why it was stuck",
				      ct_signal_name(f->sig.signo) ? ct_signal_name(f->sig.signo) : "a signal",
				      f->sig.has_sender && !f->sig.from_self ? "another process" : "itself");
	else if (!f->sig.fatal)
		ct_crash_add_evidence(&r->crash, r->strings, "a live snapshot: no thread carries a signal");
	ct_crash_add_detail_int(&r->crash, r->strings, "cycles", (int64_t)h->num_cycles);
	ct_crash_add_detail_string(&r->crash, r->strings, "cycle_threads", tids);
	ct_crash_add_detail_string(&r->crash, r->strings, "cycle_locks", locks);
}
