// Arguments and locals as gdb's backtrace shows them, for every writer that prints frame lines.
#include <string.h>

#include "writers/present.h"
#include "writers/sanitize.h"

static void put_value(FILE *out, const char *v, enum ct_text_rule rule, size_t width)
{
	if (!v) {
		fputs("<optimized out>", out);
		return;
	}
	if (ct_text_put(out, v, rule, width ? width : SIZE_MAX))
		fputs("…", out);
}

// gdb's `print entry-values default`: n=n@entry=0x0 when both are known and equal.
static void put_parameter(FILE *out, const struct ct_variable *v, enum ct_text_rule rule, size_t width)
{
	const char *name = v->name ? v->name : "?";
	ct_text_put(out, name, rule, SIZE_MAX);
	fputc('=', out);
	if (v->entry_value && v->value && strcmp(v->entry_value, v->value) == 0) {
		ct_text_put(out, name, rule, SIZE_MAX);
		fputs("@entry=", out);
		put_value(out, v->value, rule, width);
		return;
	}
	put_value(out, v->value, rule, width);
	if (v->entry_value) {
		fputs(", ", out);
		ct_text_put(out, name, rule, SIZE_MAX);
		fputs("@entry=", out);
		put_value(out, v->entry_value, rule, width);
	}
}

void ct_present_parameters(FILE *out, const struct ct_thread *t, const struct ct_frame *f, enum ct_text_rule rule,
			   size_t width)
{
	// "()" for a function with DWARF and no parameters, as gdb prints main (); nothing without DWARF.
	if (!f->function || f->signal_frame || (!f->num_parameters && !f->has_locals && !f->file))
		return;
	fputs(" (", out);
	for (size_t i = 0; i < f->num_parameters && f->first_parameter + i < t->num_variables; i++) {
		if (i)
			fputs(", ", out);
		put_parameter(out, &t->variables[f->first_parameter + i], rule, width);
	}
	fputc(')', out);
}

void ct_present_locals(FILE *out, const struct ct_thread *t, const struct ct_frame *f, enum ct_text_rule rule,
		       const char *indent, size_t width)
{
	if (!f->has_locals)
		return;
	if (!f->num_locals)
		fprintf(out, "%sNo locals.\n", indent);
	for (size_t i = 0; i < f->num_locals && f->first_local + i < t->num_variables; i++) {
		const struct ct_variable *v = &t->variables[f->first_local + i];
		fputs(indent, out);
		ct_text_put(out, v->name ? v->name : "?", rule, SIZE_MAX);
		fputs(" = ", out);
		put_value(out, v->value, rule, width);
		fputc('\n', out);
	}
}
