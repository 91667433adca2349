// The process-core pipeline: fills the report from the core's notes, modules, unwound threads.
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dump/dump.h"
#include "dump/elfcore.h"
#include "modules/debug_budget.h"
#include "modules/symbol_hints.h"
#include "modules/symbolize.h"
#include "process/process.h"
#include "model/budget_diag.h"
#include "model/diag_codes.h"
#include "model/thread_registers.h"
#include "runtime/python.h"
#include "runtime/go.h"
#include "triage/triage.h"
#include "unwind/stacks.h"
#include "unwind/unwind.h"
#include "values/values.h"

/**
 * The pipeline's own state for one process core, owned by the process kind's stages (ct_process_kind); no stage sees it
 * whole: each is handed its typed inputs (the module set, struct ct_values_input, the stacks,
 * struct ct_triage_input). Unwinding state is not here: each walk's start is libdwfl's thread
 * argument (unwind_dwfl.c), the frame limit a parameter.
 */
struct ct_session {
	const struct ct_options *opts; /**< borrowed */
	struct ct_core *core; /**< owned */
	struct ct_report *report; /**< borrowed */
	struct ct_module_set mods; /**< made by ct_modules_load() */
	/** Caches of src/values/ (scopes, call sites); owned, NULL when values are not wanted. */
	struct ct_values *values;
	/** The analysis' work budget (util/budget.h); borrowed, lives as long as the session. Stages
	 * spend from it: frames (unwinding), names and values (symbolization, values of variables). */
	struct ct_budget *budget;
	/** Dump facts read before the modules: the signal as the report carries it, and the thread it
	 * was delivered to, NULL when no thread took one (a snapshot such as gcore). */
	struct ct_signal_info signal;
	const struct ct_core_thread *crashed;
	/** The symbolized stacks (unwind → symbolize → values), moved into the report after triage. */
	struct ct_stacks stacks;
	/** The language runtime's stacks (runtime stage), moved into the report with the stacks. */
	struct ct_runtime runtime;
	/** The core as the pipeline sees it (dump/dump.h); owns the core. */
	struct ct_dump dump;
	/** The budget made from the options when the caller has none. */
	struct ct_budget own_budget;
	/** libdwfl's view of the core's threads (unwind stage). */
	struct ct_dwfl_walker *walker;
	/** The crashing thread's stack was given its flag (the first thread carrying the signal). */
	bool crashed_assigned;
	struct ct_verdict verdict;
	bool triaged;
};

static void fill_process(struct ct_session *s)
{
	struct ct_core *core = s->core;
	struct ct_report *r = s->report;
	if (core->has_prpsinfo) {
		r->process.has_pid = true;
		r->process.pid = core->pid;
		r->process.ppid = core->ppid;
		r->process.has_uid = true;
		r->process.uid = core->uid;
		r->process.gid = core->gid;
		r->process.command = ct_report_strdup(r, core->fname);
		// pr_psargs is the command line with NULs turned into spaces, cut at 80 bytes.
		char *args = strdup(core->psargs);
		size_t n = 0;
		for (char *tok = args ? strtok(args, " ") : NULL; tok && n < 80; tok = strtok(NULL, " "))
			n++;
		free(args);
		r->process.args = calloc(n ? n : 1, sizeof(char *));
		args = strdup(core->psargs);
		if (r->process.args && args) {
			for (char *tok = strtok(args, " "); tok && r->process.num_args < n; tok = strtok(NULL, " "))
				r->process.args[r->process.num_args++] = ct_report_strdup(r, tok);
		}
		free(args);
	}
	uint64_t execfn;
	char *path = NULL;
	if (ct_core_auxv(core, AT_EXECFN, &execfn)) {
		// The string page may not be in the dump (gcore, filtered cores): then it is unknown.
		struct ct_error *err = ct_core_read_string(core, execfn, 4096, &path);
		if (!err) {
			r->process.executable_path = ct_report_strdup(r, path);
			free(path);
		}
		ct_error_destroy(err);
	}
}

