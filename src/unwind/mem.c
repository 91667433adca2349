// The dump's memory as the step kinds read it: a callback, so one step serves a process core's
// segment table and a vmcore's kernel memory alike.
#include "unwind/step.h"
#include "util/bytes.h"

bool ct_unwind_mem_word(const struct ct_unwind_mem *m, uint64_t addr, uint64_t *ret)
{
	uint8_t b[8];
	unsigned w = m->arch->pointer_size;
	if (w > sizeof(b) || !m->read(m->arg, addr, b, w))
		return false;
	struct ct_bytes bb = { .data = b, .size = w, .big_endian = m->arch->big_endian };
	*ret = ct_bytes_uint_or0(&bb, 0, w);
	return true;
}

static bool core_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return ct_core_read_fast(arg, addr, buf, len);
}

struct ct_unwind_mem ct_unwind_core_mem(const struct ct_core *core)
{
	return (struct ct_unwind_mem){ .arch = core->arch, .read = core_read, .arg = (void *)core };
}
