// The JSON report (docs/json-report.md, schema version 1). The small sections are built with
// jansson and written one by one; the threads and their frames, which can be a million frames, go
// through the streaming emitter of json_emit.h instead (no tree, no allocation per frame, escaped
// text of repeated function/module/file strings cached). Both produce the same bytes for the same
// values: jansson's compact separators inside a section, one escaping rule (json_emit.h).
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "writers/hang_writers.h"
#include "writers/runtime_writers.h"
#include "writers/json_emit.h"
#include "writers/json_text.h"
#include "writers/trail_writers.h"
#include "writers/writers.h"

static json_t *hex(uint64_t v)
{
	char buf[19];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

json_t *ct_json_text(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	char *copy = ct_text_dup(s, CT_TEXT_UTF8);
	if (!copy)
		return json_null();
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

static json_t *str(const char *s)
{
	return ct_json_text(s);
}

static const char *path(const char *p, const struct ct_write_options *o)
{
	return ct_display_path(p, o);
}

static json_t *detail_value(const struct ct_detail *d)
{
	switch (d->kind) {
	case CT_VALUE_STRING: return str(d->string);
	case CT_VALUE_INT: return json_integer(d->integer);
	case CT_VALUE_ADDRESS: return hex(d->address);
	case CT_VALUE_BOOL: return json_boolean(d->integer);
	}
	return json_null();
}

static int dump(FILE *out, json_t *j, bool compact)
{
	// Sections are compact in both modes: only the top level and the threads are laid out on lines.
	(void)compact;
	int r = json_dumpf(j, out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(j);
	return r;
}

struct writer {
	FILE *out;
	bool compact, first;
	const struct ct_write_options *o;
	struct ct_json_emit emit;
};

static void key(struct writer *w, const char *k)
{
	fprintf(w->out, "%s%s\"%s\": ", w->first ? "" : ",", w->compact ? "" : "\n  ", k);
	w->first = false;
}

static void field(struct writer *w, const char *k, json_t *v)
{
	key(w, k);
	dump(w->out, v, w->compact);
}

// The root cause (docs/root-cause.md), null when the walk did not run.
static json_t *root_cause_json(const struct ct_report *r, const struct ct_write_options *o)
{
	const struct ct_root_cause *rc = &r->root_cause;
	if (!rc->present)
		return json_null();
	json_t *j = json_object();
	json_object_set_new(j, "summary", str(rc->summary));
	json_t *steps = json_array();
	for (size_t i = 0; i < rc->num_steps; i++) {
		const struct ct_root_step *st = &rc->steps[i];
		json_t *s = json_object();
		json_object_set_new(s, "frame", json_integer(st->frame));
		json_object_set_new(s, "pc", hex(st->pc));
		json_object_set_new(s, "file", str(path(st->file, o)));
		json_object_set_new(s, "line", st->line ? json_integer(st->line) : json_null());
		json_object_set_new(s, "kind", str(ct_root_step_kind_to_string(st->kind)));
		json_object_set_new(s, "expression", str(st->expression));
		json_object_set_new(s, "value", st->has_value ? hex(st->value) : json_null());
		json_object_set_new(s, "function", str(st->function));
		json_object_set_new(s, "reason", str(st->reason));
		json_object_set_new(s, "address", st->has_address ? hex(st->address) : json_null());
		json_object_set_new(s, "memory", str(st->memory));
		// Optional (added in schema 1): only a load-from step whose object DWARF names.
		if (st->object)
			json_object_set_new(s, "object", str(st->object));
		// Optional (schema 1, additive): why a load through loaded pointers is not named; a bad
		// index's element and the array with its DWARF bound.
		if (st->object_reason)
			json_object_set_new(s, "object_reason", str(st->object_reason));
		// Optional (schema 1, additive): what the load's address holds in the dump now.
		if (st->has_holds)
			json_object_set_new(s, "holds", hex(st->holds));
		if (st->has_index && st->array) {
			json_object_set_new(s, "index", json_integer(st->index));
			json_object_set_new(s, "array", str(st->array));
			// Optional (schema 1, additive): the subscript of a multi-dimensional array.
			if (st->dimension)
				json_object_set_new(s, "dimension", json_integer(st->dimension));
		}
		json_array_append_new(steps, s);
	}
	json_object_set_new(j, "steps", steps);
	return j;
}

// A heap overflow: the overrun chunk, the overwritten header, the bytes past the chunk's end.
static json_t *heap_overflow_json(const struct ct_heap_overflow *o)
{
	if (!o->present)
		return json_null();
	json_t *j = json_object(), *chunk = json_object();
	json_object_set_new(chunk, "address", hex(o->chunk_address));
	json_object_set_new(chunk, "size", hex(o->chunk_size));
	json_object_set_new(j, "chunk", chunk);
	json_object_set_new(j, "header", hex(o->header_address));
	json_object_set_new(j, "header_size", hex(o->header_size));
	char bytes[2 * CT_HEAP_OVERFLOW_BYTES + 1] = "";
	for (size_t i = 0; i < o->num_bytes; i++)
		snprintf(bytes + 2 * i, 3, "%02x", o->bytes[i]);
	json_object_set_new(j, "bytes_past_end", json_string(bytes));
	json_object_set_new(j, "owner", str(o->owner));
	return j;
}

// A tcache or fastbin entry that is not a chunk.
static json_t *heap_poison_json(const struct ct_heap_poison *p)
{
	if (!p->present)
		return json_null();
	json_t *j = json_object();
	json_object_set_new(j, "bin", str(ct_heap_bin_kind_to_string(p->bin)));
	json_object_set_new(j, "index", json_integer(p->index));
	json_object_set_new(j, "position", json_integer(p->position));
	json_object_set_new(j, "pointer", hex(p->pointer));
	json_object_set_new(j, "source", p->has_source ? hex(p->source) : json_null());
	json_object_set_new(j, "reason", str(p->reason));
	return j;
}

// The glibc heap state (docs/root-cause.md), null when not analyzed.
static json_t *heap_json(const struct ct_report *r)
{
	const struct ct_heap_state *h = &r->heap;
	if (!h->present)
		return json_null();
	json_t *j = json_object(), *chunk = json_object();
	json_object_set_new(j, "pointer", hex(h->pointer));
	json_object_set_new(j, "role", str(h->role));
	json_object_set_new(chunk, "address", hex(h->chunk_address));
	json_object_set_new(chunk, "size", hex(h->chunk_size));
	json_object_set_new(chunk, "state", json_string(h->chunk_free ? "free" : "in-use"));
	json_object_set_new(j, "chunk", chunk);
	if (h->has_bin) {
		json_t *bin = json_object();
		json_object_set_new(bin, "kind", str(ct_heap_bin_kind_to_string(h->bin)));
		json_object_set_new(bin, "index", json_integer(h->bin_index));
		json_object_set_new(bin, "count", json_integer(h->bin_count));
		json_object_set_new(bin, "position", json_integer(h->bin_position));
		json_object_set_new(j, "bin", bin);
	} else {
		json_object_set_new(j, "bin", json_null());
	}
	json_t *ns = json_array();
	for (size_t i = 0; i < h->num_neighbours; i++) {
		const struct ct_heap_neighbour *n = &h->neighbours[i];
		json_t *nj = json_object();
		json_object_set_new(nj, "which", str(n->which));
		json_object_set_new(nj, "address", hex(n->address));
		json_object_set_new(nj, "size", hex(n->size));
		json_object_set_new(nj, "prev_inuse", n->has_prev_inuse ? json_boolean(n->prev_inuse) : json_null());
		json_array_append_new(ns, nj);
	}
	json_object_set_new(j, "neighbours", ns);
	json_object_set_new(j, "glibc", str(h->glibc));
	json_object_set_new(j, "overflow", heap_overflow_json(&h->overflow));
	json_object_set_new(j, "poisoned", heap_poison_json(&h->poison));
	return j;
}

static json_t *crash_json(const struct ct_report *r)
{
	const struct ct_crash *c = &r->crash;
	json_t *j = json_object();
	json_object_set_new(j, "class", str(ct_class_to_string(c->cls)));
	if (c->subclass)
		json_object_set_new(j, "subclass", str(c->subclass));
	json_object_set_new(j, "confidence", str(ct_confidence_to_string(c->confidence)));
	json_object_set_new(j, "summary", str(c->summary));
	json_object_set_new(j, "access", str(ct_access_to_string(c->access)));
	json_object_set_new(j, "address", c->has_address ? hex(c->address) : json_null());
	if (c->has_address_kind)
		json_object_set_new(j, "address_kind", str(ct_address_kind_to_string(c->address_kind)));
	json_t *ev = json_array();
	for (size_t i = 0; i < c->num_evidence; i++)
		json_array_append_new(ev, str(c->evidence[i]));
	json_object_set_new(j, "evidence", ev);
	if (c->has_instruction) {
		json_t *insn = json_object();
		json_object_set_new(insn, "address", hex(c->instruction_address));
		json_object_set_new(insn, "text", str(c->instruction_text));
		json_object_set_new(j, "instruction", insn);
	} else {
		json_object_set_new(j, "instruction", json_null());
	}
	json_object_set_new(j, "blame_frame", c->blame_frame >= 0 ? json_integer(c->blame_frame) : json_null());
	json_t *details = json_object();
	for (size_t i = 0; i < c->num_details; i++)
		json_object_set_new(details, c->details[i].key, detail_value(&c->details[i]));
	json_object_set_new(j, "details", details);
	return j;
}

// kernel.tasks: one object per task, its frames in the thread frame shape less file/line details.
static json_t *tasks_json(const struct ct_report *r)
{
	const struct ct_kernel *k = &r->kernel;
	json_t *a = json_array();
	for (size_t i = 0; i < k->num_tasks; i++) {
		const struct ct_kernel_task *t = &k->tasks[i];
		json_t *j = json_object();
		char st[2] = { t->state, '\0' };
		json_object_set_new(j, "pid", json_integer(t->pid));
		json_object_set_new(j, "tgid", json_integer(t->tgid));
		json_object_set_new(j, "ppid", json_integer(t->ppid));
		json_object_set_new(j, "comm", str(t->comm));
		json_object_set_new(j, "state", str(st));
		json_object_set_new(j, "cpu", json_integer(t->cpu));
		json_object_set_new(j, "on_cpu", json_boolean(t->on_cpu));
		json_object_set_new(j, "task", hex(t->address));
		json_object_set_new(j, "wchan", str(t->wchan));
		char stop_buf[CT_STOP_TEXT_MAX];
		json_object_set_new(j, "stop_reason", str(ct_stop_render(&t->stack.stop, stop_buf, sizeof(stop_buf))));
		json_t *frames = json_array();
		for (size_t f = 0; f < t->stack.num_frames; f++) {
			const struct ct_frame *fr = &t->stack.frames[f];
			json_t *o = json_object();
			json_object_set_new(o, "index", json_integer((json_int_t)f));
			json_object_set_new(o, "pc", hex(fr->pc));
			json_object_set_new(o, "function", str(fr->function));
			json_object_set_new(o, "offset", fr->function ? hex(fr->offset) : json_null());
			json_object_set_new(o, "module", str(fr->module));
			json_object_set_new(o, "file", str(fr->file));
			json_object_set_new(o, "line", fr->line ? json_integer(fr->line) : json_null());
			json_object_set_new(o, "trust", str(ct_trust_to_string(fr->trust)));
			if (fr->has_sp)
				json_object_set_new(o, "sp", hex(fr->sp));
			json_array_append_new(frames, o);
		}
		json_object_set_new(j, "frames", frames);
		json_array_append_new(a, j);
	}
	return a;
}

static json_t *kernel_json(const struct ct_report *r)
{
	const struct ct_kernel *k = &r->kernel;
	json_t *j = json_object();
	json_object_set_new(j, "release", str(k->release));
	json_object_set_new(j, "build_id", str(k->build_id));
	json_object_set_new(j, "machine", str(k->machine));
	json_object_set_new(j, "page_size", k->has_page_size ? json_integer((json_int_t)k->page_size) : json_null());
	json_object_set_new(j, "crash_time", k->has_crash_time ? json_integer(k->crash_time) : json_null());
	json_object_set_new(j, "kaslr_offset", k->has_kaslr_offset ? hex(k->kaslr_offset) : json_null());
	json_object_set_new(j, "panic_message", str(k->panic_message));
	json_object_set_new(j, "taint", str(k->taint));
	json_object_set_new(j, "panic_cpu", k->has_panic_cpu ? json_integer(k->panic_cpu) : json_null());
	json_object_set_new(j, "pid", k->has_pid ? json_integer(k->pid) : json_null());
	json_object_set_new(j, "comm", str(k->comm));
	json_object_set_new(j, "uptime", k->has_uptime ? json_real(k->uptime) : json_null());
	json_t *ct = json_array();
	for (size_t i = 0; i < k->num_log_call_trace; i++)
		json_array_append_new(ct, str(k->log_call_trace[i]));
	json_object_set_new(j, "log_call_trace", ct);
	json_t *mods = json_array();
	for (size_t i = 0; i < k->num_modules_linked_in; i++)
		json_array_append_new(mods, str(k->modules_linked_in[i]));
	json_object_set_new(j, "modules_linked_in", mods);
	json_object_set_new(j, "log", str(k->log));
	if (k->num_tasks || k->num_tasks_total) {
		json_object_set_new(j, "tasks_listed", json_string(k->tasks_all ? "all" : "D-state"));
		json_object_set_new(j, "tasks_total", json_integer((json_int_t)k->num_tasks_total));
		json_object_set_new(j, "tasks", tasks_json(r));
	}
	return j;
}

// [{"name", "type", "value"[, "optimized_out": true][, "entry_value"]}, …] of @p n variables.
static void write_variables(struct ct_json_emit *e, const struct ct_thread *t, size_t first, size_t n)
{
	ct_json_emit_char(e, '[');
	for (size_t i = 0; i < n && first + i < t->num_variables; i++) {
		const struct ct_variable *v = &t->variables[first + i];
		if (i)
			ct_json_emit_char(e, ',');
		ct_json_emit_lit(e, "{\"name\":");
		ct_json_emit_string_cached(e, v->name);
		ct_json_emit_lit(e, ",\"type\":");
		ct_json_emit_string_cached(e, v->type);
		ct_json_emit_lit(e, ",\"value\":");
		ct_json_emit_string(e, v->value);
		if (v->optimized_out)
			ct_json_emit_lit(e, ",\"optimized_out\":true");
		if (v->entry_value) {
			ct_json_emit_lit(e, ",\"entry_value\":");
			ct_json_emit_string(e, v->entry_value);
		}
		ct_json_emit_char(e, '}');
	}
	ct_json_emit_char(e, ']');
}

// One frame, as jansson's compact dump of {"index", "pc", "function", "offset", "module", "file",
// "line", "column", "inlined", "trust"[, "signal_frame"][, "sp"]} wrote it.
static void write_frame(struct ct_json_emit *e, const struct ct_thread *t, const struct ct_frame *f, size_t index,
			const struct ct_write_options *o)
{
	ct_json_emit_lit(e, "{\"index\":");
	ct_json_emit_int(e, (long long)index);
	ct_json_emit_lit(e, ",\"pc\":");
	ct_json_emit_hex(e, f->pc);
	ct_json_emit_lit(e, ",\"function\":");
	ct_json_emit_string_cached(e, f->function);
	ct_json_emit_lit(e, ",\"offset\":");
	if (f->function)
		ct_json_emit_hex(e, f->offset);
	else
		ct_json_emit_lit(e, "null");
	ct_json_emit_lit(e, ",\"module\":");
	ct_json_emit_string_cached(e, f->module);
	ct_json_emit_lit(e, ",\"file\":");
	ct_json_emit_string_cached(e, path(f->file, o));
	ct_json_emit_lit(e, ",\"line\":");
	if (f->line)
		ct_json_emit_int(e, f->line);
	else
		ct_json_emit_lit(e, "null");
	ct_json_emit_lit(e, ",\"column\":");
	if (f->column)
		ct_json_emit_int(e, f->column);
	else
		ct_json_emit_lit(e, "null");
	ct_json_emit_lit(e, ",\"inlined\":");
	ct_json_emit_bool(e, f->inlined);
	if (f->name_source) {
		ct_json_emit_lit(e, ",\"name_source\":");
		ct_json_emit_string_cached(e, f->name_source);
	}
	// An out-of-range trust has no name: the key is left out, as jansson did with a NULL value.
	const char *trust = ct_trust_to_string(f->trust);
	if (trust) {
		ct_json_emit_lit(e, ",\"trust\":");
		ct_json_emit_string_cached(e, trust);
	}
	if (f->signal_frame)
		ct_json_emit_lit(e, ",\"signal_frame\":true");
	if (f->has_sp) {
		ct_json_emit_lit(e, ",\"sp\":");
		ct_json_emit_hex(e, f->sp);
	}
	if (f->tail_call)
		ct_json_emit_lit(e, ",\"tail_call\":true");
	ct_json_emit_lit(e, ",\"parameters\":");
	write_variables(e, t, f->first_parameter, f->num_parameters);
	if (f->has_locals) {
		ct_json_emit_lit(e, ",\"locals\":");
		write_variables(e, t, f->first_local, f->num_locals);
	}
	ct_json_emit_char(e, '}');
}

static void write_threads(struct writer *w, const struct ct_report *r)
{
	struct ct_json_emit *e = &w->emit;
	key(w, "threads"); // stdio, before the emitter buffers anything
	ct_json_emit_char(e, '[');
	for (size_t i = 0; i < r->num_threads; i++) {
		const struct ct_thread *t = &r->threads[i];
		if (i)
			ct_json_emit_char(e, ',');
		if (!w->compact)
			ct_json_emit_lit(e, "\n    ");
		ct_json_emit_lit(e, "{\"tid\": ");
		ct_json_emit_int(e, t->tid);
		ct_json_emit_lit(e, ", \"crashed\": ");
		ct_json_emit_bool(e, t->crashed);
		ct_json_emit_lit(e, ", \"signal\": ");
		ct_json_emit_int(e, t->signal);
		ct_json_emit_lit(e, ", \"truncated\": ");
		ct_json_emit_bool(e, t->truncated);
		ct_json_emit_lit(e, ", \"stop_reason\": ");
		char stop_buf[CT_STOP_TEXT_MAX];
		ct_json_emit_string(e, ct_stop_render(&t->stop, stop_buf, sizeof(stop_buf)));
		ct_json_emit_lit(e, ", \"stack\": ");
		if (t->has_stack) {
			ct_json_emit_lit(e, "{\"start\":");
			ct_json_emit_hex(e, t->stack_start);
			ct_json_emit_lit(e, ",\"end\":");
			ct_json_emit_hex(e, t->stack_end);
			ct_json_emit_char(e, '}');
		} else {
			ct_json_emit_lit(e, "null");
		}
		ct_json_emit_cpu_time(e, t);
		json_t *wait = ct_json_thread_wait(t); // docs/hangs.md
		if (wait) {
			ct_json_emit_lit(e, ", \"wait\": ");
			ct_json_emit_flush(e);
			dump(w->out, wait, w->compact);
		}
		if (t->num_registers) {
			// jansson keeps its object semantics here (a repeated name replaces the value);
			// a few registers per thread cost nothing.
			json_t *regs = json_object();
			for (size_t k = 0; k < t->num_registers; k++)
				json_object_set_new(regs, t->registers[k].name, hex(t->registers[k].value));
			ct_json_emit_lit(e, ", \"registers\": ");
			ct_json_emit_flush(e);
			dump(w->out, regs, w->compact);
		}
		ct_json_emit_lit(e, ", \"frames\": [");
		for (size_t k = 0; k < t->num_frames; k++) {
			if (k)
				ct_json_emit_char(e, ',');
			if (!w->compact)
				ct_json_emit_lit(e, "\n      ");
			write_frame(e, t, &t->frames[k], k, w->o);
		}
		if (!w->compact && t->num_frames)
			ct_json_emit_lit(e, "\n    ");
		ct_json_emit_lit(e, "]}");
	}
	if (!w->compact && r->num_threads)
		ct_json_emit_lit(e, "\n  ");
	ct_json_emit_char(e, ']');
	// The rest of the report writes to the stream directly.
	ct_json_emit_flush(e);
}

int ct_write_json(FILE *out, const struct ct_report *r, const struct ct_write_options *o, bool compact)
{
	// The emitter locks the stream once; jansson's and our own stdio calls below take the
	// (recursive) lock again cheaply. Only write_threads() uses the emitter, and it leaves its
	// buffer flushed.
	struct writer w = { .out = out, .compact = compact, .first = true, .o = o };
	ct_json_emit_init(&w.emit, out);
	fputc('{', out);
	field(&w, "schema_version", json_integer(CT_SCHEMA_VERSION));
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("coretriage"));
	json_object_set_new(tool, "version", json_string(CT_VERSION));
	field(&w, "tool", tool);

	json_t *input = json_object();
	json_object_set_new(input, "kind", str(r->input.kind));
	json_object_set_new(input, "core", str(path(r->input.core, o)));
	json_object_set_new(input, "executable", str(path(r->input.executable, o)));
	json_object_set_new(input, "arch", str(r->input.arch));
	json_object_set_new(input, "truncated", json_boolean(r->input.truncated));
	if (r->live.present)
		json_object_set_new(input, "pid", json_integer(r->input.pid));
	field(&w, "input", input);
	if (r->live.present) {
		json_t *live = json_object();
		json_object_set_new(live, "stopped_ms", json_real(r->live.stopped_ms));
		json_object_set_new(live, "threads", json_integer((json_int_t)r->live.threads));
		json_object_set_new(live, "bytes_copied", json_integer((json_int_t)r->live.bytes_copied));
		json_object_set_new(live, "gcore", str(path(r->live.gcore, o)));
		field(&w, "live", live);
	}
	field(&w, "crash_time", ct_json_time(&r->trail.crash_time));

	json_t *proc = json_object();
	json_object_set_new(proc, "pid", r->process.has_pid ? json_integer(r->process.pid) : json_null());
	json_object_set_new(proc, "ppid", r->process.has_pid ? json_integer(r->process.ppid) : json_null());
	json_object_set_new(proc, "command", str(r->process.command));
	json_t *args = json_array();
	for (size_t i = 0; i < r->process.num_args; i++)
		json_array_append_new(args, str(r->process.args[i]));
	json_object_set_new(proc, "args", args);
	json_object_set_new(proc, "uid", r->process.has_uid ? json_integer(r->process.uid) : json_null());
	json_object_set_new(proc, "gid", r->process.has_uid ? json_integer(r->process.gid) : json_null());
	json_object_set_new(proc, "executable_path", str(path(r->process.executable_path, o)));
	field(&w, "process", proc);

	if (r->signal.present) {
		json_t *sig = json_object();
		const struct ct_signal_info *s = &r->signal;
		json_object_set_new(sig, "number", json_integer(s->number));
		json_object_set_new(sig, "name", str(ct_signal_name(s->number)));
		json_object_set_new(sig, "code", s->has_code ? json_integer(s->code) : json_null());
		json_object_set_new(sig, "code_name", s->has_code ? str(ct_signal_code_name(s->number, s->code)) : json_null());
		json_object_set_new(sig, "fault_address", s->has_fault_address ? hex(s->fault_address) : json_null());
		json_object_set_new(sig, "sender_pid", s->has_sender ? json_integer(s->sender_pid) : json_null());
		json_object_set_new(sig, "sender_uid", s->has_sender ? json_integer(s->sender_uid) : json_null());
		field(&w, "signal", sig);
	} else {
		field(&w, "signal", json_null());
	}
	field(&w, "crash", crash_json(r));
	field(&w, "root_cause", root_cause_json(r, o));
	field(&w, "heap", heap_json(r));
	field(&w, "crashing_thread", r->has_crashing_thread ? json_integer(r->crashing_thread) : json_null());
	if (r->kernel.present)
		field(&w, "kernel", kernel_json(r));
	write_threads(&w, r);

	json_t *mods = json_array();
	for (size_t i = 0; i < r->num_modules; i++) {
		const struct ct_module *m = &r->modules[i];
		json_t *j = json_object();
		json_object_set_new(j, "name", str(m->name));
		json_object_set_new(j, "path", str(path(m->path, o)));
		json_object_set_new(j, "base", hex(m->base));
		json_object_set_new(j, "end", hex(m->end));
		json_object_set_new(j, "build_id", str(m->build_id));
		json_object_set_new(j, "build_id_match", m->build_id_match < 0 ? json_null() : json_boolean(m->build_id_match));
		json_object_set_new(j, "file", str(path(m->file, o)));
		json_object_set_new(j, "file_build_id", str(m->file_build_id));
		json_object_set_new(j, "debug_info", str(path(m->debug_info, o)));
		if (m->package.present)
			json_object_set_new(j, "package", ct_json_package(&m->package));
		json_array_append_new(mods, j);
	}
	field(&w, "modules", mods);

	json_t *dis = json_array();
	for (size_t i = 0; i < r->num_disasm; i++) {
		json_t *j = json_object();
		json_object_set_new(j, "address", hex(r->disasm[i].address));
		json_object_set_new(j, "bytes", str(r->disasm[i].bytes));
		json_object_set_new(j, "text", str(r->disasm[i].text));
		json_object_set_new(j, "is_pc", json_boolean(r->disasm[i].is_pc));
		json_array_append_new(dis, j);
	}
	field(&w, "disassembly", dis);

	if (r->abort_message.present) {
		const struct ct_abort_message *a = &r->abort_message;
		json_t *j = json_object();
		json_object_set_new(j, "text", str(a->text));
		json_object_set_new(j, "kind", str(a->kind));
		if (a->assert_file) {
			json_object_set_new(j, "file", str(a->assert_file));
			json_object_set_new(j, "line", json_integer(a->assert_line));
			json_object_set_new(j, "function", str(a->assert_function));
			json_object_set_new(j, "expression", str(a->assert_expression));
		}
		field(&w, "abort_message", j);
	} else {
		field(&w, "abort_message", json_null());
	}
	if (r->signature.present) {
		json_t *j = json_object();
		json_object_set_new(j, "version", json_integer(r->signature.version));
		json_object_set_new(j, "text", str(r->signature.text));
		json_object_set_new(j, "hash", str(r->signature.hash));
		field(&w, "signature", j);
	} else {
		field(&w, "signature", json_null());
	}
	json_t *hang = ct_json_hang(r); // docs/hangs.md
	field(&w, "hang", hang ? hang : json_null());
	if (r->runtime.present)
		field(&w, "runtime", ct_json_runtime(r, o)); // docs/runtimes.md
	json_t *warnings = json_array(), *diags = json_array();
	for (size_t i = 0; i < r->diagnostics.count; i++) {
		const struct ct_diagnostic *d = &r->diagnostics.items[i];
		if (d->severity >= CT_SEVERITY_WARNING)
			json_array_append_new(warnings, str(d->message));
		json_t *j = json_object();
		json_object_set_new(j, "severity", json_string(ct_severity_to_string(d->severity)));
		json_object_set_new(j, "code", str(d->code));
		json_object_set_new(j, "tid", d->tid ? json_integer(d->tid) : json_null());
		json_object_set_new(j, "message", str(d->message));
		json_array_append_new(diags, j);
	}
	field(&w, "warnings", warnings);
	field(&w, "diagnostics", diags);
	if (r->num_environment) {
		json_t *env = json_object();
		for (size_t i = 0; i < r->num_environment; i++)
			json_object_set_new(env, r->environment[i].key, detail_value(&r->environment[i]));
		field(&w, "environment", env);
	}
	field(&w, "trail", ct_json_trail(r, o));
	field(&w, "logs", ct_json_logs(r, o));
	fprintf(out, "%s}\n", compact ? "" : "\n");
	bool failed = w.emit.failed;
	ct_json_emit_deinit(&w.emit);
	if (failed) {
		errno = ENOMEM;
		return -1;
	}
	return ferror(out) ? -1 : 0;
}

json_t *ct_json_hex_value(uint64_t v)
{
	return hex(v);
}

json_t *ct_json_string_value(const char *s)
{
	return str(s);
}
