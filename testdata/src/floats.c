/* floats.c - float and double arguments at -O2 in the crashing frame (gdb 13 is the oracle).
 *
 *   scale    main -> blend(weight, bias) -> scale_point(p, factor, bias, steps):
 *            scale_point reads p->x with p = NULL (SEGV_MAPERR at 0x0) while
 *            factor (double) and bias (float) are still in xmm0 and xmm1
 *            (aarch64: v0 and v1), where only the core's NT_FPREGSET note has
 *            them.  In blend, a caller, the float registers are caller-saved:
 *            its values come from DWARF entry values or stay optimized out.
 *
 * The inputs come through volatile objects (crashme.h) so that nothing is
 * folded at compile time.
 */
#include <string.h>

#include "crashme.h"

struct point {
	double x, y;
};

NOINLINE double scale_point(const struct point *p, double factor, float bias, int steps)
{
	double r = p->x * factor + bias;
	for (int i = 0; i < steps; i++)
		r = r * factor + p->y;
	return r;
}

static struct point *volatile target = NULL;
static volatile double chosen_weight = 2.5;
static volatile float chosen_bias = 0.25f;
static volatile int chosen_steps = 3;

NOINLINE double blend(double weight, float bias)
{
	return scale_point(target, weight * 1.5, bias, chosen_steps) + weight;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "scale") == 0)
		return (int)blend(chosen_weight, chosen_bias);
	return 2;
}
