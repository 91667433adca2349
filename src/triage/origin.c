// The root-cause chain over frames (docs/root-cause.md): the fault's operand, then for each physical
// frame the architecture's walk (origin_x86.c, origin_arm64.c), named with symbols, lines and DWARF
// parameters. A parameter moves the walk to the caller's call site after checking that the call
// there calls this function directly.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/symbolize.h"
#include "triage/gather.h"
#include "triage/hang.h"
#include "triage/heap.h"
#include "triage/origin.h"
#include "triage/origin_chain.h"
#include "unwind/stacks.h"
#include "values/values.h"

/** Largest function decoded (bytes): larger ones are not traced rather than slow. */
#define MAX_FUNCTION_BYTES (64 * 1024)

/** The walks by architecture; a dump of another one is not traced. */
static const struct ct_vwalker *const walkers[] = { &ct_vwalker_x86_64, &ct_vwalker_aarch64 };

/** The name of the register numbered @p dwarf in the arch table ("rdi", "x0"); "?" when it has none. */
static const char *reg_name(const struct ct_arch_info *a, int dwarf)
{
	for (size_t i = 0; i < a->num_regs; i++)
		if (a->regs[i].dwarf == dwarf)
			return a->regs[i].name;
	return "?";
}

/** The DWARF number of the register named @p name in the arch table, -1 when it has none. */
static int reg_by_name(const struct ct_arch_info *a, const char *name)
{
	for (size_t i = 0; i < a->num_regs; i++)
		if (strcmp(a->regs[i].name, name) == 0)
			return a->regs[i].dwarf;
	return -1;
}

/** The ELF symbol of the function holding @p addr: start, size and name. */
static bool function_of(const struct ct_triage_input *s, uint64_t addr, uint64_t *start, uint64_t *size,
			const char **name)
{
	Dwfl_Module *mod = s->mods->dwfl ? dwfl_addrmodule(s->mods->dwfl, addr) : NULL;
	if (!mod)
		return false;
	GElf_Sym sym;
	GElf_Off off;
	const char *n = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!n || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0)
		return false;
	*start = addr - off;
	*size = sym.st_size;
	*name = n;
	return true;
}

static uint8_t *read_function(const struct ct_triage_input *s, uint64_t start, uint64_t size, const char **reason)
{
	uint8_t *code = size <= MAX_FUNCTION_BYTES ? malloc(size) : NULL;
	if (!code || !ct_modules_read_code(s->mods, start, code, size)) {
		free(code);
		*reason = size > MAX_FUNCTION_BYTES ? "the function is larger than the walk decodes"
						    : "the function's code is not readable";
		return NULL;
	}
	return code;
}

// The program's data as its files and the dump hold it (a switch's table in .rodata).
static bool read_program_data(void *arg, uint64_t addr, void *buf, size_t len)
{
	return ct_modules_read_code(arg, addr, buf, len);
}

/** @p a is @p b's cold part ("f.cold" of "f", gcc's hot/cold splitting). */
static bool is_cold_of(const char *a, const char *b)
{
	size_t nb = strlen(b);
	return strncmp(a, b, nb) == 0 && strcmp(a + nb, ".cold") == 0;
}

/** Outside jumps looked at for a .cold partner: a function has one cold part and few such jumps. */
#define MAX_OUTSIDE_JUMPS 32

/**
 * Decodes the function at @p start (@p size bytes, symbol *@p name) together with its .cold part when
 * it jumps to one (or, for a .cold part, with the function it belongs to), so that the jumps between
 * them are predecessors too. *@p name and *@p entry become the function's own (not the .cold part's).
 */
static struct ct_vfunc *decode_function(const struct ct_triage_input *s, const struct ct_vwalker *w, uint64_t start,
					uint64_t size, const char **name, uint64_t *entry, const char **reason)
{
	uint8_t *code = read_function(s, start, size, reason);
	if (!code)
		return NULL;
	struct ct_vrange one = { code, size, start };
	bool cold = strlen(*name) > 5 && strcmp(*name + strlen(*name) - 5, ".cold") == 0;
	struct ct_vfunc *fn = NULL;
	if (!ct_vfunc_decode(w->steps, &one, 1, cold ? 0 : start, &fn, reason)) {
		free(code);
		return NULL;
	}
	uint64_t targets[MAX_OUTSIDE_JUMPS];
	size_t n = ct_vfunc_outside_jumps(fn, targets, MAX_OUTSIDE_JUMPS);
	*entry = start;
	for (size_t i = 0; i < n; i++) {
		uint64_t s2, size2;
		const char *n2;
		if (!function_of(s, targets[i], &s2, &size2, &n2) || !(is_cold_of(n2, *name) || is_cold_of(*name, n2)))
			continue;
		uint8_t *code2 = read_function(s, s2, size2, reason);
		if (!code2)
			break;
		struct ct_vrange two[2] = { { code, size, start }, { code2, size2, s2 } };
		if (s2 < start) {
			two[0] = two[1];
			two[1] = one;
		}
		struct ct_vfunc *both = NULL;
		uint64_t hot = cold ? s2 : start;
		if (ct_vfunc_decode(w->steps, two, 2, hot, &both, reason)) {
			ct_vfunc_destroy(fn);
			fn = both;
			*entry = hot;
			if (cold)
				*name = n2;
		}
		free(code2);
		break;
	}
	free(code);
	if (cold && *entry == start) {
		// A .cold part without the function it belongs to: its entries are unknown.
		ct_vfunc_destroy(fn);
		*reason = "the crash is in a .cold part whose function was not found";
		return NULL;
	}
	// A switch's jump through its table: the table's targets are the paths into its cases.
	const struct ct_vmem mem = { read_program_data, s->mods };
	if (!ct_vfunc_resolve_tables(fn, &mem)) {
		ct_vfunc_destroy(fn);
		*reason = "out of memory";
		return NULL;
	}
	return fn;
}

