// A bad subscript (docs/root-cause.md "An index past its bound"): from the faulting access's address
// to the array it lies in, the subscript past its bound and that bound. One-dimensional arrays by the
// variable the in-bounds register points into (a global, a frame-0 local, a heap block) or by an array
// member of a struct a pointer parameter points to; a multi-dimensional array, and a struct's array
// through a loaded pointer, by decomposing the address into a constant plus registers times
// subscript strides. origin.c makes the chain's first step of what these find.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/symbolize.h"
#include "triage/gather.h"
#include "triage/hang.h"
#include "triage/heap.h"
#include "triage/origin_chain.h"
#include "values/values.h"

/** Struct levels descended to the array member an access lies in. */
#define MAX_MEMBER_DEPTH 8

/**
 * The member of struct @p type whose storage holds offset @p off and whose type is an array,
 * descending nested structs: its path (".ring.slots") appended to @p path, the array type, and the
 * member's offset in @p type.
 */
static bool member_array(Dwarf_Die *type, uint64_t off, char *path, size_t size, int depth, Dwarf_Die *array,
			 uint64_t *at)
{
	Dwarf_Die peel, *t = ct_dwarf_peel_type(type, &peel), member, mtype, mpeel;
	int tag = t ? dwarf_tag(t) : 0;
	uint64_t loc;
	const char *name;
	if (depth >= MAX_MEMBER_DEPTH || (tag != DW_TAG_structure_type && tag != DW_TAG_class_type) ||
	    !ct_struct_member_at(t, off, &member, &loc, &mtype) || !(name = ct_dwarf_diename(&member)))
		return false;
	size_t used = strlen(path);
	snprintf(path + used, size - used, ".%s", name);
	Dwarf_Die *mt = ct_dwarf_peel_type(&mtype, &mpeel);
	if (mt && dwarf_tag(mt) == DW_TAG_array_type) {
		*array = *mt;
		*at = loc;
		return true;
	}
	uint64_t inner;
	if (!member_array(&mtype, off - loc, path, size, depth + 1, array, &inner))
		return false;
	*at = loc + inner;
	return true;
}

/** The element @p off bytes from an array's start falls in (floor: a negative offset lands before it). */
static int64_t element_of(int64_t off, int64_t size)
{
	return off / size - (off % size < 0 ? 1 : 0);
}

/** Dimensions of an array type the bounds are read for (ct_dwarf_array_dims reads at most 8). */
#define MAX_DIMS 8

/**
 * @p array (peeled) is an array whose every dimension has a known bound: their number (each bound
 * into @p dims, outermost first) and the element size; 0 when it is not.
 */
static int array_dims(Dwarf_Die *array, int64_t *dims, Dwarf_Word *esize)
{
	Dwarf_Die elem;
	int n = dwarf_tag(array) == DW_TAG_array_type ? ct_dwarf_array_dims(array, dims) : 0;
	for (int k = 0; k < n; k++)
		if (dims[k] < 0)
			return 0;
	if (n == 0 || !ct_origin_die_type(array, &elem) || ct_dwarf_aggregate_size(&elem, esize) != 0 || *esize == 0 ||
	    *esize > (1u << 30))
		return 0;
	return n;
}

/** @p array (peeled) is a one-dimensional array of known bound: its bound and element size. */
static bool array_shape(Dwarf_Die *array, int64_t *bound, Dwarf_Word *esize)
{
	int64_t dims[MAX_DIMS];
	if (array_dims(array, dims, esize) != 1)
		return false;
	*bound = dims[0];
	return true;
}

/** Puts on the fault's step @p st its element @p index into @p array of @p bound elements (of its
 * subscript @p dimension, 1 the leftmost, for a multi-dimensional array; else 0); *@p past: the index
 * is negative or not below the bound. */
void ct_origin_say_index(struct ct_root_step *st, int64_t index, int64_t bound, int dimension, const char *array,
			 bool *past)
{
	st->has_index = true;
	st->index = index;
	st->array = array;
	st->dimension = dimension;
	*past = index < 0 || index >= bound;
}

/**
 * A bad index into an array member of a struct a pointer parameter points to (`r->slots[i]`): the
 * base register @p base of the fault's access @p m still holds the parameter's value from the
 * function's entry; its DWARF type names the struct, the displacement the member, the member's
 * type the bound. Elements counted from the member's start.
 */
