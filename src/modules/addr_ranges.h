/**
 * @file addr_ranges.h
 * Address ranges that may overlap, sorted once and searched by binary search plus a backward scan
 * bounded by a running maximum of their ends: the unit index (cu_index.c) and a unit's scope table
 * (scope_table.c) both map an address to the ranges holding it this way.
 */
#ifndef CT_ADDR_RANGES_H
#define CT_ADDR_RANGES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_addr_range {
	Dwarf_Addr lo, hi; /**< [lo, hi) */
	uint32_t index; /**< what the range belongs to (a unit, a DIE) */
};

/**
 * Sorts @p r by start (then end, then index) and returns max_hi[i] = the largest end of r[0..i] (malloc'ed,
 * the caller frees it); NULL when out of memory or @p n is 0.
 */
Dwarf_Addr *ct_addr_ranges_sort(struct ct_addr_range *r, size_t n);

/**
 * Of the ranges holding @p a: the index of the one starting last, or with @p lowest_index the
 * smallest index among all of them; -1 when none does.
 */
long ct_addr_ranges_find(const struct ct_addr_range *r, const Dwarf_Addr *max_hi, size_t n, Dwarf_Addr a,
			 bool lowest_index);

#endif
