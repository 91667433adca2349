// The parameters and locals of a frame: the DIEs of its scope, each variable's location evaluated
// in the frame (or its DW_AT_const_value), the bytes read, the value rendered; entry values of
// parameters through the caller's call site, as gdb's `print entry-values default` shows them.
#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "values/internal.h"

struct filler {
	struct ct_frame_ctx fc;
	struct ct_thread *t;
	struct ct_object *obj; // scratch, owned
	size_t frame_text; // characters of values in this frame
	size_t frame_vars;
	bool capped;
};

// Little-endian or big-endian bytes of register-sized @p v: the @p n low-order bytes.
static void put_low_bytes(uint8_t *dst, uint64_t v, size_t n, bool big_endian)
{
	for (size_t i = 0; i < n && i < 8; i++)
		dst[big_endian ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static void read_memory(struct filler *f, uint64_t addr, size_t at, size_t n)
{
	struct ct_object *o = f->obj;
	if (ct_frame_read(f->fc.s, addr, o->data + at, n)) {
		memset(o->state + at, CT_BYTE_OK, n);
		return;
	}
	// Part of it may be readable (an object at the end of a mapping): find where it stops.
	for (size_t i = 0; i < n; i++) {
		bool ok = ct_frame_read(f->fc.s, addr + i, o->data + at + i, 1);
		o->state[at + i] = ok ? CT_BYTE_OK : CT_BYTE_UNREADABLE;
		if (!ok && !o->unreadable_at)
			o->unreadable_at = addr + i;
	}
}

// Fills f->obj from @p loc; false when nothing of the object is known (optimized out).
static bool read_location(struct filler *f, const struct ct_location *loc, size_t size)
{
	struct ct_object *o = f->obj;
	bool be = f->fc.s->core->big_endian;
	o->size = size < CT_VALUE_MAX_BYTES ? size : CT_VALUE_MAX_BYTES;
	o->has_address = false;
	o->unreadable_at = 0;
	memset(o->state, CT_BYTE_OPTIMIZED, o->size);
	size_t at = 0;
	bool any = false;
	for (size_t i = 0; i < loc->num_pieces && at < o->size; i++) {
		const struct ct_piece *p = &loc->pieces[i];
		size_t n = p->size ? (size_t)p->size : o->size;
		if (n > o->size - at)
			n = o->size - at;
		switch (p->kind) {
		case CT_PIECE_MEMORY:
			if (loc->num_pieces == 1) {
				o->address = p->address;
				o->has_address = true;
			}
			read_memory(f, p->address, at, n);
			any = true;
			break;
		case CT_PIECE_REGISTER: {
			uint64_t v;
			// Registers wider than 8 bytes (vector registers) are not kept per frame.
			if (n <= 8 && ct_raw_frame_reg(f->fc.raw, &f->fc.raw->frames[f->fc.index], p->reg, &v)) {
				put_low_bytes(o->data + at, v, n, be);
				memset(o->state + at, CT_BYTE_OK, n);
				any = true;
			}
			break;
		}
		case CT_PIECE_VALUE:
			if (n <= 8) {
				put_low_bytes(o->data + at, p->value, n, be);
				memset(o->state + at, CT_BYTE_OK, n);
				any = true;
			}
			break;
		case CT_PIECE_IMPLICIT: {
			size_t k = p->num_bytes < n ? p->num_bytes : n;
			memcpy(o->data + at, p->bytes, k);
			memset(o->state + at, CT_BYTE_OK, k);
			any = k > 0;
			break;
		}
		case CT_PIECE_OPTIMIZED:
			break;
		}
		at += n;
	}
	return any;
}

// DW_AT_const_value of @p attr into f->obj.
static bool read_const(struct filler *f, Dwarf_Attribute *attr, size_t size)
{
	struct ct_object *o = f->obj;
	o->size = size < CT_VALUE_MAX_BYTES ? size : CT_VALUE_MAX_BYTES;
	o->has_address = false;
	Dwarf_Block block;
	Dwarf_Word w;
	Dwarf_Sword sw;
	if (dwarf_formblock(attr, &block) == 0) {
		size_t k = block.length < o->size ? block.length : o->size;
		memcpy(o->data, block.data, k);
		memset(o->state, CT_BYTE_OK, k);
		memset(o->state + k, CT_BYTE_OPTIMIZED, o->size - k);
		return k > 0;
	}
	if (dwarf_formsdata(attr, &sw) == 0)
		w = (Dwarf_Word)sw;
	else if (dwarf_formudata(attr, &w) != 0)
		return false;
	put_low_bytes(o->data, w, o->size < 8 ? o->size : 8, f->fc.s->core->big_endian);
	memset(o->state, CT_BYTE_OK, o->size);
	return o->size > 0;
}

static const char *render(struct filler *f, Dwarf_Die *type, bool cxx)
{
	char buf[CT_VALUE_MAX_TEXT];
	struct ct_sbuf b = { .buf = buf, .cap = sizeof(buf) };
	buf[0] = 0;
	ct_render_value(f->fc.s, &b, type, f->obj, 0, cxx, 0);
	if (b.cut && b.len >= 3)
		memcpy(buf + b.len - 3, "...", 4);
	f->frame_text += b.len;
	f->fc.s->values->text_total += b.len;
	return ct_report_strdup(f->fc.s->report, buf);
}

// A register parameter's value at the function's entry (gdb's param@entry), or NULL.
static const char *entry_value(struct filler *f, Dwarf_Die *var, Dwarf_Die *type, size_t size, bool cxx)
{
	const struct ct_scope *sc = f->fc.scope;
	Dwarf_Die sub = sc->dies[sc->subprogram];
	Dwarf_Addr entry;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;
	if (size == 0 || size > 8 || (dwarf_entrypc(&sub, &entry) != 0 && dwarf_lowpc(&sub, &entry) != 0) ||
	    !dwarf_attr(var, DW_AT_location, &attr) || !ct_frame_expr(&f->fc, &attr, entry, &ops, &n) || n != 1)
		return NULL;
	unsigned regno;
	uint8_t a = ops[0].atom;
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		regno = a - DW_OP_reg0;
	else if (a == DW_OP_regx)
		regno = (unsigned)ops[0].number;
	else
		return NULL;
	uint64_t v;
	if (ct_entry_register(&f->fc, regno, &v) != CT_EXPR_OK)
		return NULL;
	struct ct_location loc = { .num_pieces = 1 };
	loc.pieces[0] = (struct ct_piece){ .kind = CT_PIECE_VALUE, .value = v };
	if (!read_location(f, &loc, size))
		return NULL;
	return render(f, type, cxx);
}

static void add_variable(struct filler *f, Dwarf_Die *var, bool is_param, bool physical, size_t *count)
{
	struct ct_session *s = f->fc.s;
	const struct ct_scope *sc = f->fc.scope;
	if (f->capped)
		return;
	if (f->frame_vars >= CT_VALUES_MAX_PER_FRAME || f->frame_text >= CT_VALUES_MAX_FRAME_TEXT ||
	    s->values->text_total >= CT_VALUES_MAX_TEXT) {
		f->capped = true;
		if (s->values->text_total >= CT_VALUES_MAX_TEXT && !s->values->text_capped) {
			s->values->text_capped = true;
			ct_report_diag(s->report, CT_SEVERITY_WARNING, f->t->tid, "value-cap",
				       "values of arguments and locals stop at %u characters per report", CT_VALUES_MAX_TEXT);
		}
		return;
	}
	// A declaration (extern int x; inside a function) has no storage of its own here.
	if (dwarf_hasattr(var, DW_AT_declaration))
		return;
	struct ct_variable *v = ct_thread_add_variable(f->t);
	if (!v)
		return;
	f->frame_vars++;
	(*count)++;
	Dwarf_Attribute attr;
	const char *name = NULL;
	if (dwarf_attr_integrate(var, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	v->name = ct_report_strdup(s->report, name);
	Dwarf_Die type, *tp = NULL;
	if (dwarf_attr_integrate(var, DW_AT_type, &attr) && dwarf_formref_die(&attr, &type))
		tp = &type;
	char tbuf[CT_VALUE_MAX_TYPE];
	struct ct_sbuf tb = { .buf = tbuf, .cap = sizeof(tbuf) };
	tbuf[0] = 0;
	ct_render_type_name(&tb, tp, sc->cxx, 0);
	v->type = ct_report_strdup(s->report, tbuf);
	Dwarf_Word size = 0;
	if (tp && dwarf_aggregate_size(tp, &size) != 0)
		size = 0;
	bool known = false;
	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		known = read_const(f, &attr, (size_t)size);
	} else if (dwarf_attr(var, DW_AT_location, &attr) || dwarf_attr_integrate(var, DW_AT_location, &attr)) {
		Dwarf_Op *ops;
		size_t n;
		if (ct_frame_expr(&f->fc, &attr, f->fc.lookup - sc->bias, &ops, &n)) {
			struct ct_location loc;
			f->fc.attr = &attr;
			struct ct_expr_result r = ct_dwarf_expr_location(&f->fc.expr, ops, n, &loc);
			f->fc.attr = NULL;
			if (r.status == CT_EXPR_OK) {
				known = read_location(f, &loc, (size_t)size);
			} else if (r.status == CT_EXPR_UNREADABLE) {
				v->value = ct_report_printf(s->report, "<unreadable 0x%" PRIx64 ">", r.fault_address);
			} else if (r.status == CT_EXPR_UNSUPPORTED) {
				v->value = ct_report_printf(s->report, "<unsupported DWARF operation 0x%x>", r.atom);
			} else if (r.status == CT_EXPR_CORRUPT || r.status == CT_EXPR_LIMIT) {
				v->value = ct_report_printf(s->report, "<error: %s>", ct_expr_status_to_string(r.status));
			}
			// Registers not saved in this frame and unknown entry values: optimized out, as gdb says.
		}
	}
	if (known)
		v->value = render(f, tp, sc->cxx);
	v->optimized_out = !v->value;
	if (is_param && physical && sc->subprogram >= 0)
		v->entry_value = entry_value(f, var, tp, (size_t)size, sc->cxx);
}

// Collects the abstract origins of @p die's descendants (concrete blocks nest their variables
// deeper than the abstract function does).
static void collect_origins(Dwarf_Die *die, void **seen, size_t *num, int depth)
{
	Dwarf_Die child;
	if (depth > 8 || dwarf_child(die, &child) != 0)
		return;
	int guard = 0;
	do {
		Dwarf_Attribute attr;
		Dwarf_Die origin;
		if (dwarf_attr(&child, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin) &&
		    *num < CT_VALUES_MAX_PER_FRAME)
			seen[(*num)++] = origin.addr;
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_lexical_block)
			collect_origins(&child, seen, num, depth + 1);
	} while (++guard < 100000 && dwarf_siblingof(&child, &child) == 0);
}

// The children of @p die with tag @p tag, then (for a concrete instance of an inline function)
// those of its abstract origin no concrete DIE refers to: gdb lists those as optimized out.
static void add_children(struct filler *f, Dwarf_Die *die, int tag, bool physical, size_t *count)
{
	Dwarf_Die child;
	int guard = 0;
	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) == tag)
				add_variable(f, &child, tag == DW_TAG_formal_parameter, physical, count);
		} while (++guard < 100000 && dwarf_siblingof(&child, &child) == 0);
	}
	Dwarf_Attribute attr;
	Dwarf_Die abstract;
	if (!dwarf_attr(die, DW_AT_abstract_origin, &attr) || !dwarf_formref_die(&attr, &abstract) ||
	    dwarf_child(&abstract, &child) != 0)
		return;
	void *seen[CT_VALUES_MAX_PER_FRAME];
	size_t num_seen = 0;
	collect_origins(die, seen, &num_seen, 0);
	guard = 0;
	do {
		if (dwarf_tag(&child) != tag)
			continue;
		bool found = false;
		for (size_t i = 0; i < num_seen && !found; i++)
			found = seen[i] == child.addr;
		if (!found)
			add_variable(f, &child, tag == DW_TAG_formal_parameter, false, count);
	} while (++guard < 100000 && dwarf_siblingof(&child, &child) == 0);
}

