// DWARF call sites (DW_TAG_call_site, GCC's DW_TAG_GNU_call_site before DWARF 5): which call a
// return address belongs to, what it calls, and the values it passed (DW_TAG_call_site_parameter).
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/symbolize.h"
#include "util/budget.h"
#include "util/keyhash.h"
#include "values/internal.h"

struct site_slot {
	uint64_t pc;
	bool used, found;
	Dwarf_Die die;
	Dwarf_Addr bias;
};

static size_t hash_addr(uint64_t a)
{
	return (size_t)ct_hash_mix(a);
}

static bool is_call_site(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site;
}

/** The return address of call site @p die (module-relative), false when it has none. */
static bool site_return_pc(Dwarf_Die *die, Dwarf_Addr *ret)
{
	Dwarf_Attribute attr;
	// DWARF 5 DW_AT_call_return_pc; GCC's GNU call sites put the return address in DW_AT_low_pc.
	if (!dwarf_attr(die, DW_AT_call_return_pc, &attr) && !dwarf_attr(die, DW_AT_low_pc, &attr))
		return false;
	return dwarf_formaddr(&attr, ret) == 0;
}

/**
 * The call site among the children of scopes @p dies [0, @p last] whose return address is @p want
 * (module-relative), looking at CT_CALLSITE_MAX_DIES DIEs at most.
 */
