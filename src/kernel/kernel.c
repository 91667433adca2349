// The kernel kind's stages (ct_kernel_kind) of the one pipeline: dump → VMCOREINFO → kernel log → panic record → class;
// kallsyms → per-CPU registers and stacks; optional vmlinux (build-id check, DWARF lines).
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <libkdumpfile/kdumpfile.h>

#include "arch/arch.h"
#include "dump/dump.h"
#include "kernel/kernel.h"
#include "kernel/orc.h"
#include "kernel/vmcore.h"
#include "lazy/lazy.h"
#include "report/budget_diag.h"
#include "triage/triage.h"
#include "unwind/unwind.h"
#include "util/budget.h"

static void fill_kernel_facts(struct ct_vmcore *vm, struct ct_report *r)
{
	struct ct_kernel *k = &r->kernel;
	const struct ct_vmcoreinfo *vi = &vm->vmcoreinfo;
	k->present = true;
	k->release = ct_report_strdup(r, ct_vmcoreinfo_get(vi, "OSRELEASE"));
	k->build_id = ct_report_strdup(r, ct_vmcoreinfo_get(vi, "BUILD-ID"));
	const char *arch = vm->arch ? vm->arch->name : NULL;
	if (arch || (kdump_get_string_attr(vm->ctx, KDUMP_ATTR_ARCH_NAME, &arch) == KDUMP_OK && arch)) {
		k->machine = ct_report_strdup(r, arch);
		r->input.arch = k->machine;
	}
	kdump_num_t ptr_size;
	if (kdump_get_number_attr(vm->ctx, KDUMP_ATTR_PTR_SIZE, &ptr_size) == KDUMP_OK && ptr_size <= 8)
		r->input.pointer_size = (unsigned)ptr_size;
	const char *ps = ct_vmcoreinfo_get(vi, "PAGESIZE");
	if (ps) {
		k->has_page_size = true;
		k->page_size = strtoull(ps, NULL, 10);
	}
	// CRASHTIME is written by the crashing kernel (crash_save_vmcoreinfo); QEMU dumps lack it.
	int64_t crash_time;
	if (ct_vmcoreinfo_crash_time(vi, &crash_time)) {
		k->has_crash_time = true;
		k->crash_time = crash_time;
	}
	k->has_kaslr_offset = vm->has_kaslr_offset;
	k->kaslr_offset = vm->kaslr_offset;
	int64_t phys_base;
	if (ct_vmcoreinfo_number(vi, "phys_base", &phys_base))
		ct_report_add_environment(r, "phys_base", ct_report_printf(r, "%" PRId64, phys_base));
}

static void fill_panic_facts(struct ct_report *r, struct ct_panic_record *rec)
{
	struct ct_kernel *k = &r->kernel;
	if (rec->panic_reason)
		k->panic_message = ct_report_printf(r, "Kernel panic - not syncing: %s", rec->panic_reason);
	else if (rec->headline)
		k->panic_message = rec->headline;
	k->taint = rec->taint;
	k->has_pid = rec->has_pid;
	k->pid = rec->pid;
	k->comm = rec->comm;
	k->has_uptime = rec->has_uptime;
	k->uptime = rec->uptime;
	// Ownership of the arrays moves to the report.
	k->log_call_trace = rec->call_trace;
	k->num_log_call_trace = rec->num_call_trace;
	rec->call_trace = NULL;
	rec->num_call_trace = 0;
	k->modules_linked_in = rec->modules;
	k->num_modules_linked_in = rec->num_modules;
	rec->modules = NULL;
	rec->num_modules = 0;
}

/* Functions only a CPU that is crashing or panicking runs: used when the log does not name the CPU. */
static bool is_panic_function(const char *name)
{
	static const char *const names[] = { "panic", "__crash_kexec", "crash_kexec", "oops_end", "die", "__die",
					     "page_fault_oops", "vpanic", "nmi_panic", "do_exit", "make_task_dead" };
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i]) == 0)
			return true;
	}
	return false;
}

