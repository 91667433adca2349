/* heapstate.c - glibc heap states known by construction (docs/root-cause.md, issue 24).
 * argv[1] picks the mode; the same program built with -fsanitize=address is the oracle for the
 * class (heap-use-after-free, double-free).
 *
 *   uaf-read      a session is freed, then s->buf->len is read: s->buf is now the safe-linked
 *                 tcache pointer glibc stored in the freed chunk, and the read faults
 *   uaf-list      a node freed but left in a global list; walking the list reads node->next
 *                 from the freed chunk and follows it
 *   dfree-tcache  the same block freed twice: free(): double free detected in tcache 2
 *   dfree-fastbin seven blocks fill the tcache bin, then one block freed twice goes to the
 *                 fastbin: double free or corruption (fasttop)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noipa))
#endif

struct buffer {
	char *data;
	long len;
};

struct session {
	struct buffer *buf; /* offset 0: where glibc puts the tcache next pointer once freed */
	int refs;
	int id;
};

KEEP long buffer_len(const struct session *s)
{
	return s->buf->len;
}

KEEP void release(struct session *s)
{
	free(s);
}

KEEP int run_uaf_read(void)
{
	struct session *s = malloc(sizeof *s);
	s->buf = malloc(sizeof *s->buf + 64);
	s->buf->len = 3;
	s->refs = 1;
	release(s);
	return (int)buffer_len(s);
}

struct node {
	struct node *next;
	long key;
	long payload[2];
};

static struct node *list_head;

KEEP void push_node(long key)
{
	struct node *n = calloc(1, sizeof *n);
	n->key = key;
	n->next = list_head;
	list_head = n;
}

KEEP long sum_keys(void)
{
	long sum = 0;
	for (struct node *n = list_head; n; n = n->next)
		sum += n->next ? n->next->key : n->key;
	return sum;
}

KEEP int run_uaf_list(void)
{
	push_node(1);
	push_node(2);
	push_node(3);
	free(list_head->next); /* node 2 is freed but node 3 still points to it */
	return (int)sum_keys();
}

static volatile int released;

KEEP void drop(void *p)
{
	free(p);
	released++; /* not a tail call: drop stays on the stack */
}

KEEP int run_dfree_tcache(void)
{
	char *p = malloc(40);
	strcpy(p, "ticket");
	drop(p);
	drop(p);
	return 0;
}

KEEP int run_dfree_fastbin(void)
{
	void *fill[7];
	for (int i = 0; i < 7; i++) {
		fill[i] = malloc(40);
		((volatile char *)fill[i])[0] = 1; /* used: clang may not drop the pair */
	}
	char *p = malloc(40);
	char *guard = malloc(40); /* keeps p off the top chunk */
	for (int i = 0; i < 7; i++)
		free(fill[i]);
	drop(p);
	drop(p);
	free(guard);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int r = 0;
	if (strcmp(mode, "uaf-read") == 0)
		r = run_uaf_read();
	else if (strcmp(mode, "uaf-list") == 0)
		r = run_uaf_list();
	else if (strcmp(mode, "dfree-tcache") == 0)
		r = run_dfree_tcache();
	else if (strcmp(mode, "dfree-fastbin") == 0)
		r = run_dfree_fastbin();
	printf("%d\n", r);
	return 0;
}