static struct ct_root_step *add_step(struct chain *c, long frame, uint64_t pc, enum ct_root_step_kind kind)
{
	if (c->n == MAX_STEPS)
		return NULL;
	struct ct_root_step *st = &c->steps[c->n++];
	memset(st, 0, sizeof(*st));
	st->frame = frame;
	st->pc = pc;
	st->kind = kind;
	const struct ct_sym *sym;
	size_t n = ct_symbolize(c->s->mods, pc, &sym);
	if (n) {
		// Line 0 is DWARF's "no source line" (code the compiler made): no place, not "file:0".
		st->file = sym[0].line > 0 ? sym[0].file : NULL;
		st->line = sym[0].line > 0 ? sym[0].line : 0;
		st->function = sym[0].function;
	}
	return st;
}

static void stop(struct chain *c, long frame, uint64_t pc, const char *reason, bool has_value, uint64_t value)
{
	struct ct_root_step *st = add_step(c, frame, pc, CT_ROOT_STEP_STOPPED);
	if (!st)
		return;
	st->reason = ct_strpool_intern(c->s->out.strings, reason);
	st->has_value = has_value;
	st->value = value;
}

const char *ct_origin_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	return ct_dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
}

/** A parameter type passed in one integer register: pointer, integer, enum, bool (through typedefs and qualifiers). */
static bool one_int_register(Dwarf_Die *param)
{
	Dwarf_Attribute attr;
	Dwarf_Die type;
	if (!ct_dwarf_attr_integrate(param, DW_AT_type, &attr) || !ct_dwarf_ref_die(&attr, &type))
		return false;
	for (int depth = 0; depth < 8; depth++) {
		int tag = dwarf_tag(&type);
		if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_enumeration_type)
			return true;
		if (tag == DW_TAG_base_type) {
			Dwarf_Word enc;
			if (ct_dwarf_attr_integrate(&type, DW_AT_encoding, &attr) == NULL || dwarf_formudata(&attr, &enc) != 0)
				return false;
			int size = ct_dwarf_bytesize(&type);
			return enc != DW_ATE_float && enc != DW_ATE_complex_float && size > 0 && size <= 8;
		}
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type)
			return false;
		if (!ct_dwarf_attr_integrate(&type, DW_AT_type, &attr) || !ct_dwarf_ref_die(&attr, &type))
			return false;
	}
	return false;
}

/** The DWARF parameter of the function at @p pc passed in argument register @p slot (0 = rdi). */
bool ct_origin_param_die(const struct ct_triage_input *s, uint64_t pc, int slot, Dwarf_Die *ret)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Addr bias;
	int n = ct_symbolize_scopes(s->mods, pc, &scopes, &bias);
	bool found = false;
	for (int i = 0; i < n && !found; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		Dwarf_Die child;
		int k = 0;
		if (dwarf_child(&scopes[i], &child) != 0)
			break;
		do {
			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			// Parameters before it that take other registers (floats, structs) shift the count.
			if (!one_int_register(&child))
				break;
			if (k++ == slot) {
				*ret = child;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		break;
	}
	free(scopes);
	return found;
}

/** Name of the parameter of the function at @p pc passed in argument register @p slot (0 = rdi), or NULL. */
static const char *param_name(const struct ct_triage_input *s, uint64_t pc, int slot)
{
	Dwarf_Die p;
	const char *found = ct_origin_param_die(s, pc, slot, &p) ? ct_origin_die_name(&p) : NULL;
	return found ? ct_strpool_intern(s->out.strings, found) : NULL;
}

/** The position of argument register @p reg in the calling convention (0 = the first), -1 when none. */
int ct_origin_arg_slot(const struct ct_arch_info *a, int reg)
{
	for (unsigned k = 0; k < a->num_call_args; k++)
		if (a->call_arg_dwarf[k] == reg)
			return (int)k;
	return -1;
}

bool ct_origin_die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	return ct_dwarf_attr_integrate(die, DW_AT_type, &attr) && ct_dwarf_ref_die(&attr, ret);
}

/** Loads named through at most (`l->a->b->c`): a bound on the walk, each level one more trace. */
#define MAX_NAME_LOADS 4

/**
 * The global (or its member) at @p addr, named from its DWARF type: "hooks", "cfg.handler",
 * "table[3]"; *@p leaf / *@p has_leaf: the type of what lies there, for a load through it (a chain
 * that starts at a global: `hooks->cfg`). NULL when no global of the program's modules with a
 * DWARF type holds it, or the address is inside a member rather than at one.
 */
static const char *global_object(const struct ct_triage_input *s, uint64_t addr, Dwarf_Die *leaf, bool *has_leaf)
{
	struct ct_data_symbol sym;
	Dwarf_Die type;
	*has_leaf = false;
	if (!ct_global_type(s, addr, &sym, &type) || addr < sym.start)
		return NULL;
	uint64_t off = addr - sym.start;
	if (off == 0) {
		// The variable itself (a struct's first member is named by its own path below).
		Dwarf_Die peel, *t = ct_dwarf_peel_type(&type, &peel);
		int tag = t ? dwarf_tag(t) : 0;
		if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_array_type) {
			*leaf = type;
			*has_leaf = true;
			return ct_strpool_intern(s->out.strings, sym.name);
		}
	}
	char path[256] = "";
	if (!ct_member_path_type(&type, off, path, sizeof(path), leaf, has_leaf) || (path[0] != '.' && path[0] != '[')) {
		*has_leaf = false;
		return NULL;
	}
	return ct_strpool_printf(s->out.strings, "%s%s", sym.name, path);
}

