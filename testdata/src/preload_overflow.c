// A stack overflow that meets the guard page inside an interposed calloc (issue 21): the program
// recurses without bound, allocating a node at each level; calloc is interposed by
// libpreload_calloc.so (preload_calloc.c, run with LD_PRELOAD), whose frame is large, so the
// overflow faults at the `call` inside calloc. sp just below the stack mapping and the recursion are
// stack-overflow evidence that outranks "fault inside the allocator" (heap-corruption).
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *parent;
	unsigned long depth;
};

__attribute__((noinline)) static unsigned long descend(struct node *parent, unsigned long depth)
{
	char scratch[256];
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		return depth;
	n->parent = parent;
	n->depth = depth;
	scratch[depth % sizeof(scratch)] = (char)depth;
	unsigned long r = descend(n, depth + 1) + (unsigned char)scratch[depth % sizeof(scratch)];
	free(n);
	return r;
}

int main(void)
{
	printf("%lu\n", descend(NULL, 0));
	return 0;
}
