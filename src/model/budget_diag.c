// The work budget's warnings (budget_diag.h): one per budget reached, in the model's diagnostics.
#include "model/budget_diag.h"

#include <inttypes.h>

void ct_budget_report(struct ct_budget *b, struct ct_report *report)
{
	// Each answer marks its kind reported: at most CT_BUDGET_NUM_ rounds.
	struct ct_budget_reached k;
	while (ct_budget_next_unreported(b, &k)) {
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, k.code,
			       "work budget reached: at most %" PRIu64 " %s (from --max-memory%s); the report is partial",
			       k.limit, k.what, k.kind != CT_BUDGET_TEMP ? ", tighter with --safe" : "");
	}
}
