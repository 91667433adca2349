// Kernel crash classes (docs/classes.md, "Kernel dumps"): an ordered rule table over the kernel facts
// (struct ct_panic_record, what the log says), in the style of the process rules of
// src/triage/classify.c. The first rule whose `when` holds wins; its `fill` writes the verdict. Every
// verdict names the culprit (function and module), the task and the CPU, and records as evidence the
// log lines it used.
#include <inttypes.h>
#include <string.h>

#include "arch/arch.h"
#include "kernel/vmcore.h"
#include "triage/triage.h"

/* ---- helpers over the facts ---- */

static bool exception_is(const struct ct_panic_record *f, const char *name)
{
	return f->exception && strcmp(f->exception, name) == 0;
}

static bool exception_has(const struct ct_panic_record *f, const char *word)
{
	return f->exception && strstr(f->exception, word) != NULL;
}

static void set_class(struct ct_verdict *r, enum ct_class cls, enum ct_confidence confidence)
{
	r->crash.cls = cls;
	r->crash.confidence = confidence;
}

/* The culprit's module, "" for vmlinux (and when a copy failed). */
static const char *culprit_module(const struct ct_panic_record *f)
{
	return f->culprit_module ? f->culprit_module : "";
}

/* " in func+0x1/0x2 [mod]" (the culprit as the log printed it), or "". */
static const char *in_culprit(const struct ct_panic_record *f, struct ct_verdict *r)
{
	if (f->culprit_line)
		return ct_strpool_printf(r->strings, " in %s", f->culprit_line);
	if (f->culprit_function)
		return ct_strpool_printf(r->strings, " in %s%s%s%s", f->culprit_function, *culprit_module(f) ? " [" : "",
					culprit_module(f), *culprit_module(f) ? "]" : "");
	return "";
}

/* " (task insmod, pid 123, CPU 1)": whose context it was. */
static const char *task_cpu(const struct ct_panic_record *f, struct ct_verdict *r)
{
	if (!f->comm && !f->has_cpu)
		return "";
	return ct_strpool_printf(r->strings, " (%s%s%s%s%s)", f->comm ? "task " : "", f->comm ? f->comm : "",
				f->has_pid ? ct_strpool_printf(r->strings, ", pid %d", f->pid) : "",
				f->has_cpu && (f->comm || f->has_pid) ? ", " : "",
				f->has_cpu ? ct_strpool_printf(r->strings, "CPU %d", f->cpu) : "");
}

static const char *headline_or(const struct ct_panic_record *f, const char *other)
{
	return f->headline ? f->headline : other ? other : "no panic record";
}

/* ---- rules ---- */

static bool when_stack_overflow(const struct ct_panic_record *f)
{
	return f->stack_overflow || exception_has(f, "stack guard page") || exception_has(f, "stack overflow");
}

static void fill_stack_overflow(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_STACK_OVERFLOW, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "kernel stack overflow%s%s: %s", in_culprit(f, r), task_cpu(f, r),
					    headline_or(f, f->panic_reason));
}

static bool when_stack_protector(const struct ct_panic_record *f)
{
	return f->stack_protector;
}

static void fill_stack_protector(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_STACK_PROTECTOR, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "kernel stack canary smashed%s%s: the function's stack frame was overwritten",
					    in_culprit(f, r), task_cpu(f, r));
}

// The summary's verb: the access the error code told ("read", "write"), or plain "access".
static const char *access_word(const struct ct_verdict *r)
{
	return r->crash.access != CT_ACCESS_NONE ? ct_access_to_string(r->crash.access) : "access";
}

static bool when_null_deref(const struct ct_panic_record *f)
{
	return f->null_deref || (f->page_fault && f->has_address && f->address < CT_NEAR_NULL_LIMIT);
}

static void fill_null_deref(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_NULL_DEREF, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "kernel NULL pointer %s at address 0x%" PRIx64 "%s%s",
					    access_word(r), f->address, in_culprit(f, r),
					    task_cpu(f, r));
}