void ct_origin_member_index(const struct chain *c, const struct ct_vfunc *fn, int base, const struct ct_mem_operand *m,
			    const uint64_t *regs, const bool *valid, struct member_bound *ret)
{
	const struct ct_triage_input *s = c->s;
	struct ct_vdef b;
	struct ct_vloc loc = { .reg = base, .size = 8 };
	Dwarf_Die param, type_buf, peel_buf, pointee_buf, array;
	if (!m->has_address || m->disp < 0 || base < 0 || base >= CT_MAX_DWARF_REGS || !valid[base])
		return;
	ct_vfunc_trace(fn, c->f->pc, loc, false, 0, &b);
	int slot = b.kind == CT_VDEF_ENTRY && !b.loc.slot ? ct_origin_arg_slot(c->arch, b.loc.reg) : -1;
	const char *name;
	if (slot < 0 || !ct_origin_param_die(s, c->f->pc, slot, &param) || !(name = ct_origin_die_name(&param)) || !ct_origin_die_type(&param, &type_buf))
		return;
	Dwarf_Die *t = ct_dwarf_peel_type(&type_buf, &peel_buf);
	if (!t || dwarf_tag(t) != DW_TAG_pointer_type || !ct_origin_die_type(t, &type_buf))
		return;
	Dwarf_Die *pointee = ct_dwarf_peel_type(&type_buf, &pointee_buf);
	char path[256] = "";
	uint64_t at;
	Dwarf_Word esize;
	if (!pointee || !member_array(pointee, (uint64_t)m->disp, path, sizeof(path), 0, &array, &at) ||
	    !array_shape(&array, &ret->bound, &esize))
		return;
	ret->index = element_of((int64_t)(m->address - (regs[base] + at)), (int64_t)esize);
	ret->array = ct_strpool_printf(s->out.strings, "%s->%s[%" PRId64 "]", name, path + 1, ret->bound);
	ret->found = true;
}

/**
 * A bad index into memory malloc handed out: the block the access's base lies in bounds it, in
 * elements of the access's size (an array of scalars), counted from the base. The block is what
 * malloc gave, which may be more than the program asked for: the bound is an upper one.
 */
static bool heap_index(const struct chain *c, const struct ct_mem_operand *m, uint64_t array_at, struct ct_root_step *st,
		       bool *out)
{
	uint64_t start, end;
	if (!m->size || !ct_heap_block_at(c->s, array_at, &start, &end))
		return false;
	int64_t bound = (int64_t)((end - array_at) / m->size);
	ct_origin_say_index(st, element_of((int64_t)(m->address - array_at), (int64_t)m->size), bound, 0,
		  ct_strpool_printf(c->s->out.strings, "the heap block at 0x%" PRIx64 " (%" PRId64 " elements of %u bytes)", array_at,
				    bound, m->size),
		  out);
	return true;
}

/**
 * A bad index into an array: the element the faulting address @p m falls in and the array with its
 * bound from the DWARF type of the global, or of frame 0's local, that @p array_at (the in-bounds
 * register of the access, with its displacement) lies in, onto @p st. True when decided, and then
 * *@p out when the index is past the bound (or negative). Not decided: no such variable, no DWARF,
 * not a one-dimensional array of known size.
 */
bool ct_origin_index_bound(const struct chain *c, const struct ct_mem_operand *m, uint64_t array_at, const uint64_t *regs,
			   const bool *valid, struct ct_root_step *st, bool *out)
{
	struct ct_data_symbol sym;
	Dwarf_Die type_buf, peel_buf;
	if (!m->has_address)
		return false;
	if (!ct_global_type(c->s, array_at, &sym, &type_buf)) {
		// A local array (parse into a buffer on the stack): the variable the access's base lies
		// in; else a block of the heap.
		if (!ct_find_local_at(c->s, c->f->pc, array_at, regs, valid, &sym.name, &sym.start, &type_buf))
			return heap_index(c, m, array_at, st, out);
	}
	Dwarf_Die *t = ct_dwarf_peel_type(&type_buf, &peel_buf);
	int64_t bound;
	Dwarf_Word esize;
	if (!t || !array_shape(t, &bound, &esize))
		return false;
	// The element the faulting address falls in, counted from the array's start.
	ct_origin_say_index(st, element_of((int64_t)(m->address - sym.start), (int64_t)esize), bound, 0,
		  ct_strpool_printf(c->s->out.strings, "%s[%" PRId64 "]", sym.name, bound), out);
	return true;
}

