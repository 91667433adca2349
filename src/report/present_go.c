// Goroutines grouped by identical stacks (docs/runtimes.md "Go"), as Go's goroutine profile
// groups them: ten thousand goroutines parked in the same receive are one entry with a count. The
// key is status, wait reason, every frame and the creating frame (names are interned: pointers
// compare as the strings do); the crashed goroutine and running ones (each on its own thread) are
// never grouped. Linear in the frames, with a keyed hash (crafted stacks cannot collide).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/present.h"
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

void ct_goroutine_groups_init(struct ct_goroutine_groups *g, const struct ct_runtime *rt)
{
	memset(g, 0, sizeof(*g));
	size_t n = rt->num_goroutines;
	if (!n)
		return;
	size_t slots = 16;
	while (slots < 2 * n)
		slots *= 2;
	size_t *group_of = malloc(n * sizeof(*group_of)), *first = malloc(n * sizeof(*first));
	uint64_t *hashes = malloc(n * sizeof(*hashes));
	size_t *table = calloc(slots, sizeof(*table));
	struct ct_thread_group *groups = calloc(n, sizeof(*groups));
	size_t *members = malloc(n * sizeof(*members));
	if (!group_of || !first || !hashes || !table || !groups || !members) {
		free(group_of), free(first), free(hashes), free(table), free(groups), free(members);
		ungrouped(g, n);
		return;
	}
	uint64_t key = ct_hash_key(table);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ct_goroutine *gr = &rt->goroutines[i];
		if (gr->crashed || gr->status == CT_GO_RUNNING) {
			first[ng] = i;
			hashes[ng] = 0;
			group_of[i] = ng++;
			groups[group_of[i]].count++;
			continue;
		}
		uint64_t h = goroutine_hash(gr, key);
		size_t s = (size_t)h & (slots - 1);
		for (; table[s]; s = (s + 1) & (slots - 1)) {
			size_t gi = table[s] - 1;
			if (hashes[gi] == h && same_goroutine(&rt->goroutines[first[gi]], gr))
				break;
		}
		if (!table[s]) {
			table[s] = ng + 1;
			hashes[ng] = h;
			first[ng] = i;
			ng++;
		}
		group_of[i] = table[s] - 1;
		groups[group_of[i]].count++;
	}
	size_t at = 0;
	for (size_t gi = 0; gi < ng; gi++) {
		groups[gi].start = at;
		at += groups[gi].count;
		groups[gi].count = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct ct_thread_group *gr = &groups[group_of[i]];
		members[gr->start + gr->count++] = i;
	}
	g->groups = groups;
	g->members = members;
	g->num_groups = ng;
	free(group_of), free(first), free(hashes), free(table);
}

void ct_goroutine_groups_deinit(struct ct_goroutine_groups *g)
{
	free(g->groups);
	free(g->members);
	memset(g, 0, sizeof(*g));
}