static int find_panic_cpu(struct ct_vmcore *vm, const struct ct_panic_record *rec, struct ct_report *r,
			  const char **how)
{
	// 1. The log's "CPU: N PID: …" line of the panic record names it.
	if (rec->has_cpu && rec->cpu >= 0 && (size_t)rec->cpu < vm->num_cpus) {
		*how = "the log's \"CPU: N PID:\" line";
		return rec->cpu;
	}
	// 2. kdump: pr_pid is the task pid, so the log's PID picks the CPU. Not for QEMU (vCPU + 1 there).
	if (!vm->qemu && rec->has_pid && rec->pid > 0) {
		for (size_t i = 0; i < vm->num_cpus; i++) {
			if (vm->cpus[i].has_pid && vm->cpus[i].pid == rec->pid) {
				*how = "NT_PRSTATUS pr_pid equal to the log's PID";
				return (int)i;
			}
		}
	}
	// 3. The CPU whose stack runs panic or crash code.
	for (size_t t = 0; t < r->num_threads; t++) {
		const struct ct_thread *th = &r->threads[t];
		for (size_t i = 0; i < th->num_frames; i++) {
			if (is_panic_function(th->frames[i].function)) {
				*how = "its stack runs panic/crash code";
				return th->tid;
			}
		}
	}
	return -1;
}

static void add_registers(struct ct_report *r, struct ct_thread *th, const struct ct_arch_info *arch,
			  const struct ct_core_thread *c)
{
	size_t n = c->num_values;
	th->registers = calloc(n, sizeof(*th->registers));
	if (!th->registers)
		return;
	for (size_t i = 0; i < n; i++) {
		th->registers[i].name = ct_report_strdup(r, arch->regs[i].name);
		th->registers[i].value = c->values[i];
	}
	th->num_registers = n;
}

/*
 * How well the stack found in the dump agrees with the kernel's own Call Trace: every reliable
 * (non-"?") function of the log should be among the scanned frames. Evidence either way.
 */
static void compare_with_log(struct ct_report *r, const struct ct_thread *th, const char *whose)
{
	const struct ct_kernel *k = &r->kernel;
	size_t reliable = 0, found = 0;
	const char *missing = NULL;
	for (size_t i = 0; i < k->num_log_call_trace; i++) {
		struct ct_ksym_text t;
		const char *line = k->log_call_trace[i];
		if (!ct_ksym_text_parse(line, strlen(line), &t) || t.unreliable)
			continue;
		reliable++;
		bool hit = false;
		for (size_t j = 0; j < th->num_frames && !hit; j++)
			hit = th->frames[j].function && strcmp(th->frames[j].function, t.function) == 0;
		if (hit)
			found++;
		else if (!missing)
			missing = k->log_call_trace[i];
	}
	if (reliable == 0)
		return;
	ct_crash_add_evidence(&r->crash, &r->strings, "stack of %s from the dump has %zu of the %zu reliable functions of the log's Call Trace%s%s",
			      whose, found, reliable, missing ? "; first missing: " : "", missing ? missing : "");
}

/*
 * Frames in module text have no kallsyms name in the core tables, and without the dump's BTF no module
 * symbols either: frame 0 takes the log's RIP/pc line, later ones the module entries of the log's Call
 * Trace in order (the kernel named them from the same stack).
 */
static void name_module_frames_from_log(struct ct_report *r, const struct ct_arch_info *arch, struct ct_thread *th,
					const struct ct_panic_record *rec)
{
	const struct ct_kernel *k = &r->kernel;
	size_t next = 0;
	for (size_t i = 0; i < th->num_frames; i++) {
		struct ct_frame *f = &th->frames[i];
		if (f->function || (i > 0 && !ct_arch_in_kernel_modules(arch, f->pc)))
			continue;
		struct ct_ksym_text t;
		const char *text = NULL;
		if (i == 0 && rec->pc_symbol) {
			text = rec->pc_symbol;
		} else {
			while (next < k->num_log_call_trace && !text) {
				const char *line = k->log_call_trace[next++];
				if (ct_ksym_text_parse(line, strlen(line), &t) && *t.module)
					text = line;
			}
		}
		if (!text || !ct_ksym_text_parse(text, strlen(text), &t))
			continue;
		f->function = ct_report_strdup(r, t.function);
		if (t.has_offset)
			f->offset = t.offset;
		if (*t.module)
			f->module = ct_report_strdup(r, t.module);
		ct_report_diag(r, CT_SEVERITY_INFO, th->tid, CT_DIAG_FRAME_FROM_LOG,
			       "frame %zu (0x%016" PRIx64 ") is outside core kernel text; named from the log's %s", i, f->pc,
			       i == 0 ? rec->pc_source : "Call Trace");
	}
}

