/**
 * @file go_symbols.h
 * Names from Go's pclntab (modules/go_pclntab.h) for the code of a Go executable whose symbol
 * table is gone (-ldflags=-s): the function, its file:line and the compiler's inlined calls, each a
 * frame, as the binary's DWARF would give them. The symbolizer asks here for a pc of the executable
 * that no ELF symbol names; the runtime stage walks goroutines with the same table and inline tree.
 */
#ifndef CT_GO_SYMBOLS_H
#define CT_GO_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "modules/go_pclntab.h"

struct ct_module_set;
struct ct_module_state;
struct ct_sym;

/** The executable's pclntab, looked for once per analysis (in struct ct_module_set). */
struct ct_go_symtab {
	bool read, ok;
	/** The executable has an ELF symbol table: its names are gdb's, the pclntab names none. */
	bool has_symbols;
	const struct ct_module_state *exe; /**< the Go executable, when ok */
	struct ct_go_pcln pcln;
	uint64_t gofunc; /**< moduledata.gofunc, 0 when not found: no inlined calls then */
};

/** One place at a pc: an inlined call (innermost first) or, last, the function itself. */
struct ct_go_place {
	int32_t nameoff; /**< the function's name in the pclntab */
	uint64_t tracepc; /**< where its file and line are looked up (a pc of @p f's code) */
	bool inlined;
};

/**
 * The pclntab of the Go executable @p m (its .gopclntab section, which -ldflags=-s keeps), with
 * pointers of @p pointer_size. False when @p m is no Go binary of a version the table reader knows.
 */
bool ct_go_pcln_of(const struct ct_module_state *m, unsigned pointer_size, struct ct_go_pcln *ret);

/**
 * The places at @p tracepc of function @p f: the inlined calls the inline tree (funcdata at
 * @p gofunc; none when 0) records there, innermost first, then @p f itself. Returns their count
 * (1..@p max; the innermost are kept when the nesting is deeper).
 */
size_t ct_go_places(struct ct_module_set *s, const struct ct_go_pcln *p, uint64_t gofunc, const struct ct_go_func *f,
		    uint64_t tracepc, struct ct_go_place *out, size_t max);

/**
 * Symbolizes @p addr (already adjusted, as ct_symbolize() takes it) of module @p m from its
 * pclntab into @p out (at most @p max entries, innermost inlined call first; each with source
 * "pclntab"). Returns 0 when @p m is not a Go executable without a symbol table, or its table does
 * not hold @p addr.
 */
size_t ct_go_symbolize(struct ct_module_set *s, const struct ct_module_state *m, uint64_t addr, struct ct_sym *out,
		       size_t max);

/** What the pclntab says about the frame of a pc (ct_go_frame_at()). */
struct ct_go_frame {
	uint64_t size; /**< pcsp: the bytes between the frame's sp and its return address */
	/** The function is the top of a stack or switches stacks (Go's TOPFRAME or SPWRITE: goexit,
	 * mstart, mcall, sigtramp), where Go's own traceback stops. */
	bool top;
	/** The function writes its stack pointer (SPWRITE: mcall, systemstack, morestack, gogo): its
	 * caller is on another stack, which CFI does not know. */
	bool spwrite;
	/** runtime.sigpanic: its "return address" is the faulting pc itself (not after a call). */
	bool sigpanic;
};

/**
 * The frame at @p pc (a return address, or an interrupted pc) of the Go executable without a
 * symbol table, as the runtime's traceback finds it (pcsp at @p pc). False for a pc outside the
 * table or an unreadable pcsp. Unwinds such a binary, which keeps no CFI (-ldflags=-s drops
 * .debug_frame).
 */
bool ct_go_frame_at(struct ct_module_set *s, uint64_t pc, struct ct_go_frame *ret);

#endif
