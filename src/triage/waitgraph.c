// The wait-for graph: thread → the lock it waits for → the thread holding it. Every thread waits for
// at most one lock and every lock has at most one recorded holder, so each thread has at most one
// successor and the cycles are found by one walk per thread with three colors (O(n) after sorting
// the tids for the holder lookup).
#include <stdlib.h>

#include "triage/hang.h"

static int compare_tid(const void *a, const void *b)
{
	const struct ct_tid_index *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void ct_tid_index_sort(struct ct_tid_index *entries, size_t n)
{
	qsort(entries, n, sizeof(*entries), compare_tid);
}

long ct_tid_index_find(const struct ct_tid_index *sorted, size_t n, int tid)
{
	struct ct_tid_index key = { tid, 0 };
	const struct ct_tid_index *hit = bsearch(&key, sorted, n, sizeof(*sorted), compare_tid);
	return hit ? (long)hit->index : -1;
}

static int compare_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

void ct_tids_sort(int *tids, size_t n)
{
	if (n)
		qsort(tids, n, sizeof(*tids), compare_int);
}

bool ct_tids_contain(const int *tids, size_t n, int tid)
{
	return n && bsearch(&tid, tids, n, sizeof(*tids), compare_int) != NULL;
}

void ct_wg_result_deinit(struct ct_wg_result *res)
{
	free(res->order);
	free(res->cycles);
	res->order = NULL;
	res->cycles = NULL;
	res->num_order = res->num_cycles = 0;
}

/** Rotates order[start .. start + len) so that the lowest tid comes first. */
static void rotate_lowest(size_t *order, size_t start, size_t len, const struct ct_wg_thread *threads)
{
	size_t best = 0;
	for (size_t k = 1; k < len; k++) {
		if (threads[order[start + k]].tid < threads[order[start + best]].tid)
			best = k;
	}
	for (size_t r = 0; r < best; r++) {
		size_t first = order[start];
		for (size_t k = 0; k + 1 < len; k++)
			order[start + k] = order[start + k + 1];
		order[start + len - 1] = first;
	}
}

bool ct_waitgraph_cycles(const struct ct_wg_thread *threads, size_t n, const struct ct_wg_lock *locks, size_t nl,
			 struct ct_wg_result *ret)
{
	struct ct_wg_result res = { 0 };
	*ret = res;
	if (!n)
		return true;
	struct ct_tid_index *sorted = calloc(n, sizeof(*sorted));
	long *next = calloc(n, sizeof(*next));
	unsigned char *color = calloc(n, 1);
	res.order = calloc(n, sizeof(*res.order));
	res.cycles = calloc(n, sizeof(*res.cycles));
	size_t *path = calloc(n, sizeof(*path));
	bool ok = sorted && next && color && res.order && res.cycles && path;
	if (ok) {
		for (size_t i = 0; i < n; i++)
			sorted[i] = (struct ct_tid_index){ threads[i].tid, i };
		ct_tid_index_sort(sorted, n);
		for (size_t i = 0; i < n; i++) {
			next[i] = -1;
			long l = threads[i].lock;
			if (l < 0 || (size_t)l >= nl || !locks[l].has_owner)
				continue;
			long owner = ct_tid_index_find(sorted, n, locks[l].owner);
			// A recursive lock's holder takes it again without waiting: no edge.
			if (owner == (long)i && locks[l].recursive)
				continue;
			next[i] = owner;
		}
		// 0 unvisited, 1 on the current path, 2 finished.
		for (size_t i = 0; i < n; i++) {
			size_t len = 0;
			long v = (long)i;
			while (v >= 0 && color[v] == 0) {
				color[v] = 1;
				path[len++] = (size_t)v;
				v = next[v];
			}
			if (v >= 0 && color[v] == 1) {
				// The path ran into itself: the cycle is the path from v's position on.
				size_t from = 0;
				while (path[from] != (size_t)v)
					from++;
				struct ct_cycle *c = &res.cycles[res.num_cycles++];
				c->start = res.num_order;
				c->length = len - from;
				for (size_t k = from; k < len; k++)
					res.order[res.num_order++] = path[k];
				rotate_lowest(res.order, c->start, c->length, threads);
			}
			for (size_t k = 0; k < len; k++)
				color[path[k]] = 2;
		}
	}
	free(sorted);
	free(next);
	free(color);
	free(path);
	if (!ok) {
		ct_wg_result_deinit(&res);
		return false;
	}
	*ret = res;
	return true;
}
