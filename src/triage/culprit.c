// The variable that held the bad pointer: the faulting operand's base register → the DWARF variable
// or parameter located in it at pc (dwarf_getscopes + dwarf_getlocation_addr), or, at -O0, the
// frame slot the register was loaded from by the previous write of that register.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/symbolize.h"
#include "triage/gather.h"
#include "triage/insn.h"

/** Code decoded from the function start to find the slot load: -O0 functions are rarely longer. */
#define MAX_FUNCTION_BYTES 4096
/** Location expressions per attribute examined (location lists give one per range). */
#define MAX_EXPRS 4

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	if (!ct_dwarf_attr_integrate(die, DW_AT_name, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

/** Evaluates a one-op DW_OP_bregN expression from the registers. */
static bool eval_breg(const Dwarf_Op *ops, size_t n, const uint64_t *regs, const bool *valid, uint64_t *ret)
{
	if (n != 1)
		return false;
	uint64_t r;
	int64_t off;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		r = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx) {
		// libdw's dwarf_frame_cfa describes "register + offset" CFA rules as DW_OP_bregx.
		r = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else {
		return false;
	}
	if (r >= CT_MAX_DWARF_REGS || !valid[r])
		return false;
	*ret = regs[r] + (uint64_t)off;
	return true;
}

static bool frame_cfa(Dwfl_Module *mod, uint64_t pc, const uint64_t *regs, const bool *valid, uint64_t *ret)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfis[2] = { dwfl_module_eh_cfi(mod, &bias), NULL };
	Dwarf_Addr bias2;
	cfis[1] = dwfl_module_dwarf_cfi(mod, &bias2);
	for (int i = 0; i < 2; i++) {
		if (!cfis[i])
			continue;
		Dwarf_Frame *frame = NULL;
		if (dwarf_cfi_addrframe(cfis[i], pc - (i ? bias2 : bias), &frame) != 0)
			continue;
		Dwarf_Op *ops;
		size_t nops;
		bool ok = dwarf_frame_cfa(frame, &ops, &nops) == 0 && eval_breg(ops, nops, regs, valid, ret);
		free(frame);
		if (ok)
			return true;
	}
	return false;
}

/** The frame base of @p fn at @p pc: DW_OP_call_frame_cfa (gcc), a register's value (clang's
 * DW_OP_reg6 at -O0, DW_OP_reg7 at -O2) or DW_OP_bregN. */
static bool frame_base(Dwfl_Module *mod, Dwarf_Die *fn, uint64_t pc, Dwarf_Addr bias, const uint64_t *regs,
		       const bool *valid, uint64_t *ret)
{
	Dwarf_Attribute attr;
	if (!ct_dwarf_attr_integrate(fn, DW_AT_frame_base, &attr))
		return false;
	Dwarf_Op *expr;
	size_t len;
	if (dwarf_getlocation_addr(&attr, pc - bias, &expr, &len, 1) != 1)
		return false;
	if (len == 1 && expr[0].atom == DW_OP_call_frame_cfa)
		return frame_cfa(mod, pc, regs, valid, ret);
	uint64_t reg = CT_MAX_DWARF_REGS;
	if (len == 1 && expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
		reg = (uint64_t)(expr[0].atom - DW_OP_reg0);
	else if (len == 1 && expr[0].atom == DW_OP_regx)
		reg = expr[0].number;
	if (reg < CT_MAX_DWARF_REGS) {
		if (!valid[reg])
			return false;
		*ret = regs[reg];
		return true;
	}
	return eval_breg(expr, len, regs, valid, ret);
}

struct want {
	int reg; /**< match DW_OP_regN with this register, or -1 */
	bool has_slot;
	uint64_t slot; /**< match a memory location at this address */
	bool has_fb;
	uint64_t fb; /**< frame base for DW_OP_fbreg */
};

static bool location_matches(Dwarf_Die *var, uint64_t pc, Dwarf_Addr bias, const struct want *w, const uint64_t *regs,
			     const bool *valid)
{
	Dwarf_Attribute attr;
	if (!ct_dwarf_attr_integrate(var, DW_AT_location, &attr))
		return false;
	Dwarf_Op *exprs[MAX_EXPRS];
	size_t lens[MAX_EXPRS];
	int n = dwarf_getlocation_addr(&attr, pc - bias, exprs, lens, MAX_EXPRS);
	for (int i = 0; i < n; i++) {
		const Dwarf_Op *op = exprs[i];
		if (lens[i] == 0)
			continue;
		int reg = op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31 ? (int)(op[0].atom - DW_OP_reg0)
			: op[0].atom == DW_OP_regx ? (int)op[0].number
						 : -1;
		if (w->reg >= 0 && reg == w->reg && (lens[i] == 1 || op[1].atom == DW_OP_piece))
			return true;
		if (!w->has_slot || lens[i] != 1)
			continue;
		uint64_t addr;
		if (op[0].atom == DW_OP_fbreg && w->has_fb && w->fb + (uint64_t)(int64_t)op[0].number == w->slot)
			return true;
		if (eval_breg(op, 1, regs, valid, &addr) && addr == w->slot)
			return true;
	}
	return false;
}

/** Variables and parameters of one scope looked at (a bound on the walk). */
#define MAX_SCOPE_VARS 4096

/** The variables and parameters of a pc's scopes, innermost scope first (local_next). */
struct locals {
	Dwarf_Die *scopes;
	int n, scope; /**< the scope being walked, n when done */
	int seen; /**< its children looked at */
	bool in_scope;
	Dwarf_Die child;
};

// Starts on the children of l->scope; false for a unit (its own children are globals, at
// DW_OP_addr, never in a register or a stack slot, and walking a large C++ unit's top level would
// cost more than the rest of the analysis) or a scope without children.
static bool enter_scope(struct locals *l)
{
	int stag = dwarf_tag(&l->scopes[l->scope]);
	l->in_scope = stag != DW_TAG_compile_unit && stag != DW_TAG_partial_unit && stag != DW_TAG_skeleton_unit &&
		      dwarf_child(&l->scopes[l->scope], &l->child) == 0;
	l->seen = 0;
	return l->in_scope;
}

// The next variable or parameter into *@p var, the index of its scope in *@p scope; false at the end.
static bool local_next(struct locals *l, Dwarf_Die *var, int *scope)
{
	for (;;) {
		if (!(l->in_scope && ++l->seen < MAX_SCOPE_VARS && dwarf_siblingof(&l->child, &l->child) == 0)) {
			if (l->in_scope)
				l->scope++;
			l->in_scope = false;
			while (l->scope < l->n && !enter_scope(l))
				l->scope++;
			if (l->scope >= l->n)
				return false;
		}
		int tag = dwarf_tag(&l->child);
		if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
			*var = l->child;
			*scope = l->scope;
			return true;
		}
	}
}

static const char *search(const struct ct_triage_input *s, Dwarf_Die *scopes, int nscopes, uint64_t pc, Dwarf_Addr bias,
			  const struct want *w, const uint64_t *regs, const bool *valid)
{
	struct locals l = { .scopes = scopes, .n = nscopes };
	Dwarf_Die var;
	int i;
	while (local_next(&l, &var, &i)) {
		if (!location_matches(&var, pc, bias, w, regs, valid))
			continue;
		const char *name = die_name(&var);
		if (!name)
			continue;
		// The function the variable belongs to: the nearest enclosing subprogram or inline.
		const char *fn = NULL;
		for (int j = i; j < nscopes && !fn; j++) {
			int t = dwarf_tag(&scopes[j]);
			if (t == DW_TAG_subprogram || t == DW_TAG_inlined_subroutine)
				fn = die_name(&scopes[j]);
		}
		return ct_strpool_printf(s->out.strings, "`%s` (%s of %s)", name,
					 dwarf_tag(&var) == DW_TAG_formal_parameter ? "parameter" : "local variable", fn ? fn : "?");
	}
	return NULL;
}

// The start of @p var's storage in memory at @p pc, when its location is one memory operation.
static bool storage_start(Dwarf_Die *var, uint64_t pc, Dwarf_Addr bias, const struct want *w, const uint64_t *regs,
			  const bool *valid, uint64_t *ret)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;
	if (!ct_dwarf_attr_integrate(var, DW_AT_location, &attr) || dwarf_getlocation_addr(&attr, pc - bias, &expr, &len, 1) != 1 ||
	    len != 1)
		return false;
	if (expr[0].atom == DW_OP_fbreg) {
		if (!w->has_fb)
			return false;
		*ret = w->fb + (uint64_t)(int64_t)expr[0].number;
		return true;
	}
	return eval_breg(expr, 1, regs, valid, ret);
}

