// The text report, for people: the verdict first, then evidence, warnings, the crashing thread,
// the other threads (identical stacks grouped, recursion collapsed), registers and disassembly.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/diag_codes.h"
#include "writers/hang_writers.h"
#include "writers/present.h"
#include "writers/runtime_writers.h"
#include "writers/sanitize.h"
#include "writers/trail_writers.h"
#include "writers/writers.h"

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
	o->sections = CT_SECTIONS_DEFAULT;
}

static bool shows(const struct ct_write_options *o, unsigned section)
{
	return (o->sections & section) != 0;
}

// --thread: whether @p t's stack is shown.
static bool thread_shown(const struct ct_write_options *o, const struct ct_thread *t, bool crashed)
{
	switch (o->show_threads) {
	case CT_SHOW_THREADS_CRASHED: return crashed;
	case CT_SHOW_THREADS_TID: return t->tid == o->show_tid;
	default: return true;
	}
}

// Frames shown of one thread: -n when given, else the writer's own default (0: all).
static size_t frame_limit(const struct ct_write_options *o, size_t writer_default)
{
	if (!o->show_frames)
		return writer_default;
	return writer_default && writer_default < o->show_frames ? writer_default : o->show_frames;
}

struct out {
	FILE *f;
	const struct ct_write_options *o;
};

static const char *c(const struct out *w, const char *code)
{
	return w->o->color ? code : "";
}

// Untrusted text (anything from the dump): escape sequences shown, never sent (sanitize.h).
static void txt(const struct out *w, const char *s)
{
	ct_text_put(w->f, s, CT_TEXT_TERMINAL, SIZE_MAX);
}

// The frame line from its function to its end, the argument list in its own stream @p args.
static void write_frame_parts(const struct out *w, FILE *out, FILE *args, FILE *tail, const struct ct_thread *t,
			      const struct ct_frame *f, bool base_name)
{
	if (f->signal_frame) {
		fprintf(out, "%s<signal handler called>%s", c(w, C_YELLOW), c(w, C_RESET));
		if (f->function) {
			fputs(" in ", out);
			ct_text_put(out, f->function, CT_TEXT_TERMINAL, SIZE_MAX);
		}
	} else if (f->function) {
		fprintf(out, "in %s", c(w, C_CYAN));
		ct_text_put(out, f->function, CT_TEXT_TERMINAL, SIZE_MAX);
		fputs(c(w, C_RESET), out);
		if (!f->inlined)
			fprintf(out, "+0x%" PRIx64, f->offset);
		ct_present_parameters(args, t, f, CT_TEXT_TERMINAL, w->o->value_width);
	} else {
		fprintf(out, "in ??");
	}
	if (f->module) {
		fputs(" (", tail);
		ct_text_put(tail, f->module, CT_TEXT_TERMINAL, SIZE_MAX);
		fputc(')', tail);
	}
	if (f->file) {
		fputs(" at ", tail);
		const char *path = ct_display_path(f->file, w->o), *slash = strrchr(path, '/');
		ct_text_put(tail, base_name && slash ? slash + 1 : path, CT_TEXT_TERMINAL, SIZE_MAX);
		fprintf(tail, ":%d", f->line);
		if (f->column)
			fprintf(tail, ":%d", f->column);
	}
	if (f->name_source)
		fprintf(tail, " %s[names: %s]%s", c(w, C_DIM), f->name_source, c(w, C_RESET));
	if (f->trust != CT_TRUST_CFI && f->trust != CT_TRUST_CONTEXT)
		fprintf(tail, " %s[%s]%s", c(w, C_DIM), ct_trust_to_string(f->trust), c(w, C_RESET));
}

