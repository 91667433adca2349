// The DWARF scopes of an address (lexical blocks, inlined subroutines, the subprogram), cached by
// address: deep recursion and many threads repeat the same pcs.
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "modules/dwarf_ref.h"
#include "modules/symbolize.h"
#include "modules/type_index.h"
#include "util/keyhash.h"
#include "values/internal.h"

struct scope_slot {
	uint64_t addr;
	struct ct_scope *scope; // owned; NULL: looked up, no DWARF
	bool used;
};

static size_t hash_addr(uint64_t a)
{
	return (size_t)ct_hash_mix(a);
}

struct ct_values *ct_values_create(void)
{
	struct ct_values *v = calloc(1, sizeof(*v));
	if (v && !(v->scratch = malloc(sizeof(*v->scratch)))) {
		free(v);
		return NULL;
	}
	return v;
}

void ct_values_destroy(struct ct_values *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->num_scopes; i++) {
		if (v->scopes[i].scope)
			free(v->scopes[i].scope->vars);
		free(v->scopes[i].scope);
	}
	for (size_t i = 0; i < CT_VALUES_TYPE_INDEXES; i++) {
		ct_type_index_free(v->type_indexes[i].index);
		ct_static_index_free(v->static_indexes[i].index);
	}
	free(v->scratch);
	free(v->scopes);
	free(v->sites);
	free(v);
}

static bool grow(struct ct_values *v)
{
	size_t n = v->num_scopes ? v->num_scopes * 2 : 1024;
	struct scope_slot *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return false;
	for (size_t i = 0; i < v->num_scopes; i++) {
		if (!v->scopes[i].used)
			continue;
		size_t j = hash_addr(v->scopes[i].addr) & (n - 1);
		while (slots[j].used)
			j = (j + 1) & (n - 1);
		slots[j] = v->scopes[i];
	}
	free(v->scopes);
	v->scopes = slots;
	v->num_scopes = n;
	return true;
}

void ct_die_origin(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Die cur = *die;
	// Concrete instance → abstract instance → declaration; a loop in hostile DWARF ends at the cap.
	for (int i = 0; i < 8; i++) {
		Dwarf_Attribute attr;
		Dwarf_Die next;
		if ((dwarf_attr(&cur, DW_AT_abstract_origin, &attr) || dwarf_attr(&cur, DW_AT_specification, &attr)) &&
		    ct_dwarf_ref_die(&attr, &next))
			cur = next;
		else
			break;
	}
	*ret = cur;
}

const char *ct_die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;
	if (ct_dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    ct_dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name && ct_dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name;
}

static struct ct_scope *resolve(const struct ct_values_input *s, uint64_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->mods->dwfl, addr);
	Dwarf_Die *scopes = NULL;
	Dwarf_Addr bias = 0;
	// The concrete scopes, as the symbolizer finds them (no .debug_aranges needed, LTO origins).
	int n = mod ? ct_symbolize_scopes(s->mods, addr, &scopes, &bias) : 0;
	if (n <= 0) {
		free(scopes);
		return NULL;
	}
	struct ct_scope *sc = calloc(1, sizeof(*sc));
	if (!sc) {
		free(scopes);
		return NULL;
	}
	sc->addr = addr;
	sc->mod = mod;
	sc->bias = bias;
	sc->subprogram = -1;
	for (int i = 0; i < n && sc->num < CT_SCOPE_MAX_DIES; i++) {
		sc->dies[sc->num] = scopes[i];
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && sc->subprogram < 0)
			sc->subprogram = sc->num;
		sc->num++;
	}
	Dwarf_Die cudie = scopes[n - 1];
	free(scopes);
	int lang = dwarf_srclang(&cudie);
	sc->cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 ||
		  lang == DW_LANG_C_plus_plus_03;
	return sc;
}

const struct ct_scope *ct_scope_lookup(const struct ct_values_input *s, uint64_t addr)
{
	struct ct_values *v = s->values;
	if ((v->used_scopes + 1) * 2 > v->num_scopes && !grow(v))
		return NULL;
	size_t mask = v->num_scopes - 1, j = hash_addr(addr) & mask;
	for (; v->scopes[j].used; j = (j + 1) & mask) {
		if (v->scopes[j].addr == addr)
			return v->scopes[j].scope;
	}
	struct ct_scope *sc = resolve(s, addr);
	v->scopes[j] = (struct scope_slot){ .addr = addr, .scope = sc, .used = true };
	v->used_scopes++;
	return sc;
}
