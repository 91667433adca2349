/* crashme.c - one C program, many deterministic crashes, selected by argv[1].
 *
 *   ./exe MODE [ARG]
 *
 * Each MODE below names a small piece of "real" code with a bug in it; the
 * comment above each function says which mechanism kills the process and
 * why it happens on every run.  Function names describe what the code does,
 * never how it dies: coretriage must classify from the dump, not from names.
 *
 * Built several ways by scripts/make-cores (see testdata/cases.tsv): -O0 PIE
 * with frame pointers, -no-pie, -static, -O2 -fomit-frame-pointer, stripped
 * with a separate debug file, and rebuilt with -DVARIANT (a mismatched exe).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crashme.h"

/* -DVARIANT changes only a string in .rodata: the rebuilt executable has a
 * different build-id but (almost certainly) the same .text layout. */
#ifdef VARIANT
static const char banner[] = "crashme 1.0.1"; /* same length: same layout */
#else
static const char banner[] = "crashme 1.0.0";
#endif
const char *volatile crashme_banner = banner;

/* ---- list: NULL read -------------------------------------------------
 * The caller asks for one more element than the list holds; the walk
 * follows the last node's NULL next pointer and reads n->key at address
 * 0x8 (SEGV_MAPERR, si_addr 0x8). */
struct node {
	struct node *next;
	long key;
};

static struct node *build_list(int n)
{
	struct node *head = NULL;
	for (int i = n; i > 0; i--) {
		struct node *nd = malloc(sizeof *nd);
		nd->key = i * 10;
		nd->next = head;
		head = nd;
	}
	return head;
}

NOINLINE long list_sum(const struct node *head, int count)
{
	long sum = 0;
	const struct node *n = head;
	for (int i = 0; i < count; i++) {
		sum += n->key;
		n = n->next;
	}
	return sum;
}

/* ---- store: NULL write -----------------------------------------------
 * find_record() returns NULL for an unknown name and count_hit() does not
 * check it: a plain store to r->hits (offset 0x20), no read first. */
struct record {
	char name[32];
	int hits;
};
static struct record records[3] = { { "alpha", 0 }, { "beta", 0 }, { "gamma", 0 } };

NOINLINE struct record *find_record(const char *name)
{
	for (size_t i = 0; i < sizeof records / sizeof records[0]; i++)
		if (strcmp(records[i].name, name) == 0)
			return &records[i];
	return NULL;
}

NOINLINE void count_hit(const char *name, int value)
{
	struct record *r = find_record(name);
	r->hits = value;
}

/* ---- dispatch: call through a NULL function pointer --------------------
 * The "close" handler was never registered; dispatch_event() calls it
 * anyway.  pc becomes 0 and [sp] holds the return address into
 * dispatch_event (work after the call stops it becoming a tail jump). */
struct handler {
	const char *name;
	int (*on_event)(int arg);
	int calls;
};

static int on_open(int arg)
{
	return arg + 1;
}

static struct handler handlers[] = { { "open", on_open, 0 }, { "close", NULL, 0 } };

NOINLINE int dispatch_event(const char *name, int arg)
{
	for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++) {
		struct handler *h = &handlers[i];
		if (strcmp(h->name, name) == 0) {
			int rc = h->on_event(arg);
			h->calls++;
			return rc;
		}
	}
	return -1;
}

/* ---- signal: NULL write inside a SIGUSR1 handler -----------------------
 * request_reload() raises SIGUSR1; the handler stores through a counter
 * pointer that was never set up.  The SIGSEGV is taken in on_reload with a
 * signal frame between it and the interrupted raise(). */
static int *volatile reload_counter; /* never initialised: NULL */

static void on_reload(int sig)
{
	*reload_counter = sig;
}

NOINLINE void request_reload(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_reload;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
}

/* ---- recurse N: N frames deep, then a NULL read at the bottom ----------
 * descend() recurses N times (not a tail call: it adds to the result) and
 * the innermost call reads t->weight with t = NULL (si_addr 0x10). */
struct tree {
	struct tree *left, *right;
	long weight;
};

NOINLINE long descend(const struct tree *t, int depth)
{
	if (depth == 0)
		return t->weight;
	return descend(t, depth - 1) + 1;
}

/* ---- serve: sleep forever (snapshotted or signalled from outside) ------ */
NOINLINE void wait_for_requests(void)
{
	crashme_ready();
	for (;;)
		sleep(60);
}

/* ---- raise / killself: the process signals itself ---------------------- */
NOINLINE void escalate_failure(int code)
{
	fprintf(stderr, "fatal state %d, escalating\n", code);
	raise(SIGSEGV); /* tgkill: si_code SI_TKILL, sender = own pid */
}