/**
 * What a load at @p d reads, named from DWARF: a global's member by its address ("cfg.timeout",
 * "table[3]"), or, when the base register still holds a pointer parameter's value from the function's
 * entry, the member of what it points to ("n->cfg", "p[2]", "*p"); when the base was itself loaded
 * in the function, that load named first, level by level (`l->head->next`, at most MAX_NAME_LOADS).
 * *@p leaf / *@p has_leaf: the type of the value read, for the next level. NULL when it cannot be
 * named; then *@p why says why when a level of a chain of loads was the one undecided (else NULL).
 */
static const char *name_load(const struct chain *c, const struct ct_vfunc *fn, long j, const struct ct_vdef *d, int level,
			     Dwarf_Die *leaf, bool *has_leaf, const char **why)
{
	const struct ct_triage_input *s = c->s;
	*has_leaf = false;
	if (d->index >= 0) {
		*why = level ? "a level of the chain of loads uses an index register" : NULL;
		return NULL;
	}
	if (d->has_abs) {
		const char *g = global_object(s, d->abs, leaf, has_leaf);
		*why = g || !level ? NULL : "the global the chain of loads starts at has no DWARF type";
		// A whole global read by the fault's own load is already named by its memory ("global
		// queue"); below a load (`hooks->cfg`) it is the start of the name.
		return level || (g && strpbrk(g, ".[")) ? g : NULL;
	}
	if (d->base < 0 || d->base >= c->w->num_regs || d->disp < 0) {
		*why = level ? "a level of the chain of loads has a negative displacement" : NULL;
		return NULL;
	}
	struct ct_vdef b;
	struct ct_vloc base = { .reg = d->base, .size = 8 };
	ct_vfunc_trace(fn, d->pc, base, false, 0, &b);
	Dwarf_Die type_buf, pointee_buf, inner_leaf;
	Dwarf_Die *type = NULL;
	const char *name = NULL;
	*why = NULL;
	if (strchr(c->f->frames[j].function ? c->f->frames[j].function : ".", '.'))
		return NULL;
	if (b.kind == CT_VDEF_LOAD) {
		// The base was read from memory itself: name that read first, then this member of it.
		bool inner_typed;
		if (level + 1 >= MAX_NAME_LOADS) {
			*why = "the chain of loads is deeper than it names (4 levels)";
			return NULL;
		}
		name = name_load(c, fn, j, &b, level + 1, &inner_leaf, &inner_typed, why);
		if (!name) {
			if (!*why)
				*why = "the base of a level of the chain of loads is not named";
			return NULL;
		}
		if (!inner_typed) {
			*why = "a level of the chain of loads has no DWARF type";
			return NULL;
		}
		type = &inner_leaf;
	} else {
		int slot = b.kind == CT_VDEF_ENTRY && !b.loc.slot ? ct_origin_arg_slot(c->arch, b.loc.reg) : -1;
		Dwarf_Die param;
		if (slot < 0 || !ct_origin_param_die(s, c->f->frames[j].pc, slot, &param) || !(name = ct_origin_die_name(&param)) ||
		    !ct_origin_die_type(&param, &type_buf)) {
			// Why the base is not named, at every level: the walk stopped on it, or it was computed.
			*why = b.kind == CT_VDEF_STOP	 ? b.reason
			       : b.kind == CT_VDEF_ARITH ? "the base register is computed in the function"
			       : b.kind == CT_VDEF_CALL	 ? "the base register is a call's return value"
			       : level			 ? "the innermost base of the chain of loads is not a pointer parameter's value at entry"
							 : NULL;
			return NULL;
		}
		type = &type_buf;
	}
	type = ct_dwarf_peel_type(type, &pointee_buf);
	if (!type || dwarf_tag(type) != DW_TAG_pointer_type || !ct_origin_die_type(type, &type_buf)) {
		*why = level ? "a level of the chain of loads is not a pointer by its DWARF type" : NULL;
		return NULL;
	}
	Dwarf_Die *pointee = ct_dwarf_peel_type(&type_buf, &pointee_buf);
	if (!pointee) {
		*why = level ? "a level of the chain of loads points to a type DWARF does not describe" : NULL;
		return NULL;
	}
	int tag = dwarf_tag(pointee);
	uint64_t off = (uint64_t)d->disp;
	if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type) {
		char path[256] = "";
		// A member's path starts with '.'; "+0x8" is an offset no member covers.
		if (!ct_member_path_type(pointee, off, path, sizeof(path), leaf, has_leaf) || path[0] != '.') {
			*why = level ? "no member of a level's type lies at the load's offset" : NULL;
			return NULL;
		}
		// "*p" from the level below binds weaker than "->": (*p)->next.
		return ct_strpool_printf(s->out.strings, name[0] == '*' ? "(%s)->%s" : "%s->%s", name, path + 1);
	}
	Dwarf_Word size;
	if (ct_dwarf_aggregate_size(pointee, &size) != 0 || size == 0 || off % size) {
		*why = level ? "the load's offset is not an element of a level's pointed-to type" : NULL;
		return NULL;
	}
	*leaf = *pointee;
	*has_leaf = true;
	return off ? ct_strpool_printf(s->out.strings, name[0] == '*' ? "(%s)[%" PRIu64 "]" : "%s[%" PRIu64 "]", name, off / size)
		   : ct_strpool_printf(s->out.strings, "*%s", name);
}

