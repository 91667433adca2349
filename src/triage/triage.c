// Triage entry point. The classifier itself is built in issue #3; until then the class stays
// "unknown" with the signal facts as evidence.
#include "process/process.h"

void ct_triage_process(struct ct_session *s)
{
	struct ct_report *r = s->report;
	if (r->signal.present) {
		const char *name = ct_signal_name(r->signal.number);
		ct_crash_add_evidence(r, "signal %d (%s)", r->signal.number, name ? name : "?");
	}
}
