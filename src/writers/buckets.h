/**
 * @file buckets.h
 * Crash buckets: cores grouped by signature hash, in a typed table (no JSON object as a hash
 * map). Used by batch mode for its summaries and by the single-core SARIF output, which is one
 * bucket of one core, so both bucket the same way.
 */
#ifndef CT_REPORT_BUCKETS_H
#define CT_REPORT_BUCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writers/writers.h"

/** One bucket: its facts (from its first core), and the cores in it by the caller's index. */
struct ct_bucket_entry {
	struct ct_bucket b; /**< strings borrowed from the caller; b.stack owned (freed by deinit) */
	size_t first; /**< index of the first core (the example) */
	size_t *members; /**< owned: indices of the cores, in the order added */
	size_t num_members, cap_members;
};

struct ct_buckets {
	struct ct_bucket_entry *entries; /**< owned, in order of first appearance until sorted */
	size_t num, cap;
	size_t *slots; /**< owned: open addressing, entry index + 1 by hash of b.hash; 0 empty */
	size_t num_slots;
	uint64_t key; /**< of the keyed hash (util/keyhash.h) */
};

void ct_buckets_init(struct ct_buckets *t);
void ct_buckets_deinit(struct ct_buckets *t);

/**
 * Adds core @p core with its bucket facts @p b (b->hash required; strings borrowed and must
 * outlive the table; b->stack is taken over, also on failure). A core whose hash is already there
 * joins that bucket (count, time range); else @p b starts a new one. Returns the bucket's entry,
 * or NULL when out of memory.
 */
struct ct_bucket_entry *ct_buckets_add(struct ct_buckets *t, struct ct_bucket *b, size_t core);

/** Most frequent first, then by first appearance (the order of every summary). */
void ct_buckets_sort(struct ct_buckets *t);

#endif
