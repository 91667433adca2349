// The verdict's vocabulary: classes, confidence, access and address kinds, each one table
// (include/coretriage/report.h). docs/classes.md, docs/json-report.md and the JSON schema are checked
// against these tables by tests/check_tables.py.
#include "coretriage/report.h"

#define P CT_CLASS_SCOPE_PROCESS
#define K CT_CLASS_SCOPE_KERNEL

static const struct {
	const char *name;
	unsigned scope;
} classes[CT_CLASS_NUM_] = {
	[CT_CLASS_UNKNOWN] = { "unknown", P | K },
	[CT_CLASS_DEADLOCK] = { "deadlock", P },
	[CT_CLASS_NO_SIGNAL] = { "no-signal", P },
	[CT_CLASS_EXTERNAL_SIGNAL] = { "external-signal", P },
	[CT_CLASS_SELF_SIGNAL] = { "self-signal", P },
	[CT_CLASS_ASSERTION_FAILURE] = { "assertion-failure", P },
	[CT_CLASS_STACK_BUFFER_OVERFLOW] = { "stack-buffer-overflow", P },
	[CT_CLASS_FORTIFY_FAILURE] = { "fortify-failure", P },
	[CT_CLASS_HEAP_CORRUPTION] = { "heap-corruption", P },
	[CT_CLASS_UNCAUGHT_EXCEPTION] = { "uncaught-exception", P },
	[CT_CLASS_PANIC] = { "panic", P },
	[CT_CLASS_ABORT] = { "abort", P },
	[CT_CLASS_NULL_CALL] = { "null-call", P },
	[CT_CLASS_EXEC_NON_EXECUTABLE] = { "exec-non-executable", P },
	[CT_CLASS_STACK_OVERFLOW] = { "stack-overflow", P },
	[CT_CLASS_STACK_CORRUPTION] = { "stack-corruption", P },
	[CT_CLASS_NULL_DEREF] = { "null-deref", P },
	[CT_CLASS_MISALIGNED_ACCESS] = { "misaligned-access", P },
	[CT_CLASS_USE_AFTER_FREE] = { "use-after-free", P },
	[CT_CLASS_WILD_POINTER] = { "wild-pointer", P },
	[CT_CLASS_WRITE_TO_READONLY] = { "write-to-readonly", P },
	[CT_CLASS_BUS_ERROR] = { "bus-error", P },
	[CT_CLASS_INTEGER_OVERFLOW] = { "integer-overflow", P },
	[CT_CLASS_DIVIDE_BY_ZERO] = { "divide-by-zero", P },
	[CT_CLASS_FLOATING_POINT_EXCEPTION] = { "floating-point-exception", P },
	[CT_CLASS_TRAP] = { "trap", P },
	[CT_CLASS_ILLEGAL_INSTRUCTION] = { "illegal-instruction", P },
	[CT_CLASS_KERNEL_STACK_OVERFLOW] = { "kernel-stack-overflow", K },
	[CT_CLASS_KERNEL_STACK_PROTECTOR] = { "kernel-stack-protector", K },
	[CT_CLASS_KERNEL_NULL_DEREF] = { "kernel-null-deref", K },
	[CT_CLASS_KERNEL_PAGE_FAULT] = { "kernel-page-fault", K },
	[CT_CLASS_KERNEL_DIVIDE_ERROR] = { "kernel-divide-error", K },
	[CT_CLASS_KERNEL_GENERAL_PROTECTION] = { "kernel-general-protection", K },
	[CT_CLASS_KERNEL_BUG] = { "kernel-bug", K },
	[CT_CLASS_KERNEL_WARNING_PANIC] = { "kernel-warning-panic", K },
	[CT_CLASS_KERNEL_SOFT_LOCKUP] = { "kernel-soft-lockup", K },
	[CT_CLASS_KERNEL_HARD_LOCKUP] = { "kernel-hard-lockup", K },
	[CT_CLASS_KERNEL_RCU_STALL] = { "kernel-rcu-stall", K },
	[CT_CLASS_KERNEL_HUNG_TASK] = { "kernel-hung-task", K },
	[CT_CLASS_KERNEL_OOM_PANIC] = { "kernel-oom-panic", K },
	[CT_CLASS_KERNEL_SYSRQ_CRASH] = { "kernel-sysrq-crash", K },
	[CT_CLASS_KERNEL_MACHINE_CHECK] = { "kernel-machine-check", K },
	[CT_CLASS_KERNEL_OOPS] = { "kernel-oops", K },
	[CT_CLASS_KERNEL_PANIC] = { "kernel-panic", K },
};

#undef P
#undef K

const char *ct_class_to_string(enum ct_class cls)
{
	return (unsigned)cls < CT_CLASS_NUM_ ? classes[cls].name : classes[CT_CLASS_UNKNOWN].name;
}

unsigned ct_class_scope(enum ct_class cls)
{
	return (unsigned)cls < CT_CLASS_NUM_ ? classes[cls].scope : 0;
}

static const char *const confidence_names[CT_CONFIDENCE_NUM_] = {
	[CT_CONFIDENCE_LOW] = "low",
	[CT_CONFIDENCE_MEDIUM] = "medium",
	[CT_CONFIDENCE_HIGH] = "high",
};

const char *ct_confidence_to_string(enum ct_confidence c)
{
	return (unsigned)c < CT_CONFIDENCE_NUM_ ? confidence_names[c] : confidence_names[CT_CONFIDENCE_LOW];
}

static const char *const access_names[CT_ACCESS_NUM_] = {
	[CT_ACCESS_NONE] = NULL,
	[CT_ACCESS_READ] = "read",
	[CT_ACCESS_WRITE] = "write",
	[CT_ACCESS_EXEC] = "exec",
};

const char *ct_access_to_string(enum ct_access access)
{
	return (unsigned)access < CT_ACCESS_NUM_ ? access_names[access] : NULL;
}

static const char *const address_kind_names[CT_ADDRESS_KIND_NUM_] = {
	[CT_ADDRESS_NULL] = "null",
	[CT_ADDRESS_NON_CANONICAL] = "non-canonical",
	[CT_ADDRESS_STACK_GUARD] = "stack-guard",
	[CT_ADDRESS_UNMAPPED] = "unmapped",
	[CT_ADDRESS_MAPPED] = "mapped",
	[CT_ADDRESS_NO_ACCESS] = "no-access",
	[CT_ADDRESS_MISALIGNED] = "misaligned",
};

const char *ct_address_kind_to_string(enum ct_address_kind kind)
{
	return (unsigned)kind < CT_ADDRESS_KIND_NUM_ ? address_kind_names[kind] : NULL;
}
