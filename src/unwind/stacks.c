// The symbolized stacks between unwinding and triage (stacks.h): the threads' array and its order.
#include <stdlib.h>

#include "unwind/stacks.h"

bool ct_stacks_reserve(struct ct_stacks *st, size_t count)
{
	// A power of two from 8, the capacity the report assumes of its arrays (model.c): the report
	// can keep growing the array it is handed.
	size_t n = 8;
	while (n < count)
		n *= 2;
	st->items = calloc(n, sizeof(*st->items));
	st->count = 0;
	st->capacity = st->items ? n : 0;
	return st->items != NULL;
}

struct ct_thread *ct_stacks_add(struct ct_stacks *st)
{
	return st->count < st->capacity ? &st->items[st->count++] : NULL;
}

static int compare_threads(const void *a, const void *b)
{
	const struct ct_thread *x = a, *y = b;
	if (x->crashed != y->crashed)
		return x->crashed ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void ct_stacks_sort(struct ct_stacks *st)
{
	if (st->count > 1)
		qsort(st->items, st->count, sizeof(*st->items), compare_threads);
}

const struct ct_thread *ct_stacks_crashed(const struct ct_stacks *st)
{
	for (size_t i = 0; i < st->count; i++) {
		if (st->items[i].crashed)
			return &st->items[i];
	}
	return NULL;
}

const struct ct_thread *ct_stacks_subject(const struct ct_stacks *st)
{
	const struct ct_thread *t = ct_stacks_crashed(st);
	return t ? t : st->count ? &st->items[0] : NULL;
}

const struct ct_thread *ct_stacks_find(const struct ct_stacks *st, int tid)
{
	for (size_t i = 0; i < st->count; i++) {
		if (st->items[i].tid == tid)
			return &st->items[i];
	}
	return NULL;
}

void ct_stacks_move_to_report(struct ct_stacks *st, struct ct_report *report)
{
	if (report->num_threads) {
		// Not reached by the pipeline (the report gets its threads only here); freed, not leaked.
		ct_stacks_free(st);
		return;
	}
	free(report->threads);
	report->threads = st->items;
	report->num_threads = st->count;
	*st = (struct ct_stacks){ 0 };
}

void ct_stacks_free(struct ct_stacks *st)
{
	ct_threads_free(st->items, st->count);
	*st = (struct ct_stacks){ 0 };
}