/** The object a load-from step reads (name_load from its first level) and, when not named, why. */
static const char *load_object(const struct chain *c, const struct ct_vfunc *fn, long j, const struct ct_vdef *d,
			       const char **why)
{
	Dwarf_Die leaf;
	bool has_leaf;
	*why = NULL;
	return name_load(c, fn, j, d, 0, &leaf, &has_leaf, why);
}

/** The frame of the group ending at physical frame @p j whose function the step's pc lies in. */
static long frame_for(const struct chain *c, long first, long j, const char *function)
{
	for (long i = first; i <= j && function; i++) {
		if (c->f->frames[i].function && strcmp(c->f->frames[i].function, function) == 0)
			return i;
	}
	return j;
}

static const char *callee_name(const struct chain *c, const struct ct_vdef *d)
{
	const struct ct_triage_input *s = c->s;
	if (!d->has_target && !d->has_slot)
		return NULL;
	if (d->has_target) {
		uint64_t start, size;
		const char *name;
		if (function_of(s, d->target, &start, &size, &name) && start == d->target)
			return ct_demangle(s->mods, name);
	}
	return ct_call_import(s, d->target, d->has_slot, d->slot);
}

/** What memory at @p addr is: a global by symbol, a frame's stack, or anonymous memory in the dump. */
static const char *memory_kind(const struct chain *c, uint64_t addr)
{
	const struct ct_triage_input *s = c->s;
	Dwfl_Module *mod = s->mods->dwfl ? dwfl_addrmodule(s->mods->dwfl, addr) : NULL;
	if (mod) {
		GElf_Sym sym;
		GElf_Off off;
		const char *n = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
		if (n && GELF_ST_TYPE(sym.st_info) == STT_OBJECT && off < sym.st_size)
			return off ? ct_strpool_printf(s->out.strings, "global %s+0x%" PRIx64, n, (uint64_t)off)
				   : ct_strpool_printf(s->out.strings, "global %s", n);
	}
	const struct ct_stack_facts *st = &c->f->stack;
	if (st->has_stack && addr >= st->sp && addr < st->stack_end && c->thread) {
		// Frame i's locals lie between its sp and its caller's.
		for (size_t i = 0; i + 1 < c->thread->num_frames; i++) {
			const struct ct_frame *fr = &c->thread->frames[i], *up = &c->thread->frames[i + 1];
			if (fr->has_sp && up->has_sp && addr >= fr->sp && addr < up->sp)
				return ct_strpool_printf(s->out.strings, "stack of frame %zu", i);
		}
		return "stack";
	}
	uint64_t w;
	if (ct_core_read_word(s->core, addr, &w)) {
		const char *chunk = mod ? NULL : ct_heap_describe(s, addr);
		return mod ? "module data" : chunk ? chunk : "anonymous memory (heap or mmap)";
	}
	return "not in the dump";
}

/** Steps for the definition @p d found in physical frame @p j (group from @p first); true to go on in the caller. */
static bool record(struct chain *c, const struct ct_vfunc *fn, long first, long j, uint64_t fault_pc, const struct ct_vdef *d,
		   bool has_value, uint64_t value, bool frame0)
{
	const struct ct_triage_input *s = c->s;
	struct ct_strpool *pool = s->out.strings;
	if (d->kind == CT_VDEF_STOP) {
		stop(c, j, d->pc, d->reason, has_value, value);
		return false;
	}
	if (d->kind == CT_VDEF_ENTRY)
		return true;
	enum ct_root_step_kind kind = d->kind == CT_VDEF_CALL	 ? CT_ROOT_STEP_RETURN_OF
				      : d->kind == CT_VDEF_LOAD	 ? CT_ROOT_STEP_LOAD_FROM
				      : d->kind == CT_VDEF_CONST ? CT_ROOT_STEP_CONSTANT
								 : CT_ROOT_STEP_ARITH;
	struct ct_root_step *st = add_step(c, j, d->pc, kind);
	if (!st)
		return false;
	st->frame = frame_for(c, first, j, st->function);
	st->has_value = has_value;
	st->value = value;
	switch (d->kind) {
	case CT_VDEF_CALL: {
		const char *callee = callee_name(c, d);
		if (!callee) {
			// A call through a pointer returned it: which function is not known from the code.
			st->kind = CT_ROOT_STEP_STOPPED;
			st->expression = ct_strpool_intern(pool, d->text);
			st->reason = "returned by a call whose callee is not known (through a pointer)";
			return false;
		}
		st->function = callee;
		// Demangled C++ names carry their parameter list already.
		st->expression = strchr(callee, '(') ? callee : ct_strpool_printf(pool, "%s()", callee);
		break;
	}
	case CT_VDEF_LOAD:
		st->expression = ct_strpool_intern(pool, d->text);
		st->object = load_object(c, fn, j, d, &st->object_reason);
		if (d->has_abs) {
			st->has_address = true;
			st->address = d->abs;
		} else if (frame0 && d->base >= 0 && d->base < c->w->num_regs && d->index < 0 && c->s->crashed &&
			   c->s->crashed->valid[d->base] && ct_vfunc_unchanged(fn, d->pc, fault_pc, d->base)) {
			st->has_address = true;
			st->address = c->s->crashed->dwarf[d->base] + (uint64_t)d->disp;
		}
		if (st->has_address) {
			st->memory = memory_kind(c, st->address);
			// What the memory holds now: a NULL still there says it was never set since.
			uint64_t word;
			unsigned size = d->loc.size;
			if (size && size <= 8 && ct_core_read_word(c->s->core, st->address, &word)) {
				st->has_holds = true;
				st->holds = size == 8 ? word : word & ((1ULL << (8 * size)) - 1);
			}
		}
		break;
	default:
		st->expression = ct_strpool_intern(pool, d->text);
		break;
	}
	return false;
}

