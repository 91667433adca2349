/* fpe.c - an unmasked floating-point exception (link with -lm).
 *
 * feenableexcept(FE_DIVBYZERO) clears the ZM bit in MXCSR, so the SSE
 * divide 1.0 / 0.0 in ratio() traps instead of producing +inf:
 * SIGFPE FPE_FLTDIV, pc at the divsd.  The zero comes through a volatile,
 * so the division happens at run time.
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <stdio.h>

#include "crashme.h"

static volatile double zero_weight; /* 0.0 */

NOINLINE double ratio(double a, double b)
{
	return a / b;
}

int main(void)
{
	feenableexcept(FE_DIVBYZERO);
	printf("%f\n", ratio(1.0, zero_weight));
	return 0;
}
