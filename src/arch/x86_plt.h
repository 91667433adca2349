/**
 * @file x86_plt.h
 * The GOT slot of an x86 PLT stub, from its bytes (the arch tables' plt_slot of x86_64.c and
 * i386.c): the stubs BFD ld and lld write are a handful of fixed encodings.
 */
#ifndef CT_ARCH_X86_PLT_H
#define CT_ARCH_X86_PLT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** x86-64: `jmp [rip + X]`, after an endbr64 and a bnd / notrack prefix. */
bool ct_x86_64_plt_slot(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot);
/** i386: `jmp [X]` (non-PIC) or `jmp [ebx + X]` (PIC, @p got_base the GOT pointer; 0: unknown). */
bool ct_i386_plt_slot(const uint8_t *code, size_t len, uint64_t stub, uint64_t got_base, uint64_t *slot);

#endif