static bool when_page_fault(const struct ct_panic_record *f)
{
	return f->page_fault;
}

static void fill_page_fault(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_PAGE_FAULT, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "kernel page fault (%s) at address 0x%" PRIx64 "%s%s",
					    access_word(r), f->address, in_culprit(f, r),
					    task_cpu(f, r));
}

static bool when_divide(const struct ct_panic_record *f)
{
	return exception_is(f, "divide error");
}

static void fill_divide(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_DIVIDE_ERROR, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "kernel divide error (division by zero or quotient overflow)%s%s",
					    in_culprit(f, r), task_cpu(f, r));
}

static bool when_gpf(const struct ct_panic_record *f)
{
	return f->gpf || exception_is(f, "general protection fault");
}

static void fill_gpf(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_GENERAL_PROTECTION, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "kernel general protection fault%s%s%s",
					    f->has_address ? ct_strpool_printf(r->strings, " (non-canonical address 0x%" PRIx64 ")", f->address) : "",
					    in_culprit(f, r), task_cpu(f, r));
}

static bool when_bug(const struct ct_panic_record *f)
{
	return f->kernel_bug;
}

static void fill_bug(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_BUG, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "%s%s%s", f->headline, in_culprit(f, r), task_cpu(f, r));
}

static bool when_warn(const struct ct_panic_record *f)
{
	return f->warn;
}

static void fill_warn(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_WARNING_PANIC, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "WARN with panic_on_warn%s%s: %s", in_culprit(f, r), task_cpu(f, r), f->headline);
}

static bool when_soft_lockup(const struct ct_panic_record *f)
{
	return f->lockup_soft;
}

static void fill_soft_lockup(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_SOFT_LOCKUP, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "soft lockup%s%s: %s", in_culprit(f, r), task_cpu(f, r),
					    headline_or(f, f->panic_reason));
}

static bool when_hard_lockup(const struct ct_panic_record *f)
{
	return f->lockup_hard;
}

static void fill_hard_lockup(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_HARD_LOCKUP, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "hard lockup%s%s: %s", in_culprit(f, r), task_cpu(f, r),
					    headline_or(f, f->panic_reason));
}

static bool when_rcu_stall(const struct ct_panic_record *f)
{
	return f->rcu_stall;
}

static void fill_rcu_stall(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_RCU_STALL, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "RCU stall%s%s: %s", in_culprit(f, r), task_cpu(f, r),
					    headline_or(f, f->panic_reason));
}

static bool when_hung_task(const struct ct_panic_record *f)
{
	return f->hung_task;
}

static void fill_hung_task(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_HUNG_TASK, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "hung task%s%s%s waiting%s: %s", f->blocked_comm ? " " : "",
					    f->blocked_comm ? f->blocked_comm : "",
					    f->has_blocked_pid ? ct_strpool_printf(r->strings, " (pid %d)", f->blocked_pid) : "",
					    in_culprit(f, r), headline_or(f, f->panic_reason));
}

static bool when_oom(const struct ct_panic_record *f)
{
	return f->oom && f->panic_reason;
}

static void fill_oom(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_OOM_PANIC, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "kernel panic on out of memory: %s", f->panic_reason);
}

static bool when_sysrq(const struct ct_panic_record *f)
{
	return f->sysrq;
}

static void fill_sysrq(const struct ct_panic_record *f, struct ct_verdict *r)
{
	(void)f;
	set_class(r, CT_CLASS_KERNEL_SYSRQ_CRASH, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_intern(r->strings, "crash requested with sysrq-c (sysrq triggered crash)");
}

static bool when_mce(const struct ct_panic_record *f)
{
	return f->mce;
}

static void fill_mce(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_MACHINE_CHECK, CT_CONFIDENCE_HIGH);
	r->crash.summary = ct_strpool_printf(r->strings, "machine check: %s", headline_or(f, f->panic_reason));
}

/* Any other die(): "invalid opcode", "int3", "stack segment", "double fault", "alignment check", … */
static bool when_oops(const struct ct_panic_record *f)
{
	return f->has_die;
}