bool ct_find_local_at(const struct ct_triage_input *s, uint64_t pc, uint64_t address, const uint64_t *regs,
		      const bool *valid, const char **name, uint64_t *start, Dwarf_Die *type)
{
	Dwfl_Module *mod = s->mods->dwfl ? dwfl_addrmodule(s->mods->dwfl, pc) : NULL;
	Dwarf_Addr bias;
	Dwarf_Die *scopes = NULL;
	int n = mod ? ct_symbolize_scopes(s->mods, pc, &scopes, &bias) : 0;
	struct want w = { .reg = -1 };
	for (int i = 0; i < n && !w.has_fb; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			w.has_fb = frame_base(mod, &scopes[i], pc, bias, regs, valid, &w.fb);
	}
	bool found = false;
	struct locals l = { .scopes = scopes, .n = n };
	Dwarf_Die var;
	int scope;
	while (!found && local_next(&l, &var, &scope)) {
		uint64_t at;
		Dwarf_Word size;
		Dwarf_Attribute attr;
		if (!storage_start(&var, pc, bias, &w, regs, valid, &at) || !ct_dwarf_attr_integrate(&var, DW_AT_type, &attr) ||
		    !ct_dwarf_ref_die(&attr, type) || ct_dwarf_aggregate_size(type, &size) != 0 || address < at ||
		    address - at >= size)
			continue;
		*name = ct_strpool_intern(s->out.strings, die_name(&var));
		*start = at;
		found = *name != NULL;
	}
	free(scopes);
	return found;
}