static bool site_among(const Dwarf_Die *dies, int last, Dwarf_Addr want, Dwarf_Die *ret)
{
	size_t visited = 0;
	for (int i = 0; i <= last; i++) {
		Dwarf_Die child = dies[i];
		if (dwarf_child(&child, &child) != 0)
			continue;
		do {
			if (++visited > CT_CALLSITE_MAX_DIES)
				return false;
			Dwarf_Addr rpc;
			if (is_call_site(&child) && site_return_pc(&child, &rpc) && rpc == want) {
				*ret = child;
				return true;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return false;
}

static bool find_site(const struct ct_values_input *s, uint64_t pc, Dwarf_Die *ret, Dwarf_Addr *bias_ret)
{
	// The call instruction is before the return address: its scope is that of pc - 1.
	const struct ct_scope *sc = ct_scope_lookup(s, pc - 1);
	if (!sc)
		return false;
	int last = sc->subprogram >= 0 ? sc->subprogram : sc->num - 1;
	if (!site_among(sc->dies, last, pc - sc->bias, ret))
		return false;
	*bias_ret = sc->bias;
	return true;
}

static bool grow(struct ct_values *v)
{
	size_t n = v->num_sites ? v->num_sites * 2 : 256;
	struct site_slot *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return false;
	for (size_t i = 0; i < v->num_sites; i++) {
		if (!v->sites[i].used)
			continue;
		size_t j = hash_addr(v->sites[i].pc) & (n - 1);
		while (slots[j].used)
			j = (j + 1) & (n - 1);
		slots[j] = v->sites[i];
	}
	free(v->sites);
	v->sites = slots;
	v->num_sites = n;
	return true;
}

bool ct_callsite_at(const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t index, Dwarf_Die *ret,
		    Dwarf_Addr *bias_ret)
{
	const struct ct_raw_frame *f = &raw->frames[index];
	// An interrupted frame (signal, frame 0) is not at a return address.
	if (f->exact || f->pc == 0)
		return false;
	struct ct_values *v = s->values;
	if ((v->used_sites + 1) * 2 > v->num_sites && !grow(v))
		return find_site(s, f->pc, ret, bias_ret);
	size_t mask = v->num_sites - 1, j = hash_addr(f->pc) & mask;
	for (; v->sites[j].used; j = (j + 1) & mask) {
		if (v->sites[j].pc == f->pc) {
			if (v->sites[j].found) {
				*ret = v->sites[j].die;
				*bias_ret = v->sites[j].bias;
			}
			return v->sites[j].found;
		}
	}
	struct site_slot *slot = &v->sites[j];
	*slot = (struct site_slot){ .pc = f->pc, .used = true };
	slot->found = find_site(s, f->pc, &slot->die, &slot->bias);
	v->used_sites++;
	if (slot->found) {
		*ret = slot->die;
		*bias_ret = slot->bias;
	}
	return slot->found;
}

/** The function a call site calls directly: its DIE (through origins); false for indirect calls. */
static bool site_origin(Dwarf_Die *site, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	Dwarf_Die d;
	if ((!dwarf_attr(site, DW_AT_call_origin, &attr) && !dwarf_attr(site, DW_AT_abstract_origin, &attr)) ||
	    !ct_dwarf_ref_die(&attr, &d))
		return false;
	ct_die_origin(&d, ret);
	return true;
}

// Entry address of the physical function of scope @p sc.
static bool scope_entry(const struct ct_scope *sc, uint64_t *ret)
{
	if (sc->subprogram < 0)
		return false;
	Dwarf_Die sub = sc->dies[sc->subprogram];
	Dwarf_Addr a;
	if (dwarf_entrypc(&sub, &a) != 0 && dwarf_lowpc(&sub, &a) != 0)
		return false;
	*ret = a + sc->bias;
	return true;
}

int ct_callsite_origin_calls(const struct ct_values_input *s, Dwarf_Die *site, const struct ct_scope *site_scope,
			     const struct ct_scope *callee)
{
	if (!callee || callee->subprogram < 0)
		return -1;
	Dwarf_Die fn = callee->dies[callee->subprogram], root, origin;
	ct_die_origin(&fn, &root);
	if (!site_origin(site, &origin))
		return -1;
	if (origin.addr == root.addr)
		return 1;
	// A declaration in another unit or module: the same function by name, or by address when
	// the callee's DWARF names it differently (glibc's free is __libc_free).
	const char *a = ct_die_function_name(&origin), *b = ct_die_function_name(&root);
	if (a && b && strcmp(a, b) == 0)
		return 1;
	uint64_t target, entry;
	if (site_scope && scope_entry(callee, &entry) &&
	    ct_callsite_target_address(s, site, site_scope, callee->mod, &target))
		return target == entry;
	return 0;
}

int ct_callsite_calls(const struct ct_values_input *s, const struct ct_raw_stack *raw, size_t caller, Dwarf_Die *site,
		      const struct ct_scope *callee)
{
	const struct ct_raw_frame *f = &raw->frames[caller];
	// Every pair of frames of a deep recursion asks the same question.
	uint64_t h = ((uintptr_t)site->addr ^ ((uintptr_t)callee << 7)) * 0x9e3779b97f4a7c15ULL;
	struct ct_calls_result *e = &s->values->calls[(h >> 32) % CT_VALUES_CALLS_CACHE];
	int r;
	if (e->site == site->addr && e->callee == callee) {
		r = e->calls;
	} else {
		r = ct_callsite_origin_calls(s, site, f->pc ? ct_scope_lookup(s, f->pc - 1) : NULL, callee);
		*e = (struct ct_calls_result){ .site = site->addr, .callee = callee, .calls = r };
	}
	if (r >= 0 || !callee || callee->subprogram < 0)
		return r;
	Dwarf_Attribute attr;
	if (!dwarf_attr(site, DW_AT_call_target, &attr) && !dwarf_attr(site, DW_AT_GNU_call_site_target, &attr))
		return -1;
	struct ct_frame_ctx fc;
	ct_frame_ctx_init(&fc, s, raw, caller, CT_VALUES_NO_ENTRY_VALUES);
	uint64_t target, entry;
	if (ct_frame_eval_value(&fc, &attr, &target).status != CT_EXPR_OK || !scope_entry(callee, &entry))
		return -1;
	return target == entry;
}

// Whether symbol table name @p sn is function @p name: the name itself, or its default version
// ("pthread_join@@GLIBC_2.34": glibc's .symtab names versioned symbols so, and a program linked
// today binds to the default one, as gdb's minimal symbols read it). A non-default version
// ("pthread_join@GLIBC_2.2.5") may be another function (memcpy@GLIBC_2.2.5 is not memcpy@@GLIBC_2.14).
static bool names_symbol(const char *sn, const char *name)
{
	size_t n = strlen(name);
	return strncmp(sn, name, n) == 0 && (sn[n] == 0 || (sn[n] == '@' && sn[n + 1] == '@'));
}

// The address of the function symbol @p name in @p mod, false when it has none. A linear scan of
// the symbol table, so the answers are cached by (module, name).
static bool symbol_address(const struct ct_values_input *s, Dwfl_Module *mod, const char *name, uint64_t *ret)
{
	if (!mod)
		return false;
	uint64_t h = ((uintptr_t)mod ^ (uintptr_t)name) * 0x9e3779b97f4a7c15ULL;
	struct ct_name_result *e = &s->values->names[(h >> 32) % CT_VALUES_NAME_CACHE];
	if (e->mod == mod && e->name == name) {
		*ret = e->address;
		return e->found;
	}
	*e = (struct ct_name_result){ .mod = mod, .name = name };
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n && i < 1000000; i++) {
		// Each symbol looked at is an expression step of the value that asked: a hostile file's
		// call sites may name thousands of functions, each a scan of a million symbols. A scan
		// cut by the budget is no answer about the name: not remembered.
		if (!ct_budget_take(s->budget, CT_BUDGET_EXPR, 1)) {
			e->mod = NULL;
			return false;
		}
		GElf_Sym sym;
		GElf_Addr value;
		const char *sn = dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL);
		if (sn && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF && names_symbol(sn, name)) {
			e->found = true;
			e->address = value;
			break;
		}
	}
	*ret = e->address;
	return e->found;
}

bool ct_callsite_target_address(const struct ct_values_input *s, Dwarf_Die *site, const struct ct_scope *site_scope,
				Dwfl_Module *also, uint64_t *ret)
{
	Dwarf_Die origin;
	if (!site_origin(site, &origin))
		return false;
	Dwarf_Addr a;
	if (dwarf_entrypc(&origin, &a) == 0 || dwarf_lowpc(&origin, &a) == 0) {
		*ret = a + site_scope->bias;
		return true;
	}
	// A declaration, or the abstract instance of an inline function: its out-of-line copy by name.
	const char *name = ct_die_function_name(&origin);
	return name && (symbol_address(s, site_scope->mod, name, ret) ||
			(also != site_scope->mod && symbol_address(s, also, name, ret)));
}

bool ct_callsite_is_tail_call(Dwarf_Die *site)
{
	return dwarf_hasattr(site, DW_AT_call_tail_call) || dwarf_hasattr(site, DW_AT_GNU_tail_call);
}

bool ct_callsite_pc(Dwarf_Die *site, Dwarf_Addr *ret)
{
	if (site_return_pc(site, ret))
		return true;
	// Only the call instruction's address: one past it looks up the same line.
	Dwarf_Attribute attr;
	if (dwarf_attr(site, DW_AT_call_pc, &attr) && dwarf_formaddr(&attr, ret) == 0) {
		*ret += 1;
		return true;
	}
	return false;
}

bool ct_callsite_is(Dwarf_Die *die)
{
	return is_call_site(die);
}

// True when @p expr_attr (a call_site_parameter's DW_AT_location) names register @p regno.
static bool names_register(Dwarf_Attribute *attr, unsigned regno)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation(attr, &ops, &n) != 0 || n != 1)
		return false;
	uint8_t a = ops[0].atom;
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		return (unsigned)(a - DW_OP_reg0) == regno;
	return a == DW_OP_regx && ops[0].number == regno;
}