static void fill_oops(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_OOPS, CT_CONFIDENCE_MEDIUM);
	r->crash.subclass = f->exception;
	r->crash.summary = ct_strpool_printf(r->strings, "kernel exception \"%s\" (error code 0x%" PRIx64 ")%s%s", f->exception,
					    f->die.error_code, in_culprit(f, r), task_cpu(f, r));
}

static bool when_panic(const struct ct_panic_record *f)
{
	return f->panic_reason != NULL;
}

static void fill_panic(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_KERNEL_PANIC, f->init_killed ? CT_CONFIDENCE_HIGH : CT_CONFIDENCE_MEDIUM);
	r->crash.summary = ct_strpool_printf(r->strings, "Kernel panic - not syncing: %s%s", f->panic_reason, task_cpu(f, r));
}

static bool when_unknown(const struct ct_panic_record *f)
{
	(void)f;
	return true;
}

static void fill_unknown(const struct ct_panic_record *f, struct ct_verdict *r)
{
	set_class(r, CT_CLASS_UNKNOWN, CT_CONFIDENCE_LOW);
	r->crash.summary = ct_strpool_printf(r->strings, "%s", f->found ? headline_or(f, NULL) : "no panic or Oops record in the kernel log");
}

struct krule {
	enum ct_class cls; /**< the class the rule decides */
	bool (*when)(const struct ct_panic_record *f);
	void (*fill)(const struct ct_panic_record *f, struct ct_verdict *r);
};

// Order matters: the first rule that matches wins (docs/classes.md). The stack rules come first: a guard
// page hit is also a page fault, a smashed canary also a panic.
static const struct krule rules[] = {
	{ CT_CLASS_KERNEL_STACK_OVERFLOW, when_stack_overflow, fill_stack_overflow },
	{ CT_CLASS_KERNEL_STACK_PROTECTOR, when_stack_protector, fill_stack_protector },
	{ CT_CLASS_KERNEL_NULL_DEREF, when_null_deref, fill_null_deref },
	{ CT_CLASS_KERNEL_PAGE_FAULT, when_page_fault, fill_page_fault },
	{ CT_CLASS_KERNEL_DIVIDE_ERROR, when_divide, fill_divide },
	{ CT_CLASS_KERNEL_GENERAL_PROTECTION, when_gpf, fill_gpf },
	{ CT_CLASS_KERNEL_BUG, when_bug, fill_bug },
	{ CT_CLASS_KERNEL_WARNING_PANIC, when_warn, fill_warn },
	{ CT_CLASS_KERNEL_SOFT_LOCKUP, when_soft_lockup, fill_soft_lockup },
	{ CT_CLASS_KERNEL_HARD_LOCKUP, when_hard_lockup, fill_hard_lockup },
	{ CT_CLASS_KERNEL_RCU_STALL, when_rcu_stall, fill_rcu_stall },
	{ CT_CLASS_KERNEL_HUNG_TASK, when_hung_task, fill_hung_task },
	{ CT_CLASS_KERNEL_OOM_PANIC, when_oom, fill_oom },
	{ CT_CLASS_KERNEL_SYSRQ_CRASH, when_sysrq, fill_sysrq },
	{ CT_CLASS_KERNEL_MACHINE_CHECK, when_mce, fill_mce },
	{ CT_CLASS_KERNEL_OOPS, when_oops, fill_oops },
	{ CT_CLASS_KERNEL_PANIC, when_panic, fill_panic },
	{ CT_CLASS_UNKNOWN, when_unknown, fill_unknown },
};
#define NUM_RULES (sizeof(rules) / sizeof(rules[0]))

