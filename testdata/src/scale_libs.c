/* scale_libs.c - a program linked against 200 small shared libraries.
 *
 * make-cores generates libstep000.so .. libstep199.so (each exports
 * long stepNNN(long)) and steps.h, which declares them and defines
 * STEP_TABLE.  main calls every library once, so all are loaded and
 * relocated, then tally() reads through a NULL pointer: SEGV_MAPERR at 0x8.
 */
#include <stdio.h>

#include "crashme.h"
#include "steps.h"

struct totals {
	long calls;
	long sum;
};

static struct totals *volatile totals_out; /* NULL */

NOINLINE void tally(struct totals *t, long sum, long calls)
{
	t->sum = sum;
	t->calls = calls;
}

int main(void)
{
	long (*steps[])(long) = { STEP_TABLE };
	long sum = 0, calls = 0;
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++, calls++)
		sum = steps[i](sum);
	tally(totals_out, sum, calls);
	printf("%ld\n", sum);
	return 0;
}