// On a narrow terminal the argument list gives way first, then the source file's directories, so
// that the module and file:line stay.
static void write_frame_fitted(const struct out *w, size_t used, const struct ct_thread *t, const struct ct_frame *f)
{
	char *head = NULL, *args = NULL, *tail = NULL;
	size_t nh = 0, na = 0, nt = 0, fixed = 0;
	for (int base_name = 0; base_name < 2; base_name++) {
		free(head);
		free(args);
		free(tail);
		head = args = tail = NULL;
		FILE *h = open_memstream(&head, &nh), *a = open_memstream(&args, &na), *e = open_memstream(&tail, &nt);
		if (h && a && e)
			write_frame_parts(w, h, a, e, t, f, base_name);
		if (h)
			fclose(h);
		if (a)
			fclose(a);
		if (e)
			fclose(e);
		if (!head || !args || !tail)
			break;
		fixed = used + ct_text_columns(head, nh) + ct_text_columns(tail, nt);
		if (fixed + 8 <= w->o->width)
			break;
	}
	if (head && args && tail) {
		size_t room = w->o->width > fixed + 8 ? w->o->width - fixed : 8;
		fwrite(head, 1, nh, w->f);
		if (ct_text_columns(args, na) > room) {
			ct_text_fit(w->f, args, na, room - 1); // " (n=1, s=…" then the closing ')'
			fputc(')', w->f);
		} else {
			fwrite(args, 1, na, w->f);
		}
		fwrite(tail, 1, nt, w->f);
	}
	free(head);
	free(args);
	free(tail);
}

static void write_frame(const struct out *w, const struct ct_report *r, const struct ct_thread *t,
			const struct ct_frame *f, size_t index)
{
	FILE *out = w->f;
	int hw = ct_present_hex_width(r);
	fprintf(out, "  %s#%-3zu%s ", c(w, C_BOLD), index, c(w, C_RESET));
	if (f->inlined)
		fprintf(out, "%*s ", hw + 2, "[inlined]");
	else
		fprintf(out, "0x%0*" PRIx64 " ", hw, f->pc);
	if (w->o->width) {
		char num[32];
		size_t used = 2 + (size_t)snprintf(num, sizeof(num), "#%-3zu", index) + 1 + (size_t)hw + 3;
		write_frame_fitted(w, used, t, f);
	} else {
		write_frame_parts(w, out, out, out, t, f, false);
	}
	fputc('\n', out);
	ct_text_runtime_frames(out, r, t, index, w->o); // text_runtime.c: the Python frames it ran
	if (w->o->locals)
		ct_present_locals(out, t, f, CT_TEXT_TERMINAL, "        ", w->o->value_width);
}

struct frames_ctx {
	const struct out *w;
	const struct ct_report *r;
	const struct ct_thread *t;
	bool source; /**< the crashing thread: its frames show their source lines (--source) */
};

// --source: the frame's line and its neighbours, as gdb's frame command shows the line.
static void write_source(const struct out *w, const struct ct_frame *f)
{
	const struct ct_source_lines *src = w->o->source;
	if (!src || !f->file || f->line <= 0)
		return;
	int n = (int)w->o->source_context;
	int first = f->line > n ? f->line - n : 1;
	for (int l = first; l <= f->line + n; l++) {
		const char *text = src->line(src->ctx, f->file, l);
		if (!text) {
			if (l >= f->line)
				break;
			continue;
		}
		fprintf(w->f, "       %s%s%6d  ", l == f->line ? c(w, C_BOLD) : c(w, C_DIM), l == f->line ? ">" : " ", l);
		txt(w, text);
		fprintf(w->f, "%s\n", c(w, C_RESET));
	}
}

static void on_frame(void *ctx, const struct ct_frame *f, size_t index)
{
	struct frames_ctx *x = ctx;
	write_frame(x->w, x->r, x->t, f, index);
	if (x->source)
		write_source(x->w, f);
}

static void on_repeat(void *ctx, size_t from, size_t to, size_t period, size_t more)
{
	const struct out *w = ((struct frames_ctx *)ctx)->w;
	fprintf(w->f, "  %s#%zu–#%zu: the %zu frame%s above repeat%s %zu more times (recursion)%s\n", c(w, C_YELLOW),
		from, to, period, period == 1 ? "" : "s", period == 1 ? "s" : "", more, c(w, C_RESET));
}

static void on_more(void *ctx, size_t remaining)
{
	fprintf(((struct frames_ctx *)ctx)->w->f, "  … %zu more frames\n", remaining);
}