static void fill_signal(struct ct_session *s)
{
	struct ct_core *core = s->core;
	struct ct_report *r = s->report;
	const struct ct_core_thread *crashed = NULL;
	for (size_t i = 0; i < core->num_threads; i++) {
		if (core->threads[i].cursig) {
			crashed = &core->threads[i];
			break;
		}
	}
	if (!crashed && core->has_siginfo && core->si_signo) {
		// gcore of a live process: the siginfo is the debugger's SIGSTOP, no thread was signalled.
		ct_report_diag(r, CT_SEVERITY_INFO, 0, CT_DIAG_SNAPSHOT,
			       "no thread carries a signal (a live snapshot such as gdb's gcore); NT_SIGINFO holds signal %d",
			       core->si_signo);
	} else if (core->has_siginfo && core->si_signo) {
		s->signal.present = true;
		s->signal.number = core->si_signo;
		s->signal.has_code = true;
		s->signal.code = core->si_code;
		s->signal.err = core->si_errno;
		s->signal.has_fault_address = core->si_has_addr;
		s->signal.fault_address = core->si_addr;
		s->signal.has_sender = core->si_has_sender;
		s->signal.sender_pid = core->si_pid;
		s->signal.sender_uid = core->si_uid;
	} else if (crashed) {
		// No NT_SIGINFO (older kernels, some tools): only the signal number is known.
		s->signal.present = true;
		s->signal.number = crashed->cursig;
	}
	s->crashed = crashed;
	r->signal = s->signal;
	r->has_crashing_thread = crashed != NULL;
	r->crashing_thread = crashed ? crashed->tid : 0;
}

// The values stage's inputs, from the session.
static struct ct_values_input values_input(struct ct_session *s)
{
	return (struct ct_values_input){
		.core = s->core, .mods = &s->mods, .values = s->values, .out = ct_report_sink(s->report), .budget = s->budget
	};
}

static bool symbolize_into(struct ct_session *s, const struct ct_core_thread *ct, const struct ct_raw_stack *raw,
			   struct ct_thread *t)
{
	const struct ct_values_input vin = values_input(s);
	// Locals for the crashing thread (or the first thread of a snapshot); parameters everywhere.
	bool locals = t->crashed || (!s->crashed && s->core->num_threads == 1);
	for (size_t i = 0; i < raw->count; i++) {
		const struct ct_raw_frame *rf = &raw->frames[i];
		// Callers are looked up at pc - 1: the return address may already be in the next line,
		// or past the end of a noreturn function.
		uint64_t lookup = rf->exact || rf->pc == 0 ? rf->pc : rf->pc - 1;
		const struct ct_sym *syms;
		size_t n = ct_symbolize(&s->mods, lookup, &syms);
		for (size_t j = 0; j < n; j++) {
			struct ct_frame *f = ct_thread_add_frame(t);
			if (!f)
				return false;
			f->pc = rf->pc;
			f->function = syms[j].function;
			f->offset = syms[j].offset + (lookup != rf->pc && j == n - 1 ? 1 : 0);
			f->module = syms[j].module;
			f->file = syms[j].file;
			f->line = syms[j].line;
			f->column = syms[j].column;
			f->decl_file = syms[j].decl_file;
			f->inlined = syms[j].inlined;
			f->name_source = syms[j].source;
			f->trust = rf->trust;
			f->has_sp = rf->has_sp;
			f->sp = rf->sp;
			f->signal_frame = rf->signal_trampoline;
			f->tail_call = rf->tail_call;
		}
		ct_values_frame(&vin, raw, i, ct, t, t->num_frames - n, n, locals);
	}
	return true;
}

static void fill_registers(struct ct_session *s, const struct ct_core_thread *ct, struct ct_thread *t)
{
	const struct ct_arch_info *arch = s->core->arch;
	if (arch && ct->has_regs)
		ct_thread_set_registers(t, &s->report->strings, arch->regs, ct->values, ct->num_values);
}

