/**
 * @file grow.h
 * One rule for growing an owned array: capacity doubles from a first size until it holds what is
 * needed, under an optional element cap, so that n appends cost O(n) copies and a hostile count
 * cannot ask for more than the cap.
 */
#ifndef CT_UTIL_GROW_H
#define CT_UTIL_GROW_H

#include <stdbool.h>
#include <stddef.h>

/**
 * Makes *@p array (of *@p capacity elements of @p elem bytes) hold at least @p need elements:
 * unchanged when it does, else reallocated to @p first, doubled until it is enough. False, and the
 * array untouched, when that exceeds @p max elements (0: no cap) or memory is out. New elements are
 * not initialized.
 */
bool ct_grow(void **array, size_t *capacity, size_t need, size_t elem, size_t first, size_t max);

/** ct_grow for a typed pointer: CT_GROW(t->items, t->cap, t->count + 1, 16, 0). */
#define CT_GROW(arr, cap, need, first, max) ct_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)), (first), (max))

#endif
