/**
 * @file thread_registers.h
 * A thread's or CPU's registers into the model: the names come from the architecture table (in
 * pr_reg order, the order the dump's values are in), one copy for every kind of dump.
 */
#ifndef CT_MODEL_THREAD_REGISTERS_H
#define CT_MODEL_THREAD_REGISTERS_H

#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "coretriage/report.h"

/** Sets the registers of @p t (which has none yet) to @p values[i] named @p regs[i].name (pooled in @p strings); false when
 * memory ran out (the thread then has none). */
bool ct_thread_set_registers(struct ct_thread *t, struct ct_strpool *strings, const struct ct_arch_reg *regs,
			     const uint64_t *values, size_t n);

#endif