/** The DW_AT_call_value of call site @p site's parameter passed in register @p regno into *@p val. */
static bool site_param_value(Dwarf_Die *site, unsigned regno, Dwarf_Attribute *val)
{
	Dwarf_Die param;
	if (dwarf_child(site, &param) != 0)
		return false;
	int guard = 0;
	do {
		int tag = dwarf_tag(&param);
		if (tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter)
			continue;
		Dwarf_Attribute loc;
		if (!dwarf_attr(&param, DW_AT_location, &loc) || !names_register(&loc, regno))
			continue;
		return dwarf_attr(&param, DW_AT_call_value, val) || dwarf_attr(&param, DW_AT_GNU_call_site_value, val);
	} while (++guard < 256 && dwarf_siblingof(&param, &param) == 0);
	return false;
}

static enum ct_expr_status resolve_entry_register(struct ct_frame_ctx *fc, unsigned regno, uint64_t *ret);

// The memo slot of (frame, register, depth): the answer depends on nothing else (the caller's
// registers and the dump's memory do not change).
static struct ct_entry_memo *entry_memo(struct ct_frame_ctx *fc, unsigned regno, bool *hit)
{
	const struct ct_raw_frame *f = &fc->raw->frames[fc->index];
	uint64_t h = ct_hash_mix((uint64_t)(uintptr_t)fc->raw ^ fc->index * 0x9e3779b97f4a7c15ULL ^ f->pc ^
				 (f->sp << 7) ^ (uint64_t)regno << 56 ^ (uint64_t)fc->entry_depth << 48);
	struct ct_entry_memo *m = &fc->s->values->entries[h % CT_VALUES_ENTRY_MEMO];
	*hit = m->raw == fc->raw && m->epoch == fc->s->values->entry_epoch && m->index == fc->index && m->pc == f->pc && m->sp == f->sp && m->regno == regno &&
	       m->depth == fc->entry_depth;
	return m;
}

