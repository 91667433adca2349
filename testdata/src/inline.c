/* inline.c - the fault happens in a static inline helper (-O2 -g).
 *
 * sum_prefix() is inlined into checksum(); the packet's data pointer is NULL
 * (it comes through a volatile global, so the compiler cannot see that), and
 * the first load in the inlined loop faults: SIGSEGV SEGV_MAPERR, si_addr 0.
 * The innermost frame exists only in DWARF (DW_TAG_inlined_subroutine);
 * the ELF symbol at pc is checksum.
 */
#include <stdio.h>

#include "crashme.h"

struct packet {
	const int *data;
	int len;
	unsigned seq;
};

static inline long sum_prefix(const int *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i] * (i + 1);
	return s;
}

NOINLINE long checksum(const struct packet *p)
{
	return sum_prefix(p->data, p->len) ^ (long)p->seq;
}

static const int *volatile pending_data; /* NULL: the payload never arrived */

int main(void)
{
	struct packet p = { pending_data, 16, 7 };
	printf("%ld\n", checksum(&p));
	return 0;
}
