/* heapstate.c - glibc heap states known by construction (docs/root-cause.md, issue 24).
 * argv[1] picks the mode; the same program built with -fsanitize=address is the oracle for the
 * class (heap-use-after-free, double-free).
 *
 *   uaf-read      a session is freed, then s->buf->len is read: s->buf is now the safe-linked
 *                 tcache pointer glibc stored in the freed chunk, and the read faults
 *   uaf-write     the same session freed, then s->buf->len written: a write through the
 *                 tcache pointer glibc stored in the freed chunk
 *   uaf-list      a node freed but left in a global list; walking the list reads node->next
 *                 from the freed chunk and follows it
 *   dfree-tcache  the same block freed twice: free(): double free detected in tcache 2
 *   dfree-fastbin seven blocks fill the tcache bin, then one block freed twice goes to the
 *                 fastbin: double free or corruption (fasttop)
 *   overflow-1    a 24-character name copied with its NUL into malloc(24): the NUL lands on the
 *                 low byte of the next chunk's size (0x21 -> 0x00); freeing that chunk aborts
 *                 with free(): invalid pointer (ASan: heap-buffer-overflow)
 *   overflow-100  124 bytes written into malloc(24): the next chunk's header becomes 'AAAAAAAA';
 *                 freeing it aborts (ASan: heap-buffer-overflow)
 *   tcache-poison two 40-byte blocks freed into the tcache, then the first word of the last one
 *                 (its safe-linked next pointer) overwritten after free with the encoding of a
 *                 misaligned address; the second malloc aborts with malloc(): unaligned tcache
 *                 chunk detected (ASan: heap-use-after-free, the write)
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

/* A session with its buffer, already released: what the use-after-free modes go through. */
KEEP struct session *released_session(void)
{
	struct session *s = malloc(sizeof *s);
	s->buf = malloc(sizeof *s->buf + 64);
	s->buf->len = 3;
	s->refs = 1;
	release(s);
	return s;
}

KEEP int run_uaf_read(void)
{
	return (int)buffer_len(released_session());
}

KEEP void set_len(struct session *s, long len)
{
	s->buf->len = len;
}

KEEP int run_uaf_write(void)
{
	struct session *s = released_session();
	set_len(s, 5);
	return s->refs;
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

KEEP void copy_name(char *dst, const char *src)
{
	strcpy(dst, src);
}

KEEP void fill(char *dst, int c, size_t n)
{
	memset(dst, c, n);
}

KEEP int run_overflow(size_t past)
{
	char *label = malloc(24);
	char *next = malloc(24);
	next[0] = 1;
	if (past == 1)
		copy_name(label, "exactly-24-characters-ab"); /* 24 characters and the NUL: one byte past */
	else
		fill(label, 'A', 24 + past);
	drop(next);
	return label[0]; /* label stays live across the free: its owner is in the frame */
}

/* Where the poisoned tcache entry points: a global, 8 bytes into a 16-byte aligned block. */
static _Alignas(16) char decoy[64];

KEEP void overwrite_next(void *freed, unsigned long value)
{
	*(volatile unsigned long *)freed = value;
}

KEEP int run_tcache_poison(void)
{
	char *a = malloc(40);
	char *b = malloc(40);
	a[0] = b[0] = 1;
	drop(a);
	drop(b); /* tcache bin 1: b -> a */
	/* Safe-linking: the stored next pointer is (address of the field >> 12) ^ target. */
	overwrite_next(b, ((unsigned long)b >> 12) ^ (unsigned long)(decoy + 8));
	char *c = malloc(40); /* b; the bin's head is now decoy + 8 */
	overwrite_next(c, 0); /* used: the compiler keeps both calls */
	char *d = malloc(40); /* aborts: the head is not 16-byte aligned */
	overwrite_next(d, 0);
	return c[0] + d[0];
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int r = 0;
	if (strcmp(mode, "uaf-read") == 0)
		r = run_uaf_read();
	else if (strcmp(mode, "uaf-write") == 0)
		r = run_uaf_write();
	else if (strcmp(mode, "uaf-list") == 0)
		r = run_uaf_list();
	else if (strcmp(mode, "dfree-tcache") == 0)
		r = run_dfree_tcache();
	else if (strcmp(mode, "dfree-fastbin") == 0)
		r = run_dfree_fastbin();
	else if (strcmp(mode, "overflow-1") == 0)
		r = run_overflow(1);
	else if (strcmp(mode, "overflow-100") == 0)
		r = run_overflow(100);
	else if (strcmp(mode, "tcache-poison") == 0)
		r = run_tcache_poison();
	printf("%d\n", r);
	return 0;
}