/** Registers summed in an access's address (each times its coefficient), at most. */
#define MAX_TERMS 8
/** Definitions followed below the access to decompose its address: a bound on the traces. */
#define MAX_AFFINE_DEPTH 6

/** An address as constant + the sum of coef * value over the terms (frame 0's code, the fault's access). */
struct affine {
	int64_t constant;
	size_t n;
	struct term t[MAX_TERMS];
	bool failed;
	/** The instruction that first summed two terms of which neither value is known; pooled. */
	const char *merge;
	uint64_t merge_pc;
};

/** *@p acc += @p x * @p y; false when that overflows 64 bits (the dump's values are not trusted). */
static bool madd(int64_t *acc, int64_t x, int64_t y)
{
	int64_t p;
	return !__builtin_mul_overflow(x, y, &p) && !__builtin_add_overflow(*acc, p, acc);
}

/** Register @p reg (@p size bytes read, @p sext) just before @p pc holds what it holds at the fault. */
static bool reg_at(const struct chain *c, const struct ct_vfunc *fn, int reg, unsigned size, bool sext, uint64_t pc,
		   const uint64_t *regs, const bool *valid, int64_t *ret)
{
	if (reg < 0 || reg >= CT_MAX_DWARF_REGS || !valid[reg] || (pc != c->f->pc && !ct_vfunc_unchanged(fn, pc, c->f->pc, reg)))
		return false;
	uint64_t v = regs[reg];
	if (size == 4)
		v = sext ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	*ret = (int64_t)v;
	return true;
}

/**
 * The value a register read as @p size bytes (@p sext) had when definition @p d says it was a
 * parameter's entry value: the parameter's register when the walk finds it untouched from the
 * function's entry to the fault (-O0 spills `b` and reloads it; rdi still holds it). A 4-byte
 * entry value read wider (`movsxd rcx, esi` is a copy to the walk) only when its sign bit is clear,
 * where sign and zero extension agree.
 */
static bool entry_value(const struct chain *c, const struct ct_vfunc *fn, const struct ct_vdef *d, unsigned size,
			bool sext, const uint64_t *regs, const bool *valid, int64_t *ret)
{
	int r = d->loc.reg;
	struct ct_vdef e;
	if (d->loc.slot || r < 0 || r >= CT_MAX_DWARF_REGS || !valid[r])
		return false;
	struct ct_vloc at_fault = { .reg = r, .size = 8 };
	ct_vfunc_trace(fn, c->f->pc, at_fault, false, 0, &e);
	if (e.kind != CT_VDEF_ENTRY || e.loc.slot || e.loc.reg != r || e.copies)
		return false;
	uint64_t v = regs[r];
	if (d->loc.size >= 8 && size >= 8) {
		*ret = (int64_t)v;
		return true;
	}
	int32_t low = (int32_t)v;
	if (d->loc.size == 4 && size == 8 && low < 0)
		return false;
	*ret = size == 4 && !sext ? (int64_t)(uint32_t)v : (int64_t)low;
	return true;
}

/** Terms from @p first on whose value is not known. */
static size_t unknown_terms(const struct affine *a, size_t first, size_t *which)
{
	size_t n = 0;
	for (size_t k = first; k < a->n; k++)
		if (!a->t[k].known) {
			*which = k;
			n++;
		}
	return n;
}

/**
 * The terms from @p first on and @p constant sum to @p total: when one of them has no known value,
 * that value (when the sum divides by its coefficient; otherwise nothing is decided).
 */
