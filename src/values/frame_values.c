// The parameters and locals of a frame: the DIEs of its scope, each variable's location evaluated
// in the frame (or its DW_AT_const_value), the bytes read, the value rendered; entry values of
// parameters through the caller's call site, as gdb's `print entry-values default` shows them.
#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "util/budget.h"
#include "util/grow.h"
#include "values/internal.h"

struct filler {
	struct ct_frame_ctx fc;
	struct ct_thread *t;
	struct ct_object *obj; // scratch, borrowed from the session's caches
	size_t frame_text; // characters of values in this frame
	const struct ct_frame *frame; // the frame being filled (borrowed from t)
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
	// A zero-sized value (a Rust closure without captures) has no bytes to read: where its
	// location is known it is all there, and gdb prints it (a unit struct as its type's name).
	if (o->size == 0)
		return loc->num_pieces > 0;
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
			uint8_t vr[CT_VREG_MAX_BYTES];
			size_t vlen;
			if (n <= 8 && ct_raw_frame_reg(f->fc.raw, &f->fc.raw->frames[f->fc.index], p->reg, &v)) {
				put_low_bytes(o->data + at, v, n, be);
				memset(o->state + at, CT_BYTE_OK, n);
				any = true;
			} else if (ct_frame_vreg(&f->fc, p->reg, vr, &vlen)) {
				// A float or vector register (innermost frame only): the object is its low-order part.
				size_t k = n < vlen ? n : vlen;
				memcpy(o->data + at, be ? vr + vlen - k : vr, k);
				memset(o->state + at, CT_BYTE_OK, k);
				any = k > 0;
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

// The memo slot for f->obj of @p type when the object is small and every byte is known (its text
// then depends only on the type, the bytes and the dump's memory, which does not change); NULL
// otherwise.
static struct ct_value_memo *memo_slot(struct filler *f, Dwarf_Die *type, bool cxx, bool *hit)
{
	const struct ct_object *o = f->obj;
	*hit = false;
	if (!type || o->size == 0 || o->size > CT_VALUES_MEMO_BYTES)
		return NULL;
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uintptr_t)type->addr ^ (uint64_t)cxx << 63;
	for (size_t i = 0; i < o->size; i++) {
		if (o->state[i] != CT_BYTE_OK)
			return NULL;
		h = (h ^ o->data[i]) * 1099511628211ULL;
	}
	h ^= h >> 29;
	struct ct_value_memo *m = &f->fc.s->values->memo[h % CT_VALUES_MEMO];
	*hit = m->type == type->addr && m->size == o->size && m->cxx == cxx && !memcmp(m->data, o->data, o->size);
	return m;
}

static const char *render(struct filler *f, Dwarf_Die *type, bool cxx)
{
	bool hit;
	struct ct_value_memo *m = memo_slot(f, type, cxx, &hit);
	const char *text;
	size_t len;
	if (hit) {
		text = m->text;
		len = m->len;
	} else {
		char buf[CT_VALUE_MAX_TEXT];
		struct ct_sbuf b = { .buf = buf, .cap = sizeof(buf) };
		buf[0] = 0;
		f->fc.s->values->visits = 0;
		ct_render_value(f->fc.s, &b, type, f->obj, 0, cxx, 0);
		if (b.cut && b.len >= 3)
			memcpy(buf + b.len - 3, "...", 4);
		// Values are seldom repeated (the memo above catches those that are): stored, not interned.
		text = ct_strpool_store_len(f->fc.s->out.strings, buf, b.len);
		len = b.len;
		if (m && text) {
			*m = (struct ct_value_memo){ .type = type->addr, .size = (uint8_t)f->obj->size, .cxx = cxx,
						     .text = text, .len = len };
			memcpy(m->data, f->obj->data, f->obj->size);
		}
	}
	f->frame_text += len;
	f->fc.s->values->text_total += len;
	// The analysis' budget for bytes of names and values (util/budget.h): one value past it is
	// kept, then capped() stops the rest.
	ct_budget_spend(f->fc.s->budget, CT_BUDGET_TEXT, len);
	return text;
}

// The register a parameter was passed in, when its location at the function's entry is one
// (gdb resolves @entry values only for those); -1 otherwise.
static int entry_register(const struct ct_scope *sc, Dwarf_Attribute *loc)
{
	Dwarf_Die sub = sc->dies[sc->subprogram];
	Dwarf_Addr entry;
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Attribute attr = *loc;
	if ((dwarf_entrypc(&sub, &entry) != 0 && dwarf_lowpc(&sub, &entry) != 0) ||
	    dwarf_getlocation_addr(&attr, entry, &ops, &n, 1) != 1 || n != 1)
		return -1;
	uint8_t a = ops[0].atom;
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		return a - DW_OP_reg0;
	if (a == DW_OP_regx && ops[0].number < 0x10000)
		return (int)ops[0].number;
	return -1;
}

/* ---- what a scope's variables are: found once per pc, kept in its ct_scope ---- */

struct ct_var_desc {
	size_t level; // inline level (0 = innermost)
	bool is_param;
	bool has_type, has_const, has_location;
	bool sized; // the type's size is known (it may be 0: a Rust closure without captures, ())
	int entry_reg; // -1: no entry value
	const char *name, *type; // pooled
	Dwarf_Die type_die;
	size_t size;
	Dwarf_Attribute value_attr; // DW_AT_const_value or DW_AT_location
	// A single expression (not a location list), decoded once: it holds at every pc.
	Dwarf_Op *ops;
	size_t num_ops;
	bool single;
};

struct collector {
	const struct ct_values_input *s;
	struct ct_scope *sc;
	size_t level;
	bool physical;
	size_t per_level;
};

static void describe(struct collector *c, Dwarf_Die *var, bool is_param)
{
	struct ct_scope *sc = c->sc;
	// A declaration (extern int x; inside a function) has no storage of its own here.
	if (c->per_level >= CT_VALUES_MAX_PER_FRAME || dwarf_hasattr(var, DW_AT_declaration))
		return;
	if (!CT_GROW(sc->vars, sc->cap_vars, sc->num_vars + 1, 8, 0))
		return;
	struct ct_var_desc *d = &sc->vars[sc->num_vars++];
	c->per_level++;
	memset(d, 0, sizeof(*d));
	d->level = c->level;
	d->is_param = is_param;
	d->entry_reg = -1;
	Dwarf_Attribute attr;
	const char *name = NULL;
	if (ct_dwarf_attr_integrate(var, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	// gdb makes no symbol of a nameless variable (Rust's `_` parameters, C's `void f(int)`) and
	// so shows none; neither do we.
	if (!name) {
		sc->num_vars--;
		c->per_level--;
		return;
	}
	d->name = ct_strpool_intern(c->s->out.strings, name);
	d->has_type = ct_dwarf_attr_integrate(var, DW_AT_type, &attr) && ct_dwarf_ref_die(&attr, &d->type_die);
	char tbuf[CT_VALUE_MAX_TYPE];
	struct ct_sbuf tb = { .buf = tbuf, .cap = sizeof(tbuf) };
	tbuf[0] = 0;
	ct_render_type_name(&tb, d->has_type ? &d->type_die : NULL, sc->cxx, 0);
	d->type = ct_strpool_intern(c->s->out.strings, tbuf);
	Dwarf_Word size = 0;
	Dwarf_Die full;
	if (d->has_type && ct_dwarf_aggregate_size(&d->type_die, &size) != 0 &&
	    !(ct_values_complete_type(c->s->values, &d->type_die, &full) && ct_dwarf_aggregate_size(&full, &size) == 0))
		size = 0;
	else
		d->sized = d->has_type;
	d->size = (size_t)size;
	if (ct_dwarf_attr_integrate(var, DW_AT_const_value, &d->value_attr))
		d->has_const = true;
	else
		d->has_location = dwarf_attr(var, DW_AT_location, &d->value_attr) ||
				  ct_dwarf_attr_integrate(var, DW_AT_location, &d->value_attr);
	if (is_param && c->physical && d->has_location && d->size && d->size <= 8)
		d->entry_reg = entry_register(sc, &d->value_attr);
	// libdw caches decoded expressions, but finding one costs a tree search per call.
	if (d->has_location && dwarf_whatform(&d->value_attr) == DW_FORM_exprloc)
		d->single = dwarf_getlocation(&d->value_attr, &d->ops, &d->num_ops) == 0;
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
		if (dwarf_attr(&child, DW_AT_abstract_origin, &attr) && ct_dwarf_ref_die(&attr, &origin) &&
		    *num < CT_VALUES_MAX_PER_FRAME)
			seen[(*num)++] = origin.addr;
		if (dwarf_tag(&child) == DW_TAG_lexical_block)
			collect_origins(&child, seen, num, depth + 1);
	} while (++guard < 100000 && dwarf_siblingof(&child, &child) == 0);
}

// The children of @p die with tag @p tag, then (for a concrete instance of an inline function)
// those of its abstract origin no concrete DIE refers to: gdb lists those as optimized out.
static void describe_children(struct collector *c, Dwarf_Die *die, int tag)
{
	Dwarf_Die child;
	int guard = 0;
	bool is_param = tag == DW_TAG_formal_parameter;
	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) == tag)
				describe(c, &child, is_param);
		} while (++guard < 100000 && dwarf_siblingof(&child, &child) == 0);
	}
	Dwarf_Attribute attr;
	Dwarf_Die abstract;
	if (!dwarf_attr(die, DW_AT_abstract_origin, &attr) || !ct_dwarf_ref_die(&attr, &abstract) ||
	    dwarf_child(&abstract, &child) != 0)
		return;
	void *seen[CT_VALUES_MAX_PER_FRAME];
	size_t num_seen = 0;
	collect_origins(die, seen, &num_seen, 0);
	bool physical = c->physical;
	c->physical = false; // an abstract parameter has no location, hence no entry value
	guard = 0;
	do {
		if (dwarf_tag(&child) != tag)
			continue;
		bool found = false;
		for (size_t i = 0; i < num_seen && !found; i++)
			found = seen[i] == child.addr;
		if (!found)
			describe(c, &child, is_param);
	} while (++guard < 100000 && dwarf_siblingof(&child, &child) == 0);
	c->physical = physical;
}