enum ct_expr_status ct_entry_register(struct ct_frame_ctx *fc, unsigned regno, uint64_t *ret)
{
	bool hit;
	struct ct_entry_memo *m = entry_memo(fc, regno, &hit);
	if (!hit) {
		// Each evaluation counts against the expression budget besides its steps: call-site
		// lookups and scope searches cost more than an operation.
		if (!ct_budget_take(fc->s->budget, CT_BUDGET_EXPR, 1))
			return CT_EXPR_BUDGET;
		uint64_t v = 0;
		enum ct_expr_status st = resolve_entry_register(fc, regno, &v);
		// A spent budget is no answer about this register: not remembered.
		if (st == CT_EXPR_BUDGET)
			return st;
		const struct ct_raw_frame *f = &fc->raw->frames[fc->index];
		*m = (struct ct_entry_memo){ .raw = fc->raw, .epoch = fc->s->values->entry_epoch, .index = fc->index, .pc = f->pc, .sp = f->sp, .regno = regno,
					     .depth = fc->entry_depth, .status = st, .value = v };
	}
	if (m->status == CT_EXPR_OK)
		*ret = m->value;
	return m->status;
}

static enum ct_expr_status resolve_entry_register(struct ct_frame_ctx *fc, unsigned regno, uint64_t *ret)
{
	const struct ct_raw_stack *raw = fc->raw;
	size_t caller = fc->index + 1;
	if (fc->entry_depth >= CT_VALUES_NO_ENTRY_VALUES || caller >= raw->count)
		return CT_EXPR_NO_ENTRY_VALUE;
	// Entered through a signal (its caller is the sigreturn trampoline), not a call: no call site.
	if (raw->frames[caller].signal_trampoline)
		return CT_EXPR_NO_ENTRY_VALUE;
	Dwarf_Die site;
	Dwarf_Addr bias;
	if (!ct_callsite_at(fc->s, raw, caller, &site, &bias))
		return CT_EXPR_NO_ENTRY_VALUE;
	// gdb's rule: the call site must call this very function (not a function that tail-called it
	// without a reconstructed frame in between).
	if (ct_callsite_calls(fc->s, raw, caller, &site, fc->scope) != 1)
		return CT_EXPR_NO_ENTRY_VALUE;
	Dwarf_Attribute val;
	if (!site_param_value(&site, regno, &val))
		return CT_EXPR_NO_ENTRY_VALUE;
	// The chain would go on through this call site's value: cut here, so the value is unknown
	// because of the cap, not the DWARF (said once, frame_values.c).
	if (fc->entry_depth >= CT_VALUES_MAX_ENTRY_DEPTH) {
		fc->s->values->entry_cut = true;
		return CT_EXPR_NO_ENTRY_VALUE;
	}
	struct ct_frame_ctx cfc;
	ct_frame_ctx_init(&cfc, fc->s, raw, caller, fc->entry_depth + 1);
	struct ct_expr_result r = ct_frame_eval_value(&cfc, &val, ret);
	if (r.status == CT_EXPR_BUDGET)
		return r.status;
	return r.status == CT_EXPR_OK ? CT_EXPR_OK : CT_EXPR_NO_ENTRY_VALUE;
}