// Unwinds, symbolizes and reads the values of thread @p index of the core into the stacks.
static bool process_unwind(void *session, size_t i)
{
	struct ct_session *s = session;
	struct ct_core *core = s->core;
	struct ct_report *r = s->report;
	const struct ct_core_thread *ct = &core->threads[i];
	struct ct_thread *t = ct_stacks_add(&s->stacks);
	if (!t) {
		// Said, not silent: the report must not look like the process had fewer threads.
		ct_report_diag(r, CT_SEVERITY_ERROR, 0, CT_DIAG_NO_MEMORY, "out of memory: %zu of the core's %zu threads are not in the report",
			       core->num_threads - i, core->num_threads);
		return false;
	}
	t->tid = ct->tid;
	t->signal = ct->cursig;
	t->has_cpu_time = ct->has_cpu_time;
	t->user_usec = ct->user_usec;
	t->system_usec = ct->system_usec;
	// The dumping thread carries the signal and comes first in the notes.
	if (!s->crashed_assigned && ct == s->crashed) {
		t->crashed = true;
		s->crashed_assigned = true;
	}
	const struct ct_segment *stack = ct_core_find_segment(core, ct->sp);
	// coredump_filter can exclude anonymous memory: then the stack is mapped but not saved,
	// and every frame beyond the registers is lost. (An sp outside any mapping is a fact for
	// triage, e.g. a stack overflow, not a loss.)
	// A no-access mapping holding sp is a guard page (a thread-stack overflow): nothing was
	// left out of the core, there is nothing to save there.
	bool guard = stack && !(stack->flags & (PF_R | PF_W | PF_X));
	if (stack && !guard && ct->has_regs && ct->sp - stack->vaddr >= stack->filesz)
		ct_report_diag(r, CT_SEVERITY_WARNING, ct->tid, CT_DIAG_STACK_NOT_DUMPED,
			       "thread %d: its stack at 0x%" PRIx64 " is mapped but not saved in the core; frames beyond the registers are lost",
			       ct->tid, ct->sp);
	if (stack) {
		t->has_stack = true;
		t->stack_start = stack->vaddr;
		t->stack_end = stack->vaddr + stack->memsz;
	}
	if (t->crashed || s->opts->all_registers)
		fill_registers(s, ct, t);
	if (!ct->has_regs) {
		t->stop = ct_stop_make(CT_STOP_NO_REGISTERS, CT_STOP_DETAIL_NONE, 0);
		t->truncated = true;
		return true;
	}
	// The frames budget bounds all threads together; a thread always keeps its first frame
	// (the dump's own registers), so none vanishes from the report.
	uint64_t left = ct_budget_left(s->budget, CT_BUDGET_FRAMES);
	size_t frame_limit = left < s->opts->max_frames ? (left ? (size_t)left : 1) : s->opts->max_frames;
	struct ct_raw_stack raw = { 0 };
	struct ct_error *err = NULL;
	if (s->opts->unwinder == CT_UNWINDER_LIBUNWIND)
		err = ct_unwind_thread_libunwind(&s->mods, ct, frame_limit, &raw);
	else
		ct_unwind_thread_dwfl(&s->mods, s->walker, ct, frame_limit, &raw);
	if (s->values) {
		const struct ct_values_input vin = values_input(s);
		ct_values_tail_calls(&vin, &raw, ct->tid, frame_limit);
	}
	if (err) {
		ct_report_diag(r, CT_SEVERITY_ERROR, ct->tid, CT_DIAG_UNWIND_FAILED, "%s", ct_error_message(err));
		ct_error_destroy(err);
	}
	t->truncated = raw.truncated;
	bool capped = raw.truncated && raw.stop_reason == CT_STOP_FRAME_CAP;
	t->stop = capped ? ct_stop_make(CT_STOP_FRAME_CAP, frame_limit ? CT_STOP_DETAIL_CAP : CT_STOP_DETAIL_NONE,
					frame_limit)
			 : ct_raw_stack_stop(&raw, &r->strings);
	if (capped && frame_limit < s->opts->max_frames) {
		ct_budget_mark_reached(s->budget, CT_BUDGET_FRAMES);
		t->stop = ct_stop_make(CT_STOP_FRAME_BUDGET, CT_STOP_DETAIL_NONE, 0);
	} else if (capped) {
		ct_report_diag(r, CT_SEVERITY_WARNING, ct->tid, CT_DIAG_FRAME_CAP,
			       "thread %d: unwinding stopped at the frame cap of %zu frames (--max-frames)", ct->tid,
			       s->opts->max_frames);
	}
	if (!symbolize_into(s, ct, &raw, t)) {
		ct_report_diag(r, CT_SEVERITY_ERROR, ct->tid, CT_DIAG_NO_MEMORY, "out of memory symbolizing frames");
		t->truncated = true;
		t->stop = ct_stop_make(CT_STOP_NO_MEMORY, CT_STOP_DETAIL_NONE, 0);
	}
	ct_raw_stack_free(&raw);
	// Inline frames count too; the budget may run over by one thread's inline expansion.
	ct_budget_spend(s->budget, CT_BUDGET_FRAMES, t->num_frames);
	return true;
}

