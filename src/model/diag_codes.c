// The table of diagnostic codes and their default severities (diag_codes.h, docs/diagnostics.md).
#include "model/diag_codes.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum ct_severity severity;
} codes[CT_DIAG_NUM_] = {
	[CT_DIAG_ALIASED_MAPPINGS] = { "aliased-mappings", CT_SEVERITY_WARNING },
	[CT_DIAG_ARCH_FROM_VMCOREINFO] = { "arch-from-vmcoreinfo", CT_SEVERITY_INFO },
	[CT_DIAG_ARCH_UNSUPPORTED] = { "arch-unsupported", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_COPY] = { "budget-copy", CT_SEVERITY_WARNING },
	[CT_DIAG_BLAME_NO_SYMBOLS] = { "blame-no-symbols", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_DEBUG] = { "budget-debug", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_ELEMENTS] = { "budget-elements", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_EXPR] = { "budget-expr", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_FILES] = { "budget-files", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_FRAMES] = { "budget-frames", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_NODES] = { "budget-nodes", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_TEMP] = { "budget-temp", CT_SEVERITY_WARNING },
	[CT_DIAG_BUDGET_TEXT] = { "budget-text", CT_SEVERITY_WARNING },
	[CT_DIAG_BUILD_ID_MISMATCH] = { "build-id-mismatch", CT_SEVERITY_WARNING },
	[CT_DIAG_COMPRESSED_CORE_BROKEN] = { "compressed-core-broken", CT_SEVERITY_WARNING },
	[CT_DIAG_CORRUPT_HEADER] = { "corrupt-header", CT_SEVERITY_WARNING },
	[CT_DIAG_CORRUPT_NOTE] = { "corrupt-note", CT_SEVERITY_WARNING },
	[CT_DIAG_CORRUPT_SEGMENT] = { "corrupt-segment", CT_SEVERITY_WARNING },
	[CT_DIAG_CPU_CAP] = { "cpu-cap", CT_SEVERITY_WARNING },
	[CT_DIAG_CRASH_TIME_OUT_OF_RANGE] = { "crash-time-out-of-range", CT_SEVERITY_WARNING },
	[CT_DIAG_DEBUG_INFO_UNUSABLE] = { "debug-info-unusable", CT_SEVERITY_WARNING },
	[CT_DIAG_DEBUGINFOD] = { "debuginfod", CT_SEVERITY_WARNING },
	[CT_DIAG_DWZ_FILE_MISSING] = { "dwz-file-missing", CT_SEVERITY_WARNING },
	[CT_DIAG_ENTRY_VALUE_CAP] = { "entry-value-cap", CT_SEVERITY_WARNING },
	[CT_DIAG_EXECUTABLE_MISSING] = { "executable-missing", CT_SEVERITY_WARNING },
	[CT_DIAG_FRAME_CAP] = { "frame-cap", CT_SEVERITY_WARNING },
	[CT_DIAG_FRAME_FROM_LOG] = { "frame-from-log", CT_SEVERITY_INFO },
	[CT_DIAG_INSN_UNDECODABLE] = { "insn-undecodable", CT_SEVERITY_INFO },
	[CT_DIAG_JOURNAL_UNREADABLE] = { "journal-unreadable", CT_SEVERITY_WARNING },
	[CT_DIAG_KDUMP_BLOCK_SIZE] = { "kdump-block-size", CT_SEVERITY_WARNING },
	[CT_DIAG_KDUMP_NO_UTSNAME] = { "kdump-no-utsname", CT_SEVERITY_INFO },
	[CT_DIAG_LIMIT] = { "limit", CT_SEVERITY_WARNING },
	[CT_DIAG_LINK_MAP] = { "link-map", CT_SEVERITY_INFO },
	[CT_DIAG_LOG_BEFORE_WINDOW] = { "log-before-window", CT_SEVERITY_INFO },
	[CT_DIAG_LOG_BINARY] = { "log-binary", CT_SEVERITY_WARNING },
	[CT_DIAG_LOG_COMPRESSED] = { "log-compressed", CT_SEVERITY_WARNING },
	[CT_DIAG_LOG_CORRUPT] = { "log-corrupt", CT_SEVERITY_WARNING },
	[CT_DIAG_LOG_NO_BOOT_TIME] = { "log-no-boot-time", CT_SEVERITY_WARNING },
	[CT_DIAG_LOG_NO_TIMES] = { "log-no-times", CT_SEVERITY_WARNING },
	[CT_DIAG_LOG_UNREADABLE] = { "log-unreadable", CT_SEVERITY_WARNING },
	[CT_DIAG_LOGS_CAP] = { "logs-cap", CT_SEVERITY_INFO },
	[CT_DIAG_MODULE_DEBUG_FILE_ONLY] = { "module-debug-file-only", CT_SEVERITY_INFO },
	[CT_DIAG_MODULE_DEBUG_UNREADABLE] = { "module-debug-unreadable", CT_SEVERITY_WARNING },
	[CT_DIAG_MODULE_FILE_MISSING] = { "module-file-missing", CT_SEVERITY_INFO },
	[CT_DIAG_MODULE_LIST_CUT] = { "module-list-cut", CT_SEVERITY_WARNING },
	[CT_DIAG_MODULE_NO_DWARF] = { "module-no-dwarf", CT_SEVERITY_INFO },
	[CT_DIAG_MODULE_NO_SYMBOLS] = { "module-no-symbols", CT_SEVERITY_INFO },
	[CT_DIAG_MODULE_UNUSABLE] = { "module-unusable", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_ADDRESS_TRANSLATION] = { "no-address-translation", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_BTF] = { "no-btf", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_BUILD_ID] = { "no-build-id", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_COREDUMP_ENTRY] = { "no-coredump-entry", CT_SEVERITY_INFO },
	[CT_DIAG_NO_CPU_NOTES] = { "no-cpu-notes", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_CRASH_TIME] = { "no-crash-time", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_FILE_LIST] = { "no-file-list", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_INIT_TASK] = { "no-init-task", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_KALLSYMS] = { "no-kallsyms", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_KERNEL_LOG] = { "no-kernel-log", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_KERNEL_MODULES] = { "no-kernel-modules", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_MEMORY] = { "no-memory", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_NOTES] = { "no-notes", CT_SEVERITY_ERROR },
	[CT_DIAG_NO_PANIC_CPU] = { "no-panic-cpu", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_PANIC_RECORD] = { "no-panic-record", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_RUNQUEUES] = { "no-runqueues", CT_SEVERITY_INFO },
	[CT_DIAG_NO_TASK_LAYOUT] = { "no-task-layout", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_TASKS] = { "no-tasks", CT_SEVERITY_WARNING },
	[CT_DIAG_NO_VMCOREINFO] = { "no-vmcoreinfo", CT_SEVERITY_WARNING },
	[CT_DIAG_QEMU_DUMP] = { "qemu-dump", CT_SEVERITY_INFO },
	[CT_DIAG_RUNTIME_NO_LAYOUT] = { "runtime-no-layout", CT_SEVERITY_WARNING },
	[CT_DIAG_RUNTIME_UNREADABLE] = { "runtime-unreadable", CT_SEVERITY_WARNING },
	[CT_DIAG_SNAPSHOT] = { "snapshot", CT_SEVERITY_INFO },
	[CT_DIAG_STACK_NOT_DUMPED] = { "stack-not-dumped", CT_SEVERITY_WARNING },
	[CT_DIAG_SWAPPED_ARGUMENTS] = { "swapped-arguments", CT_SEVERITY_INFO },
	[CT_DIAG_TAIL_CALL_AMBIGUOUS] = { "tail-call-ambiguous", CT_SEVERITY_INFO },
	[CT_DIAG_TAIL_CALL_UNKNOWN] = { "tail-call-unknown", CT_SEVERITY_INFO },
	[CT_DIAG_TASK_CAP] = { "task-cap", CT_SEVERITY_WARNING },
	[CT_DIAG_TASK_LIST_CUT] = { "task-list-cut", CT_SEVERITY_WARNING },
	[CT_DIAG_TASK_UNREADABLE] = { "task-unreadable", CT_SEVERITY_WARNING },
	[CT_DIAG_TRUNCATED_CORE] = { "truncated-core", CT_SEVERITY_WARNING },
	[CT_DIAG_TRUNCATED_DUMP] = { "truncated-dump", CT_SEVERITY_WARNING },
	[CT_DIAG_UNVERIFIED_FILE] = { "unverified-file", CT_SEVERITY_INFO },
	[CT_DIAG_UNWIND_FAILED] = { "unwind-failed", CT_SEVERITY_ERROR },
	[CT_DIAG_UNWIND_STEP_BUDGET] = { "unwind-step-budget", CT_SEVERITY_WARNING },
	[CT_DIAG_VALUE_CAP] = { "value-cap", CT_SEVERITY_WARNING },
	[CT_DIAG_VMLINUX_NO_DWARF] = { "vmlinux-no-dwarf", CT_SEVERITY_INFO },
	[CT_DIAG_VMLINUX_UNREADABLE] = { "vmlinux-unreadable", CT_SEVERITY_WARNING },
};

const char *ct_diag_code_to_string(enum ct_diag_code code)
{
	return (unsigned)code < CT_DIAG_NUM_ ? codes[code].name : NULL;
}

enum ct_severity ct_diag_code_severity(enum ct_diag_code code)
{
	return (unsigned)code < CT_DIAG_NUM_ ? codes[code].severity : CT_SEVERITY_WARNING;
}

static int compare_name(const void *key, const void *entry)
{
	return strcmp(key, *(const char *const *)entry);
}

bool ct_diag_code_from_string(const char *code, enum ct_diag_code *ret)
{
	if (!code)
		return false;
	// The table is sorted by name (test_diag_codes checks it): a binary search.
	const void *hit = bsearch(code, codes, CT_DIAG_NUM_, sizeof(codes[0]), compare_name);
	if (!hit)
		return false;
	*ret = (enum ct_diag_code)(((const char *)hit - (const char *)codes) / sizeof(codes[0]));
	return true;
}
