/* crashme.h - small helpers shared by the crash programs in testdata/src.
 *
 * Every crash program must die the same way on every run, whatever the
 * optimisation level: NOINLINE keeps the blamed function a real frame,
 * and values that must stay unknown to the optimiser (a NULL pointer, a
 * zero divisor) are read through volatile objects so the compiler cannot
 * fold the crash into a __builtin_trap() or delete it. */
#ifndef CRASHME_H
#define CRASHME_H

#define NOINLINE __attribute__((noinline, noclone))
#define USED __attribute__((used))

/* The x86 instructions of the misalign, int3 and illegal modes. Cross builds
 * (tests/cross, other architectures) compile them out: those modes are not
 * run there, every other mode is the same program. */
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE__))
#define CRASHME_X86_ASM(...) __asm__ volatile(__VA_ARGS__)
#else
#define CRASHME_X86_ASM(...) ((void)0)
#endif

/* Write "<pid>\n" to ./ready so that make-cores knows the program has
 * reached its steady state (used by the cases that are signalled or
 * snapshotted from outside). */
#include <stdio.h>
#include <unistd.h>
static inline void crashme_ready(void)
{
	FILE *f = fopen("ready.tmp", "w");
	if (!f)
		return;
	fprintf(f, "%ld\n", (long)getpid());
	fclose(f);
	rename("ready.tmp", "ready");
}

#endif