static void copy_core_problems(struct ct_session *s)
{
	struct ct_core *core = s->core;
	for (size_t i = 0; i < core->num_problems; i++) {
		// The loader has no context for a severity: the table's (a core without notes is an error).
		enum ct_diag_code code = core->problems[i].code;
		ct_report_diag(s->report, ct_diag_code_severity(code), 0, code, "%s", core->problems[i].message);
	}
	if (core->num_problems_dropped)
		ct_report_diag(s->report, CT_SEVERITY_WARNING, 0, CT_DIAG_LIMIT, "%zu more problems with the core not listed",
			       core->num_problems_dropped);
}

// An error of the process stages, with the core's path (the kernel's stages name the dump themselves).
static struct ct_error *named(const struct ct_options *opts, struct ct_error *err)
{
	return err && opts->core_path ? ct_error_wrap(err, "%s", opts->core_path) : err;
}

static struct ct_error *process_open(const struct ct_dump_env *env, void **session, const struct ct_dump **dump)
{
	struct ct_session *s = calloc(1, sizeof(*s));
	if (!s) {
		if (env->dump)
			ct_dump_close(env->dump);
		return named(env->opts, &ct_enomem);
	}
	s->opts = env->opts;
	s->report = env->report;
	s->budget = env->budget;
	if (!s->budget) {
		ct_budget_init(&s->own_budget, env->opts);
		s->budget = &s->own_budget;
	}
	if (env->dump) {
		// A live process: its dump's impl is a struct ct_core laid out from the capture (dump_live.c).
		s->dump = *env->dump;
		memset(env->dump, 0, sizeof(*env->dump));
		s->core = s->dump.impl;
	} else {
		struct ct_error *err =
			ct_core_open_memory(env->file->data, env->file->size, env->opts->max_threads, &s->core);
		if (err) {
			free(s);
			return named(env->opts, err);
		}
		ct_dump_from_core(s->core, env->format, &s->dump);
	}
	*session = s;
	*dump = &s->dump;
	return NULL;
}

static struct ct_error *process_facts(void *session)
{
	struct ct_session *s = session;
	struct ct_report *report = s->report;
	// The format's name ("elf-core", "live"); a caller that probed nothing (the fuzzers) has an ELF core.
	report->input.kind = ct_report_strdup(report, s->dump.format ? s->dump.format->name : "elf-core");
	report->input.arch = ct_report_strdup(report, s->core->arch_name ? s->core->arch_name : "unknown");
	if (s->core->arch)
		report->input.register_size = s->core->arch->regs[s->core->arch->pc_index].size;
	report->input.truncated = s->core->truncated;
	report->input.pointer_size = s->dump.pointer_size;
	copy_core_problems(s);
	fill_process(s);
	fill_signal(s);
	if (!s->core->arch)
		return named(s->opts, ct_error_create(CT_ERROR_UNSUPPORTED,
						      "%s core (e_machine %u, %u-bit): architecture not supported yet",
						      s->core->arch_name ? s->core->arch_name : "unknown", s->core->e_machine,
						      s->core->elf_class == ELFCLASS64 ? 64 : 32));
	return NULL;
}

static struct ct_error *process_modules(void *session)
{
	struct ct_session *s = session;
	s->values = ct_values_create();
	if (!s->values)
		return named(s->opts, &ct_enomem);
	struct ct_error *err = ct_modules_load(s->opts, s->core, ct_report_sink(s->report), s->budget, &s->mods);
	if (!err)
		err = ct_unwind_attach(&s->mods, &s->walker);
	// The stacks' array, before the first thread: out of memory here, its add fails and says so.
	if (!err)
		ct_stacks_reserve(&s->stacks, s->core->num_threads);
	return named(s->opts, err);
}

static void process_stacks_done(void *session)
{
	struct ct_session *s = session;
	ct_stacks_sort(&s->stacks);
	ct_modules_to_report(&s->mods, s->report);
}

