/* values.c - argument values, entry values and tail calls at -O2 (gdb 13 is the oracle).
 *
 *   tail     main -> walk_list -> node_key: walk_list ends in a tail call
 *            (jmp node_key), so only DWARF call sites tell that walk_list ran;
 *            node_key reads n->key with n = NULL (SEGV_MAPERR at 0x0).  Its
 *            argument is gdb's n=n@entry=0x0.
 *   free     main -> cleanup_twice -> release -> free: release ends in a tail
 *            call to free; the second release frees the same block again
 *            (glibc: free(): double free detected in tcache 2, abort).
 *   lookup   main -> render_scene(color, scale, origin) -> lookup(t, key, idx):
 *            an enum, a float and a struct passed by value to render_scene,
 *            a char * key "needle" and idx = 100000004 to lookup, which reads
 *            t->keys[idx] far past the table (SEGV_MAPERR).  main's local
 *            shade = BLUE lives across the call (an enum by name in bt full).
 *
 * Values that must stay unknown to the optimiser come through volatile
 * objects (crashme.h).
 */
#include <stdlib.h>
#include <string.h>

#include "crashme.h"

struct node {
	long key;
	struct node *next;
};

enum color { RED, GREEN, BLUE };

struct point {
	int x, y;
};

struct table {
	const char *name;
	int size;
	const char *keys[4];
};

static struct node tail = { 3, NULL };
static struct node middle = { 2, &tail };
static struct node head = { 1, &middle };

NOINLINE long node_key(const struct node *n)
{
	return n->key;
}

/* The last node's key, through the node after it: NULL. Ends in a tail call. */
NOINLINE long walk_list(const struct node *list)
{
	const struct node *n = list;
	while (n->next)
		n = n->next;
	return node_key(n->next);
}

struct buffer {
	char *data;
	size_t len;
};

NOINLINE void release(struct buffer *b)
{
	free(b->data);
}

NOINLINE void cleanup_twice(struct buffer *b)
{
	release(b);
	release(b); /* the same block again */
}

static const struct table names = { "names", 4, { "alpha", "beta", "gamma", "needle" } };

NOINLINE int lookup(const struct table *t, const char *key, long idx)
{
	return strcmp(t->keys[idx], key) == 0;
}

static volatile long far_index = 100000004;

NOINLINE int render_scene(enum color c, float scale, struct point origin)
{
	int r = lookup(&names, "needle", far_index + (long)c);
	return r + origin.x + origin.y + (int)scale;
}

static volatile enum color chosen = BLUE;

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "tail") == 0)
		return (int)walk_list(&head);
	if (strcmp(mode, "free") == 0) {
		struct buffer b = { malloc(64), 64 };
		memset(b.data, 'x', b.len);
		cleanup_twice(&b);
		return 0;
	}
	if (strcmp(mode, "lookup") == 0) {
		struct point p = { 3, 4 };
		enum color shade = chosen; /* live across the call: main's locals show BLUE */
		int r = render_scene(shade - 2, 2.5f, p);
		return r + (int)shade;
	}
	return 2;
}