static void solve(struct affine *a, size_t first, int64_t constant, int64_t total)
{
	size_t u = SIZE_MAX;
	int64_t rest = total;
	if (unknown_terms(a, first, &u) != 1 || !madd(&rest, constant, -1))
		return;
	for (size_t k = first; k < a->n; k++)
		if (k != u && !madd(&rest, -a->t[k].coef, a->t[k].value)) // coefficients are positive
			return;
	if (a->t[u].coef == 0 || (a->t[u].coef == -1 && rest == INT64_MIN) || rest % a->t[u].coef != 0)
		return;
	a->t[u].value = rest / a->t[u].coef;
	a->t[u].known = true;
}

/**
 * Adds @p coef times register @p reg as read just before @p pc to @p a: through the walk's affine
 * definitions (lea, add, shl; aarch64 add, lsl, sbfiz) and constants, down to the registers whose
 * definition is something else (a parameter, a load, a call's return, sp or the frame pointer). A
 * register that still holds at the fault what it held there is known; a known sum with one unknown
 * term below it decides that term.
 */
static void expand(const struct chain *c, const struct ct_vfunc *fn, int reg, unsigned size, bool sext, uint64_t pc,
		   int64_t coef, int depth, const uint64_t *regs, const bool *valid, struct affine *a)
{
	if (a->failed)
		return;
	if (reg < 0 || (reg >= c->w->num_regs && reg != c->arch->sp_dwarf) || coef == 0) {
		a->failed = true;
		return;
	}
	int64_t v = 0;
	bool known = reg_at(c, fn, reg, size, sext, pc, regs, valid, &v);
	struct ct_vdef d = { .kind = CT_VDEF_STOP };
	if (reg != c->arch->sp_dwarf && reg != c->arch->fp_dwarf && depth < MAX_AFFINE_DEPTH) {
		struct ct_vloc loc = { .reg = reg, .size = size };
		ct_vfunc_trace(fn, pc, loc, known, (uint64_t)v, &d);
		if (d.kind == CT_VDEF_CONST) {
			int64_t cv = size == 4 ? (sext ? (int64_t)(int32_t)d.value : (int64_t)(uint32_t)d.value) : (int64_t)d.value;
			if (!madd(&a->constant, coef, cv))
				a->failed = true;
			return;
		}
		// A 4-byte read of a 64-bit sum is not that sum: only a whole register is followed.
		if (d.kind == CT_VDEF_ARITH && d.affine && size == 8) {
			size_t first = a->n;
			int64_t before = a->constant, scaled = 0, total = 0;
			if (!madd(&a->constant, coef, d.disp) || !madd(&scaled, coef, (int64_t)d.scale) ||
			    (known && !madd(&total, coef, v))) {
				a->failed = true;
				return;
			}
			if (d.base >= 0)
				expand(c, fn, d.base, 8, false, d.pc, coef, depth + 1, regs, valid, a);
			if (d.index >= 0)
				expand(c, fn, d.index, d.index_size ? d.index_size : 8, d.index_sext, d.pc, scaled, depth + 1,
				       regs, valid, a);
			int64_t below = a->constant;
			if (known && madd(&below, before, -1))
				solve(a, first, below, total);
			size_t u;
			if (!a->merge && unknown_terms(a, first, &u) > 1) {
				a->merge = ct_strpool_intern(c->s->out.strings, d.text);
				a->merge_pc = d.pc;
			}
			return;
		}
	}
	if (!known && d.kind == CT_VDEF_ENTRY)
		known = entry_value(c, fn, &d, size, sext, regs, valid, &v);
	if (a->n == MAX_TERMS) {
		a->failed = true;
		return;
	}
	a->t[a->n++] = (struct term){ .reg = reg, .size = size, .sext = sext, .pc = pc, .coef = coef, .known = known,
				      .value = v, .def = d };
}

/**
 * The fault's access address as an affine form of frame 0's registers (@p a): its memory operand's
 * base and index expanded, and one unknown term solved from the address the instruction computed.
 */
static bool decompose_access(const struct chain *c, const struct ct_vfunc *fn, uint64_t address, const uint64_t *regs,
			     const bool *valid, struct affine *a)
{
	struct ct_vaddr m;
	if (!ct_vfunc_mem_operand(fn, c->f->pc, &m))
		return false;
	*a = (struct affine){ .constant = m.disp };
	if (m.base >= 0)
		expand(c, fn, m.base, 8, false, c->f->pc, 1, 0, regs, valid, a);
	if (m.index >= 0)
		expand(c, fn, m.index, m.index_size, m.index_sext, c->f->pc, m.scale, 0, regs, valid, a);
	if (a->failed)
		return false;
	solve(a, 0, a->constant, (int64_t)address);
	return true;
}