bool ct_dwarf_entry_register(const Dwarf_Op *ops, size_t n, unsigned *regno)
{
	if (n != 1)
		return false;
	uint8_t a = ops[0].atom;
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		*regno = a - DW_OP_reg0;
	else if (a == DW_OP_regx)
		*regno = (unsigned)ops[0].number;
	else if (a >= DW_OP_breg0 && a <= DW_OP_breg31 && ops[0].number == 0)
		*regno = a - DW_OP_breg0;
	else if (a == DW_OP_regval_type || a == DW_OP_GNU_regval_type)
		*regno = (unsigned)ops[0].number; // a float register with its type (GCC, x86 xmm)
	else
		return false;
	return true;
}

bool ct_callsite_value_at(struct ct_module_set *mods, uint64_t return_pc, unsigned regno, struct ct_call_value *ret)
{
	*ret = (struct ct_call_value){ .kind = CT_CALL_VALUE_NONE };
	Dwarf_Die *scopes = NULL;
	Dwarf_Addr bias;
	int n = return_pc ? ct_symbolize_scopes(mods, return_pc - 1, &scopes, &bias) : 0;
	// The scopes up to the subprogram (the unit, last, holds no call sites of this function).
	int last = -1;
	for (int i = 0; i + 1 < n && last < 0; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			last = i;
	Dwarf_Die site;
	Dwarf_Attribute val;
	bool found = last >= 0 && site_among(scopes, last, return_pc - bias, &site) && site_param_value(&site, regno, &val);
	free(scopes);
	if (!found)
		return false;
	Dwarf_Op *ops;
	size_t nops;
	ret->kind = CT_CALL_VALUE_OTHER;
	if (dwarf_getlocation(&val, &ops, &nops) != 0 || nops != 1)
		return true;
	uint8_t a = ops[0].atom;
	if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
		ret->kind = CT_CALL_VALUE_CONST;
		ret->value = a - DW_OP_lit0;
	} else if (a == DW_OP_constu || a == DW_OP_consts || a == DW_OP_const1u || a == DW_OP_const2u ||
		   a == DW_OP_const4u || a == DW_OP_const8u || a == DW_OP_const1s || a == DW_OP_const2s ||
		   a == DW_OP_const4s || a == DW_OP_const8s) {
		// libdw sign-extends the signed forms into number.
		ret->kind = CT_CALL_VALUE_CONST;
		ret->value = ops[0].number;
	} else if (a == DW_OP_addr) {
		ret->kind = CT_CALL_VALUE_CONST;
		ret->value = ops[0].number + bias;
	} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31 && ops[0].number == 0) {
		ret->kind = CT_CALL_VALUE_REG;
		ret->reg = a - DW_OP_breg0;
	} else if (a == DW_OP_entry_value || a == DW_OP_GNU_entry_value) {
		Dwarf_Attribute sub;
		Dwarf_Op *sops;
		size_t nsops;
		if (dwarf_getlocation_attr(&val, &ops[0], &sub) == 0 && dwarf_getlocation(&sub, &sops, &nsops) == 0 &&
		    ct_dwarf_entry_register(sops, nsops, &ret->reg))
			ret->kind = CT_CALL_VALUE_ENTRY;
	}
	return true;
}
