/*
 * The bundled example crash for README's quick start: an inventory lookup that walks a linked
 * list past its end and reads through the NULL `next` pointer. Built with -g -O1 by scripts/demo
 * and crashed for real, so the demo shows a genuine kernel-written core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
	const char *name;
	int count;
	struct item *next;
};

static struct item *push(struct item *head, const char *name, int count)
{
	struct item *it = malloc(sizeof(*it));
	if (!it)
		abort();
	it->name = name;
	it->count = count;
	it->next = head;
	return it;
}

// Bug: assumes every name it is asked about is in the list, so it runs off the end.
__attribute__((noinline)) static int count_of(const struct item *it, const char *name)
{
	while (strcmp(it->name, name) != 0)
		it = it->next;
	return it->count;
}

int main(int argc, char **argv)
{
	struct item *stock = push(push(push(NULL, "bolts", 40), "nuts", 12), "washers", 7);
	const char *wanted = argc > 1 ? argv[1] : "screws";
	printf("%s: %d\n", wanted, count_of(stock, wanted));
	return 0;
}