NOINLINE void notify_self(void)
{
	kill(getpid(), SIGBUS); /* kill: si_code SI_USER, sender = own pid */
	pause();
}

/* ---- assert: assertion failure ------------------------------------------ */
NOINLINE int checked_div(int a, int b)
{
	assert(b != 0 && "divisor must be nonzero");
	return a / b;
}

/* ---- abort: a plain abort() from program code --------------------------- */
NOINLINE void shutdown_on_error(const char *why)
{
	fprintf(stderr, "unrecoverable: %s\n", why);
	abort();
}

/* ---- heap: three ways to break malloc ------------------------------------ */
struct buffer {
	char *data;
	size_t len;
};

/* release_buffer() does not clear b->data, and the error path calls it a
 * second time: glibc 2.36 "free(): double free detected in tcache 2". */
NOINLINE void release_buffer(struct buffer *b)
{
	free(b->data);
}

/* The message header is 16 bytes; drop_payload() frees the payload pointer
 * (header + 16) instead of the block.  The fake chunk header it implies is
 * the zeroed header -> size 0 -> "free(): invalid pointer". */
NOINLINE void drop_payload(char *payload)
{
	free(payload);
}

/* append_bytes() writes len + 8 bytes into a 0x4f8-byte block (chunk size
 * 0x500, too big for tcache and fastbins) and so smashes the next chunk's
 * size field with 0x4141414141414141.  free() checks the next chunk:
 * "free(): invalid next size (normal)". */
NOINLINE void append_bytes(char *dst, size_t len)
{
	memset(dst, 'A', len);
}

NOINLINE void rebuild_index(void)
{
	char *a = malloc(0x4f8);
	char *guard = malloc(32); /* keeps a from bordering the top chunk */
	append_bytes(a, 0x4f8 + 8);
	free(a);
	free(guard);
}

/* ---- exec: call into a heap buffer (no execute permission) -------------
 * run_plugin() copies a "ret" instruction into malloc'd memory and calls
 * it.  The heap is rw-, so the instruction fetch faults: SEGV_ACCERR with
 * si_addr == pc. */
NOINLINE int run_plugin(void)
{
	unsigned char *code = malloc(64);
	memset(code, 0xc3, 64);           /* ret */
	int (*entry)(void) = (int (*)(void))(void *)code;
	int rc = entry();
	return rc + 1;
}

/* ---- overflow: unbounded recursion with a local array ------------------ */
NOINLINE int expand_macro(int depth)
{
	volatile char scratch[256];
	scratch[depth & 255] = (char)depth;
	return expand_macro(depth + 1) + scratch[(depth * 7) & 255];
}

/* ---- misalign: movaps on an address that is not 16-byte aligned ---------
 * movaps needs a 16-byte aligned operand; buf + 4 is not.  #GP: SIGSEGV
 * SI_KERNEL with si_addr 0 (the address must come from the instruction). */
NOINLINE float sum4(const float *v)
{
	float out[4] __attribute__((aligned(16)));
	CRASHME_X86_ASM("movaps (%1), %%xmm0\n\tmovaps %%xmm0, (%0)"
			 :
			 : "r"(out), "r"(v)
			 : "xmm0", "memory");
	return out[0] + out[1] + out[2] + out[3];
}

/* ---- noncanon: read through a poisoned pointer -------------------------
 * The session was "freed" and its slot poisoned with 0xdeadbeefdeadbee0, a
 * non-canonical address: #GP, SIGSEGV SI_KERNEL, si_addr 0. */
struct session {
	long refcount;
	int id;
};
static struct session *volatile session_slot = (struct session *)0xdeadbeefdeadbee0UL;

NOINLINE long session_refs(const struct session *s)
{
	return s->refcount;
}

/* ---- unmapped: read through a pointer into a munmap()ed region ---------
 * The cache is mapped, used, unmapped, and then read through the stale
 * pointer: SEGV_MAPERR at a canonical address that no mapping covers. */
NOINLINE long cache_lookup(const long *table, size_t i)
{
	return table[i];
}

/* ---- rodata: write into a string literal -------------------------------
 * capitalize() is handed a string literal, which lives in .rodata (r--):
 * SEGV_ACCERR on the store. */
NOINLINE void capitalize(char *s)
{
	if (s[0] >= 'a' && s[0] <= 'z')
		s[0] = (char)(s[0] - 'a' + 'A');
}

/* ---- div / intovf: integer division faults ------------------------------ */
static volatile int zero_count;        /* 0 */
static volatile long min_long = LONG_MIN;
static volatile long minus_one = -1;