/**
 * The walk in a caller stopped before its call at @p call_pc (return address @p ret_pc) with the
 * value in register @p loc: the call site's DW_AT_call_value for that register decides when it is a
 * constant (a constant step, when it is the value known), the caller's own entry value of a register
 * (the chain goes on in its caller as for a parameter), or another register at the call (walked from
 * the call in its place). Otherwise *@p d keeps the walk's stop, which says what the DWARF gave.
 */
static void call_site_value(const struct chain *c, const struct ct_vfunc *fn, uint64_t call_pc, uint64_t ret_pc,
			    struct ct_vloc loc, bool has_value, uint64_t value, struct ct_vdef *d)
{
	struct ct_strpool *pool = c->s->out.strings;
	struct ct_call_value cv;
	if (loc.slot || !ct_callsite_value_at(c->s->mods, ret_pc, (unsigned)loc.reg, &cv))
		return;
	const char *walk = d->reason;
	switch (cv.kind) {
	case CT_CALL_VALUE_CONST: {
		uint64_t mask = loc.size >= 8 ? UINT64_MAX : (1ULL << (8 * loc.size)) - 1;
		if (has_value && (cv.value & mask) != (value & mask)) {
			d->reason = ct_strpool_printf(pool, "%s; the call site's DW_AT_call_value 0x%" PRIx64 " is not the value",
						      walk, cv.value);
			return;
		}
		*d = (struct ct_vdef){ .kind = CT_VDEF_CONST, .pc = call_pc, .loc = loc, .value = cv.value, .base = -1, .index = -1 };
		snprintf(d->text, sizeof(d->text), "DW_AT_call_value 0x%" PRIx64, cv.value);
		return;
	}
	case CT_CALL_VALUE_ENTRY:
		if ((int)cv.reg < c->w->num_regs && (int)cv.reg != c->arch->sp_dwarf) {
			struct ct_vloc at_entry = { .reg = (int)cv.reg, .size = 8 };
			*d = (struct ct_vdef){ .kind = CT_VDEF_ENTRY, .pc = call_pc, .loc = at_entry, .base = -1, .index = -1 };
			return;
		}
		break;
	case CT_CALL_VALUE_REG:
		if ((int)cv.reg < c->w->num_regs && (int)cv.reg != c->arch->sp_dwarf && (int)cv.reg != loc.reg) {
			struct ct_vloc other = { .reg = (int)cv.reg, .size = loc.size };
			ct_vfunc_trace(fn, call_pc, other, has_value, value, d);
			if (d->kind == CT_VDEF_STOP)
				d->reason = ct_strpool_printf(pool, "%s (the value was in %s at the call, by its DW_AT_call_value)",
							      d->reason, reg_name(c->arch, (int)cv.reg));
			return;
		}
		break;
	default:
		break;
	}
	d->reason = ct_strpool_printf(pool, "%s; the call site's DW_AT_call_value is a form the walk does not follow", walk);
}

static const char *value_text(struct ct_strpool *pool, bool pointer, bool has_value, uint64_t v)
{
	if (!has_value)
		return "value";
	if (v == 0)
		return pointer ? "NULL" : "zero";
	return ct_strpool_printf(pool, "value 0x%" PRIx64, v);
}

static const char *where(struct ct_strpool *pool, const struct ct_root_step *st)
{
	if (st->file && st->line) {
		// The file's base name, as the crash summary shows it.
		const char *slash = strrchr(st->file, '/');
		return ct_strpool_printf(pool, " at %s:%d", slash ? slash + 1 : st->file, st->line);
	}
	return ct_strpool_printf(pool, " at 0x%" PRIx64, st->pc);
}

/** Hops named in the summary; the steps list them all. */
#define SUMMARY_HOPS 4

static const char *call_text(struct ct_strpool *pool, const char *function)
{
	if (!function)
		return "?()";
	// Demangled C++ names carry their parameter list already.
	return strchr(function, '(') ? function : ct_strpool_printf(pool, "%s()", function);
}

