// Triage entry point for process cores: gather facts, run the ordered rules, build the signature,
// copy the abort message into the report.
#include "triage/facts.h"
#include "triage/gather.h"
#include "triage/hang.h"
#include "triage/triage.h"

static void fill_abort_message(struct ct_report *r, const struct ct_abort_facts *a)
{
	if (!a->present)
		return;
	struct ct_abort_message *m = &r->abort_message;
	m->present = true;
	m->text = a->text;
	m->kind = ct_report_strdup(r, ct_abort_kind_to_string(a->kind));
	m->assert_file = a->file;
	m->assert_function = a->function;
	m->assert_expression = a->expression;
	m->assert_line = a->line;
}

void ct_triage_process(const struct ct_triage_input *s)
{
	struct ct_report *r = s->report;
	struct ct_facts facts;
	struct ct_facts_storage storage = { 0 };
	ct_hang_analyze(s);
	ct_facts_gather(s, &facts, &storage);
	facts.hang = &r->hang;
	facts.blocked_in = ct_hang_blocked_in(s);
	ct_classify(&facts, r);
	fill_abort_message(r, &facts.abort_msg);
	// A fault re-raised by its handler is keyed by the original fault's frames.
	ct_signature_build(facts.reraised ? facts.reraised : &facts, r);
	ct_facts_storage_deinit(&storage);
}
