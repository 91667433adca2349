// The text report, for people: the verdict first, then evidence, warnings, the crashing thread,
// the other threads (identical stacks grouped, recursion collapsed), registers and disassembly.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/writers.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define C_DIM "\033[2m"

/** Frames of a thread printed before "… N more frames" in the other-threads section. */
#define OTHER_THREAD_FRAMES 64

void ct_write_options_init(struct ct_write_options *o)
{
	memset(o, 0, sizeof(*o));
	o->collapse_min = 16;
}

const char *ct_display_path(const char *path, const struct ct_write_options *o)
{
	if (!path || !o->no_abs_paths)
		return path;
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

struct out {
	FILE *f;
	const struct ct_write_options *o;
};

static const char *c(const struct out *w, const char *code)
{
	return w->o->color ? code : "";
}

static int hexwidth(const struct ct_report *r)
{
	// Two digits per byte of a target address: 32-bit targets print 8.
	return r->input.pointer_size ? 2 * (int)r->input.pointer_size : 16;
}

static int regwidth(const struct ct_report *r)
{
	return r->input.register_size ? 2 * (int)r->input.register_size : hexwidth(r);
}

static void write_frame(const struct out *w, const struct ct_report *r, const struct ct_frame *f, size_t index)
{
	FILE *out = w->f;
	int hw = hexwidth(r);
	fprintf(out, "  %s#%-3zu%s ", c(w, C_BOLD), index, c(w, C_RESET));
	if (f->inlined)
		fprintf(out, "%*s ", hw + 2, "[inlined]");
	else
		fprintf(out, "0x%0*" PRIx64 " ", hw, f->pc);
	if (f->signal_frame) {
		fprintf(out, "%s<signal handler called>%s", c(w, C_YELLOW), c(w, C_RESET));
		if (f->function)
			fprintf(out, " in %s", f->function);
	} else if (f->function) {
		fprintf(out, "in %s%s%s", c(w, C_CYAN), f->function, c(w, C_RESET));
		if (!f->inlined)
			fprintf(out, "+0x%" PRIx64, f->offset);
	} else {
		fprintf(out, "in ??");
	}
	if (f->module)
		fprintf(out, " (%s)", f->module);
	if (f->file) {
		fprintf(out, " at %s:%d", ct_display_path(f->file, w->o), f->line);
		if (f->column)
			fprintf(out, ":%d", f->column);
	}
	if (f->trust != CT_TRUST_CFI && f->trust != CT_TRUST_CONTEXT)
		fprintf(out, " %s[%s]%s", c(w, C_DIM), ct_trust_to_string(f->trust), c(w, C_RESET));
	fputc('\n', out);
}

static void write_frames(const struct out *w, const struct ct_report *r, const struct ct_thread *t, size_t limit)
{
	size_t shown = 0;
	for (size_t i = 0; i < t->num_frames;) {
		size_t period, repeats;
		if (w->o->collapse_min && ct_find_cycle(t, i, w->o->collapse_min, &period, &repeats)) {
			for (size_t k = 0; k < period; k++)
				write_frame(w, r, &t->frames[i + k], i + k);
			size_t from = i + period, to = i + period * repeats - 1;
			fprintf(w->f, "  %s#%zu–#%zu: the %zu frame%s above repeat%s %zu more times (recursion)%s\n",
				c(w, C_YELLOW), from, to, period, period == 1 ? "" : "s", period == 1 ? "s" : "",
				repeats - 1, c(w, C_RESET));
			i += period * repeats;
			shown += period + 1;
		} else {
			write_frame(w, r, &t->frames[i], i);
			i++;
			shown++;
		}
		if (limit && shown >= limit && i < t->num_frames) {
			fprintf(w->f, "  … %zu more frames\n", t->num_frames - i);
			break;
		}
	}
	if (t->stop_reason && t->truncated)
		fprintf(w->f, "  %s(unwinding stopped: %s)%s\n", c(w, C_YELLOW), t->stop_reason, c(w, C_RESET));
}

static bool same_stack(const struct ct_thread *a, const struct ct_thread *b)
{
	if (a->num_frames != b->num_frames || a->truncated != b->truncated)
		return false;
	for (size_t i = 0; i < a->num_frames; i++) {
		if (a->frames[i].pc != b->frames[i].pc)
			return false;
	}
	return true;
}

static void write_header(const struct out *w, const struct ct_report *r)
{
	FILE *out = w->f;
	fprintf(out, "%s", c(w, C_BOLD));
	if (r->process.command)
		fprintf(out, "%s", r->process.command);
	else if (r->kernel.present)
		fprintf(out, "Linux %s", r->kernel.release ? r->kernel.release : "kernel");
	else
		fprintf(out, "process");
	if (r->process.has_pid)
		fprintf(out, " (pid %d)", r->process.pid);
	fprintf(out, "%s", c(w, C_RESET));
	if (r->signal.present) {
		const char *name = ct_signal_name(r->signal.number);
		fprintf(out, " killed by %s", name ? name : "signal");
		if (!name)
			fprintf(out, " %d", r->signal.number);
		if (r->signal.has_code) {
			const char *cn = ct_signal_code_name(r->signal.number, r->signal.code);
			if (cn)
				fprintf(out, " (%s)", cn);
			else
				fprintf(out, " (si_code %d)", r->signal.code);
		}
		if (r->signal.has_fault_address)
			fprintf(out, " at 0x%" PRIx64, r->signal.fault_address);
		if (r->signal.has_sender && r->signal.code <= 0)
			fprintf(out, ", sent by pid %d (uid %d)", r->signal.sender_pid, r->signal.sender_uid);
	} else if (!r->kernel.present) {
		fprintf(out, ": no fatal signal (snapshot)");
	}
	fputc('\n', out);
	if (r->process.num_args) {
		fprintf(out, "  command:");
		for (size_t i = 0; i < r->process.num_args; i++)
			fprintf(out, " %s", r->process.args[i]);
		fputc('\n', out);
	}
	fprintf(out, "  dump: %s (%s, %s)\n", ct_display_path(r->input.core, w->o), r->input.kind ? r->input.kind : "?",
		r->input.arch ? r->input.arch : "?");
}

static void write_crash(const struct out *w, const struct ct_report *r)
{
	FILE *out = w->f;
	const struct ct_crash *cr = &r->crash;
	fprintf(out, "\n%sCrash: %s%s%s", c(w, C_BOLD), c(w, C_RED), cr->class_id, c(w, C_RESET));
	if (cr->subclass)
		fprintf(out, " (%s)", cr->subclass);
	fprintf(out, ", confidence %s\n", cr->confidence);
	if (cr->summary)
		fprintf(out, "  %s\n", cr->summary);
	const struct ct_thread *t = ct_report_crashing_thread(r);
	if (t && cr->blame_frame >= 0 && (size_t)cr->blame_frame < t->num_frames) {
		const struct ct_frame *f = &t->frames[cr->blame_frame];
		fprintf(out, "  blame: #%ld %s", cr->blame_frame, f->function ? f->function : "??");
		if (f->file)
			fprintf(out, " at %s:%d", ct_display_path(f->file, w->o), f->line);
		fputc('\n', out);
	}
	if (cr->has_instruction)
		fprintf(out, "  instruction: 0x%" PRIx64 ": %s\n", cr->instruction_address, cr->instruction_text);
	for (size_t i = 0; i < cr->num_evidence; i++)
		fprintf(out, "  - %s\n", cr->evidence[i]);
	if (r->abort_message.present)
		fprintf(out, "  abort message: %s\n", r->abort_message.text);
}

static void write_kernel(const struct out *w, const struct ct_report *r)
{
	const struct ct_kernel *k = &r->kernel;
	if (!k->present)
		return;
	FILE *out = w->f;
	fprintf(out, "\n%sKernel%s\n", c(w, C_BOLD), c(w, C_RESET));
	if (k->release)
		fprintf(out, "  release: %s\n", k->release);
	if (k->panic_message)
		fprintf(out, "  panic: %s\n", k->panic_message);
	if (k->has_panic_cpu)
		fprintf(out, "  cpu: %d\n", k->panic_cpu);
	if (k->has_pid)
		fprintf(out, "  pid: %d%s%s\n", k->pid, k->comm ? " comm: " : "", k->comm ? k->comm : "");
	if (k->taint)
		fprintf(out, "  taint: %s\n", *k->taint ? k->taint : "none");
	if (k->num_log_call_trace) {
		fprintf(out, "  call trace (from the log):\n");
		for (size_t i = 0; i < k->num_log_call_trace; i++)
			fprintf(out, "    %s\n", k->log_call_trace[i]);
	}
	if (k->log) {
		// The tail: the last 20 lines (all with --log).
		const char *p = k->log + strlen(k->log);
		int lines = 0;
		if (!w->o->full_log) {
			while (p > k->log && lines <= 20) {
				p--;
				if (*p == '\n')
					lines++;
			}
			if (*p == '\n')
				p++;
		} else {
			p = k->log;
		}
		fprintf(out, "  log%s:\n", w->o->full_log ? "" : " (tail)");
		for (const char *q = p; *q;) {
			const char *nl = strchr(q, '\n');
			size_t n = nl ? (size_t)(nl - q) : strlen(q);
			fprintf(out, "    %.*s\n", (int)n, q);
			q += n + (nl ? 1 : 0);
		}
	}
}

static void write_registers(const struct out *w, const struct ct_report *r, const struct ct_thread *t)
{
	if (!t->num_registers)
		return;
	int hw = regwidth(r);
	fprintf(w->f, "\n%sRegisters%s\n", c(w, C_BOLD), c(w, C_RESET));
	for (size_t i = 0; i < t->num_registers; i++) {
		fprintf(w->f, "  %-8s 0x%0*" PRIx64 "%s", t->registers[i].name, hw, t->registers[i].value,
			i % 3 == 2 || i + 1 == t->num_registers ? "\n" : "");
	}
}

static void write_disasm(const struct out *w, const struct ct_report *r)
{
	if (!r->num_disasm)
		return;
	fprintf(w->f, "\n%sDisassembly%s\n", c(w, C_BOLD), c(w, C_RESET));
	for (size_t i = 0; i < r->num_disasm; i++) {
		const struct ct_disasm_line *l = &r->disasm[i];
		fprintf(w->f, "  %s 0x%0*" PRIx64 ":  %-24s %s%s%s\n", l->is_pc ? "=>" : "  ", hexwidth(r), l->address,
			l->bytes, l->is_pc ? c(w, C_BOLD) : "", l->text, l->is_pc ? c(w, C_RESET) : "");
	}
}

int ct_write_text(FILE *f, const struct ct_report *r, const struct ct_write_options *o)
{
	struct out w = { f, o };
	write_header(&w, r);
	write_crash(&w, r);
	bool any = false;
	for (size_t i = 0; i < r->num_diagnostics; i++) {
		const struct ct_diagnostic *d = &r->diagnostics[i];
		if (d->severity < CT_SEVERITY_WARNING)
			continue;
		if (!any)
			fprintf(f, "\n%sWarnings%s\n", c(&w, C_BOLD), c(&w, C_RESET));
		any = true;
		fprintf(f, "  %s!%s %s\n", c(&w, C_YELLOW), c(&w, C_RESET), d->message);
	}
	write_kernel(&w, r);
	const struct ct_thread *crashed = ct_report_crashing_thread(r);
	if (crashed) {
		fprintf(f, "\n%s%s %d (crashed)%s\n", c(&w, C_BOLD), r->kernel.present ? "CPU" : "Thread", crashed->tid,
			c(&w, C_RESET));
		write_frames(&w, r, crashed, 0);
	}
	// Other threads, identical stacks grouped.
	bool *done = calloc(r->num_threads ? r->num_threads : 1, sizeof(bool));
	for (size_t i = 0; i < r->num_threads; i++) {
		const struct ct_thread *t = &r->threads[i];
		if (t->crashed || (done && done[i]))
			continue;
		size_t group = 1;
		if (done) {
			for (size_t j = i + 1; j < r->num_threads; j++) {
				if (!r->threads[j].crashed && !done[j] && same_stack(t, &r->threads[j])) {
					done[j] = true;
					group++;
				}
			}
		}
		if (group == 1) {
			fprintf(f, "\n%s%s %d%s\n", c(&w, C_BOLD), r->kernel.present ? "CPU" : "Thread", t->tid,
				c(&w, C_RESET));
		} else {
			fprintf(f, "\n%s%zu threads with this stack: tids %d", c(&w, C_BOLD), group, t->tid);
			size_t listed = 1;
			for (size_t j = i + 1; j < r->num_threads && listed < 16; j++) {
				if (done[j] && same_stack(t, &r->threads[j]) && !r->threads[j].crashed) {
					fprintf(f, ", %d", r->threads[j].tid);
					listed++;
				}
			}
			fprintf(f, "%s%s\n", listed < group ? ", …" : "", c(&w, C_RESET));
		}
		write_frames(&w, r, t, OTHER_THREAD_FRAMES);
	}
	free(done);
	if (crashed) {
		write_registers(&w, r, crashed);
		write_disasm(&w, r);
	}
	bool has_modules = false;
	for (size_t i = 0; i < r->num_modules; i++)
		has_modules |= r->modules[i].build_id_match == 0 || !r->modules[i].file;
	if (has_modules && o->verbose) {
		fprintf(f, "\n%sModules%s\n", c(&w, C_BOLD), c(&w, C_RESET));
		for (size_t i = 0; i < r->num_modules; i++) {
			const struct ct_module *m = &r->modules[i];
			fprintf(f, "  0x%0*" PRIx64 " %s %s%s\n", hexwidth(r), m->base, m->name, m->build_id ? m->build_id : "-",
				m->build_id_match == 0 ? " MISMATCH" : "");
		}
	}
	return ferror(f) ? -1 : 0;
}
