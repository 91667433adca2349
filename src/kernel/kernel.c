// The kernel kind's stages (ct_kernel_kind) of the one pipeline: dump → VMCOREINFO → kernel log → panic record → class;
// kallsyms → per-CPU registers and stacks; optional vmlinux (build-id check, DWARF lines).
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <libkdumpfile/kdumpfile.h>

#include "arch/arch.h"
#include "dump/dump.h"
#include "kernel/kernel.h"
#include "kernel/kindex.h"
#include "kernel/orc.h"
#include "kernel/vmcore.h"
#include "lazy/lazy.h"
#include "model/budget_diag.h"
#include "model/thread_registers.h"
#include "triage/triage.h"
#include "unwind/stacks.h"
#include "unwind/unwind.h"
#include "util/budget.h"

/* The dump's own facts (dump/dump.h's ops: VMCOREINFO's keys, CRASHTIME), with what only a vmcore
 * says (the KASLR offset, phys_base). */
static void fill_kernel_facts(const struct ct_dump *d, const struct ct_vmcore *vm, struct ct_report *r)
{
	struct ct_kernel *k = &r->kernel;
	k->present = true;
	k->release = ct_report_strdup(r, d->ops->fact(d, "OSRELEASE"));
	k->build_id = ct_report_strdup(r, d->ops->fact(d, "BUILD-ID"));
	if (d->arch_name) {
		k->machine = ct_report_strdup(r, d->arch_name);
		r->input.arch = k->machine;
	}
	r->input.pointer_size = d->pointer_size;
	const char *ps = d->ops->fact(d, "PAGESIZE");
	if (ps) {
		k->has_page_size = true;
		k->page_size = strtoull(ps, NULL, 10);
	}
	struct ct_dump_time t;
	if (d->ops->time(d, &t) && t.has_crash_time) {
		k->has_crash_time = true;
		k->crash_time = t.crash_time;
	}
	k->has_kaslr_offset = vm->has_kaslr_offset;
	k->kaslr_offset = vm->kaslr_offset;
	int64_t phys_base;
	if (ct_vmcoreinfo_number(&vm->vmcoreinfo, "phys_base", &phys_base))
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

static int find_panic_cpu(const struct ct_vmcore *vm, const struct ct_panic_record *rec, const struct ct_stacks *stacks,
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
	for (size_t t = 0; t < stacks->count; t++) {
		const struct ct_thread *th = &stacks->items[t];
		for (size_t i = 0; i < th->num_frames; i++) {
			if (is_panic_function(th->frames[i].function)) {
				*how = "its stack runs panic/crash code";
				return th->tid;
			}
		}
	}
	return -1;
}

/*
 * How well the stack found in the dump agrees with the kernel's own Call Trace: every reliable
 * (non-"?") function of the log should be among the scanned frames. Evidence either way.
 */
static void compare_with_log(struct ct_verdict *v, const struct ct_panic_record *rec, const struct ct_thread *th,
			     const char *whose)
{
	size_t reliable = 0, found = 0;
	const char *missing = NULL;
	for (size_t i = 0; i < rec->num_call_trace; i++) {
		struct ct_ksym_text t;
		const char *line = rec->call_trace[i];
		if (!ct_ksym_text_parse(line, strlen(line), &t) || t.unreliable)
			continue;
		reliable++;
		bool hit = false;
		for (size_t j = 0; j < th->num_frames && !hit; j++)
			hit = th->frames[j].function && strcmp(th->frames[j].function, t.function) == 0;
		if (hit)
			found++;
		else if (!missing)
			missing = rec->call_trace[i];
	}
	if (reliable == 0)
		return;
	ct_crash_add_evidence(&v->crash, v->strings, "stack of %s from the dump has %zu of the %zu reliable functions of the log's Call Trace%s%s",
			      whose, found, reliable, missing ? "; first missing: " : "", missing ? missing : "");
}

/*
 * Frames in module text have no kallsyms name in the core tables, and without the dump's BTF no module
 * symbols either: frame 0 takes the log's RIP/pc line, later ones the module entries of the log's Call
 * Trace in order (the kernel named them from the same stack).
 */
static void name_module_frames_from_log(const struct ct_sink *out, const struct ct_arch_info *arch, struct ct_thread *th,
					const struct ct_panic_record *rec)
{
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
			while (next < rec->num_call_trace && !text) {
				const char *line = rec->call_trace[next++];
				if (ct_ksym_text_parse(line, strlen(line), &t) && *t.module)
					text = line;
			}
		}
		if (!text || !ct_ksym_text_parse(text, strlen(text), &t))
			continue;
		f->function = ct_strpool_intern(out->strings, t.function);
		if (t.has_offset)
			f->offset = t.offset;
		if (*t.module)
			f->module = ct_strpool_intern(out->strings, t.module);
		ct_sink_diag(out, CT_SEVERITY_INFO, th->tid, CT_DIAG_FRAME_FROM_LOG,
			     "frame %zu (0x%016" PRIx64 ") is outside core kernel text; named from the log's %s", i, f->pc,
			     i == 0 ? rec->pc_source : "Call Trace");
	}
}

