// Kernel crash classes (taxonomy.md, "Kernels"): ordered rules over the panic record; the first that
// matches wins, and every rule records the log lines it used as evidence.
#include <inttypes.h>
#include <string.h>

#include "kernel/vmcore.h"

// Below 64 KiB is "near null" (taxonomy.md): vm.mmap_min_addr is at most that.
#define NEAR_NULL 0x10000

static void set_class(struct ct_report *r, const char *id, const char *confidence)
{
	r->crash.class_id = ct_report_strdup(r, id);
	r->crash.confidence = ct_report_strdup(r, confidence);
}

void ct_kernel_classify(struct ct_report *r, const struct ct_panic_record *rec)
{
	const char *reason = rec->panic_reason;
	if (!rec->found) {
		set_class(r, "unknown", "low");
		r->crash.summary = ct_report_strdup(r, "no panic or Oops record in the kernel log");
		return;
	}
	if (rec->headline)
		ct_crash_add_evidence(r, "log: %s", rec->headline);
	if (rec->oops_line)
		ct_crash_add_evidence(r, "log: %s", rec->oops_line);
	for (size_t i = 0; i < 2; i++) {
		if (rec->pf_lines[i])
			ct_crash_add_evidence(r, "log: %s", rec->pf_lines[i]);
	}
	if (rec->rip_line)
		ct_crash_add_evidence(r, "log: %s", rec->rip_line);
	if (reason)
		ct_crash_add_evidence(r, "log: Kernel panic - not syncing: %s", reason);
	else if (rec->kdump_loaded)
		ct_crash_add_evidence(r, "no \"Kernel panic\" line: kdump was loaded, so the Oops went straight to crash_kexec");
	if (rec->has_address) {
		r->crash.has_address = true;
		r->crash.address = rec->address;
		r->crash.address_kind = ct_report_strdup(r, rec->address < NEAR_NULL ? "null" :
						       (rec->address >> 47 != 0 && rec->address >> 47 != 0x1ffff) ?
						       "non-canonical" : "unmapped");
	}
	// #PF error code bit 1 is "write" (arch/x86/include/asm/trap_pf.h X86_PF_WRITE), bit 4 "instruction fetch".
	if ((rec->null_deref || rec->page_fault) && rec->has_error_code)
		r->crash.access = ct_report_strdup(r, rec->error_code & 0x10 ? "exec" : rec->error_code & 2 ? "write" : "read");
	const char *where = rec->rip_line ? rec->rip_line + strlen("RIP: 0010:") : NULL;

	if (rec->null_deref || (rec->page_fault && rec->has_address && rec->address < NEAR_NULL)) {
		set_class(r, "kernel-null-deref", "high");
		r->crash.summary = ct_report_printf(r, "kernel NULL pointer %s at address 0x%" PRIx64 "%s%s",
						    r->crash.access ? r->crash.access : "access", rec->address,
						    where ? " in " : "", where ? where : "");
	} else if (rec->page_fault) {
		set_class(r, "kernel-page-fault", "high");
		r->crash.summary = ct_report_printf(r, "kernel page fault (%s) at address 0x%" PRIx64 "%s%s",
						    r->crash.access ? r->crash.access : "access", rec->address,
						    where ? " in " : "", where ? where : "");
	} else if (rec->gpf) {
		set_class(r, "kernel-general-protection", "high");
		r->crash.summary = ct_report_printf(r, "kernel general protection fault%s%s%s", rec->has_address ?
						    " (non-canonical address)" : "", where ? " in " : "", where ? where : "");
	} else if (rec->kernel_bug) {
		set_class(r, "kernel-bug", "high");
		r->crash.summary = ct_report_printf(r, "%s%s%s", rec->headline, where ? " in " : "", where ? where : "");
	} else if (rec->warn) {
		set_class(r, "kernel-warning-panic", "high");
		r->crash.summary = ct_report_printf(r, "WARN with panic_on_warn: %s", rec->headline);
	} else if (rec->stack_overflow) {
		set_class(r, "kernel-stack-overflow", "high");
		r->crash.summary = ct_report_printf(r, "kernel stack overflow: %s", rec->headline ? rec->headline : reason);
	} else if (rec->lockup_soft) {
		set_class(r, "kernel-soft-lockup", "high");
		r->crash.summary = ct_report_printf(r, "%s", rec->headline ? rec->headline : reason);
	} else if (rec->lockup_hard) {
		set_class(r, "kernel-hard-lockup", "high");
		r->crash.summary = ct_report_printf(r, "%s", rec->headline ? rec->headline : reason);
	} else if (rec->hung_task) {
		set_class(r, "kernel-hung-task", "high");
		r->crash.summary = ct_report_printf(r, "%s", rec->headline ? rec->headline : reason);
	} else if (rec->oom && reason) {
		set_class(r, "kernel-oom-panic", "high");
		r->crash.summary = ct_report_printf(r, "kernel panic on out of memory: %s", reason);
	} else if (rec->sysrq) {
		set_class(r, "kernel-sysrq-crash", "high");
		r->crash.summary = ct_report_strdup(r, "crash requested with sysrq-c (sysrq triggered crash)");
	} else if (rec->mce) {
		set_class(r, "kernel-machine-check", "high");
		r->crash.summary = ct_report_printf(r, "machine check: %s", rec->headline ? rec->headline : reason);
	} else if (reason) {
		set_class(r, "kernel-panic", rec->init_killed ? "high" : "medium");
		r->crash.summary = ct_report_printf(r, "Kernel panic - not syncing: %s", reason);
	} else {
		set_class(r, "unknown", "low");
		r->crash.summary = ct_report_printf(r, "%s", rec->headline ? rec->headline : "no panic record");
	}
	if (rec->init_killed)
		ct_crash_add_detail_string(r, "reason", "init exited");
	if (rec->has_error_code)
		ct_crash_add_detail_address(r, "error_code", rec->error_code);
	if (rec->has_cpu)
		ct_crash_add_detail_int(r, "cpu", rec->cpu);
	if (rec->has_pid)
		ct_crash_add_detail_int(r, "pid", rec->pid);
	if (rec->comm)
		ct_crash_add_detail_string(r, "comm", rec->comm);
}
