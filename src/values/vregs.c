// Float and vector registers for the expression evaluator: the dumped values of the innermost
// frame (dump/vregs.h). In callers they stay unknown: the ABIs make them caller-saved and the
// unwinder recovers none, so a guess would show the callee's value as the caller's.
#include <string.h>

#include "dump/vregs.h"
#include "values/internal.h"

bool ct_frame_vreg(const struct ct_frame_ctx *fc, unsigned regno, uint8_t *out, size_t *len)
{
	*len = 0;
	if (!fc->thread || fc->index != 0)
		return false;
	return ct_core_vreg(fc->s->core, fc->thread, regno, out, len);
}