/* The culprit's frame on the panic CPU's stack, when it is there, is the blamed frame. */
static void blame_culprit(struct ct_verdict *v, const struct ct_thread *th, const struct ct_panic_record *rec)
{
	if (!rec->culprit_function)
		return;
	for (size_t i = 0; i < th->num_frames; i++) {
		if (th->frames[i].function && strcmp(th->frames[i].function, rec->culprit_function) == 0) {
			v->crash.blame_frame = (long)i;
			ct_crash_add_evidence(&v->crash, v->strings, "blamed frame #%zu of CPU %d: %s, the culprit", i, th->tid,
					      rec->culprit_function);
			return;
		}
	}
}

/**
 * The kernel pipeline's own state for one vmcore, private to this file (dump/kind.h's session). Like
 * the process kind's, its stages hand each other typed outputs (the CPU stacks, the verdict, the tasks)
 * that the rules read and amend here; only finish moves them into the report model.
 */
struct kernel_session {
	const struct ct_options *opts;
	struct ct_budget *budget;
	struct ct_report *report;
	/** Where the stages below write diagnostics and text (the report's pool and list). */
	struct ct_sink out;
	struct ct_vmcore vm;
	/** The vmcore as the pipeline sees it (its CPUs, capped by --max-threads; none without an
	 * architecture table). */
	struct ct_dump dump;
	/** The panic record; its Call Trace and module list move into the report at finish. */
	struct ct_panic_record rec;
	bool have_vi;
	struct ct_kallsyms ks;
	/** The dump's BTF gives the layouts of struct module and task_struct: module symbols and ORC
	 * tables, and the task list. Without it, today's report (module frames scanned, no tasks). */
	struct ct_kbtf *btf;
	struct ct_kmodules kmods;
	struct ct_orc orc;
	/** One stack per CPU (unwind stage), the panic CPU first once triage found it. */
	struct ct_stacks stacks;
	/** The kernel rules' verdict (triage), amended by the stacks' evidence until finish. */
	struct ct_verdict verdict;
	bool triaged;
	int panic_cpu; /**< -1 when not found */
	/** The sleeping tasks (late_stacks). */
	struct ct_ktasks tasks;
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
	s->out = ct_report_sink(s->report);
	s->panic_cpu = -1;
	struct ct_report *report = s->report;
	report->input.kind = ct_report_strdup(report, env->format->name);
	struct ct_error *err = ct_vmcore_open(env->opts->core_path, env->format, &s->out, &report->input.truncated, &s->vm);
	if (err) {
		free(s);
		return ct_error_wrap(err, "%s", env->opts->core_path);
	}
	*session = s;
	ct_dump_from_vmcore(&s->vm, env->format, env->opts->max_threads, &s->dump);
	*dump = &s->dump;
	fill_kernel_facts(&s->dump, &s->vm, report);
	if (env->opts->executable)
		return ct_vmlinux_check(&s->vm, env->opts->executable, &s->out);
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
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_KERNEL_LOG, "%s", ct_error_message(err));
		ct_error_destroy(err);
	} else {
		report->kernel.log = ct_strpool_intern_len(s->out.strings, log, log_len);
		ct_panic_parse(s->out.strings, log, &s->rec);
		free(log);
		if (!s->rec.found)
			ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_PANIC_RECORD,
				     "the kernel log has no panic or Oops record");
	}
	return NULL;
}