static const char *summarize(const struct chain *c, const char *subject, bool pointer)
{
	struct ct_strpool *pool = c->s->out.strings;
	const struct ct_root_step *last = &c->steps[c->n - 1];
	const char *val = value_text(pool, pointer, last->has_value, last->value);
	const char *head;
	switch (last->kind) {
	case CT_ROOT_STEP_RETURN_OF:
		head = ct_strpool_printf(pool, "%s is the %s returned by %s%s", subject, val, last->expression,
					 where(pool, last));
		break;
	case CT_ROOT_STEP_LOAD_FROM:
		head = last->object
			       ? ct_strpool_printf(pool, "%s is the %s read from `%s` by `%s`%s%s%s", subject, val, last->object,
						   last->expression, where(pool, last), last->memory ? " in " : "",
						   last->memory ? last->memory : "")
			       : ct_strpool_printf(pool, "%s is the %s loaded by `%s`%s%s%s", subject, val, last->expression,
						   where(pool, last), last->memory ? " from " : "", last->memory ? last->memory : "");
		if (last->has_holds)
			head = ct_strpool_printf(pool, "%s, holding 0x%" PRIx64 " now", head, last->holds);
		break;
	case CT_ROOT_STEP_CONSTANT:
		head = ct_strpool_printf(pool, "%s is the constant %s set by `%s`%s", subject, val, last->expression,
					 where(pool, last));
		break;
	case CT_ROOT_STEP_ARITH:
		head = ct_strpool_printf(pool, "%s is the %s computed by `%s`%s", subject, val, last->expression,
					 where(pool, last));
		break;
	default:
		head = ct_strpool_printf(pool, "%s is the %s", subject, val);
		break;
	}
	// The hops, outermost first: how the value travelled to the crash.
	size_t shown = 0, hidden = 0;
	for (size_t i = c->n - 1; i-- > 0;) {
		const struct ct_root_step *st = &c->steps[i];
		if (st->kind == CT_ROOT_STEP_PARAM_OF && shown == SUMMARY_HOPS) {
			hidden++;
		} else if (st->kind == CT_ROOT_STEP_PARAM_OF) {
			head = ct_strpool_printf(pool, "%s, passed to %s%s", head, call_text(pool, st->function),
						 where(pool, st));
			shown++;
		} else if (st->kind == CT_ROOT_STEP_ARITH) {
			head = ct_strpool_printf(pool, "%s, scaled by `%s`%s", head, st->expression, where(pool, st));
		}
	}
	if (hidden)
		head = ct_strpool_printf(pool, "%s (and %zu calls more)", head, hidden);
	if (last->kind == CT_ROOT_STEP_STOPPED)
		head = ct_strpool_printf(pool, "%s; traced no further than %s%s: %s", head,
					 last->function ? last->function : "the code", where(pool, last), last->reason);
	return head;
}

