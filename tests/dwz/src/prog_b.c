// dwz test program B: abort() in an inlined check at the bottom of a recursion, with the same shared
// types and inline functions as program A.
#include "shared.h"

__attribute__((noinline)) unsigned walk(struct shared_table *t, struct shared_node *n, int depth)
{
	n->next = n + 1;
	unsigned r = shared_store(t, n);
	shared_check(t, 6);
	if (depth > 0)
		r += walk(t, n + 1, depth - 1);
	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	static struct shared_node nodes[32];
	static struct shared_table table;
	return (int)walk(&table, nodes, 10 + argc);
}