// The kernel's modules: kallsyms, the dump's BTF, the module list, the ORC tables.
static struct ct_error *kernel_modules(void *session)
{
	struct kernel_session *s = session;
	const struct ct_sink *out = &s->out;
	struct ct_kallsyms *ks = &s->ks;
	// An earlier dump of the same kernel left kallsyms decoded and the BTF (kindex.h): checked
	// against this dump before use. No cache with --safe or --no-cache.
	const char *cache = s->opts->safe ? NULL : s->opts->cache_dir;
	const char *build_id = ct_vmcoreinfo_get(&s->vm.vmcoreinfo, "BUILD-ID");
	struct ct_kindex ix = { 0 };
	bool kept = s->have_vi && ct_kindex_load(cache, build_id, &s->vm, ks, &ix);
	struct ct_error *err = s->have_vi && !kept ? ct_kallsyms_load(&s->vm, ks) : NULL;
	if (err) {
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_KALLSYMS, "kernel symbols: %s", ct_error_message(err));
		ct_error_destroy(err);
	}
	// The readers of lists and BTF spend the run's work budget (budget.h: nodes), so that a hostile
	// dump ends the reader that meets it, not the report.
	if (ks->num_syms) {
		bool btf_kept = kept && ct_kindex_btf_matches(&ix, &s->vm, ks);
		err = btf_kept ? ct_kbtf_from_bytes(ix.btf, ix.btf_size, s->budget, &s->btf)
			       : ct_kbtf_load(&s->vm, ks, s->budget, &s->btf);
		size_t btf_size;
		const void *btf = ct_kbtf_raw(s->btf, &btf_size);
		if (!kept || (!btf_kept && btf))
			ct_kindex_save(cache, build_id, &s->vm, ks, btf, btf_size);
		if (!err)
			err = ct_kmodules_load(&s->vm, ks, s->btf, s->budget, &s->kmods);
		if (!err && s->kmods.loop_node)
			ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_MODULE_LIST_CUT,
				     "kernel modules: the module list loops back to node 0x%016" PRIx64
				     " after %zu modules without returning to its head; the modules met are used",
				     s->kmods.loop_node, s->kmods.num);
		else if (!err && s->kmods.cut)
			ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_MODULE_LIST_CUT,
				     "kernel modules: the module list was cut after %zu modules (the work budget's nodes, "
				     "or more than 4096 modules); the modules met are used", s->kmods.num);
		if (err) {
			ct_sink_diag(out, CT_SEVERITY_WARNING, 0, s->btf ? CT_DIAG_NO_KERNEL_MODULES : CT_DIAG_NO_BTF,
				     "%s%s", s->btf ? "kernel modules: " : "BTF: ", ct_error_message(err));
			ct_error_destroy(err);
		} else {
			ks->modules = &s->kmods;
		}
	}
	if (ks->num_syms && ct_orc_init(&s->vm, ks, &s->orc))
		ks->orc = &s->orc;
	ct_panic_culprit_from_trace(out->strings, ks, &s->rec);
	// Registers need the dump's arch table; stacks also its kernel unwinder (kstack.c).
	bool regs = s->vm.arch != NULL;
	if ((!regs || s->vm.arch->kernel_unwind == CT_KUNWIND_NONE) && s->vm.num_cpus)
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_ARCH_UNSUPPORTED, "%s of %s vmcores are not supported yet",
			     regs ? "stacks" : "registers and stacks",
			     s->report->input.arch ? s->report->input.arch : "unknown-architecture");
	// The stacks' array, before the first CPU: out of memory here, its add fails.
	ct_stacks_reserve(&s->stacks, s->dump.num_threads);
	return NULL;
}

// CPU @p i: its registers and its stack, named by kallsyms.
static bool kernel_unwind(void *session, size_t i)
{
	struct kernel_session *s = session;
	const struct ct_core_thread *cpu = &s->dump.threads[i];
	struct ct_thread *th = ct_stacks_add(&s->stacks);
	if (!th)
		return false;
	th->tid = cpu->tid;
	if (!cpu->has_regs) {
		th->stop = ct_stop_make(CT_STOP_NO_CPU_REGISTERS, CT_STOP_DETAIL_NONE, 0);
		return true;
	}
	ct_thread_set_registers(th, s->out.strings, s->vm.arch->regs, cpu->values, cpu->num_values);
	ct_kstack_unwind(&s->vm, &s->ks, cpu, s->out.strings, th, s->opts->max_frames);
	return true;
}

// The kernel rules over the panic record, then what the stacks add: the panic CPU, the culprit's
// frame, the log's Call Trace against the stack found in the dump.
static void kernel_triage(void *session)
{
	struct kernel_session *s = session;
	struct ct_verdict *v = &s->verdict;
	struct ct_stacks *st = &s->stacks;
	ct_verdict_init(v, s->out.strings);
	ct_kernel_classify(v, s->vm.arch, &s->rec);
	s->triaged = true;
	const char *how = NULL;
	s->panic_cpu = find_panic_cpu(&s->vm, &s->rec, st, &how);
	if (s->panic_cpu >= 0) {
		ct_crash_add_evidence(&v->crash, v->strings, "panic CPU %d, found by %s", s->panic_cpu, how);
		// Crashing thread first (report.h order), the others stay by CPU number.
		for (size_t t = 0; t < st->count; t++) {
			if (st->items[t].tid != s->panic_cpu)
				continue;
			st->items[t].crashed = true;
			struct ct_thread tmp = st->items[t];
			memmove(&st->items[1], &st->items[0], t * sizeof(tmp));
			st->items[0] = tmp;
			name_module_frames_from_log(&s->out, s->vm.arch, &st->items[0], &s->rec);
			// A hung-task report's Call Trace is the blocked task's, compared with its task stack below.
			if (!s->rec.hung_task)
				compare_with_log(v, &s->rec, &st->items[0],
						 ct_strpool_printf(s->out.strings, "CPU %d", st->items[0].tid));
			blame_culprit(v, &st->items[0], &s->rec);
			break;
		}
	} else if (s->vm.num_cpus) {
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_PANIC_CPU, "could not tell which CPU panicked");
	}
	if (s->vm.qemu)
		ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_QEMU_DUMP,
			     "written by QEMU dump-guest-memory: pr_pid is the vCPU number + 1, and the log may stop before "
			     "the last panic lines");
}

