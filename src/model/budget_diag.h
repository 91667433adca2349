/**
 * @file budget_diag.h
 * The work budget's warnings in the model: util/ keeps the counts and says which budget was
 * reached (ct_budget_next_unreported), the model turns each into its one diagnostic, so that the
 * budget, which every stage uses, calls nothing above it.
 */
#ifndef CT_REPORT_BUDGET_DIAG_H
#define CT_REPORT_BUDGET_DIAG_H

#include "coretriage/report.h"
#include "util/budget.h"

/** Adds one warning per budget reached and not yet reported (code "budget-KIND"). */
void ct_budget_report(struct ct_budget *b, struct ct_report *report);

#endif
