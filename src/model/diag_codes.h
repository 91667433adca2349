/**
 * @file diag_codes.h
 * Every diagnostic code (struct ct_diagnostic.code, JSON's diagnostics[].code) in one table with its
 * default severity: the stable identifiers of docs/diagnostics.md. Call sites pass an
 * `enum ct_diag_code` (include/coretriage/report.h) to ct_report_diag() with the severity their
 * context gives (a log file named on the command line is a warning, one found in a directory an
 * info); code that has no such context, such as the problems the core loader records, takes the
 * table's (ct_diag_code_severity). tests/check_tables.py fails when the table and the enum, or the
 * table and docs/diagnostics.md, differ, or when a code is passed nowhere.
 */
#ifndef CT_REPORT_DIAG_CODES_H
#define CT_REPORT_DIAG_CODES_H

#include <stdbool.h>

#include "coretriage/report.h"


/** "build-id-mismatch", …; NULL out of range. */
const char *ct_diag_code_to_string(enum ct_diag_code code);
/** The severity @p code has when nothing at its call site says otherwise. */
enum ct_severity ct_diag_code_severity(enum ct_diag_code code);
/** The code whose string is @p code; false (and *@p ret untouched) when there is none. */
bool ct_diag_code_from_string(const char *code, enum ct_diag_code *ret);

#endif