/** "[4][8]" for @p n dimensions @p dims. */
static const char *dims_text(struct ct_strpool *pool, const int64_t *dims, int n)
{
	const char *t = "";
	for (int k = 0; k < n; k++)
		t = ct_strpool_printf(pool, "%s[%" PRId64 "]", t, dims[k]);
	return t;
}

/**
 * A variable (global or frame 0's local) that starts at @p at, or has a struct member array that
 * starts there: its array type into @p array and its name into *@p name.
 */
static bool variable_array_at(const struct chain *c, uint64_t at, const uint64_t *regs, const bool *valid,
			      Dwarf_Die *array, const char **name)
{
	struct ct_data_symbol sym;
	Dwarf_Die type;
	if (!ct_global_type(c->s, at, &sym, &type) &&
	    !ct_find_local_at(c->s, c->f->pc, at, regs, valid, &sym.name, &sym.start, &type))
		return false;
	if (at < sym.start)
		return false;
	Dwarf_Die peel, *t = ct_dwarf_peel_type(&type, &peel);
	if (t && at == sym.start && dwarf_tag(t) == DW_TAG_array_type) {
		*array = *t;
		*name = sym.name;
		return true;
	}
	char path[256] = "";
	uint64_t off;
	if (!t || !member_array(t, at - sym.start, path, sizeof(path), 0, array, &off) || off != at - sym.start)
		return false;
	*name = ct_strpool_printf(c->s->out.strings, "%s%s", sym.name, path);
	return true;
}

/**
 * The struct a pointer term points to (@p t: a pointer parameter's entry value, or a pointer loaded
 * from a global), with a member array that starts at @p at: the array type and "p->member".
 * *@p loaded: the pointer was loaded from a global.
 */
static bool pointer_array_at(const struct chain *c, const struct term *t, uint64_t at, Dwarf_Die *array,
			     const char **name, bool *loaded)
{
	const struct ct_triage_input *s = c->s;
	Dwarf_Die type_buf, peel_buf;
	const char *pname = NULL;
	if (t->def.kind == CT_VDEF_ENTRY && !t->def.loc.slot) {
		int slot = ct_origin_arg_slot(c->arch, t->def.loc.reg);
		Dwarf_Die param;
		if (slot < 0 || !ct_origin_param_die(s, c->f->pc, slot, &param) || !(pname = ct_origin_die_name(&param)) ||
		    !ct_origin_die_type(&param, &type_buf))
			return false;
		*loaded = false;
	} else if (t->def.kind == CT_VDEF_LOAD && t->def.has_abs) {
		struct ct_data_symbol sym;
		if (!ct_global_type(s, t->def.abs, &sym, &type_buf) || sym.start != t->def.abs)
			return false;
		pname = sym.name;
		*loaded = true;
	} else {
		return false;
	}
	Dwarf_Die *p = ct_dwarf_peel_type(&type_buf, &peel_buf);
	if (!p || dwarf_tag(p) != DW_TAG_pointer_type || !ct_origin_die_type(p, &type_buf) || (uint64_t)t->value > at)
		return false;
	Dwarf_Die pointee_buf, *pointee = ct_dwarf_peel_type(&type_buf, &pointee_buf);
	char path[256] = "";
	uint64_t off, want = at - (uint64_t)t->value;
	if (!pointee || !member_array(pointee, want, path, sizeof(path), 0, array, &off) || off != want)
		return false;
	*name = ct_strpool_printf(s->out.strings, "%s->%s", pname, path + 1);
	return true;
}

/**
 * A bad index into a multi-dimensional array (`grid[i][j]`: a global, frame 0's local, a struct
 * member through a pointer parameter) or into an array member of a struct a pointer loaded from a
 * global points to (`g_table->items[i]`), from the decomposition of the access's address: the
 * terms of one byte (pointers, sp, the frame pointer, constants) sum to the array's start, each
 * other term's coefficient is the stride of one subscript (`i` times 32 bytes, `j` times 4 for
 * int[4][8]), and each subscript's value is its terms' (one at most unknown, solved from the
 * address). When two of the subscripts' terms have no known value (summed before the access, and
 * neither kept in a register), which one is past its bound is not decided: @p ret says why.
 */