void ct_root_cause_trace(const struct ct_triage_input *s, const struct ct_facts *f, const uint64_t *regs,
			 const bool *valid, struct ct_verdict *v)
{
	const struct ct_insn_facts *in = &f->insn;
	const struct ct_arch_info *arch = s->core ? s->core->arch : NULL;
	const struct ct_vwalker *w = NULL;
	for (size_t k = 0; arch && arch->num_call_args && k < sizeof(walkers) / sizeof(walkers[0]); k++)
		if (strcmp(walkers[k]->arch, arch->name) == 0)
			w = walkers[k];
	if (!w || !f->arch || strcmp(f->arch, arch->name) != 0 || !in->decoded || !ct_facts_kernel_fault(f) || !f->num_frames ||
	    !f->frames[0].own || f->frames[0].signal_frame)
		return;
	int signo = f->sig.signo;
	bool fpe = signo == CT_SIGFPE && in->is_div;
	if (!fpe && signo != CT_SIGSEGV && signo != CT_SIGBUS)
		return;
	// The operand that holds the bad value: the faulting access's base register (its index when the
	// base is a sane pointer and the index is not), the divisor, or the register a branch goes through.
	struct ct_vloc loc = { .reg = -1, .size = 8 };
	bool pointer = true;
	// An access through base and index: the in-bounds register's value and the displacement (the
	// array's element the access meant, for its bound).
	bool indexed = false;
	uint64_t array_at = 0;
	int array_base = -1; // the access's in-bounds base register, when it is not sp or fp
	// Base and index where neither register alone is the bad one: only the decomposition of the
	// address (grid_index) may still decide it.
	bool undecided = false;
	const char *subject = f->culprit;
	if (fpe) {
		pointer = false;
		if (!in->has_divisor)
			return;
	} else if (in->fault_mem >= 0) {
		const struct ct_mem_operand *m = &in->mem[in->fault_mem];
		loc.reg = m->base_dwarf;
		// A base of sp or fp is a frame's own memory, never the bad value: only its index can be
		// (a local array's element past its bound).
		bool frame_base = loc.reg == arch->sp_dwarf || loc.reg == arch->fp_dwarf;
		if (loc.reg < 0 || loc.reg >= w->num_regs || (frame_base && !m->index))
			return;
		if (m->index && frame_base) {
			int idx = m->has_index_dwarf ? m->index_dwarf : reg_by_name(arch, m->index);
			if (idx < 0 || idx >= w->num_regs || !valid[idx] || !valid[loc.reg])
				return;
			indexed = true;
			array_at = regs[loc.reg] + (uint64_t)m->disp;
			loc.reg = idx;
			pointer = false;
			subject = NULL;
		} else if (m->index) {
			// Base and index: the bad one is the register whose value points nowhere in the
			// dump while the other does; when that does not decide it, nothing is traced.
			int idx = m->has_index_dwarf ? m->index_dwarf : reg_by_name(arch, m->index);
			if (idx < 0 || idx >= w->num_regs || !valid[idx] || !valid[loc.reg])
				return;
			uint64_t word;
			bool base_ok = ct_core_read_word(s->core, regs[loc.reg], &word);
			bool idx_ok = ct_core_read_word(s->core, regs[idx], &word);
			if (base_ok == idx_ok) {
				undecided = true;
			} else if (base_ok) {
				indexed = true;
				array_at = regs[loc.reg] + (uint64_t)m->disp;
				array_base = loc.reg;
				loc.reg = idx;
				pointer = false;
				subject = NULL; // culprit.c names the base register's variable
			} else if (m->has_address && m->address == regs[loc.reg] + regs[idx] + (uint64_t)m->disp) {
				// The index register holds the array (scale 1: -O0's `lea rdx, [rax*4]` before
				// `[rdx + rax]`), the base the scaled index.
				indexed = true;
				array_at = regs[idx] + (uint64_t)m->disp;
			}
		}
	} else {
		return;
	}
	uint64_t start, size;
	const char *fname;
	if (!function_of(s, f->pc, &start, &size, &fname))
		return;
	struct chain c = { .s = s, .arch = arch, .w = w, .f = f, .thread = ct_stacks_crashed(s->stacks) };
	const char *reason = NULL;
	struct ct_vfunc *fn = decode_function(s, c.w, start, size, &fname, &start, &reason);
	long first = 0, j = 0;
	while ((size_t)j + 1 < f->num_frames && f->frames[j].inlined)
		j++;
	bool has_value = false;
	uint64_t value = 0;
	// A multi-dimensional array, or a struct's array through a loaded pointer: the subscript past its
	// bound, from the decomposition of the address.
	struct grid_bound grid = { 0 };
	if (fn && !fpe && in->mem[in->fault_mem].has_address)
		ct_origin_grid_index(&c, fn, in->mem[in->fault_mem].address, regs, valid, &grid);
	if (undecided && !grid.found) {
		ct_vfunc_destroy(fn);
		return;
	}
	// An array member through a pointer parameter: decided in frame 0's code, before the walk.
	struct member_bound member = { 0 };
	if (fn && indexed && array_base >= 0 && !grid.found)
		ct_origin_member_index(&c, fn, array_base, &in->mem[in->fault_mem], regs, valid, &member);
	if (fn && fpe) {
		// The divisor: div's only explicit operand (op 0), a register or a frame slot.
		if (!c.w->div_operand || !c.w->div_operand(fn, f->pc, &loc)) {
			ct_vfunc_destroy(fn);
			return;
		}
		has_value = true;
		value = (uint64_t)in->divisor;
	} else if (loc.reg >= 0 && valid[loc.reg]) {
		has_value = true;
		value = regs[loc.reg];
	}
	uint64_t at = f->pc;
	if (grid.found) {
		// The chain follows the subscript past its bound from where the address used it.
		indexed = true;
		pointer = false;
		subject = grid.merged ? ct_strpool_printf(s->out.strings, "into %s", grid.array) : NULL;
		loc = (struct ct_vloc){ .reg = grid.term.reg, .size = grid.term.size ? grid.term.size : 8 };
		at = grid.term.pc;
		has_value = grid.term.known;
		value = (uint64_t)grid.term.value;
	}
	if (!subject)
		subject = loc.slot || loc.reg < 0 ? "the value" : ct_strpool_printf(s->out.strings, "`%s`", reg_name(arch, loc.reg));
	if (!fn) {
		stop(&c, 0, f->pc, reason, has_value, value);
		goto out;
	}
	if (grid.found && (grid.merged || loc.reg < 0)) {
		stop(&c, 0, grid.merged ? grid.merged_pc : f->pc,
		     grid.merged ? grid.merged : "the subscript past its bound is a sum of several registers", has_value, value);
		ct_vfunc_destroy(fn);
		goto out;
	}
	// In a caller: the return address of its call at `at`, for the call site's DWARF (0 in frame 0).
	uint64_t at_return = 0;
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		struct ct_vdef d;
		ct_vfunc_trace(fn, at, loc, has_value, value, &d);
		if (d.kind == CT_VDEF_STOP && at_return)
			call_site_value(&c, fn, at, at_return, loc, has_value, value, &d);
		at_return = 0;
		if (d.kind == CT_VDEF_ARITH && d.base < 0 && d.index >= 0 && d.index < w->num_regs && d.disp == 0 && d.scale > 1 &&
		    (!has_value || value % d.scale == 0)) {
			// A scaled index (lea rdx, [rax*4]): the step, then the index itself, in the same frame.
			record(&c, fn, first, j, at, &d, has_value, value, hop == 0);
			at = d.pc;
			value /= d.scale;
			struct ct_vloc n = { .reg = d.index, .size = 8 };
			loc = n;
			continue;
		}
		if (!record(&c, fn, first, j, at, &d, has_value, value, hop == 0))
			break;
		// The value was in d.loc at the function's entry.
		int slot = d.loc.slot ? -1 : ct_origin_arg_slot(arch, d.loc.reg);
		// A callee-saved register other than the frame pointer holds the caller's value too.
		bool callee_saved = !d.loc.slot && d.loc.reg != arch->fp_dwarf && d.loc.reg < 64 &&
				    (arch->callee_saved >> d.loc.reg & 1);
		if (slot < 0 && !callee_saved) {
			stop(&c, j, start,
			     d.loc.slot ? "the value was on the stack at the function's entry (a stack argument)"
					: "the value was in a register at entry that carries no argument",
			     has_value, value);
			break;
		}
		if (strchr(fname, '.')) {
			// gcc's clones (f.isra.0, f.constprop.0, f.part.0) take other parameters than f.
			stop(&c, j, start, "the function is a compiler clone (.isra, .constprop, .part): its parameters differ from the source",
			     has_value, value);
			break;
		}
		// The caller: the next physical frame, entered by a direct call of this function.
		long k = j + 1;
		if ((size_t)k >= f->num_frames || !c.thread || (size_t)(f->frame_base + k) >= c.thread->num_frames) {
			stop(&c, j, start, "no caller frame", has_value, value);
			break;
		}
		const struct ct_frame *cf = &c.thread->frames[f->frame_base + k];
		const struct ct_frame_fact *ff = &f->frames[k];
		if (ff->signal_frame || ff->scanned || cf->tail_call || !ff->own) {
			stop(&c, j, start,
			     cf->tail_call ? "the caller reached this function through a tail call"
			     : ff->own	   ? "the caller frame is not trusted (signal frame or found by scanning)"
					   : "the caller is not the program's own code",
			     has_value, value);
			break;
		}
		uint64_t cstart, csize;
		const char *cname;
		if (!function_of(s, ff->pc - 1, &cstart, &csize, &cname)) {
			stop(&c, k, ff->pc, "the caller's function has no symbol with a size", has_value, value);
			break;
		}
		struct ct_vfunc *cfn = decode_function(s, c.w, cstart, csize, &cname, &cstart, &reason);
		uint64_t call_pc, target;
		bool direct;
		if (!cfn || !ct_vfunc_insn_ending(cfn, ff->pc, &call_pc) || !ct_vfunc_call_target(cfn, call_pc, &direct, &target)) {
			stop(&c, k, ff->pc, cfn ? "no call instruction ends at the caller's return address" : reason, has_value, value);
			ct_vfunc_destroy(cfn);
			break;
		}
		if (!direct || target != start) {
			stop(&c, k, call_pc,
			     direct ? "the call there calls another function (a tail call in between)"
				    : "the call there goes through a pointer: a tail call in between cannot be ruled out",
			     has_value, value);
			ct_vfunc_destroy(cfn);
			break;
		}
		if (slot >= 0) {
			struct ct_root_step *st = add_step(&c, j, call_pc, CT_ROOT_STEP_PARAM_OF);
			if (st) {
				const char *pname = param_name(s, f->frames[j].pc, slot);
				st->frame = j;
				st->function = ct_demangle(s->mods, fname);
				st->expression = pname ? ct_strpool_printf(s->out.strings, "`%s`", pname)
						       : ct_strpool_printf(s->out.strings, "argument %d (%s)", slot + 1,
									   reg_name(arch, arch->call_arg_dwarf[slot]));
				st->has_value = has_value;
				st->value = value;
			}
		}
		ct_vfunc_destroy(fn);
		fn = cfn;
		start = cstart;
		fname = cname;
		at = call_pc;
		at_return = ff->pc;
		loc = d.loc;
		first = k;
		j = k;
		while ((size_t)j + 1 < f->num_frames && f->frames[j].inlined)
			j++;
		if (hop + 1 == MAX_HOPS)
			stop(&c, j, at, "the chain crosses more frames than it follows", has_value, value);
	}
	ct_vfunc_destroy(fn);
