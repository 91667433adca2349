// The presentation layer (present.h): address width, thread groups, recursion collapsing, paths.
#include "report/present.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/writers.h"
#include "util/keyhash.h"

/** Longest recursion cycle looked for (mutual recursion of up to 8 functions). */
#define MAX_PERIOD 8

int ct_present_hex_width(const struct ct_report *r)
{
	unsigned ps = r->input.pointer_size;
	return ps >= 1 && ps <= 8 ? 2 * (int)ps : 16;
}

const char *ct_display_path(const char *path, const struct ct_write_options *o)
{
	if (!path || !o->no_abs_paths)
		return path;
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* ---- Thread groups ---- */

static uint64_t stack_hash(const struct ct_thread *t, uint64_t key)
{
	uint64_t h = ct_hash_mix(key ^ t->num_frames ^ ((uint64_t)t->truncated << 63));
	for (size_t i = 0; i < t->num_frames; i++)
		h = ct_hash_mix(h ^ t->frames[i].pc) + key;
	return h;
}

static bool same_stack(const struct ct_thread *a, const struct ct_thread *b)
{
	if (a->num_frames != b->num_frames || a->truncated != b->truncated)
		return false;
	for (size_t i = 0; i < a->num_frames; i++) {
		if (a->frames[i].pc != b->frames[i].pc)
			return false;
	}
	return true;
}

// A thread's Python stack (docs/runtimes.md) is part of what makes stacks the same: twenty threads
// asleep in time.sleep share the native stack, not the Python one. Names are interned: pointers
// compare as the strings do.
static uint64_t runtime_hash(const struct ct_runtime_thread *p, uint64_t h, uint64_t key)
{
	for (size_t i = 0; p && i < p->num_frames; i++)
		h = ct_hash_mix(h ^ (uintptr_t)p->frames[i].function ^ (uintptr_t)p->frames[i].file ^
				(uint64_t)p->frames[i].line << 40) + key;
	return h;
}

static bool same_runtime(const struct ct_runtime_thread *a, const struct ct_runtime_thread *b)
{
	size_t na = a ? a->num_frames : 0, nb = b ? b->num_frames : 0;
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		const struct ct_runtime_frame *x = &a->frames[i], *y = &b->frames[i];
		if (x->function != y->function || x->file != y->file || x->line != y->line)
			return false;
	}
	return true;
}

static const struct ct_thread *report_thread(const void *ctx, size_t i)
{
	return &((const struct ct_report *)ctx)->threads[i];
}

static const struct ct_thread *task_stack(const void *ctx, size_t i)
{
	return &((const struct ct_report *)ctx)->kernel.tasks[i].stack;
}

