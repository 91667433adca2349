// Triage entry point for process cores: gather facts, run the ordered rules, build the signature,
// keep the abort message; the verdict moves into the report when the pipeline is done with it.
#include <stdlib.h>
#include <string.h>

#include "triage/facts.h"
#include "triage/gather.h"
#include "triage/hang.h"
#include "triage/heap.h"
#include "triage/origin.h"
#include "triage/triage.h"

static void fill_abort_message(struct ct_verdict *r, const struct ct_abort_facts *a)
{
	if (!a->present)
		return;
	struct ct_abort_message *m = &r->abort_message;
	m->present = true;
	m->text = a->text;
	m->kind = ct_strpool_intern(r->strings, ct_abort_kind_to_string(a->kind));
	m->assert_file = a->file;
	m->assert_function = a->function;
	m->assert_expression = a->expression;
	m->assert_line = a->line;
}

void ct_triage_process(const struct ct_triage_input *s, struct ct_verdict *r)
{
	ct_verdict_init(r, s->out.strings);
	struct ct_facts facts;
	struct ct_facts_storage storage = { 0 };
	ct_hang_analyze(s, r);
	ct_facts_gather(s, &facts, &storage);
	facts.hang = &r->hang;
	facts.blocked_in = ct_hang_blocked_in(s, r);
	// The root cause and the heap state come first: the use-after-free rule reads them.
	if (s->crashed && s->crashed->has_regs && !facts.reraised)
		ct_root_cause_trace(s, &facts, s->crashed->dwarf, s->crashed->valid, r);
	struct ct_heap_facts heap;
	ct_heap_analyze(s, &facts, r, &heap);
	facts.heap = &heap;
	ct_classify(&facts, r);
	ct_heap_to_verdict(&heap, r);
	fill_abort_message(r, &facts.abort_msg);
	ct_triage_runtime_summary(s, r);
	// A fault re-raised by its handler is keyed by the original fault's frames.
	ct_signature_build(facts.reraised ? facts.reraised : &facts, ct_triage_runtime_key(s, r->strings), r);
	ct_facts_storage_deinit(&storage);
}

void ct_verdict_init(struct ct_verdict *v, struct ct_strpool *strings)
{
	memset(v, 0, sizeof(*v));
	v->strings = strings;
	ct_crash_init(&v->crash, strings);
}

void ct_verdict_move_to_report(struct ct_verdict *v, struct ct_report *report)
{
	ct_crash_free(&report->crash);
	ct_hang_free(&report->hang);
	report->crash = v->crash;
	report->abort_message = v->abort_message;
	report->hang = v->hang;
	report->signature = v->signature;
	ct_root_cause_free(&report->root_cause);
	report->root_cause = v->root_cause;
	report->heap = v->heap;
	// The threads are the stacks triage read, in the same order.
	for (size_t i = 0; i < v->num_waits && i < report->num_threads; i++)
		report->threads[i].wait = v->waits[i];
	free(v->waits);
	memset(v, 0, sizeof(*v));
}

void ct_verdict_free(struct ct_verdict *v)
{
	ct_crash_free(&v->crash);
	ct_hang_free(&v->hang);
	ct_root_cause_free(&v->root_cause);
	free(v->waits);
	memset(v, 0, sizeof(*v));
}
