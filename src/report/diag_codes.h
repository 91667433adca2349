/**
 * @file diag_codes.h
 * Every diagnostic code (struct ct_diagnostic.code, JSON's diagnostics[].code) in one table with its
 * default severity: the stable identifiers of docs/diagnostics.md. Call sites pass the code's string
 * to ct_report_diag() with the severity their context gives (a log file named on the command line
 * is a warning, one found in a directory an info); code that has no such context, such as the
 * problems the core loader records, takes the table's. tests/check_tables.py fails when a call site
 * passes a code missing from the table or the table and docs/diagnostics.md differ.
 */
#ifndef CT_REPORT_DIAG_CODES_H
#define CT_REPORT_DIAG_CODES_H

#include <stdbool.h>

#include "coretriage/report.h"

/** The diagnostic codes, in the order of the table (sorted by their strings). */
enum ct_diag_code {
	CT_DIAG_ALIASED_MAPPINGS,
	CT_DIAG_ARCH_FROM_VMCOREINFO,
	CT_DIAG_ARCH_UNSUPPORTED,
	CT_DIAG_BUDGET_DEBUG,
	CT_DIAG_BUDGET_FRAMES,
	CT_DIAG_BUDGET_TEMP,
	CT_DIAG_BUDGET_TEXT,
	CT_DIAG_BUILD_ID_MISMATCH,
	CT_DIAG_COMPRESSED_CORE_BROKEN,
	CT_DIAG_CORRUPT_HEADER,
	CT_DIAG_CORRUPT_NOTE,
	CT_DIAG_CORRUPT_SEGMENT,
	CT_DIAG_CPU_CAP,
	CT_DIAG_DEBUG_INFO_UNUSABLE,
	CT_DIAG_DEBUGINFOD,
	CT_DIAG_EXECUTABLE_MISSING,
	CT_DIAG_FRAME_CAP,
	CT_DIAG_FRAME_FROM_LOG,
	CT_DIAG_INSN_UNDECODABLE,
	CT_DIAG_JOURNAL_UNREADABLE,
	CT_DIAG_KDUMP_BLOCK_SIZE,
	CT_DIAG_KDUMP_NO_UTSNAME,
	CT_DIAG_LIMIT,
	CT_DIAG_LINK_MAP,
	CT_DIAG_LOG_BEFORE_WINDOW,
	CT_DIAG_LOG_BINARY,
	CT_DIAG_LOG_COMPRESSED,
	CT_DIAG_LOG_CORRUPT,
	CT_DIAG_LOG_NO_BOOT_TIME,
	CT_DIAG_LOG_NO_TIMES,
	CT_DIAG_LOG_UNREADABLE,
	CT_DIAG_LOGS_CAP,
	CT_DIAG_MODULE_DEBUG_FILE_ONLY,
	CT_DIAG_MODULE_DEBUG_UNREADABLE,
	CT_DIAG_MODULE_FILE_MISSING,
	CT_DIAG_MODULE_NO_DWARF,
	CT_DIAG_MODULE_UNUSABLE,
	CT_DIAG_NO_ADDRESS_TRANSLATION,
	CT_DIAG_NO_BTF,
	CT_DIAG_NO_BUILD_ID,
	CT_DIAG_NO_COREDUMP_ENTRY,
	CT_DIAG_NO_CPU_NOTES,
	CT_DIAG_NO_CRASH_TIME,
	CT_DIAG_NO_FILE_LIST,
	CT_DIAG_NO_INIT_TASK,
	CT_DIAG_NO_KALLSYMS,
	CT_DIAG_NO_KERNEL_LOG,
	CT_DIAG_NO_KERNEL_MODULES,
	CT_DIAG_NO_MEMORY,
	CT_DIAG_NO_NOTES,
	CT_DIAG_NO_PANIC_CPU,
	CT_DIAG_NO_PANIC_RECORD,
	CT_DIAG_NO_RUNQUEUES,
	CT_DIAG_NO_TASK_LAYOUT,
	CT_DIAG_NO_TASKS,
	CT_DIAG_NO_VMCOREINFO,
	CT_DIAG_QEMU_DUMP,
	CT_DIAG_SNAPSHOT,
	CT_DIAG_STACK_NOT_DUMPED,
	CT_DIAG_SWAPPED_ARGUMENTS,
	CT_DIAG_TAIL_CALL_AMBIGUOUS,
	CT_DIAG_TAIL_CALL_UNKNOWN,
	CT_DIAG_TASK_CAP,
	CT_DIAG_TASK_LIST_CUT,
	CT_DIAG_TRUNCATED_CORE,
	CT_DIAG_TRUNCATED_DUMP,
	CT_DIAG_UNVERIFIED_FILE,
	CT_DIAG_UNWIND_FAILED,
	CT_DIAG_UNWIND_STEP_BUDGET,
	CT_DIAG_VALUE_CAP,
	CT_DIAG_VMLINUX_NO_DWARF,
	CT_DIAG_VMLINUX_UNREADABLE,
	CT_DIAG_NUM_
};

/** "build-id-mismatch", …; NULL out of range. */
const char *ct_diag_code_to_string(enum ct_diag_code code);
/** The severity @p code has when nothing at its call site says otherwise. */
enum ct_severity ct_diag_code_severity(enum ct_diag_code code);
/** The code whose string is @p code; false (and *@p ret untouched) when there is none. */
bool ct_diag_code_from_string(const char *code, enum ct_diag_code *ret);
/** The default severity of the code named @p code; a warning for a code missing from the table. */
enum ct_severity ct_diag_default_severity(const char *code);

#endif