static void add_evidence(struct ct_verdict *r, const struct ct_panic_record *f)
{
	if (f->headline)
		ct_crash_add_evidence(&r->crash, r->strings, "log: %s", f->headline);
	if (f->oops_line && (!f->headline || strcmp(f->oops_line, f->headline) != 0))
		ct_crash_add_evidence(&r->crash, r->strings, "log: %s", f->oops_line);
	for (size_t i = 0; i < 2; i++) {
		if (f->pf_lines[i])
			ct_crash_add_evidence(&r->crash, r->strings, "log: %s", f->pf_lines[i]);
	}
	if (f->rip_line)
		ct_crash_add_evidence(&r->crash, r->strings, "log: %s", f->rip_line);
	if (f->panic_reason)
		ct_crash_add_evidence(&r->crash, r->strings, "log: Kernel panic - not syncing: %s", f->panic_reason);
	else if (f->kdump_loaded)
		ct_crash_add_evidence(&r->crash, r->strings, "no \"Kernel panic\" line: kdump was loaded, so the Oops went straight to crash_kexec");
	if (f->culprit_function)
		ct_crash_add_evidence(&r->crash, r->strings, "culprit: %s%s%s%s, from the %s", f->culprit_function, *culprit_module(f) ? " [" : "",
				      culprit_module(f), *culprit_module(f) ? "]" : "", f->culprit_source);
}

static void set_address(struct ct_verdict *r, const struct ct_arch_info *arch, const struct ct_panic_record *f)
{
	if (f->has_address) {
		r->crash.has_address = true;
		r->crash.address = f->address;
		r->crash.has_address_kind = true;
		r->crash.address_kind = f->address < CT_NEAR_NULL_LIMIT ? CT_ADDRESS_NULL
					: arch && !ct_arch_is_canonical(arch, f->address) ? CT_ADDRESS_NON_CANONICAL
											   : CT_ADDRESS_UNMAPPED;
	}
	// The fault's error code (x86 #PF error code, arm64 ESR) says how memory was accessed.
	enum ct_access access = arch && arch->kernel_fault_access && (f->null_deref || f->page_fault) && f->has_error_code
					? arch->kernel_fault_access(f->error_code)
					: CT_ACCESS_NONE;
	if (access != CT_ACCESS_NONE)
		r->crash.access = access;
}

static void add_details(struct ct_verdict *r, const struct ct_panic_record *f)
{
	if (f->init_killed)
		ct_crash_add_detail_string(&r->crash, r->strings, "reason", "init exited");
	if (f->has_error_code)
		ct_crash_add_detail_address(&r->crash, r->strings, "error_code", f->error_code);
	if (f->has_cpu)
		ct_crash_add_detail_int(&r->crash, r->strings, "cpu", f->cpu);
	if (f->has_pid)
		ct_crash_add_detail_int(&r->crash, r->strings, "pid", f->pid);
	if (f->comm)
		ct_crash_add_detail_string(&r->crash, r->strings, "comm", f->comm);
	if (f->exception)
		ct_crash_add_detail_string(&r->crash, r->strings, "exception", f->exception);
	if (f->has_die)
		ct_crash_add_detail_int(&r->crash, r->strings, "die_count", f->die.count);
	if (f->culprit_function) {
		ct_crash_add_detail_string(&r->crash, r->strings, "culprit_function", f->culprit_function);
		ct_crash_add_detail_string(&r->crash, r->strings, "culprit_module", *culprit_module(f) ? culprit_module(f) : "vmlinux");
	}
	if (f->blocked_comm)
		ct_crash_add_detail_string(&r->crash, r->strings, "blocked_comm", f->blocked_comm);
	if (f->has_blocked_pid)
		ct_crash_add_detail_int(&r->crash, r->strings, "blocked_pid", f->blocked_pid);
}

const char *ct_kernel_rule_name(size_t index)
{
	return index < NUM_RULES ? ct_class_to_string(rules[index].cls) : NULL;
}

void ct_kernel_classify(struct ct_verdict *r, const struct ct_arch_info *arch, const struct ct_panic_record *rec)
{
	if (rec->found) {
		add_evidence(r, rec);
		set_address(r, arch, rec);
	}
	size_t i = 0;
	while (rec->found && i < NUM_RULES - 1 && !rules[i].when(rec))
		i++;
	if (!rec->found)
		i = NUM_RULES - 1;
	rules[i].fill(rec, r);
	add_details(r, rec);
}
