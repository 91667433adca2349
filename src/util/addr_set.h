/**
 * @file addr_set.h
 * A set of nonzero addresses (open addressing, linear probing, a fixed number of slots): the
 * visited set of a walk through a list the dump holds, so that a list that loops is walked once.
 */
#ifndef CT_UTIL_ADDR_SET_H
#define CT_UTIL_ADDR_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_addr_set {
	uint64_t *slots; /**< owned (ct_addr_set_deinit) */
	size_t mask, count;
};

/** @p slots: a power of two; the set holds half as many addresses. False when out of memory. */
bool ct_addr_set_init(struct ct_addr_set *set, size_t slots);
void ct_addr_set_deinit(struct ct_addr_set *set);

/** 1 when @p a was added, 0 when it was in already, -1 when the set is half full (probes stay short). */
int ct_addr_set_add(struct ct_addr_set *set, uint64_t a);

#endif