static void kernel_signature(void *session)
{
	struct kernel_session *s = session;
	if (s->triaged)
		ct_kernel_signature(ct_stacks_crashed(&s->stacks), &s->rec, &s->verdict);
}

// The sleeping tasks (the hung-task report's blocked one always), then the user's vmlinux: DWARF
// lines and inline frames for every kernel frame.
static void kernel_late_stacks(void *session)
{
	struct kernel_session *s = session;
	const struct ct_panic_record *rec = &s->rec;
	// tasks.c reads a sleeping task's saved context as x86-64's struct inactive_task_frame.
	bool tasks = s->vm.arch == &ct_arch_x86_64;
	if (s->btf && tasks)
		ct_ktasks_collect(&s->vm, &s->ks, s->btf, s->budget, s->opts->kernel_tasks,
				  rec->hung_task && rec->has_blocked_pid ? rec->blocked_pid : -1, s->opts->max_frames, s->out,
				  &s->tasks);
	else if (s->opts->kernel_tasks)
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_TASKS, "--tasks: the task list needs the dump's BTF%s",
			     tasks ? "" : " and an x86-64 dump");
	bool blocked_listed = false;
	for (size_t i = 0; rec->hung_task && rec->has_blocked_pid && i < s->tasks.count; i++) {
		const struct ct_kernel_task *t = &s->tasks.items[i];
		blocked_listed = blocked_listed || t->pid == rec->blocked_pid;
		if (t->pid == rec->blocked_pid && t->stack.num_frames && s->triaged)
			compare_with_log(&s->verdict, rec, &t->stack,
					 ct_strpool_printf(s->out.strings, "the blocked task %d (%s)", t->pid, t->comm));
	}
	// The hung-task report's blocked task is always listed when the dump holds it; say so when not.
	if (s->btf && tasks && rec->hung_task && rec->has_blocked_pid && !blocked_listed)
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_TASK_UNREADABLE,
			     "the blocked task %d (%s) of the hung-task report is not among the tasks read from the dump",
			     rec->blocked_pid, rec->blocked_comm ? rec->blocked_comm : "?");
	if (s->opts->executable)
		ct_vmlinux_symbolize(&s->vm, s->opts, rec, s->stacks.items, s->stacks.count, &s->verdict.crash.blame_frame,
				     s->out);
	s->ok = true;
}

// The hand-over: the panic record's facts, the CPU stacks, the tasks and the verdict into the report.
static void kernel_finish(void *session, bool ok)
{
	struct kernel_session *s = session;
	struct ct_report *report = s->report;
	if (!ok || !s->ok)
		return;
	fill_panic_facts(report, &s->rec);
	if (s->panic_cpu >= 0) {
		report->kernel.has_panic_cpu = true;
		report->kernel.panic_cpu = s->panic_cpu;
		report->has_crashing_thread = true;
		report->crashing_thread = s->panic_cpu;
	}
	ct_stacks_move_to_report(&s->stacks, report);
	struct ct_kernel *k = &report->kernel;
	k->tasks = s->tasks.items;
	k->num_tasks = s->tasks.count;
	k->num_tasks_total = s->tasks.total;
	k->tasks_all = s->tasks.all;
	s->tasks = (struct ct_ktasks){ 0 };
	if (s->triaged) {
		ct_verdict_move_to_report(&s->verdict, report);
		s->triaged = false;
	}
	uint32_t num_types;
	const char *stopped = ct_kbtf_budget_stop(s->btf, &num_types);
	if (stopped) {
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_BUDGET_NODES,
			     "BTF member search: the work budget of %" PRIu64 " nodes (list nodes and BTF members, "
			     "halved by --safe) ran out looking up %s in the dump's .BTF (%" PRIu32 " types); "
			     "that member and later ones are unknown",
			     s->budget->limit[CT_BUDGET_NODES], stopped, num_types);
		s->budget->reported[CT_BUDGET_NODES] = true;
	}
	ct_budget_report(s->budget, report);
}

static void kernel_close(void *session)
{
	struct kernel_session *s = session;
	ct_stacks_free(&s->stacks);
	ct_ktasks_free(&s->tasks);
	if (s->triaged)
		ct_verdict_free(&s->verdict);
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
