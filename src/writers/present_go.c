// Goroutines grouped by identical stacks (docs/runtimes.md "Go"), as Go's goroutine profile
// groups them: ten thousand goroutines parked in the same receive are one entry with a count. The
// key is status, wait reason, every frame and the creating frame (names are interned: pointers
// compare as the strings do); the crashed goroutine and running ones (each on its own thread) are
// never grouped. Linear in the frames (present.c's ct_group_items, with a keyed hash).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "writers/present.h"
#include "util/keyhash.h"

static uint64_t frame_hash(const struct ct_runtime_frame *f, uint64_t h, uint64_t key)
{
	return ct_hash_mix(h ^ (uintptr_t)f->function ^ ((uintptr_t)f->file << 1) ^ (uint64_t)f->line << 40 ^
			   (uint64_t)f->inlined << 63) + key;
}

static uint64_t goroutine_hash(const struct ct_goroutine *g, uint64_t key)
{
	uint64_t h = ct_hash_mix(key ^ g->num_frames ^ (uint64_t)g->status << 32 ^ (uintptr_t)g->wait ^
				 (uint64_t)g->truncated << 62 ^ (uint64_t)g->locked_to_thread << 61);
	for (size_t i = 0; i < g->num_frames; i++)
		h = frame_hash(&g->frames[i], h, key);
	return frame_hash(&g->created_by, h, key);
}

static bool same_frame(const struct ct_runtime_frame *x, const struct ct_runtime_frame *y)
{
	return x->function == y->function && x->file == y->file && x->line == y->line && x->inlined == y->inlined;
}

static bool same_goroutine(const struct ct_goroutine *a, const struct ct_goroutine *b)
{
	if (a->num_frames != b->num_frames || a->status != b->status || a->wait != b->wait ||
	    a->truncated != b->truncated || a->locked_to_thread != b->locked_to_thread ||
	    a->stack_from != b->stack_from || !same_frame(&a->created_by, &b->created_by))
		return false;
	for (size_t i = 0; i < a->num_frames; i++) {
		if (!same_frame(&a->frames[i], &b->frames[i]))
			return false;
	}
	return true;
}

// Each goroutine its own group (out of memory: still every goroutine shown).
static void ungrouped(struct ct_goroutine_groups *g, size_t n)
{
	g->groups = calloc(n ? n : 1, sizeof(*g->groups));
	g->members = malloc((n ? n : 1) * sizeof(*g->members));
	if (!g->groups || !g->members) {
		free(g->groups);
		free(g->members);
		g->groups = NULL;
		g->members = NULL;
		g->num_groups = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		g->groups[i] = (struct ct_thread_group){ .count = 1, .start = i };
		g->members[i] = i;
	}
	g->num_groups = n;
}

// The crashed goroutine and running ones (each on its own thread) are never grouped.
static enum ct_group_role goroutine_role(const void *ctx, size_t i)
{
	const struct ct_goroutine *g = &((const struct ct_runtime *)ctx)->goroutines[i];
	return g->crashed || g->status == CT_GO_RUNNING ? CT_GROUP_ALONE : CT_GROUP_KEYED;
}

static uint64_t goroutine_item_hash(const void *ctx, size_t i, uint64_t key)
{
	return goroutine_hash(&((const struct ct_runtime *)ctx)->goroutines[i], key);
}

static bool same_goroutine_item(const void *ctx, size_t a, size_t b)
{
	const struct ct_runtime *rt = ctx;
	return same_goroutine(&rt->goroutines[a], &rt->goroutines[b]);
}

void ct_goroutine_groups_init(struct ct_goroutine_groups *g, const struct ct_runtime *rt)
{
	memset(g, 0, sizeof(*g));
	if (!rt->num_goroutines)
		return;
	const struct ct_group_ops ops = { rt, goroutine_role, goroutine_item_hash, same_goroutine_item };
	if (!ct_group_items(rt->num_goroutines, &ops, &g->groups, &g->num_groups, &g->members))
		ungrouped(g, rt->num_goroutines);
}

void ct_goroutine_groups_deinit(struct ct_goroutine_groups *g)
{
	free(g->groups);
	free(g->members);
	memset(g, 0, sizeof(*g));
}
