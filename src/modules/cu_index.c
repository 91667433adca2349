// Address → compilation unit: `.debug_aranges` first where the module has it, else (and for any
// address it does not list) an index of the units' own ranges (see cu_index.h for why).
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modules/addr_ranges.h"
#include "modules/aranges_scan.h"
#include "modules/cu_index.h"
#include "modules/scope_table.h"
#include "modules/scopes.h"
#include "util/bisect.h"
#include "util/grow.h"

/** Top-level DIEs looked at in a unit that has no range attribute of its own. */
#define MAX_FALLBACK_CHILDREN 1000000

struct module_index {
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	bool have_dwarf;
	struct ct_addr_range *ranges; // sorted by lo; index: into units
	Dwarf_Addr *max_hi; // max_hi[i] = max(ranges[0..i].hi): where a backward scan may stop
	size_t num_ranges;
	Dwarf_Die *units;
	size_t num_units;
	/** Per unit, its scope table once a lookup needed it (calloc'ed with the first one); owned. */
	struct ct_scope_table **tables;
	bool *table_failed;
	/** The range index above was built (it is built on the first address aranges do not answer). */
	bool built;
	/** `.debug_aranges` scanned for the first lookups (aranges_scan.h). */
	struct ct_aranges_scan scan;
	/** Units found through `.debug_aranges`, sorted by DIE offset, with their scope tables; owned. */
	struct aranges_unit *found;
	size_t num_found, cap_found;
};

/** A unit that `.debug_aranges` named for some address. */
struct aranges_unit {
	Dwarf_Off off;
	Dwarf_Die die; /**< the split unit of a skeleton */
	struct ct_scope_table *table;
	bool table_failed;
};

struct ct_cu_index {
	struct module_index *mods;
	size_t num_mods, cap_mods;
	size_t last; // the module found last: stacks stay in one module for long runs
};

struct builder {
	struct ct_addr_range *r;
	size_t n, cap;
	bool full;
};

struct ct_cu_index *ct_cu_index_create(void)
{
	return calloc(1, sizeof(struct ct_cu_index));
}

void ct_cu_index_destroy(struct ct_cu_index *index)
{
	if (!index)
		return;
	for (size_t i = 0; i < index->num_mods; i++) {
		free(index->mods[i].ranges);
		free(index->mods[i].max_hi);
		free(index->mods[i].units);
		for (size_t u = 0; index->mods[i].tables && u < index->mods[i].num_units; u++)
			ct_scope_table_destroy(index->mods[i].tables[u]);
		free(index->mods[i].tables);
		free(index->mods[i].table_failed);
		for (size_t u = 0; u < index->mods[i].num_found; u++)
			ct_scope_table_destroy(index->mods[i].found[u].table);
		free(index->mods[i].found);
	}
	free(index->mods);
	free(index);
}

static void add_range(struct builder *b, Dwarf_Addr lo, Dwarf_Addr hi, uint32_t unit)
{
	if (hi <= lo || b->full)
		return;
	if (!CT_GROW(b->r, b->cap, b->n + 1, 256, CT_CU_INDEX_MAX_RANGES)) {
		b->full = true;
		return;
	}
	b->r[b->n++] = (struct ct_addr_range){ lo, hi, unit };
}

// Adds @p die's ranges; returns how many it had.
static size_t add_die_ranges(struct builder *b, Dwarf_Die *die, uint32_t unit)
{
	Dwarf_Addr base, lo, hi;
	size_t count = 0;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0 && !b->full) {
		add_range(b, lo, hi, unit);
		count++;
	}
	return count;
}

// A unit with no DW_AT_ranges/low_pc of its own (old or unusual producers): its functions' ranges.
static void add_children_ranges(struct builder *b, Dwarf_Die *cudie, uint32_t unit)
{
	Dwarf_Die child;
	if (dwarf_child(cudie, &child) != 0)
		return;
	size_t seen = 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram)
			add_die_ranges(b, &child, unit);
	} while (++seen < MAX_FALLBACK_CHILDREN && !b->full && dwarf_siblingof(&child, &child) == 0);
}

static void build(struct module_index *m)
{
	m->built = true;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(m->mod, &bias);
	if (!dw)
		return;
	struct builder b = { 0 };
	size_t cap_units = 0;
	Dwarf_CU *cu = NULL;
	uint8_t unit_type;
	Dwarf_Half version;
	Dwarf_Die cudie, subdie;
	while (dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
		if (unit_type == DW_UT_type || unit_type == DW_UT_split_type)
			continue;
		int tag = dwarf_tag(&cudie);
		if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit && tag != DW_TAG_skeleton_unit)
			continue;
		if (m->num_units >= CT_CU_INDEX_MAX_UNITS || b.full)
			break;
		if (!CT_GROW(m->units, cap_units, m->num_units + 1, 64, 0))
			break;
		uint32_t idx = (uint32_t)m->num_units;
		// Scopes live in the split unit (.dwo) of a skeleton; its ranges are the skeleton's.
		bool split = unit_type == DW_UT_skeleton && dwarf_tag(&subdie) == DW_TAG_compile_unit;
		m->units[m->num_units++] = split ? subdie : cudie;
		if (add_die_ranges(&b, &cudie, idx) == 0 && !dwarf_hasattr(&cudie, DW_AT_ranges) &&
		    !dwarf_hasattr(&cudie, DW_AT_low_pc))
			add_children_ranges(&b, split ? &subdie : &cudie, idx);
	}
	if (b.n == 0) {
		free(b.r);
		return;
	}
	m->max_hi = ct_addr_ranges_sort(b.r, b.n);
	if (!m->max_hi) {
		free(b.r);
		return;
	}
	m->ranges = b.r;
	m->num_ranges = b.n;
}

