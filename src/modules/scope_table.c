// A unit's outermost code scopes by address (see scope_table.h).
#include <stdint.h>
#include <stdlib.h>

#include "modules/addr_ranges.h"
#include "modules/die_skip.h"
#include "modules/scope_table.h"
#include "modules/scopes.h"
#include "util/grow.h"

/** Children of one DIE looked at, as in scopes.c (a hostile file could chain millions). */
#define MAX_CHILDREN (1 << 22)

struct ct_scope_table {
	Dwarf_Die cu;
	Dwarf_Die *dies;
	size_t num_dies, cap_dies;
	struct ct_addr_range *ranges; // sorted by lo; index: into dies, in DIE order (scopes.c's order)
	Dwarf_Addr *max_hi; // max_hi[i] = max(ranges[0..i].hi)
	size_t num_ranges, cap_ranges;
	bool rust, failed;
	struct ct_die_skip *skip; // NULL: dwarf_siblingof only
};

// The next sibling: from the unit's bytes when the reader works, else (or when it gives up) libdw's.
static bool next_sibling(const struct ct_scope_table *t, Dwarf_Die *die)
{
	if (t->skip) {
		Dwarf_Die next;
		int r = ct_die_skip_sibling(t->skip, die, &next);
		if (r == 0)
			*die = next;
		if (r >= 0)
			return r == 0;
	}
	return dwarf_siblingof(die, die) == 0;
}

static bool add_range(struct ct_scope_table *t, Dwarf_Addr lo, Dwarf_Addr hi, uint32_t die)
{
	if (hi <= lo)
		return true;
	if (!CT_GROW(t->ranges, t->cap_ranges, t->num_ranges + 1, 256, CT_SCOPE_TABLE_MAX_RANGES))
		return false;
	t->ranges[t->num_ranges++] = (struct ct_addr_range){ lo, hi, die };
	return true;
}

static bool add_scope(struct ct_scope_table *t, Dwarf_Die *die)
{
	if (!CT_GROW(t->dies, t->cap_dies, t->num_dies + 1, 64, CT_SCOPE_TABLE_MAX_RANGES))
		return false;
	uint32_t idx = (uint32_t)t->num_dies;
	t->dies[t->num_dies++] = *die;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (!add_range(t, lo, hi, idx))
			return false;
	}
	return true;
}

// The code scopes among @p parent's children, through containers, as scopes.c's search meets them.
static void collect(struct ct_scope_table *t, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return;
	int seen = 0;
	do {
		int tag = dwarf_tag(&child);
		if (ct_dwarf_scope_is_code(tag)) {
			if (!add_scope(t, &child)) {
				t->failed = true;
				return;
			}
		} else if (ct_dwarf_scope_is_container(tag, t->rust) && depth < CT_SCOPES_MAX_DEPTH) {
			collect(t, &child, depth + 1);
			if (t->failed)
				return;
		}
	} while (++seen < MAX_CHILDREN && next_sibling(t, &child));
}

void ct_scope_table_destroy(struct ct_scope_table *t)
{
	if (!t)
		return;
	free(t->dies);
	free(t->ranges);
	free(t->max_hi);
	free(t);
}

struct ct_scope_table *ct_scope_table_build(Dwarf_Die *cu)
{
	struct ct_scope_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cu = *cu;
	t->rust = ct_dwarf_scopes_rust(cu);
	t->skip = ct_die_skip_create(cu);
	collect(t, cu, 0);
	ct_die_skip_destroy(t->skip);
	t->skip = NULL;
	if (!t->failed && t->num_ranges) {
		t->max_hi = ct_addr_ranges_sort(t->ranges, t->num_ranges);
		t->failed = !t->max_hi;
	}
	if (t->failed) {
		ct_scope_table_destroy(t);
		return NULL;
	}
	return t;
}

int ct_scope_table_scopes(const struct ct_scope_table *t, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	*scopes = NULL;
	// Of the scopes holding pc, the first in DIE order: the one the unit walk would find.
	long best = ct_addr_ranges_find(t->ranges, t->max_hi, t->num_ranges, pc, true);
	if (best < 0)
		return 0;
	Dwarf_Die cu = t->cu, outer = t->dies[best];
	return ct_dwarf_scopes_from(&cu, &outer, pc, scopes);
}