NOINLINE int average(int total, int count)
{
	return total / count; /* idiv by 0: #DE, FPE_INTDIV */
}

NOINLINE long scale_down(long value, long factor)
{
	return value / factor; /* LONG_MIN / -1 overflows: #DE, FPE_INTDIV */
}

/* ---- trap / int3 ---------------------------------------------------------- */
NOINLINE void validate_state(int state)
{
	if (state > 3)
		__builtin_trap(); /* ud2: SIGILL ILL_ILLOPN */
}

NOINLINE void debug_hook(int level)
{
	if (level > 0)
		CRASHME_X86_ASM("int3"); /* SIGTRAP SI_KERNEL, pc after the int3 */
}

/* ---- illegal: an opcode that is invalid in 64-bit mode -----------------
 * 0x06 (push es) exists only in 32-bit mode; in long mode it is #UD:
 * SIGILL ILL_ILLOPN with pc at the 0x06 byte.  Not ud2, so not a trap. */
NOINLINE void run_legacy_op(void)
{
	CRASHME_X86_ASM(".byte 0x06");
}

/* ---- bus: read past the end of a truncated file mapping -----------------
 * data.bin is 8 KiB when mapped, then truncated to 100 bytes; page 2 of the
 * mapping no longer has a backing page: SIGBUS BUS_ADRERR. */
NOINLINE long read_record(const char *map, size_t off)
{
	return *(const volatile long *)(map + off);
}

static int map_truncated(const char **map_ret)
{
	int fd = open("data.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 8192) != 0)
		return -1;
	char *map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	if (ftruncate(fd, 100) != 0)
		return -1;
	*map_ret = map;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: crashme MODE [ARG]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	const char *mode = argv[1];
	long r = 0;

	if (strcmp(mode, "list") == 0) {
		struct node *l = build_list(3);
		r = list_sum(l, 4);
	} else if (strcmp(mode, "store") == 0) {
		count_hit("delta", 1);
	} else if (strcmp(mode, "dispatch") == 0) {
		r = dispatch_event("open", 1);
		r += dispatch_event("close", 2);
	} else if (strcmp(mode, "signal") == 0) {
		request_reload();
	} else if (strcmp(mode, "recurse") == 0) {
		r = descend(NULL, argc > 2 ? atoi(argv[2]) : 10000);
	} else if (strcmp(mode, "serve") == 0) {
		wait_for_requests();
	} else if (strcmp(mode, "raise") == 0) {
		escalate_failure(3);
	} else if (strcmp(mode, "killself") == 0) {
		notify_self();
	} else if (strcmp(mode, "assert") == 0) {
		r = checked_div(10, zero_count);
	} else if (strcmp(mode, "abort") == 0) {
		shutdown_on_error("configuration store is read-only");
	} else if (strcmp(mode, "double-free") == 0) {
		struct buffer b = { malloc(48), 48 };
		release_buffer(&b);
		release_buffer(&b);
	} else if (strcmp(mode, "invalid-free") == 0) {
		char *msg = calloc(1, 64); /* 16-byte header + payload */
		drop_payload(msg + 16);
	} else if (strcmp(mode, "heap-overflow") == 0) {
		rebuild_index();
	} else if (strcmp(mode, "exec") == 0) {
		r = run_plugin();
	} else if (strcmp(mode, "overflow") == 0) {
		r = expand_macro(0);
	} else if (strcmp(mode, "misalign") == 0) {
		static float buf[12] __attribute__((aligned(16)));
		r = (long)sum4((const float *)((char *)buf + 4));
	} else if (strcmp(mode, "noncanon") == 0) {
		r = session_refs(session_slot);
	} else if (strcmp(mode, "unmapped") == 0) {
		size_t len = 1 << 20;
		long *table = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				   0);
		table[5000] = 42;
		munmap(table, len);
		r = cache_lookup(table, 5000);
	} else if (strcmp(mode, "rodata") == 0) {
		capitalize((char *)"default");
	} else if (strcmp(mode, "div") == 0) {
		r = average(100, zero_count);
	} else if (strcmp(mode, "intovf") == 0) {
		r = scale_down(min_long, minus_one);
	} else if (strcmp(mode, "trap") == 0) {
		validate_state(7);
	} else if (strcmp(mode, "int3") == 0) {
		debug_hook(1);
	} else if (strcmp(mode, "illegal") == 0) {
		run_legacy_op();
	} else if (strcmp(mode, "bus") == 0) {
		const char *map;
		if (map_truncated(&map) != 0) {
			perror("data.bin");
			return 1;
		}
		r = read_record(map, 4096 + 16);
	} else {
		usage();
	}
	printf("%s: no crash (%ld)\n", crashme_banner, r);
	return 0;
}