void ct_origin_grid_index(const struct chain *c, const struct ct_vfunc *fn, uint64_t address, const uint64_t *regs,
			  const bool *valid, struct grid_bound *ret)
{
	struct ct_strpool *pool = c->s->out.strings;
	struct affine a;
	if (!decompose_access(c, fn, address, regs, valid, &a))
		return;
	// The array's start: the terms of one byte, each a known pointer (or sp, the frame pointer).
	int64_t start = a.constant;
	for (size_t k = 0; k < a.n; k++) {
		if (a.t[k].coef != 1)
			continue;
		if (!a.t[k].known || !madd(&start, 1, a.t[k].value))
			return;
	}
	Dwarf_Die array;
	const char *name = NULL;
	bool loaded = false;
	if (!variable_array_at(c, (uint64_t)start, regs, valid, &array, &name)) {
		for (size_t k = 0; k < a.n && !name; k++)
			if (a.t[k].coef == 1 && !pointer_array_at(c, &a.t[k], (uint64_t)start, &array, &name, &loaded))
				name = NULL;
		if (!name)
			return;
	}
	int64_t dims[MAX_DIMS], stride[MAX_DIMS], index[MAX_DIMS] = { 0 };
	Dwarf_Word esize;
	int n = array_dims(&array, dims, &esize);
	// One-dimensional arrays are bounded by index_bound and member_index (their own rules), except
	// through a loaded pointer; a byte's subscript cannot be told from a pointer's term.
	if (n == 0 || (n == 1 && !loaded) || esize < 2)
		return;
	for (int k = n; k-- > 0;) {
		stride[k] = 0;
		if (!madd(&stride[k], k == n - 1 ? 1 : stride[k + 1], k == n - 1 ? (int64_t)esize : dims[k + 1]))
			return;
	}
	int of[MAX_TERMS], unknown = 0;
	for (size_t k = 0; k < a.n; k++) {
		of[k] = -1;
		if (a.t[k].coef == 1)
			continue;
		for (int d = 0; d < n && of[k] < 0; d++)
			if (a.t[k].coef == stride[d] && (d == n - 1 || stride[d] != stride[d + 1]))
				of[k] = d;
		// A term that is no subscript's stride, or computed by what the walk does not follow
		// (the subscript it belongs to is not known).
		if (of[k] < 0 || a.t[k].def.kind == CT_VDEF_ARITH)
			return;
		unknown += !a.t[k].known;
	}
	const char *array_text = ct_strpool_printf(pool, "%s%s", name, dims_text(pool, dims, n));
	*ret = (struct grid_bound){ .found = true, .dims = n, .array = array_text, .term = { .reg = -1 } };
	if (unknown) {
		ret->merged = a.merge ? ct_strpool_printf(pool,
							  "the subscripts of %s are summed by `%s` before the access and neither "
							  "is kept: which one is past its bound is not decided",
							  array_text, a.merge)
				      : ct_strpool_printf(pool,
							  "a subscript of %s is kept in no register at the access: which one is "
							  "past its bound is not decided",
							  array_text);
		ret->merged_pc = a.merge ? a.merge_pc : c->f->pc;
		return;
	}
	int terms[MAX_DIMS] = { 0 };
	size_t last[MAX_DIMS];
	for (size_t k = 0; k < a.n; k++) {
		if (of[k] < 0)
			continue;
		if (!madd(&index[of[k]], 1, a.t[k].value)) {
			ret->found = false;
			return;
		}
		terms[of[k]]++;
		last[of[k]] = k;
	}
	for (int d = 0; d < n; d++) {
		if (index[d] >= 0 && index[d] < dims[d])
			continue;
		ret->dimension = d + 1;
		ret->index = index[d];
		ret->bound = dims[d];
		// The chain follows the subscript's register when it is one register alone.
		if (terms[d] == 1)
			ret->term = a.t[last[d]];
		else
			ret->term.reg = -1;
		return;
	}
	// Every subscript within its bound: the access is not what faulted through a bad index.
	ret->found = false;
}