static void write_frames(const struct out *w, const struct ct_report *r, const struct ct_thread *t, size_t limit)
{
	static const struct ct_frame_walk_ops ops = { on_frame, on_repeat, on_more };
	struct frames_ctx x = { w, r, t, t == ct_report_crashing_thread(r) && w->o->source };
	ct_present_frames(t, w->o->collapse_min, limit, &ops, &x);
	char stop_buf[CT_STOP_TEXT_MAX];
	const char *stop = ct_stop_render(&t->stop, stop_buf, sizeof(stop_buf));
	if (stop && t->truncated) {
		fprintf(w->f, "  %s(unwinding stopped: ", c(w, C_YELLOW));
		txt(w, stop);
		fprintf(w->f, ")%s\n", c(w, C_RESET));
	}
	ct_text_runtime_stack(w->f, r, t, w->o); // text_runtime.c
}

static void write_header(const struct out *w, const struct ct_report *r)
{
	FILE *out = w->f;
	fputs(c(w, C_BOLD), out);
	if (r->process.command) {
		txt(w, r->process.command);
	} else if (r->kernel.present) {
		fputs("Linux ", out);
		txt(w, r->kernel.release ? r->kernel.release : "kernel");
	} else {
		fputs("process", out);
	}
	if (r->process.has_pid)
		fprintf(out, " (pid %d)", r->process.pid);
	fputs(c(w, C_RESET), out);
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
		for (size_t i = 0; i < r->process.num_args; i++) {
			fputc(' ', out);
			txt(w, r->process.args[i]);
		}
		fputc('\n', out);
	}
	fputs("  dump: ", out);
	txt(w, ct_display_path(r->input.core, w->o));
	fputs(" (", out);
	txt(w, r->input.kind ? r->input.kind : "?");
	fputs(", ", out);
	txt(w, r->input.arch ? r->input.arch : "?");
	fputs(")\n", out);
	if (r->live.present) {
		// How long the live process was held: the cost of looking, which a user wants to know.
		fprintf(out, "  live: %zu threads stopped for %.1f ms, %.1f MiB copied", r->live.threads, r->live.stopped_ms,
			(double)r->live.bytes_copied / (1 << 20));
		if (r->live.gcore) {
			fputs("; core written to ", out);
			txt(w, ct_display_path(r->live.gcore, w->o));
		}
		fputc('\n', out);
	} else {
		// A live process did not crash: there is no crash time to tell.
		ct_text_write_crash_time(out, r);
	}
}

// "  label: TEXT\n" with TEXT untrusted.
static void line(const struct out *w, const char *label, const char *text)
{
	fputs(label, w->f);
	txt(w, text);
	fputc('\n', w->f);
}

// A sentence of the verdict (summary, evidence, warnings): on a terminal folded at spaces under
// its label rather than cut, because every word of it is the point.
static void prose(const struct out *w, const char *label, const char *text)
{
	if (!w->o->width) {
		line(w, label, text);
		return;
	}
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (!m) {
		line(w, label, text);
		return;
	}
	ct_text_put(m, text, CT_TEXT_TERMINAL, SIZE_MAX);
	fclose(m);
	fputs(label, w->f);
	ct_text_fold(w->f, buf, n, w->o->width, ct_text_columns(label, strlen(label)), 4);
	fputc('\n', w->f);
	free(buf);
}

static void write_crash(const struct out *w, const struct ct_report *r)
{
	FILE *out = w->f;
	const struct ct_crash *cr = &r->crash;
	fprintf(out, "\n%sCrash: %s", c(w, C_BOLD), c(w, C_RED));
	txt(w, ct_class_to_string(cr->cls));
	fputs(c(w, C_RESET), out);
	if (cr->subclass) {
		fputs(" (", out);
		txt(w, cr->subclass);
		fputc(')', out);
	}
	line(w, ", confidence ", ct_confidence_to_string(cr->confidence));
	if (cr->summary)
		prose(w, "  ", cr->summary);
	const struct ct_thread *t = ct_report_crashing_thread(r);
	if (t && cr->blame_frame >= 0 && (size_t)cr->blame_frame < t->num_frames) {
		const struct ct_frame *f = &t->frames[cr->blame_frame];
		fprintf(out, "  blame: #%ld ", cr->blame_frame);
		txt(w, f->function ? f->function : "??");
		if (f->file) {
			fputs(" at ", out);
			txt(w, ct_display_path(f->file, w->o));
			fprintf(out, ":%d", f->line);
		}
		fputc('\n', out);
	}
	if (cr->has_instruction) {
		fprintf(out, "  instruction: 0x%" PRIx64 ": ", cr->instruction_address);
		line(w, "", cr->instruction_text);
	}
	for (size_t i = 0; i < cr->num_evidence; i++)
		prose(w, "  - ", cr->evidence[i]);
	if (r->abort_message.present)
		prose(w, "  abort message: ", r->abort_message.text);
}

