/* origin.c - crashes whose bad value has an origin known by construction
 * (docs/root-cause.md, issue 24).  argv[1] picks the mode; every function on
 * the value's way is a real frame (KEEP), and every value the optimiser could
 * fold comes from the run (argv, the environment, the file system).
 *
 *   lookup1   find_item() returns NULL, run_lookup1 passes it to count_of()
 *   lookup3   the NULL from find_item() goes through level1 -> level2 -> level3
 *             -> count_of()
 *   field     a calloc'ed node's cfg is never set: n->cfg->timeout reads NULL
 *   malloc    malloc() of half the address space returns NULL; fill() writes it
 *   getenv    getenv() of an unset variable returns NULL; first_char() reads it
 *   strchr    strchr(argv[1], ':') finds no colon; cut() writes through NULL
 *   fopen     fopen() of a missing file returns NULL; fd_of() reads f->_fileno
 *   index N   atoi(argv[2]) is far beyond table[16]; entry() reads table[i]
 *   lindex N  atoi(argv[2]) is far beyond a local array slots[12] that
 *             local_entry() fills and reads slots[i] from (the stack's memory)
 *   hindex N  atoi(argv[2]) is far beyond a malloc'ed array of 12 ints that
 *             heap_entry() reads vals[i] from
 *   mindex N  atoi(argv[2]) is far beyond the member array slots[8] of a
 *             calloc'ed struct ring that ring_at() reads r->slots[i] from
 *   divide N  atoi(argv[2]) is 0; ratio(100, b) divides by it
 *   chain     a list's second node has no successor: l->head->next->key reads
 *             through the NULL two loads below the parameter
 *   switch N  a command dispatcher whose switch jumps through a table: command 4
 *             passes NULL to count_of(); the walk cannot know the paths into the
 *             call there, the call site's DWARF (DW_AT_call_value) says what was
 *             passed (-O2; -O0 has no call-site DWARF: the chain stops there)
 *   global    a chain that starts at a global: hooks (a global pointer to a
 *             calloc'ed struct) has no cfg: hooks->cfg->timeout reads NULL
 *   gfield    a global struct's field never set: defaults.cfg->timeout reads
 *             the NULL in defaults.cfg, which still holds it
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
/* noipa: no clone, no IPA-known return value or register use across the call. */
#define KEEP __attribute__((noipa))
#endif

struct item {
	const char *name;
	int count;
	int price;
};

static struct item stock[] = { { "bolts", 3, 10 }, { "nuts", 5, 2 } };

KEEP struct item *find_item(const char *name)
{
	for (size_t i = 0; i < sizeof stock / sizeof stock[0]; i++)
		if (strcmp(stock[i].name, name) == 0)
			return &stock[i];
	return NULL;
}

KEEP int count_of(const struct item *it)
{
	return it->count;
}

KEEP int run_lookup1(const char *name)
{
	struct item *it = find_item(name);
	return count_of(it) + 1;
}

KEEP int level3(const struct item *it)
{
	return count_of(it) + 3;
}

KEEP int level2(const struct item *it)
{
	return level3(it) + 2;
}

KEEP int level1(const char *name)
{
	struct item *it = find_item(name);
	return level2(it) + 1;
}

struct config {
	int timeout;
};

struct node {
	struct node *next;
	int value;
	struct config *cfg;
};

KEEP int timeout_of(const struct node *n)
{
	return n->cfg->timeout;
}

KEEP int run_field(void)
{
	struct node *n = calloc(1, sizeof *n);
	return timeout_of(n) + 1;
}

KEEP void fill(char *p)
{
	p[0] = 'x';
}

static volatile size_t huge = (size_t)-1 / 2;

KEEP int run_malloc(void)
{
	fill(malloc(huge));
	return 1;
}

KEEP int first_char(const char *s)
{
	return s[0];
}

KEEP int run_getenv(void)
{
	return first_char(getenv("ORIGIN_UNSET_VARIABLE")) + 1;
}

KEEP void cut(char *p)
{
	*p = 0;
}

KEEP int run_strchr(char *arg)
{
	cut(strchr(arg, ':'));
	return 1;
}

KEEP int fd_of(FILE *f)
{
	return f->_fileno;
}

KEEP int run_fopen(void)
{
	return fd_of(fopen("/nonexistent/origin.cfg", "r")) + 1;
}

static int table[16];

KEEP int entry(int i)
{
	return table[i];
}

KEEP int run_index(const char *arg)
{
	return entry(atoi(arg)) + 1;
}