/* The culprit's frame on the panic CPU's stack, when it is there, is the blamed frame. */
static void blame_culprit(struct ct_report *r, const struct ct_thread *th, const struct ct_panic_record *rec)
{
	if (!rec->culprit_function)
		return;
	for (size_t i = 0; i < th->num_frames; i++) {
		if (th->frames[i].function && strcmp(th->frames[i].function, rec->culprit_function) == 0) {
			r->crash.blame_frame = (long)i;
			ct_crash_add_evidence(&r->crash, &r->strings, "blamed frame #%zu of CPU %d: %s, the culprit", i, th->tid, rec->culprit_function);
			return;
		}
	}
}

/** The kernel pipeline's own state for one vmcore, private to this file (dump/kind.h's session). */
struct kernel_session {
	const struct ct_options *opts;
	struct ct_budget *budget;
	struct ct_report *report;
	struct ct_vmcore vm;
	/** The vmcore as the pipeline sees it (its CPUs, capped by --max-threads; none without an
	 * architecture table). */
	struct ct_dump dump;
	struct ct_panic_record rec;
	bool have_vi;
	struct ct_kallsyms ks;
	/** The dump's BTF gives the layouts of struct module and task_struct: module symbols and ORC
	 * tables, and the task list. Without it, today's report (module frames scanned, no tasks). */
	struct ct_kbtf *btf;
	struct ct_kmodules kmods;
	struct ct_orc orc;
	bool ok;
};

static struct ct_error *kernel_open(const struct ct_dump_env *env, void **session, const struct ct_dump **dump)
{
	// libkdumpfile opens the path itself, and is loaded for the first kernel dump (src/lazy/kdumpfile.c).
	ct_mapped_file_close(env->file);
	struct ct_error *lib_err = ct_lazy_kdumpfile_require();
	if (lib_err)
		return ct_error_wrap(lib_err, "%s", env->opts->core_path);
	struct kernel_session *s = calloc(1, sizeof(*s));
	if (!s)
		return &ct_enomem;
	s->opts = env->opts;
	s->budget = env->budget;
	s->report = env->report;
	struct ct_report *report = s->report;
	report->input.kind = ct_report_strdup(report, env->format->name);
	struct ct_error *err = ct_vmcore_open(env->opts->core_path, env->format, report, &s->vm);
	if (err) {
		free(s);
		return ct_error_wrap(err, "%s", env->opts->core_path);
	}
	*session = s;
	ct_dump_from_vmcore(&s->vm, env->format, env->opts->max_threads, &s->dump);
	*dump = &s->dump;
	fill_kernel_facts(&s->vm, report);
	if (env->opts->executable)
		return ct_vmlinux_check(&s->vm, env->opts->executable, report);
	return NULL;
}

// The kernel log and the panic record in it.
static struct ct_error *kernel_facts(void *session)
{
	struct kernel_session *s = session;
	struct ct_report *report = s->report;
	char *log = NULL;
	size_t log_len = 0;
	// Without VMCOREINFO there is no map to the log or the symbols: one diagnostic says so already.
	s->have_vi = s->vm.vmcoreinfo.num_entries > 0;
	struct ct_error *err = s->have_vi ? ct_printk_read(&s->vm, &log, &log_len)
					  : ct_error_create(CT_ERROR_NOT_FOUND, "no VMCOREINFO");
	if (err && !s->have_vi) {
		ct_error_destroy(err);
	} else if (err) {
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_KERNEL_LOG, "%s", ct_error_message(err));
		ct_error_destroy(err);
	} else {
		report->kernel.log = ct_strpool_intern_len(&report->strings, log, log_len);
		ct_panic_parse(report, log, &s->rec);
		free(log);
		if (!s->rec.found)
			ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_PANIC_RECORD,
				       "the kernel log has no panic or Oops record");
	}
	return NULL;
}