// The root cause (docs/root-cause.md): the sentence, then each step from the fault backwards.
static void write_root_cause(const struct out *w, const struct ct_report *r)
{
	const struct ct_root_cause *rc = &r->root_cause;
	FILE *out = w->f;
	if (!rc->present)
		return;
	fprintf(out, "\n%sRoot cause:%s ", c(w, C_BOLD), c(w, C_RESET));
	line(w, "", rc->summary);
	int hw = ct_present_hex_width(r);
	for (size_t i = 0; i < rc->num_steps; i++) {
		const struct ct_root_step *st = &rc->steps[i];
		fprintf(out, "  #%-3ld %-9s ", st->frame, ct_root_step_kind_to_string(st->kind));
		if (st->object) {
			fputc('`', out);
			txt(w, st->object);
			fputs("` by ", out);
		}
		if (st->expression)
			txt(w, st->expression);
		if (st->function && st->kind != CT_ROOT_STEP_RETURN_OF) {
			fputs(st->expression ? " in " : "in ", out);
			txt(w, st->function);
		}
		fprintf(out, " at 0x%0*" PRIx64, hw, st->pc);
		if (st->file) {
			fputs(" (", out);
			txt(w, ct_display_path(st->file, w->o));
			fprintf(out, ":%d)", st->line);
		}
		if (st->has_value)
			fprintf(out, " = 0x%" PRIx64, st->value);
		if (st->has_index && st->array) {
			fprintf(out, ", index %" PRId64 " into ", st->index);
			txt(w, st->array);
			if (st->dimension)
				fprintf(out, " (dimension %d)", st->dimension);
		}
		if (st->has_address) {
			fprintf(out, " from 0x%0*" PRIx64, hw, st->address);
			if (st->memory) {
				fputs(" (", out);
				txt(w, st->memory);
				fputc(')', out);
			}
			if (st->has_holds)
				fprintf(out, ", holding 0x%" PRIx64 " now", st->holds);
		}
		if (st->reason) {
			fputs(": ", out);
			txt(w, st->reason);
		}
		if (st->object_reason) {
			fputs(" (object not named: ", out);
			txt(w, st->object_reason);
			fputc(')', out);
		}
		fputc('\n', out);
	}
}

// The glibc heap around the crash's pointer (docs/root-cause.md).
static void write_heap(const struct out *w, const struct ct_report *r)
{
	const struct ct_heap_state *h = &r->heap;
	FILE *out = w->f;
	if (!h->present)
		return;
	fprintf(out, "\n%sHeap:%s glibc ", c(w, C_BOLD), c(w, C_RESET));
	txt(w, h->glibc);
	fputs(", ", out);
	txt(w, h->role);
	fprintf(out, " 0x%" PRIx64 ": chunk 0x%" PRIx64 ", size 0x%" PRIx64 ", %s", h->pointer, h->chunk_address,
		h->chunk_size, h->chunk_free ? "free" : "in use");
	if (h->has_bin)
		fprintf(out, ", in %s %u (entry %u of %u)", ct_heap_bin_kind_to_string(h->bin), h->bin_index,
			h->bin_position + 1, h->bin_count);
	fputc('\n', out);
	for (size_t i = 0; i < h->num_neighbours; i++) {
		const struct ct_heap_neighbour *n = &h->neighbours[i];
		fprintf(out, "  %s chunk 0x%" PRIx64 ", size 0x%" PRIx64, n->which, n->address, n->size);
		if (n->has_prev_inuse)
			fprintf(out, ", PREV_INUSE %s", n->prev_inuse ? "set" : "clear");
		fputc('\n', out);
	}
}