KEEP int local_entry(int i, int seed)
{
	int slots[12];
	for (int k = 0; k < 12; k++)
		slots[k] = seed * k;
	return slots[i];
}

KEEP int run_lindex(const char *arg, int seed)
{
	return local_entry(atoi(arg), seed) + 1;
}

KEEP int heap_entry(const int *vals, int i)
{
	return vals[i];
}

struct ring {
	long head;
	int slots[8];
};

KEEP int ring_at(const struct ring *r, int i)
{
	return r->slots[i];
}

KEEP int run_mindex(const char *arg, int seed)
{
	struct ring *r = calloc(1, sizeof *r);
	if (!r)
		return 0;
	r->head = seed;
	return ring_at(r, atoi(arg)) + 1;
}

KEEP int run_hindex(const char *arg, int seed)
{
	int *vals = malloc(12 * sizeof *vals);
	if (!vals)
		return 0;
	for (int k = 0; k < 12; k++)
		vals[k] = seed * k;
	return heap_entry(vals, atoi(arg)) + 1;
}

KEEP int ratio(int a, int b)
{
	return a / b;
}

KEEP int run_divide(const char *arg)
{
	return ratio(100, atoi(arg)) + 1;
}

struct lnode {
	int key;
	struct lnode *next;
};

struct list {
	const char *name;
	struct lnode *head;
};

KEEP int second_key(const struct list *l)
{
	return l->head->next->key;
}

KEEP int run_chain(void)
{
	/* Heap nodes: the optimiser cannot see through calloc's zeroed memory. */
	struct list *l = calloc(1, sizeof *l);
	l->head = calloc(1, sizeof *l->head);
	l->name = "numbers";
	return second_key(l) + 1;
}

KEEP int step0(int x)
{
	return x + 1;
}

KEEP int step1(int x)
{
	return x * 3;
}

KEEP int step2(int x)
{
	return x - 7;
}

KEEP int step3(int x)
{
	return x ^ 5;
}

KEEP int step5(int x)
{
	return x / 3;
}

/* Six cases: both compilers dispatch through a jump table at -O0 and -O2. */
KEEP int dispatch(int cmd, int x)
{
	switch (cmd) {
	case 0:
		return step0(x);
	case 1:
		return step1(x) + 1;
	case 2:
		return step2(x) + 2;
	case 3:
		return step3(x) + 3;
	case 4:
		return count_of(NULL) + 4;
	case 5:
		return step5(x) + 5;
	default:
		return 0;
	}
}

struct hookset {
	int (*on_read)(int);
	struct config *cfg;
};

/* Not static: clang would turn a static pointer set once from calloc into a global of its own. */
struct hookset *hooks;

KEEP int hooked_timeout(void)
{
	return hooks->cfg->timeout;
}

struct hookset defaults;

KEEP int default_timeout(void)
{
	return defaults.cfg->timeout;
}

KEEP int run_global(void)
{
	hooks = calloc(1, sizeof *hooks);
	return hooked_timeout() + 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "0";
	int r = 0;
	table[argc & 15] = argc; /* the table is not all zero: entry() must read it */
	if (strcmp(mode, "lookup1") == 0)
		r = run_lookup1("screws");
	else if (strcmp(mode, "lookup3") == 0)
		r = level1("washers");
	else if (strcmp(mode, "field") == 0)
		r = run_field();
	else if (strcmp(mode, "malloc") == 0)
		r = run_malloc();
	else if (strcmp(mode, "getenv") == 0)
		r = run_getenv();
	else if (strcmp(mode, "strchr") == 0)
		r = run_strchr(argv[1]);
	else if (strcmp(mode, "fopen") == 0)
		r = run_fopen();
	else if (strcmp(mode, "index") == 0)
		r = run_index(arg);
	else if (strcmp(mode, "lindex") == 0)
		r = run_lindex(arg, argc);
	else if (strcmp(mode, "hindex") == 0)
		r = run_hindex(arg, argc);
	else if (strcmp(mode, "mindex") == 0)
		r = run_mindex(arg, argc);
	else if (strcmp(mode, "divide") == 0)
		r = run_divide(arg);
	else if (strcmp(mode, "chain") == 0)
		r = run_chain();
	else if (strcmp(mode, "global") == 0)
		r = run_global();
	else if (strcmp(mode, "gfield") == 0)
		r = default_timeout() + 1;
	else if (strcmp(mode, "switch") == 0)
		r = dispatch(atoi(arg), argc);
	printf("%d\n", r);
	return 0;
}
