// Types and inline functions both dwz test programs use: dwz -m moves their DIEs and strings into
// the shared file (tests/dwz/check_handmade.py).
#ifndef SHARED_H
#define SHARED_H
#include <stdlib.h>

struct shared_node {
	int value;
	struct shared_node *next;
	const char *label;
};

struct shared_table {
	struct shared_node *nodes[16];
	unsigned count;
};

// Faults when the node has no successor: the crash of prog_a, inlined into its caller.
static inline __attribute__((always_inline)) unsigned shared_store(struct shared_table *t, struct shared_node *n)
{
	t->nodes[t->count & 15] = n;
	n->next->value += n->value;
	return ++t->count;
}

// Aborts once the table is full enough: the crash of prog_b, inlined into its caller.
static inline __attribute__((always_inline)) void shared_check(const struct shared_table *t, unsigned limit)
{
	if (t->count > limit)
		abort();
}
#endif
