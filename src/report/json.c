// The JSON report (docs/json-report.md, schema version 1). Sections are built with jansson and
// written one by one; frames are written one at a time, so a million-frame stack never exists as
// a jansson tree in memory.
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "coretriage/coretriage.h"
#include "report/writers.h"

static json_t *hex(uint64_t v)
{
	char buf[19];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

// jansson rejects invalid UTF-8; strings from dumps may hold anything, so escape bytes >= 0x80
// that do not form valid UTF-8 as U+FFFD.
static json_t *str(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	size_t n = strlen(s);
	char *copy = malloc(3 * n + 1), *p = copy;
	if (!copy)
		return json_null();
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch < 0x80) {
			*p++ = (char)ch;
		} else {
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
		}
	}
	*p = '\0';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
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

static json_t *frame_json(const struct ct_frame *f, size_t index, const struct ct_write_options *o)
{
	json_t *j = json_object();
	json_object_set_new(j, "index", json_integer((json_int_t)index));
	json_object_set_new(j, "pc", hex(f->pc));
	json_object_set_new(j, "function", str(f->function));
	json_object_set_new(j, "offset", f->function ? hex(f->offset) : json_null());
	json_object_set_new(j, "module", str(f->module));
	json_object_set_new(j, "file", str(path(f->file, o)));
	json_object_set_new(j, "line", f->line ? json_integer(f->line) : json_null());
	json_object_set_new(j, "column", f->column ? json_integer(f->column) : json_null());
	json_object_set_new(j, "inlined", json_boolean(f->inlined));
	json_object_set_new(j, "trust", json_string(ct_trust_to_string(f->trust)));
	if (f->signal_frame)
		json_object_set_new(j, "signal_frame", json_true());
	if (f->has_sp)
		json_object_set_new(j, "sp", hex(f->sp));
	return j;
}

static int dump(FILE *out, json_t *j, bool compact)
{
	int r = json_dumpf(j, out, (compact ? JSON_COMPACT : JSON_COMPACT) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(j);
	return r;
}

struct writer {
	FILE *out;
	bool compact, first;
	const struct ct_write_options *o;
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

static json_t *crash_json(const struct ct_report *r)
{
	const struct ct_crash *c = &r->crash;
	json_t *j = json_object();
	json_object_set_new(j, "class", str(c->class_id));
	if (c->subclass)
		json_object_set_new(j, "subclass", str(c->subclass));
	json_object_set_new(j, "confidence", str(c->confidence));
	json_object_set_new(j, "summary", str(c->summary));
	json_object_set_new(j, "access", str(c->access));
	json_object_set_new(j, "address", c->has_address ? hex(c->address) : json_null());
	if (c->address_kind)
		json_object_set_new(j, "address_kind", str(c->address_kind));
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
	return j;
}

static void write_threads(struct writer *w, const struct ct_report *r)
{
	key(w, "threads");
	fputc('[', w->out);
	for (size_t i = 0; i < r->num_threads; i++) {
		const struct ct_thread *t = &r->threads[i];
		fprintf(w->out, "%s%s{\"tid\": %d, \"crashed\": %s, \"signal\": %d, \"truncated\": %s, \"stop_reason\": ",
			i ? "," : "", w->compact ? "" : "\n    ", t->tid, t->crashed ? "true" : "false", t->signal,
			t->truncated ? "true" : "false");
		dump(w->out, str(t->stop_reason), w->compact);
		fprintf(w->out, ", \"stack\": ");
		if (t->has_stack) {
			json_t *st = json_object();
			json_object_set_new(st, "start", hex(t->stack_start));
			json_object_set_new(st, "end", hex(t->stack_end));
			dump(w->out, st, w->compact);
		} else {
			fputs("null", w->out);
		}
		if (t->num_registers) {
			json_t *regs = json_object();
			for (size_t k = 0; k < t->num_registers; k++)
				json_object_set_new(regs, t->registers[k].name, hex(t->registers[k].value));
			fprintf(w->out, ", \"registers\": ");
			dump(w->out, regs, w->compact);
		}
		fprintf(w->out, ", \"frames\": [");
		for (size_t k = 0; k < t->num_frames; k++) {
			fprintf(w->out, "%s%s", k ? "," : "", w->compact ? "" : "\n      ");
			dump(w->out, frame_json(&t->frames[k], k, w->o), w->compact);
		}
		fprintf(w->out, "%s]}", w->compact || !t->num_frames ? "" : "\n    ");
	}
	fprintf(w->out, "%s]", w->compact || !r->num_threads ? "" : "\n  ");
}

int ct_write_json(FILE *out, const struct ct_report *r, const struct ct_write_options *o, bool compact)
{
	struct writer w = { out, compact, true, o };
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
	field(&w, "input", input);

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
	json_t *warnings = json_array(), *diags = json_array();
	for (size_t i = 0; i < r->num_diagnostics; i++) {
		const struct ct_diagnostic *d = &r->diagnostics[i];
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
	fprintf(out, "%s}\n", compact ? "" : "\n");
	return ferror(out) ? -1 : 0;
}