static void write_kernel(const struct out *w, const struct ct_report *r)
{
	const struct ct_kernel *k = &r->kernel;
	if (!k->present)
		return;
	FILE *out = w->f;
	fprintf(out, "\n%sKernel%s\n", c(w, C_BOLD), c(w, C_RESET));
	if (k->release)
		line(w, "  release: ", k->release);
	if (k->panic_message)
		line(w, "  panic: ", k->panic_message);
	if (k->has_panic_cpu)
		fprintf(out, "  cpu: %d\n", k->panic_cpu);
	if (k->has_pid) {
		fprintf(out, "  pid: %d", k->pid);
		if (k->comm)
			fputs(" comm: ", out);
		line(w, "", k->comm);
	}
	if (k->taint)
		line(w, "  taint: ", *k->taint ? k->taint : "none");
	if (k->num_log_call_trace) {
		fprintf(out, "  call trace (from the log):\n");
		for (size_t i = 0; i < k->num_log_call_trace; i++)
			line(w, "    ", k->log_call_trace[i]);
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
			fputs("    ", out);
			// The line without its newline: a NUL-free slice of the log.
			const char *e = q + n;
			char piece[CT_TEXT_PIECE_MAX];
			while (q < e) {
				size_t m = ct_text_next(&q, CT_TEXT_TERMINAL, piece);
				fwrite(piece, 1, m, out);
			}
			fputc('\n', out);
			q = e + (nl ? 1 : 0);
		}
	}
}

static void write_registers(const struct out *w, const struct ct_report *r, const struct ct_thread *t)
{
	if (!t->num_registers)
		return;
	// Registers can be wider than pointers (x32).
	int hw = r->input.register_size ? 2 * (int)r->input.register_size : ct_present_hex_width(r);
	fprintf(w->f, "\n%sRegisters%s\n", c(w, C_BOLD), c(w, C_RESET));
	// Three a line, fewer when the terminal is narrower than that.
	size_t per_line = 3, cell = 2 + 8 + 1 + 2 + (size_t)hw;
	if (w->o->width && w->o->width < per_line * cell)
		per_line = w->o->width / cell ? w->o->width / cell : 1;
	for (size_t i = 0; i < t->num_registers; i++) {
		char name[64];
		ct_text_format(name, sizeof(name), t->registers[i].name, CT_TEXT_TERMINAL, SIZE_MAX);
		fprintf(w->f, "  %-8s 0x%0*" PRIx64 "%s", name, hw, t->registers[i].value,
			i % per_line == per_line - 1 || i + 1 == t->num_registers ? "\n" : "");
	}
}

static void write_disasm(const struct out *w, const struct ct_report *r)
{
	if (!r->num_disasm)
		return;
	fprintf(w->f, "\n%sDisassembly%s\n", c(w, C_BOLD), c(w, C_RESET));
	for (size_t i = 0; i < r->num_disasm; i++) {
		const struct ct_disasm_line *l = &r->disasm[i];
		char bytes[128];
		ct_text_format(bytes, sizeof(bytes), l->bytes, CT_TEXT_TERMINAL, SIZE_MAX);
		fprintf(w->f, "  %s 0x%0*" PRIx64 ":  %-24s %s", l->is_pc ? "=>" : "  ", ct_present_hex_width(r),
			l->address, bytes, l->is_pc ? c(w, C_BOLD) : "");
		txt(w, l->text);
		fprintf(w->f, "%s\n", l->is_pc ? c(w, C_RESET) : "");
	}
}

static void write_thread_title(const struct out *w, const struct ct_report *r, const struct ct_thread_groups *g,
			       size_t gi)
{
	FILE *f = w->f;
	size_t group = ct_thread_group_size(g, gi);
	const struct ct_thread *t = &r->threads[ct_thread_group_member(g, gi, 0)];
	if (group == 1) {
		fprintf(f, "\n%s%s %d%s\n", c(w, C_BOLD), r->kernel.present ? "CPU" : "Thread", t->tid, c(w, C_RESET));
		ct_text_thread_wait(f, t); // text_hang.c
		return;
	}
	fprintf(f, "\n%s%zu threads with this stack: tids %d", c(w, C_BOLD), group, t->tid);
	size_t listed = 1;
	for (; listed < group && listed < 16; listed++)
		fprintf(f, ", %d", r->threads[ct_thread_group_member(g, gi, listed)].tid);
	fprintf(f, "%s%s\n", listed < group ? ", …" : "", c(w, C_RESET));
}

