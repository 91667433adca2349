// Function names across toolchains (issue 10): one NULL dereference reached through functions that
// gcc -O2 turns into clones (.constprop, .isra, .part) with a .cold part, and a static inline
// helper.  The same bug built by gcc (-O0/-O2/-Os/-flto) and clang must name the same functions.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	const char *key;
	long *weight;
	int count;
};

struct table {
	struct entry *slots;
	int n;
};

__attribute__((cold, noinline)) static void complain(const char *what, int scale)
{
	fprintf(stderr, "bad entry %s (scale %d)\n", what, scale);
}

// Called with a constant scale from every site: gcc specializes it (scale_entry.constprop.0); the
// unlikely branch goes to scale_entry.constprop.0.cold.
static __attribute__((noinline)) long scale_entry(const struct entry *e, int scale)
{
	if (__builtin_expect(e->count < 0, 0)) {
		complain(e->key, scale);
		return *e->weight * scale; // e->weight is NULL here: the crash
	}
	return (e->weight ? *e->weight : 0) * scale + e->count;
}

static inline long entry_total(const struct entry *e)
{
	return scale_entry(e, 3) + 1;
}

static __attribute__((noinline)) long sum_table(const struct table *t)
{
	long sum = 0;
	for (int i = 0; i < t->n; i++)
		sum += entry_total(&t->slots[i]);
	return sum;
}

int main(int argc, char **argv)
{
	static long w[3] = { 4, 5, 6 };
	struct entry slots[4] = {
		{ "alpha", &w[0], 1 },
		{ "beta", &w[1], 2 },
		{ "gamma", &w[2], 3 },
		{ "delta", NULL, argc > 5 ? 1 : -1 },
	};
	struct table t = { slots, 4 };
	long total = sum_table(&t);
	printf("%ld\n", total + scale_entry(&slots[0], 3));
	return 0;
}