static void process_runtime(void *session)
{
	struct ct_session *s = session;
	if (s->opts->no_runtime)
		return;
	const struct ct_runtime_input runtime = {
		.core = s->core, .mods = &s->mods, .stacks = &s->stacks, .out = ct_report_sink(s->report), .budget = s->budget
	};
	ct_runtime_python(&runtime, &s->runtime);
	if (!s->runtime.present)
		ct_runtime_go(&runtime, &s->runtime);
}

static void process_triage(void *session)
{
	struct ct_session *s = session;
	struct ct_report *report = s->report;
	struct ct_verdict *verdict = &s->verdict;
	ct_debug_check_unusable(&s->mods, s->stacks.items, s->stacks.count);
	ct_modules_hint_symbols(&s->mods, s->stacks.items, s->stacks.count);
	// Said before triage, which weighs what was lost.
	ct_budget_report(s->budget, report);
	const struct ct_thread *subject = ct_stacks_subject(&s->stacks);
	if (subject && subject->num_frames)
		ct_process_disassemble(&s->mods, subject->frames[0].pc, report);
	const struct ct_triage_input triage = {
		.core = s->core, .mods = &s->mods, .signal = &s->signal, .crashed = s->crashed,
		.stacks = &s->stacks, .out = ct_report_sink(report), .runtime = &s->runtime
	};
	ct_triage_process(&triage, verdict);
	s->triaged = true;
	if (subject && verdict->crash.blame_frame >= 0 && (size_t)verdict->crash.blame_frame < subject->num_frames &&
	    !subject->frames[verdict->crash.blame_frame].function) {
		// The verdict's point is the function to fix: without it the report is partial.
		const struct ct_frame *f = &subject->frames[verdict->crash.blame_frame];
		// A frame in no module is JIT code (the blame rule's only module-less frame): what would
		// name it is the JIT's perf map, not a module's symbols.
		if (f->module)
			ct_report_diag(report, CT_SEVERITY_WARNING, subject->tid, CT_DIAG_BLAME_NO_SYMBOLS,
				       "the blamed frame #%ld (pc 0x%" PRIx64 " in %s) has no function name: its module "
				       "has no symbols for it (see the module-no-symbols hint)",
				       verdict->crash.blame_frame, f->pc, f->module);
		else
			ct_report_diag(report, CT_SEVERITY_WARNING, subject->tid, CT_DIAG_BLAME_NO_SYMBOLS,
				       "the blamed frame #%ld (pc 0x%" PRIx64 " in no module) has no function name: "
				       "JIT-compiled code, and no perf map of the process (/tmp/perf-%d.map) names it",
				       verdict->crash.blame_frame, f->pc, (int)s->core->pid);
	}
	// A verdict on part of the notes is never certain: the crashing thread or the signal may be
	// among those not read ("no crash: snapshot, confidence high" from a padded core).
	if (s->core->notes_capped && verdict->crash.confidence != CT_CONFIDENCE_LOW) {
		verdict->crash.confidence = CT_CONFIDENCE_LOW;
		ct_crash_add_evidence(&verdict->crash, verdict->strings,
				      "only the first %u notes of the core were read: the verdict may miss the crashing thread",
				      CT_MAX_NOTES);
	}
	ct_budget_report(s->budget, report);
}

static void process_finish(void *session, bool ok)
{
	(void)ok;
	struct ct_session *s = session;
	// The report model gets the stacks and the verdict last: no stage before reads threads from
	// it. The stacks go first: the verdict's wait states go to their threads.
	ct_stacks_move_to_report(&s->stacks, s->report);
	ct_runtime_to_report(&s->runtime, s->report);
	if (s->triaged)
		ct_verdict_move_to_report(&s->verdict, s->report);
}

static void process_close(void *session)
{
	struct ct_session *s = session;
	ct_modules_unload(&s->mods);
	ct_values_destroy(s->values);
	ct_dump_close(&s->dump);
	free(s);
}

/* The process core's stages (dump/kind.h); signatures are made by triage with the verdict. A live
 * process runs the same stages over its own dump. */
const struct ct_dump_kind ct_process_kind = {
	.name = "process",
	.open = process_open,
	.facts = process_facts,
	.modules = process_modules,
	.unwind = process_unwind,
	.stacks_done = process_stacks_done,
	.runtime = process_runtime,
	.triage = process_triage,
	.finish = process_finish,
	.close = process_close,
};