// Frame k (innermost inline level first) is the k-th inlined subroutine or subprogram DIE; the
// lexical blocks before it hold its innermost locals. Parameters of a level come before its locals.
static void describe_scope(const struct ct_values_input *s, struct ct_scope *sc)
{
	struct collector c = { .s = s, .sc = sc };
	int block_start = 0;
	for (int i = 0; i <= sc->subprogram; i++) {
		int tag = dwarf_tag(&sc->dies[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		c.physical = i == sc->subprogram;
		c.per_level = 0;
		describe_children(&c, &sc->dies[i], DW_TAG_formal_parameter);
		for (int b = block_start; b < i; b++)
			describe_children(&c, &sc->dies[b], DW_TAG_variable);
		describe_children(&c, &sc->dies[i], DW_TAG_variable);
		block_start = i + 1;
		sc->num_levels = ++c.level;
	}
	sc->described = true;
}

/* ---- the values of one frame ---- */

static const char *entry_value(struct filler *f, const struct ct_var_desc *d, bool cxx)
{
	uint64_t v;
	if (d->entry_reg < 0 || ct_entry_register(&f->fc, (unsigned)d->entry_reg, &v) != CT_EXPR_OK)
		return NULL;
	struct ct_location loc = { .num_pieces = 1 };
	loc.pieces[0] = (struct ct_piece){ .kind = CT_PIECE_VALUE, .value = v };
	Dwarf_Die type = d->type_die;
	if (!d->sized || !read_location(f, &loc, d->size))
		return NULL;
	return render(f, &type, cxx);
}

// The work budgets values spend as they go (util/budget.h) besides text: elements rendered and
// expression steps. Once one is spent, no further value is computed; the first variable that met
// it is named in the warning (which replaces ct_budget_report()'s generic one).
static const enum ct_budget_kind spent_kinds[] = { CT_BUDGET_ELEMENTS, CT_BUDGET_EXPR };

static bool work_spent(const struct ct_values_input *s)
{
	for (size_t i = 0; s->budget && i < sizeof(spent_kinds) / sizeof(spent_kinds[0]); i++) {
		if (s->budget->reached[spent_kinds[i]])
			return true;
	}
	return false;
}

static void report_spent(struct filler *f, const struct ct_var_desc *d)
{
	struct ct_budget *b = f->fc.s->budget;
	for (size_t i = 0; b && i < sizeof(spent_kinds) / sizeof(spent_kinds[0]); i++) {
		enum ct_budget_kind k = spent_kinds[i];
		if (!b->reached[k] || b->reported[k])
			continue;
		b->reported[k] = true;
		const char *fn = f->frame && f->frame->function ? f->frame->function : "??";
		ct_sink_diag(&f->fc.s->out, CT_SEVERITY_WARNING, f->t->tid,
			     k == CT_BUDGET_ELEMENTS ? CT_DIAG_BUDGET_ELEMENTS : CT_DIAG_BUDGET_EXPR,
			     "values: the work budget of %" PRIu64 " %s was reached at %s %s of %s (thread %d, frame pc 0x%" PRIx64
			     "); later values are left out (--max-memory; tighter with --safe)",
			     b->limit[k], k == CT_BUDGET_ELEMENTS ? "members and array elements rendered" : "DWARF expression steps and entry-value evaluations",
			     d->is_param ? "parameter" : "local", d->name, fn, f->t->tid, f->frame ? f->frame->pc : 0);
	}
}

// The per-value caps a hostile type meets (render.c): said once per analysis, naming the first
// variable, so that a value ending in "..." or shown as {...} is explained.
static void report_caps(struct filler *f, const struct ct_var_desc *d)
{
	struct ct_values *v = f->fc.s->values;
	const char *fn = f->frame && f->frame->function ? f->frame->function : "??";
	if (v->visits_capped && !v->reported_visits) {
		v->reported_visits = true;
		ct_sink_diag(&f->fc.s->out, CT_SEVERITY_WARNING, f->t->tid, CT_DIAG_VALUE_CAP,
			     "values: %s %s of %s (thread %d) visits more than %u members and elements; shown in part",
			     d->is_param ? "parameter" : "local", d->name, fn, f->t->tid, CT_VALUE_MAX_VISITS);
	}
	if (v->layout_wrapped && !v->reported_wrapped) {
		v->reported_wrapped = true;
		ct_sink_diag(&f->fc.s->out, CT_SEVERITY_WARNING, f->t->tid, CT_DIAG_VALUE_CAP,
			     "values: %s %s of %s (thread %d) has an array type whose dimension counts multiply past 2^64 "
			     "(corrupt DWARF); shown as {...}",
			     d->is_param ? "parameter" : "local", d->name, fn, f->t->tid);
	}
	if (v->entry_cut && !v->reported_entry_cut) {
		v->reported_entry_cut = true;
		ct_sink_diag(&f->fc.s->out, CT_SEVERITY_WARNING, f->t->tid, CT_DIAG_ENTRY_VALUE_CAP,
			     "values: the entry value chain of %s %s of %s (thread %d) goes through more than %d caller "
			     "frames (DW_OP_entry_value in call-site values); cut there, its value may be unknown",
			     d->is_param ? "parameter" : "local", d->name, fn, f->t->tid, CT_VALUES_MAX_ENTRY_DEPTH);
	}
	v->visits_capped = v->layout_wrapped = v->entry_cut = false;
}

static bool capped(struct filler *f)
{
	const struct ct_values_input *s = f->fc.s;
	if (work_spent(s))
		return true;
	if (f->frame_text < CT_VALUES_MAX_FRAME_TEXT && s->values->text_total < CT_VALUES_MAX_TEXT &&
	    ct_budget_left(s->budget, CT_BUDGET_TEXT) > 0)
		return false;
	if (s->values->text_total >= CT_VALUES_MAX_TEXT && !s->values->text_capped) {
		s->values->text_capped = true;
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, f->t->tid, CT_DIAG_VALUE_CAP,
			       "values of arguments and locals stop at %u characters per report", CT_VALUES_MAX_TEXT);
	}
	return true;
}

static void add_variable(struct filler *f, const struct ct_var_desc *d, size_t *count)
{
	const struct ct_values_input *s = f->fc.s;
	const struct ct_scope *sc = f->fc.scope;
	if (capped(f))
		return;
	struct ct_variable *v = ct_thread_add_variable(f->t);
	if (!v)
		return;
	(*count)++;
	v->name = d->name;
	v->type = d->type;
	Dwarf_Attribute attr = d->value_attr;
	Dwarf_Die type = d->type_die;
	bool known = false;
	if (d->has_const) {
		known = read_const(f, &attr, d->size);
	} else if (d->has_location) {
		Dwarf_Op *ops = d->ops;
		size_t n = d->num_ops;
		if (d->single || ct_frame_expr(&f->fc, &attr, f->fc.lookup - sc->bias, &ops, &n)) {
			struct ct_location loc;
			f->fc.attr = &attr;
			struct ct_expr_result r = ct_dwarf_expr_location(&f->fc.expr, ops, n, &loc);
			f->fc.attr = NULL;
			if (r.status == CT_EXPR_OK) {
				known = d->sized && read_location(f, &loc, d->size);
			} else if (r.status == CT_EXPR_UNREADABLE) {
				v->value = ct_strpool_printf(s->out.strings, "<unreadable 0x%" PRIx64 ">", r.fault_address);
			} else if (r.status == CT_EXPR_UNSUPPORTED &&
				   (r.atom == DW_OP_implicit_pointer || r.atom == DW_OP_GNU_implicit_pointer)) {
				// A pointer optimized away whose target is still described: gdb's words for it.
				v->value = ct_strpool_intern(s->out.strings, "<synthetic pointer>");
			} else if (r.status == CT_EXPR_UNSUPPORTED) {
				v->value = ct_strpool_printf(s->out.strings, "<unsupported DWARF operation 0x%x>", r.atom);
			} else if (r.status == CT_EXPR_CORRUPT || r.status == CT_EXPR_LIMIT || r.status == CT_EXPR_BUDGET) {
				v->value = ct_strpool_printf(s->out.strings, "<error: %s>", ct_expr_status_to_string(r.status));
			}
			// Registers not saved in this frame and unknown entry values: optimized out, as gdb says.
		}
	}
	if (known)
		v->value = render(f, d->has_type ? &type : NULL, sc->cxx);
	v->optimized_out = !v->value;
	if (d->is_param)
		v->entry_value = entry_value(f, d, sc->cxx);
	report_caps(f, d);
	report_spent(f, d);
}

void ct_values_frame(const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t index,
		     const struct ct_core_thread *thread, struct ct_thread *t, size_t first, size_t count, bool locals)
{
	if (!s->values || raw->frames[index].signal_trampoline)
		return;
	struct filler f = { .t = t };
	ct_frame_ctx_init(&f.fc, s, raw, index, 0);
	if (index == 0)
		f.fc.thread = thread;
	// The cache owns the scope; its variable list is filled on first use.
	struct ct_scope *sc = (struct ct_scope *)f.fc.scope;
	if (!sc || sc->subprogram < 0)
		return;
	if (!sc->described)
		describe_scope(s, sc);
	f.obj = s->values->scratch;
	size_t vi = 0;
	for (size_t k = 0; k < sc->num_levels && k < count; k++) {
		struct ct_frame *fr = &t->frames[first + k];
		f.frame = fr;
		f.frame_text = 0;
		fr->first_parameter = t->num_variables;
		for (; vi < sc->num_vars && sc->vars[vi].level == k && sc->vars[vi].is_param; vi++)
			add_variable(&f, &sc->vars[vi], &fr->num_parameters);
		fr->has_locals = locals;
		fr->first_local = t->num_variables;
		for (; vi < sc->num_vars && sc->vars[vi].level == k; vi++) {
			if (locals)
				add_variable(&f, &sc->vars[vi], &fr->num_locals);
		}
	}
}
