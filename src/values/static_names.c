// Function-local statics by their DWARF name (issue 21): GCC gives the ELF symbol of `static
// double w[3]` inside a function a number (`w.0`, clang `main.w`) so that two functions' `w` do not
// clash; gdb shows a pointer into it as `<w+8>`. The variable's DIE (a DW_TAG_variable inside a
// function whose location is DW_OP_addr) has the name the source gave it. One index per Dwarf,
// built the first time a pointer into such a symbol is shown, by walking function bodies only.
#include <dwarf.h>
#include <stdlib.h>

#include "modules/dwarf_ref.h"
#include "util/grow.h"
#include "values/internal.h"

/** DIEs visited while building one index (a hostile or huge file stops here: the index is partial). */
#define STATIC_MAX_DIES (4u << 20)
/** Nesting of blocks followed (deeper statics are not indexed). */
#define STATIC_MAX_DEPTH 32

struct static_entry {
	uint64_t addr; // DWARF address (the module's bias not added)
	const char *name; // borrowed from the Dwarf's string table (lives as long as the Dwarf)
};

struct ct_static_index {
	struct static_entry *entries;
	size_t num, cap;
	size_t visited;
};

// The DWARF address of @p var when its location is exactly DW_OP_addr (or DW_OP_addrx): storage
// of its own, as a static has.
static bool static_address(Dwarf_Die *var, uint64_t *ret)
{
	Dwarf_Attribute attr, res;
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Addr a;
	if (!dwarf_attr(var, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &n) != 0 || n != 1)
		return false;
	if (ops[0].atom == DW_OP_addr) {
		*ret = ops[0].number;
		return true;
	}
	if ((ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
	    dwarf_getlocation_attr(&attr, ops, &res) == 0 && dwarf_formaddr(&res, &a) == 0) {
		*ret = a;
		return true;
	}
	return false;
}

static void add(struct ct_static_index *ix, Dwarf_Die *var)
{
	Dwarf_Attribute attr;
	const char *name = ct_dwarf_attr_integrate(var, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
	uint64_t addr;
	// An artificial variable (GCC's __PRETTY_FUNCTION__) has no name from the source: its symbol
	// (`__PRETTY_FUNCTION__.1`) says as much, and gdb shows that.
	if (!name || dwarf_hasattr(var, DW_AT_artificial) || !static_address(var, &addr) ||
	    !CT_GROW(ix->entries, ix->cap, ix->num + 1, 64, 0))
		return;
	ix->entries[ix->num++] = (struct static_entry){ .addr = addr, .name = name };
}

// The variables with static storage inside the functions under @p parent (a unit, namespace,
// function or block); @p in_function: @p parent is a function or one of its blocks.
static void walk(struct ct_static_index *ix, Dwarf_Die *parent, bool in_function, int depth)
{
	Dwarf_Die child;
	if (depth > STATIC_MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		if (++ix->visited > STATIC_MAX_DIES)
			return;
		switch (dwarf_tag(&child)) {
		case DW_TAG_variable:
			if (in_function)
				add(ix, &child);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			walk(ix, &child, true, depth + 1);
			break;
		case DW_TAG_namespace:
			walk(ix, &child, in_function, depth + 1);
			break;
		default:
			break; // types, parameters, call sites: no statics of a function below them
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct static_entry *)a)->addr, y = ((const struct static_entry *)b)->addr;
	return x < y ? -1 : x > y;
}

static struct ct_static_index *build(Dwarf *dbg)
{
	struct ct_static_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	while (ix->visited <= STATIC_MAX_DIES && dwarf_get_units(dbg, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0)
		walk(ix, &cudie, false, 0);
	if (ix->num) // qsort of NULL is undefined even for no elements
		qsort(ix->entries, ix->num, sizeof(*ix->entries), by_addr);
	return ix;
}

void ct_static_index_free(struct ct_static_index *ix)
{
	if (ix)
		free(ix->entries);
	free(ix);
}

const char *ct_values_static_name(const struct ct_values_input *s, Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf *dbg = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	struct ct_values *v = s->values;
	if (!dbg || !v)
		return NULL;
	struct ct_static_index *ix = NULL;
	for (size_t i = 0; i < CT_VALUES_TYPE_INDEXES && !ix; i++) {
		if (!v->static_indexes[i].dbg) {
			v->static_indexes[i].dbg = dbg;
			v->static_indexes[i].index = build(dbg); // NULL (no memory): stays unnamed
		}
		if (v->static_indexes[i].dbg == dbg && !(ix = v->static_indexes[i].index))
			return NULL;
	}
	struct static_entry key = { .addr = addr - bias };
	const struct static_entry *e = ix && ix->num ? bsearch(&key, ix->entries, ix->num, sizeof(key), by_addr) : NULL;
	return e ? e->name : NULL;
}