// The unit holding module-relative address @p a; -1 when none.
static long find_unit(const struct module_index *m, Dwarf_Addr a)
{
	return ct_addr_ranges_find(m->ranges, m->max_hi, m->num_ranges, a, false);
}

static struct module_index *module_for(struct ct_cu_index *index, Dwfl_Module *mod)
{
	if (index->last < index->num_mods && index->mods[index->last].mod == mod)
		return &index->mods[index->last];
	for (size_t i = 0; i < index->num_mods; i++) {
		if (index->mods[i].mod == mod) {
			index->last = i;
			return &index->mods[i];
		}
	}
	if (!CT_GROW(index->mods, index->cap_mods, index->num_mods + 1, 16, 0))
		return NULL;
	struct module_index *m = &index->mods[index->num_mods];
	*m = (struct module_index){ .mod = mod };
	m->have_dwarf = dwfl_module_getdwarf(mod, &m->bias) != NULL;
	index->last = index->num_mods++;
	return m;
}

struct unit_key {
	const struct module_index *m;
	Dwarf_Off off;
};

static bool unit_below(const void *ctx, size_t i)
{
	const struct unit_key *k = ctx;
	return k->m->found[i].off < k->off;
}

// The unit of DIE offset @p off among those aranges named, added when new; NULL when out of memory
// or at the cap.
static struct aranges_unit *found_unit(struct module_index *m, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	size_t lo = ct_bisect(m->num_found, unit_below, &(struct unit_key){ m, off });
	if (lo < m->num_found && m->found[lo].off == off)
		return &m->found[lo];
	if (m->num_found >= CT_CU_INDEX_MAX_UNITS)
		return NULL;
	if (!CT_GROW(m->found, m->cap_found, m->num_found + 1, 16, 0))
		return NULL;
	memmove(&m->found[lo + 1], &m->found[lo], (m->num_found - lo) * sizeof(*m->found));
	m->num_found++;
	struct aranges_unit *u = &m->found[lo];
	*u = (struct aranges_unit){ .off = off, .die = *cudie };
	// Scopes live in the split unit (.dwo) of a skeleton.
	uint8_t unit_type;
	Dwarf_Die subdie;
	if (dwarf_cu_info(cudie->cu, NULL, &unit_type, NULL, &subdie, NULL, NULL, NULL) == 0 &&
	    unit_type == DW_UT_skeleton && dwarf_tag(&subdie) == DW_TAG_compile_unit)
		u->die = subdie;
	return u;
}

/**
 * Where the unit of module-relative address @p a and its scope-table slot are: through
 * `.debug_aranges` when they list @p a — libdw's binary search, without reading every unit's DIE
 * (glibc's debug file has 1,700 units: indexing them all cost 40M instructions, more than the rest of
 * a small core's analysis) — else through the range index, built then. False when no unit holds it.
 */
static bool locate(struct module_index *m, Dwarf_Addr a, Dwarf_Die *cu, struct ct_scope_table ***table,
		   bool **failed)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(m->mod, &bias);
	Dwarf_Die die;
	int scanned = dw ? ct_aranges_scan(&m->scan, dw, a, &die) : 0;
	if (scanned > 0 || (scanned < 0 && dwarf_addrdie(dw, a, &die) != NULL)) {
		struct aranges_unit *u = found_unit(m, &die);
		*cu = u ? u->die : die;
		*table = u ? &u->table : NULL;
		*failed = u ? &u->table_failed : NULL;
		return true;
	}
	if (!m->built)
		build(m);
	long u = m->num_ranges ? find_unit(m, a) : -1;
	if (u < 0)
		return false;
	*cu = m->units[u];
	if (!m->tables) {
		m->tables = calloc(m->num_units, sizeof(*m->tables));
		m->table_failed = calloc(m->num_units, sizeof(*m->table_failed));
	}
	*table = m->tables && m->table_failed ? &m->tables[u] : NULL;
	*failed = m->tables && m->table_failed ? &m->table_failed[u] : NULL;
	return true;
}

bool ct_cu_index_find(struct ct_cu_index *index, Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
	if (!mod)
		return false;
	if (!index) {
		Dwarf_Die *d = dwfl_module_addrdie(mod, addr, bias);
		if (d)
			*cu = *d;
		return d != NULL;
	}
	struct module_index *m = module_for(index, mod);
	struct ct_scope_table **table;
	bool *failed;
	if (!m || !m->have_dwarf || addr < m->bias || !locate(m, addr - m->bias, cu, &table, &failed))
		return false;
	*bias = m->bias;
	return true;
}

int ct_cu_index_scopes(struct ct_cu_index *index, Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die **scopes,
		       Dwarf_Addr *bias)
{
	*scopes = NULL;
	Dwarf_Die cu;
	if (!index) {
		if (!ct_cu_index_find(NULL, mod, addr, &cu, bias))
			return 0;
		return ct_dwarf_scopes(&cu, addr - *bias, scopes);
	}
	struct module_index *m = mod ? module_for(index, mod) : NULL;
	struct ct_scope_table **table = NULL;
	bool *failed = NULL;
	if (!m || !m->have_dwarf || addr < m->bias || !locate(m, addr - m->bias, &cu, &table, &failed))
		return 0;
	*bias = m->bias;
	if (!table || !failed)
		return ct_dwarf_scopes(&cu, addr - *bias, scopes);
	if (!*table && !*failed) {
		*table = ct_scope_table_build(&cu);
		*failed = !*table;
	}
	// A unit too large for a table (or out of memory) is walked per lookup, as before.
	if (!*table)
		return ct_dwarf_scopes(&cu, addr - *bias, scopes);
	return ct_scope_table_scopes(*table, addr - *bias, scopes);
}
