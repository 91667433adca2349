// The bucket table (buckets.h).
#include "writers/buckets.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/keyhash.h"

void ct_buckets_init(struct ct_buckets *t)
{
	memset(t, 0, sizeof(*t));
	t->key = ct_hash_key(t);
}

void ct_buckets_deinit(struct ct_buckets *t)
{
	for (size_t i = 0; i < t->num; i++) {
		free((void *)t->entries[i].b.stack);
		free(t->entries[i].members);
	}
	free(t->entries);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static size_t slot_of(const struct ct_buckets *t, const char *hash)
{
	size_t mask = t->num_slots - 1;
	size_t s = (size_t)ct_hash_bytes(hash, strlen(hash), t->key) & mask;
	while (t->slots[s] && strcmp(t->entries[t->slots[s] - 1].b.hash, hash) != 0)
		s = (s + 1) & mask;
	return s;
}

static bool grow_slots(struct ct_buckets *t)
{
	size_t n = t->num_slots ? 2 * t->num_slots : 64;
	size_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return false;
	free(t->slots);
	t->slots = slots;
	t->num_slots = n;
	for (size_t i = 0; i < t->num; i++)
		t->slots[slot_of(t, t->entries[i].b.hash)] = i + 1;
	return true;
}

static bool add_member(struct ct_bucket_entry *e, size_t core)
{
	if (!CT_GROW(e->members, e->cap_members, e->num_members + 1, 4, 0))
		return false;
	e->members[e->num_members++] = core;
	return true;
}

struct ct_bucket_entry *ct_buckets_add(struct ct_buckets *t, struct ct_bucket *b, size_t core)
{
	if (!b->hash || ((t->num + 1) * 2 > t->num_slots && !grow_slots(t))) {
		free((void *)b->stack);
		b->stack = NULL;
		return NULL;
	}
	size_t s = slot_of(t, b->hash);
	if (t->slots[s]) {
		struct ct_bucket_entry *e = &t->entries[t->slots[s] - 1];
		free((void *)b->stack); // the bucket keeps its first core's stack
		b->stack = NULL;
		if (!add_member(e, core))
			return NULL;
		e->b.count++;
		if (b->has_time) {
			if (!e->b.has_time) {
				e->b.has_time = true;
				e->b.first_seen = e->b.last_seen = b->first_seen;
			}
			e->b.first_seen = b->first_seen < e->b.first_seen ? b->first_seen : e->b.first_seen;
			e->b.last_seen = b->last_seen > e->b.last_seen ? b->last_seen : e->b.last_seen;
		}
		return e;
	}
	if (!CT_GROW(t->entries, t->cap, t->num + 1, 16, 0)) {
		free((void *)b->stack);
		b->stack = NULL;
		return NULL;
	}
	struct ct_bucket_entry *e = &t->entries[t->num];
	memset(e, 0, sizeof(*e));
	e->b = *b;
	e->b.count = 1;
	e->first = core;
	b->stack = NULL; // now the entry's
	if (!add_member(e, core)) {
		free((void *)e->b.stack);
		return NULL;
	}
	t->slots[s] = ++t->num;
	return e;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct ct_bucket_entry *a = x, *b = y;
	if (a->b.count != b->b.count)
		return a->b.count > b->b.count ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

void ct_buckets_sort(struct ct_buckets *t)
{
	if (t->num > 1)
		qsort(t->entries, t->num, sizeof(*t->entries), cmp_entry);
	// The index names entries by position: rebuilt for the new order.
	if (t->slots) {
		memset(t->slots, 0, t->num_slots * sizeof(*t->slots));
		for (size_t i = 0; i < t->num; i++)
			t->slots[slot_of(t, t->entries[i].b.hash)] = i + 1;
	}
}