static void group_stacks(struct ct_thread_groups *g, const struct ct_report *r, size_t n,
			 const struct ct_thread *(*stack_at)(const void *ctx, size_t i))
{
	memset(g, 0, sizeof(*g));
	g->report = r;
	g->at = stack_at;
	g->num_groups = n; // ungrouped until the grouping succeeds
	if (!n)
		return;
	size_t slots = 16;
	while (slots < 2 * n)
		slots *= 2;
	// Per thread: its group; per group: its first thread, hash and size; per slot: a group + 1.
	size_t *group_of = malloc(n * sizeof(*group_of));
	size_t *first = malloc(n * sizeof(*first));
	uint64_t *hashes = malloc(n * sizeof(*hashes));
	size_t *table = calloc(slots, sizeof(*table));
	struct ct_thread_group *groups = calloc(n, sizeof(*groups));
	size_t *members = malloc(n * sizeof(*members));
	if (!group_of || !first || !hashes || !table || !groups || !members)
		goto out;
	uint64_t key = ct_hash_key(table);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ct_thread *t = stack_at(r, i);
		group_of[i] = SIZE_MAX;
		if (t->crashed)
			continue;
		const struct ct_runtime_thread *py =
			stack_at == report_thread && r->runtime.num_threads ? ct_runtime_find_thread(&r->runtime, t->tid) : NULL;
		uint64_t h = runtime_hash(py, stack_hash(t, key), key);
		size_t s = (size_t)h & (slots - 1);
		for (; table[s]; s = (s + 1) & (slots - 1)) {
			size_t gi = table[s] - 1;
			const struct ct_thread *other = stack_at(r, first[gi]);
			if (hashes[gi] == h && same_stack(other, t) &&
			    (!py || same_runtime(ct_runtime_find_thread(&r->runtime, other->tid), py)))
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
	// Counting sort of the threads by group: members of a group stay in thread order.
	size_t at = 0;
	for (size_t gi = 0; gi < ng; gi++) {
		groups[gi].start = at;
		at += groups[gi].count;
		groups[gi].count = 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (group_of[i] == SIZE_MAX)
			continue;
		struct ct_thread_group *gr = &groups[group_of[i]];
		members[gr->start + gr->count++] = i;
	}
	g->groups = groups;
	g->members = members;
	g->num_groups = ng;
	groups = NULL;
	members = NULL;
out:
	free(group_of);
	free(first);
	free(hashes);
	free(table);
	free(groups);
	free(members);
}

void ct_thread_groups_init(struct ct_thread_groups *g, const struct ct_report *r)
{
	group_stacks(g, r, r->num_threads, report_thread);
}

void ct_task_groups_init(struct ct_thread_groups *g, const struct ct_report *r)
{
	group_stacks(g, r, r->kernel.num_tasks, task_stack);
}

void ct_thread_groups_deinit(struct ct_thread_groups *g)
{
	free(g->groups);
	free(g->members);
	g->groups = NULL;
	g->members = NULL;
	g->num_groups = 0;
}

size_t ct_thread_group_member(const struct ct_thread_groups *g, size_t gi, size_t k)
{
	return g->members ? g->members[g->groups[gi].start + k] : gi;
}

size_t ct_thread_group_size(const struct ct_thread_groups *g, size_t gi)
{
	return g->groups ? g->groups[gi].count : !g->at(g->report, gi)->crashed;
}

/* ---- Recursion ---- */

static bool same_frame(const struct ct_frame *a, const struct ct_frame *b)
{
	return a->pc == b->pc && a->function == b->function && a->inlined == b->inlined;
}

bool ct_find_cycle(const struct ct_thread *t, size_t i, size_t min_frames, size_t *period, size_t *repeats)
{
	size_t best_len = 0, best_p = 0;
	for (size_t p = 1; p <= MAX_PERIOD && i + 2 * p <= t->num_frames; p++) {
		size_t j = i + p;
		while (j < t->num_frames && same_frame(&t->frames[j], &t->frames[j - p]))
			j++;
		size_t reps = (j - i) / p;
		if (reps >= 2 && reps * p > best_len) {
			best_len = reps * p;
			best_p = p;
		}
	}
	if (!best_p || best_len < min_frames)
		return false;
	*period = best_p;
	*repeats = best_len / best_p;
	return true;
}

void ct_present_frames(const struct ct_thread *t, size_t collapse_min, size_t limit,
		       const struct ct_frame_walk_ops *ops, void *ctx)
{
	size_t shown = 0;
	for (size_t i = 0; i < t->num_frames;) {
		size_t period, repeats;
		if (collapse_min && ct_find_cycle(t, i, collapse_min, &period, &repeats)) {
			for (size_t k = 0; k < period; k++)
				ops->frame(ctx, &t->frames[i + k], i + k);
			ops->repeat(ctx, i + period, i + period * repeats - 1, period, repeats - 1);
			i += period * repeats;
			shown += period + 1;
		} else {
			ops->frame(ctx, &t->frames[i], i);
			i++;
			shown++;
		}
		if (limit && shown >= limit && i < t->num_frames) {
			ops->more(ctx, t->num_frames - i);
			break;
		}
	}
}
