// dwz test program A: a NULL dereference inside an inlined function whose DIEs dwz shares.
#include "shared.h"

__attribute__((noinline)) unsigned insert_all(struct shared_table *t, struct shared_node *n, int k)
{
	unsigned r = 0;
	for (int i = 0; i < k; i++)
		r += shared_store(t, &n[i]);
	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	static struct shared_node nodes[4];
	static struct shared_table table;
	for (int i = 0; i < 3; i++)
		nodes[i].next = &nodes[i + 1];
	return (int)insert_all(&table, nodes, 3 + argc);
}