/* True when a warning says that the dump's task list was not read whole (tasks.c). */
static bool tasks_incomplete(const struct ct_report *r)
{
	static const enum ct_diag_code cut[] = { CT_DIAG_TASK_LIST_CUT, CT_DIAG_TASK_UNREADABLE, CT_DIAG_TASK_CAP,
						 CT_DIAG_BUDGET_NODES };
	for (size_t i = 0; i < r->diagnostics.count; i++) {
		enum ct_diag_code code;
		if (!ct_diag_code_from_string(r->diagnostics.items[i].code, &code))
			continue;
		for (size_t j = 0; j < sizeof(cut) / sizeof(cut[0]); j++) {
			if (code == cut[j])
				return true;
		}
	}
	return false;
}

/* Kernel tasks: the ps-like table, then each distinct sleeping stack once with the tasks that share it. */
static void write_tasks(const struct out *w, const struct ct_report *r)
{
	const struct ct_kernel *k = &r->kernel;
	FILE *f = w->f;
	if (!k->num_tasks && !k->tasks_all)
		return;
	// "N of M" counts the tasks read; a list not read whole must not look complete.
	fprintf(f, "\n%s%s%s (%zu of %zu tasks%s)\n", c(w, C_BOLD), k->tasks_all ? "Tasks" : "Tasks in D state (uninterruptible)",
		c(w, C_RESET), k->num_tasks, k->num_tasks_total,
		tasks_incomplete(r) ? " read; the task list is incomplete, see the warnings" : "");
	fprintf(f, "     PID    PPID  CPU ST COMM             WCHAN\n");
	for (size_t i = 0; i < k->num_tasks; i++) {
		const struct ct_kernel_task *t = &k->tasks[i];
		fprintf(f, "  %s%6d  %6d  %3d %c  ", t->on_cpu ? ">" : " ", t->pid, t->ppid, t->cpu, t->state);
		txt(w, t->comm ? t->comm : "?");
		fprintf(f, "%*s", t->comm && strlen(t->comm) < 16 ? (int)(17 - strlen(t->comm)) : 1, "");
		txt(w, t->wchan ? t->wchan : "-");
		fputc('\n', f);
	}
	struct ct_thread_groups g;
	ct_task_groups_init(&g, r);
	for (size_t gi = 0; gi < g.num_groups; gi++) {
		size_t n = ct_thread_group_size(&g, gi);
		if (!n)
			continue;
		const struct ct_kernel_task *t = &k->tasks[ct_thread_group_member(&g, gi, 0)];
		if (!t->stack.num_frames)
			continue; // running tasks: their CPU's thread above has the stack
		fprintf(f, "\n%s%s %d (", c(w, C_BOLD), n > 1 ? "Tasks" : "Task", t->pid);
		txt(w, t->comm ? t->comm : "?");
		fprintf(f, ", %c)", t->state);
		size_t listed = 1;
		for (; listed < n && listed < 16; listed++) {
			const struct ct_kernel_task *u = &k->tasks[ct_thread_group_member(&g, gi, listed)];
			fprintf(f, ", %d (", u->pid);
			txt(w, u->comm ? u->comm : "?");
			fputc(')', f);
		}
		if (n > 1)
			fprintf(f, "%s: %zu tasks with this stack", listed < n ? ", …" : "", n);
		fprintf(f, "%s\n", c(w, C_RESET));
		write_frames(w, r, &t->stack, frame_limit(w->o, OTHER_THREAD_FRAMES));
	}
	ct_thread_groups_deinit(&g);
}