void ct_values_frame(struct ct_session *s, const struct ct_raw_stack *raw, size_t index, struct ct_thread *t,
		     size_t first, size_t count, bool locals)
{
	if (!s->values || raw->frames[index].signal_trampoline)
		return;
	struct filler f = { .t = t };
	ct_frame_ctx_init(&f.fc, s, raw, index, 0);
	const struct ct_scope *sc = f.fc.scope;
	if (!sc || sc->subprogram < 0)
		return;
	f.obj = malloc(sizeof(*f.obj));
	if (!f.obj)
		return;
	// Frame k (innermost inline level first) is the k-th inlined subroutine or subprogram DIE; the
	// lexical blocks before it hold its innermost locals.
	int level_die[CT_SCOPE_MAX_DIES];
	size_t levels = 0;
	for (int i = 0; i <= sc->subprogram; i++) {
		int tag = dwarf_tag((Dwarf_Die *)&sc->dies[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			level_die[levels++] = i;
	}
	int block_start = 0;
	for (size_t k = 0; k < levels && k < count; k++) {
		struct ct_frame *fr = &t->frames[first + k];
		Dwarf_Die die = sc->dies[level_die[k]];
		bool physical = level_die[k] == sc->subprogram;
		f.frame_vars = 0;
		f.frame_text = 0;
		f.capped = false;
		fr->first_parameter = t->num_variables;
		add_children(&f, &die, DW_TAG_formal_parameter, physical, &fr->num_parameters);
		if (locals) {
			fr->has_locals = true;
			fr->first_local = t->num_variables;
			for (int i = block_start; i < level_die[k]; i++) {
				Dwarf_Die block = sc->dies[i];
				add_children(&f, &block, DW_TAG_variable, physical, &fr->num_locals);
			}
			add_children(&f, &die, DW_TAG_variable, physical, &fr->num_locals);
		}
		block_start = level_die[k] + 1;
	}
	free(f.obj);
}
