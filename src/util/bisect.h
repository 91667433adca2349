/**
 * @file bisect.h
 * The one binary search of the tree: the partition point of a predicate over [0, n), i.e. the first
 * index at which @p before no longer holds, for a predicate true on a prefix and false after it
 * (a sorted table asked "is entry i below the key?"). Callers say what "below" means (<, <=, a
 * field, a read from the dump); the halving, its bounds and its end are written once here.
 *
 * Bounded by construction: each probe halves [lo, hi), so a table of any size_t length costs at
 * most 64 probes; a predicate that cannot answer (a failed read of a dump table) ends the search.
 * Static inline so that the compiler inlines the predicate into each caller's loop (these searches
 * sit on the address-lookup paths).
 */
#ifndef CT_UTIL_BISECT_H
#define CT_UTIL_BISECT_H

#include <stdbool.h>
#include <stddef.h>

/** Is entry @p i before the partition point? (a pure function of @p ctx and @p i) */
typedef bool ct_bisect_fn(const void *ctx, size_t i);

/**
 * Answers of a predicate that reads to decide: CT_BISECT_ERROR when it could not (the search stops).
 */
enum ct_bisect_answer { CT_BISECT_AFTER, CT_BISECT_BEFORE, CT_BISECT_ERROR };
typedef enum ct_bisect_answer ct_bisect_try_fn(const void *ctx, size_t i);

/** The first index of [0, @p n) where @p before is false; @p n when it holds everywhere. */
static inline size_t ct_bisect(size_t n, ct_bisect_fn *before, const void *ctx)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/** ct_bisect with a predicate that may fail: false (and *@p ret untouched) when one probe did. */
static inline bool ct_bisect_try(size_t n, ct_bisect_try_fn *before, const void *ctx, size_t *ret)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		enum ct_bisect_answer a = before(ctx, mid);
		if (a == CT_BISECT_ERROR)
			return false;
		if (a == CT_BISECT_BEFORE)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ret = lo;
	return true;
}

#endif