// The report itself; ct_write_text() fits it to the terminal.
static void write_text(FILE *f, const struct ct_report *r, const struct ct_write_options *o)
{
	struct out w = { f, o };
	if (shows(o, CT_SECTION_VERDICT)) {
		write_header(&w, r);
		write_crash(&w, r);
		write_root_cause(&w, r);
		write_heap(&w, r);
	}
	bool any = false;
	for (size_t i = 0; shows(o, CT_SECTION_WARNINGS) && i < r->diagnostics.count; i++) {
		const struct ct_diagnostic *d = &r->diagnostics.items[i];
		if (d->severity < CT_SEVERITY_WARNING)
			continue;
		if (!any)
			fprintf(f, "\n%sWarnings%s\n", c(&w, C_BOLD), c(&w, C_RESET));
		any = true;
		fprintf(f, "  %s!%s", c(&w, C_YELLOW), c(&w, C_RESET));
		prose(&w, " ", d->message);
	}
	if (shows(o, CT_SECTION_KERNEL))
		write_kernel(&w, r);
	if (shows(o, CT_SECTION_HANG))
		ct_text_hang(f, r, o); // text_hang.c: who waits for whom
	const struct ct_thread *crashed = ct_report_crashing_thread(r);
	if (crashed && shows(o, CT_SECTION_STACKS) && thread_shown(o, crashed, true)) {
		fprintf(f, "\n%s%s %d (crashed)%s\n", c(&w, C_BOLD), r->kernel.present ? "CPU" : "Thread", crashed->tid,
			c(&w, C_RESET));
		ct_text_thread_wait(f, crashed);
		write_frames(&w, r, crashed, frame_limit(o, 0));
	}
	// Other threads, identical stacks grouped.
	struct ct_thread_groups g;
	ct_thread_groups_init(&g, r);
	for (size_t gi = 0; shows(o, CT_SECTION_STACKS) && gi < g.num_groups; gi++) {
		size_t n = ct_thread_group_size(&g, gi);
		if (!n)
			continue;
		// --thread=TID shows the group holding that thread.
		bool shown = false;
		for (size_t k = 0; k < n && !shown; k++)
			shown = thread_shown(o, &r->threads[ct_thread_group_member(&g, gi, k)], false);
		if (!shown)
			continue;
		write_thread_title(&w, r, &g, gi);
		write_frames(&w, r, &r->threads[ct_thread_group_member(&g, gi, 0)], frame_limit(o, OTHER_THREAD_FRAMES));
	}
	ct_thread_groups_deinit(&g);
	if (shows(o, CT_SECTION_STACKS))
		ct_text_goroutines(f, r, o); // text_go.c
	if (shows(o, CT_SECTION_TRAIL))
		ct_text_write_trail(f, r, o);
	if (shows(o, CT_SECTION_TASKS))
		write_tasks(&w, r);
	if (crashed && shows(o, CT_SECTION_REGISTERS))
		write_registers(&w, r, crashed);
	if (crashed && shows(o, CT_SECTION_DISASSEMBLY))
		write_disasm(&w, r);
	bool has_modules = false;
	for (size_t i = 0; i < r->num_modules; i++)
		has_modules |= r->modules[i].build_id_match == 0 || !r->modules[i].file;
	if (has_modules && shows(o, CT_SECTION_MODULES)) {
		fprintf(f, "\n%sModules%s\n", c(&w, C_BOLD), c(&w, C_RESET));
		for (size_t i = 0; i < r->num_modules; i++) {
			const struct ct_module *m = &r->modules[i];
			fprintf(f, "  0x%0*" PRIx64 " ", ct_present_hex_width(r), m->base);
			txt(&w, m->name);
			fputc(' ', f);
			txt(&w, m->build_id ? m->build_id : "-");
			fprintf(f, "%s\n", m->build_id_match == 0 ? " MISMATCH" : "");
		}
	}
}

int ct_write_text(FILE *f, const struct ct_report *r, const struct ct_write_options *o)
{
	if (!o->width) {
		write_text(f, r, o);
		return ferror(f) ? -1 : 0;
	}
	// A terminal of o->width columns: the report goes through memory, each line cut to fit.
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return -1;
	write_text(mem, r, o);
	bool ok = !ferror(mem);
	if (fclose(mem) != 0)
		ok = false;
	if (ok)
		ct_text_fit(f, buf, len, o->width);
	free(buf);
	return ok && !ferror(f) ? 0 : -1;
}