const char *ct_find_culprit(const struct ct_triage_input *s, const struct ct_facts *f, const uint64_t *regs, const bool *valid)
{
	const struct ct_insn_facts *in = &f->insn;
	if (in->fault_mem < 0 || !s->mods->dwfl)
		return NULL;
	int reg = in->mem[in->fault_mem].base_dwarf;
	if (reg < 0)
		return NULL;
	uint64_t pc = f->pc;
	Dwfl_Module *mod = dwfl_addrmodule(s->mods->dwfl, pc);
	if (!mod)
		return NULL;
	Dwarf_Addr bias;
	Dwarf_Die *scopes = NULL;
	int n = ct_symbolize_scopes(s->mods, pc, &scopes, &bias);
	if (n <= 0)
		return NULL;
	struct want w = { .reg = reg };
	const char *found = search(s, scopes, n, pc, bias, &w, regs, valid);
	if (!found) {
		// -O0: the register was loaded from a frame slot just before ("mov rax, [rbp - 0x10]").
		Dwarf_Die *fn = NULL;
		for (int i = 0; i < n && !fn; i++) {
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
				fn = &scopes[i];
		}
		Dwarf_Addr low;
		if (fn && dwarf_lowpc(fn, &low) == 0 && pc - (low + bias) < MAX_FUNCTION_BYTES) {
			uint64_t start = low + bias;
			size_t len = (size_t)(pc - start) + 16;
			uint8_t *code = malloc(len);
			int base;
			int64_t disp;
			while (code && len > (size_t)(pc - start) && !ct_modules_read_code(s->mods, start, code, len))
				len--;
			if (code && len > (size_t)(pc - start) &&
			    ct_insn_find_slot_load(s->core->arch, code, len, start, pc, reg, &base, &disp) && base >= 0 &&
			    base < CT_MAX_DWARF_REGS && valid[base]) {
				w.reg = -1;
				w.has_slot = true;
				w.slot = regs[base] + (uint64_t)disp;
				w.has_fb = frame_base(mod, fn, pc, bias, regs, valid, &w.fb);
				found = search(s, scopes, n, pc, bias, &w, regs, valid);
			}
			free(code);
		}
	}
	free(scopes);
	return found;
}