out:
	if (!c.n)
		return;
	bool out_of_bounds = false;
	bool bounded = false;
	if (grid.found && grid.dimension) {
		ct_origin_say_index(&c.steps[0], grid.index, grid.bound, grid.dims > 1 ? grid.dimension : 0, grid.array, &out_of_bounds);
		bounded = true;
	} else if (grid.found) {
		// The subscripts are not told apart: no index is said.
	} else if (member.found) {
		// The struct's member is the array the program meant (the heap block holding the struct
		// is larger than it).
		ct_origin_say_index(&c.steps[0], member.index, member.bound, 0, member.array, &out_of_bounds);
		bounded = true;
	} else if (indexed) {
		bounded = ct_origin_index_bound(&c, &in->mem[in->fault_mem], array_at, regs, valid, &c.steps[0], &out_of_bounds);
	}
	struct ct_root_step *steps = malloc(c.n * sizeof(*steps));
	if (!steps)
		return;
	memcpy(steps, c.steps, c.n * sizeof(*steps));
	v->root_cause.present = true;
	v->root_cause.steps = steps;
	v->root_cause.num_steps = c.n;
	// Without a culprit variable, the parameter the value arrived in names it.
	if (!f->culprit || !pointer) {
		const char *role = pointer ? "" : fpe ? "the divisor " : "the index ";
		size_t k = 0;
		while (k + 1 < c.n && c.steps[k].kind == CT_ROOT_STEP_ARITH)
			k++;
		if (c.steps[k].kind == CT_ROOT_STEP_PARAM_OF && c.steps[k].expression && c.steps[k].expression[0] == '`')
			subject = ct_strpool_printf(s->out.strings, "%s%s (parameter of %s)", role, c.steps[k].expression,
						    c.steps[k].function ? c.steps[k].function : "?");
		else
			subject = ct_strpool_printf(s->out.strings, "%s%s", role, subject);
	}
	v->root_cause.summary = summarize(&c, subject, pointer);
	if (grid.merged) {
		const struct ct_root_step *last = &c.steps[c.n - 1];
		v->root_cause.summary = ct_strpool_printf(s->out.strings, "a subscript of %s is past its bound, traced no further than %s%s: %s",
							  grid.array, last->function ? last->function : "the code",
							  where(s->out.strings, last), last->reason);
	}
	if (bounded && c.steps[0].dimension)
		v->root_cause.summary = ct_strpool_printf(s->out.strings, "%s: index %" PRId64 " into %s, dimension %d of %d (bound %" PRId64 ")%s",
							  v->root_cause.summary, c.steps[0].index, c.steps[0].array,
							  c.steps[0].dimension, grid.dims, grid.bound, out_of_bounds ? ", past its bound" : "");
	else if (bounded)
		v->root_cause.summary = ct_strpool_printf(s->out.strings, "%s: index %" PRId64 " into %s%s", v->root_cause.summary,
							  c.steps[0].index, c.steps[0].array, out_of_bounds ? ", past its bound" : "");
}
