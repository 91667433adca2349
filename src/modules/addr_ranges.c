// Overlapping address ranges: sort once, then binary search and a bounded backward scan.
#include <stdlib.h>

#include "modules/addr_ranges.h"
#include "util/bisect.h"

static int cmp_range(const void *a, const void *b)
{
	const struct ct_addr_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

Dwarf_Addr *ct_addr_ranges_sort(struct ct_addr_range *r, size_t n)
{
	if (n == 0)
		return NULL;
	qsort(r, n, sizeof(*r), cmp_range);
	Dwarf_Addr *max_hi = malloc(n * sizeof(*max_hi));
	if (!max_hi)
		return NULL;
	Dwarf_Addr hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].hi > hi)
			hi = r[i].hi;
		max_hi[i] = hi;
	}
	return max_hi;
}

struct range_key {
	const struct ct_addr_range *r;
	Dwarf_Addr a;
};

static bool range_starts_at_or_below(const void *ctx, size_t i)
{
	const struct range_key *k = ctx;
	return k->r[i].lo <= k->a;
}

long ct_addr_ranges_find(const struct ct_addr_range *r, const Dwarf_Addr *max_hi, size_t n, Dwarf_Addr a,
			 bool lowest_index)
{
	// The last range starting at or before a, then back over earlier ones that may still reach it.
	size_t lo = ct_bisect(n, range_starts_at_or_below, &(struct range_key){ r, a });
	long best = -1;
	for (size_t i = lo; i-- > 0 && max_hi[i] > a;) {
		if (a >= r[i].hi)
			continue;
		if (!lowest_index)
			return (long)r[i].index;
		if (best < 0 || r[i].index < (uint32_t)best)
			best = (long)r[i].index;
	}
	return best;
}
