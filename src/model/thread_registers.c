// One register copy for process threads and kernel CPUs (they were two).
#include <stdlib.h>

#include "model/thread_registers.h"

bool ct_thread_set_registers(struct ct_thread *t, struct ct_strpool *strings, const struct ct_arch_reg *regs,
			     const uint64_t *values, size_t n)
{
	t->num_registers = 0;
	if (n == 0)
		return true;
	t->registers = calloc(n, sizeof(*t->registers));
	if (!t->registers)
		return false;
	for (size_t i = 0; i < n; i++) {
		t->registers[i].name = ct_strpool_intern(strings, regs[i].name);
		t->registers[i].value = values[i];
	}
	t->num_registers = n;
	return true;
}