// The kernel's modules: kallsyms, the dump's BTF, the module list, the ORC tables.
static struct ct_error *kernel_modules(void *session)
{
	struct kernel_session *s = session;
	struct ct_report *report = s->report;
	struct ct_kallsyms *ks = &s->ks;
	struct ct_error *err = s->have_vi ? ct_kallsyms_load(&s->vm, ks) : NULL;
	if (err) {
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_KALLSYMS, "kernel symbols: %s", ct_error_message(err));
		ct_error_destroy(err);
	}
	// The readers of lists and BTF spend the run's work budget (budget.h: nodes), so that a hostile
	// dump ends the reader that meets it, not the report.
	if (ks->num_syms) {
		err = ct_kbtf_load(&s->vm, ks, s->budget, &s->btf);
		if (!err)
			err = ct_kmodules_load(&s->vm, ks, s->btf, s->budget, &s->kmods);
		if (!err && s->kmods.loop_node)
			ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_MODULE_LIST_CUT,
				       "kernel modules: the module list loops back to node 0x%016" PRIx64
				       " after %zu modules without returning to its head; the modules met are used",
				       s->kmods.loop_node, s->kmods.num);
		else if (!err && s->kmods.cut)
			ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_MODULE_LIST_CUT,
				       "kernel modules: the module list was cut after %zu modules (the work budget's nodes, "
				       "or more than 4096 modules); the modules met are used", s->kmods.num);
		if (err) {
			ct_report_diag(report, CT_SEVERITY_WARNING, 0, s->btf ? CT_DIAG_NO_KERNEL_MODULES : CT_DIAG_NO_BTF,
				       "%s%s", s->btf ? "kernel modules: " : "BTF: ", ct_error_message(err));
			ct_error_destroy(err);
		} else {
			ks->modules = &s->kmods;
		}
	}
	if (ks->num_syms && ct_orc_init(&s->vm, ks, &s->orc))
		ks->orc = &s->orc;
	ct_panic_culprit_from_trace(report, ks, &s->rec);
	fill_panic_facts(report, &s->rec);
	// Registers need the dump's arch table; stacks also its kernel unwinder (kstack.c).
	bool regs = s->vm.arch != NULL;
	if ((!regs || s->vm.arch->kernel_unwind == CT_KUNWIND_NONE) && s->vm.num_cpus)
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_ARCH_UNSUPPORTED,
			       "%s of %s vmcores are not supported yet", regs ? "stacks" : "registers and stacks",
			       report->input.arch ? report->input.arch : "unknown-architecture");
	return NULL;
}

// CPU @p i: its registers and its stack, named by kallsyms.
static bool kernel_unwind(void *session, size_t i)
{
	struct kernel_session *s = session;
	const struct ct_core_thread *cpu = &s->dump.threads[i];
	struct ct_thread *th = ct_report_add_thread(s->report);
	if (!th)
		return false;
	th->tid = cpu->tid;
	if (!cpu->has_regs) {
		th->stop_reason = ct_report_strdup(s->report, ct_stop_reason_to_string(CT_STOP_NO_CPU_REGISTERS));
		return true;
	}
	add_registers(s->report, th, s->vm.arch, cpu);
	ct_kstack_unwind(&s->vm, &s->ks, cpu, s->report, th, s->opts->max_frames);
	return true;
}

// The kernel rules over the panic record, then what the stacks add: the panic CPU, the culprit's
// frame, the log's Call Trace against the stack found in the dump.
static void kernel_triage(void *session)
{
	struct kernel_session *s = session;
	struct ct_report *report = s->report;
	struct ct_verdict verdict;
	ct_verdict_init(&verdict, &report->strings);
	ct_kernel_classify(&verdict, s->vm.arch, &s->rec);
	ct_verdict_move_to_report(&verdict, report);
	const char *how = NULL;
	int panic_cpu = find_panic_cpu(&s->vm, &s->rec, report, &how);
	if (panic_cpu >= 0) {
		report->kernel.has_panic_cpu = true;
		report->kernel.panic_cpu = panic_cpu;
		report->has_crashing_thread = true;
		report->crashing_thread = panic_cpu;
		ct_crash_add_evidence(&report->crash, &report->strings, "panic CPU %d, found by %s", panic_cpu, how);
		// Crashing thread first (report.h order), the others stay by CPU number.
		for (size_t t = 0; t < report->num_threads; t++) {
			if (report->threads[t].tid != panic_cpu)
				continue;
			report->threads[t].crashed = true;
			struct ct_thread tmp = report->threads[t];
			memmove(&report->threads[1], &report->threads[0], t * sizeof(tmp));
			report->threads[0] = tmp;
			name_module_frames_from_log(report, s->vm.arch, &report->threads[0], &s->rec);
			// A hung-task report's Call Trace is the blocked task's, compared with its task stack below.
			if (!s->rec.hung_task)
				compare_with_log(report, &report->threads[0],
						 ct_report_printf(report, "CPU %d", report->threads[0].tid));
			blame_culprit(report, &report->threads[0], &s->rec);
			break;
		}
	} else if (s->vm.num_cpus) {
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_PANIC_CPU, "could not tell which CPU panicked");
	}
	if (s->vm.qemu)
		ct_report_diag(report, CT_SEVERITY_INFO, 0, CT_DIAG_QEMU_DUMP,
			       "written by QEMU dump-guest-memory: pr_pid is the vCPU number + 1, and the log may stop before "
			       "the last panic lines");
}

static void kernel_signature(void *session)
{
	struct kernel_session *s = session;
	ct_kernel_signature(s->report, &s->rec);
}

// The sleeping tasks (the hung-task report's blocked one always), then the user's vmlinux: DWARF
// lines and inline frames for every kernel frame.
static void kernel_late_stacks(void *session)
{
	struct kernel_session *s = session;
	struct ct_report *report = s->report;
	const struct ct_panic_record *rec = &s->rec;
	// tasks.c reads a sleeping task's saved context as x86-64's struct inactive_task_frame.
	bool tasks = s->vm.arch == &ct_arch_x86_64;
	if (s->btf && tasks)
		ct_ktasks_collect(&s->vm, &s->ks, s->btf, s->budget, s->opts->kernel_tasks,
				  rec->hung_task && rec->has_blocked_pid ? rec->blocked_pid : -1, s->opts->max_frames, report);
	else if (s->opts->kernel_tasks)
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_TASKS, "--tasks: the task list needs the dump's BTF%s",
			       tasks ? "" : " and an x86-64 dump");
	bool blocked_listed = false;
	for (size_t i = 0; rec->hung_task && rec->has_blocked_pid && i < report->kernel.num_tasks; i++) {
		const struct ct_kernel_task *t = &report->kernel.tasks[i];
		blocked_listed = blocked_listed || t->pid == rec->blocked_pid;
		if (t->pid == rec->blocked_pid && t->stack.num_frames)
			compare_with_log(report, &t->stack, ct_report_printf(report, "the blocked task %d (%s)", t->pid, t->comm));
	}
	// The hung-task report's blocked task is always listed when the dump holds it; say so when not.
	if (s->btf && tasks && rec->hung_task && rec->has_blocked_pid && !blocked_listed)
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_UNREADABLE,
			       "the blocked task %d (%s) of the hung-task report is not among the tasks read from the dump",
			       rec->blocked_pid, rec->blocked_comm ? rec->blocked_comm : "?");
	if (s->opts->executable)
		ct_vmlinux_symbolize(&s->vm, s->opts, report);
	s->ok = true;
}

static void kernel_finish(void *session, bool ok)
{
	struct kernel_session *s = session;
	if (!ok || !s->ok)
		return;
	uint32_t num_types;
	const char *stopped = ct_kbtf_budget_stop(s->btf, &num_types);
	if (stopped) {
		ct_report_diag(s->report, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_NODES,
			       "BTF member search: the work budget of %" PRIu64 " nodes (list nodes and BTF members, "
			       "halved by --safe) ran out looking up %s in the dump's .BTF (%" PRIu32 " types); "
			       "that member and later ones are unknown",
			       s->budget->limit[CT_BUDGET_NODES], stopped, num_types);
		s->budget->reported[CT_BUDGET_NODES] = true;
	}
	ct_budget_report(s->budget, s->report);
}

static void kernel_close(void *session)
{
	struct kernel_session *s = session;
	ct_kmodules_deinit(&s->kmods);
	ct_kbtf_free(s->btf);
	ct_kallsyms_deinit(&s->ks);
	ct_panic_record_deinit(&s->rec);
	ct_dump_close(&s->dump);
	free(s);
}

const struct ct_dump_kind ct_kernel_kind = {
	.name = "kernel",
	.open = kernel_open,
	.facts = kernel_facts,
	.modules = kernel_modules,
	.unwind = kernel_unwind,
	.triage = kernel_triage,
	.signature = kernel_signature,
	.late_stacks = kernel_late_stacks,
	.finish = kernel_finish,
	.close = kernel_close,
};
