/**
 * @file gather.h
 * Gathering struct ct_facts from the stage outputs of a process core (the only part of triage that
 * touches the core, libdwfl and libdw).
 */
#ifndef CT_TRIAGE_GATHER_H
#define CT_TRIAGE_GATHER_H

#include "modules/modules.h"
#include "triage/triage.h"
#include "triage/facts.h"

/** Storage the gathered facts borrow (frames, mappings); released by ct_facts_storage_deinit(). */
struct ct_facts_storage {
	struct ct_frame_fact *frames; /**< owned */
	struct ct_mapping_fact *maps; /**< owned, sorted by start */
	size_t num_maps;
	/** Facts of a re-raised fault's interrupted context (ct_facts.reraised); owned. */
	struct ct_facts *reraised;
};

/** Gathers every fact from @p s into @p facts. Strings are pooled in the report. */
void ct_facts_gather(const struct ct_triage_input *s, struct ct_facts *facts, struct ct_facts_storage *storage);
void ct_facts_storage_deinit(struct ct_facts_storage *storage);

/**
 * Reads glibc's __abort_msg from the dump: the symbol from libc's (or a static executable's) symbol
 * table, the pointer from the dumped .data/.bss, the text from the dumped mmap. Returns the message
 * (pooled) or NULL when there is none.
 */
const char *ct_read_abort_msg(const struct ct_triage_input *s);

/**
 * The address of symbol @p name (any binding, from .symtab when libc's debug file is there, else
 * .dynsym) in libc, or in the main executable when libc is linked in statically. False when none.
 */
bool ct_find_libc_symbol(const struct ct_triage_input *s, const char *name, uint64_t *ret);

/**
 * Recovers the type name of the exception being thrown ("std::runtime_error") from the crashing
 * thread's stack: a pointer to a __cxa_exception header (exception class "GNUCC++") whose
 * exceptionType is a typeinfo symbol, or else a stack word that is a typeinfo symbol. Pooled or NULL.
 * *@p what_ret (set to NULL first by the caller) receives what() of a std::logic_error or
 * std::runtime_error (or a class derived from one) found through the header.
 */
const char *ct_find_exception_type(const struct ct_triage_input *s, uint64_t sp, uint64_t stack_end, const char **what_ret);

/**
 * Names the variable that held the faulting operand's base register at @p pc in frame 0: located in
 * that register, or (at -O0) in the frame slot the register was loaded from just before. "`n`
 * (local variable of list_sum)", pooled, or NULL.
 */
const char *ct_find_culprit(const struct ct_triage_input *s, const struct ct_facts *facts, const uint64_t *regs,
			    const bool *valid);

/**
 * The local variable (or parameter) of frame 0 at @p pc whose storage in the frame holds @p address:
 * located in memory by one operation (DW_OP_fbreg, DW_OP_bregN), its type's size covering the
 * address. Its name (pooled), the address it starts at and its type. A bad index into a local
 * array is said with the array's bound by it.
 */
bool ct_find_local_at(const struct ct_triage_input *s, uint64_t pc, uint64_t address, const uint64_t *regs,
		      const bool *valid, const char **name, uint64_t *start, Dwarf_Die *type);

/**
 * The program's last call before the library frames (see struct ct_call_facts): decodes the call
 * ending at the blamed frame's return address and, when its target is a PLT stub (or the call goes
 * through a GOT slot), names the imported function from the module's .rela.plt/.rela.dyn (.rel.* on
 * i386) through libdwfl's Elf and gelf. Leaves *@p ret zeroed when there is no such call.
 */
void ct_find_last_call(const struct ct_triage_input *s, const struct ct_facts *facts, struct ct_call_facts *ret);

/**
 * The imported function a call reaches: @p target a PLT stub (or, with @p has_slot, a call through
 * the GOT slot @p slot), named from the module's relocations. Pooled, NULL when not an import.
 */
const char *ct_call_import(const struct ct_triage_input *s, uint64_t target, bool has_slot, uint64_t slot);

/**
 * The own frame, from the blamed (throwing) one outward, whose LSDA has no call-site entry for its
 * pc - 1: the C++ personality routine calls std::terminate there (a noexcept function). -1 when none.
 */
long ct_find_noexcept_frame(const struct ct_triage_input *s, const struct ct_facts *facts);

/** Reads Go's fatal error message from the crashing thread's interrupted g0 stack into facts->go_fatal. */
void ct_go_fatal_read(const struct ct_triage_input *s, struct ct_facts *facts);
/** Reads the message and location of the panic ct_panic_find() found, into facts->panic. */
void ct_panic_read(const struct ct_triage_input *s, struct ct_facts *facts);

/**
 * Reads the signal frame whose trampoline frame (index @p frame) has stack pointer @p sp, with the
 * @p layout (one of core->arch's). Fills *@p ret (fault fields zero: see ct_sigframe_derive) and returns
 * true; false when the architecture has no layout or the context is not in the dump.
 */
bool ct_sigframe_read(const struct ct_core *core, const struct ct_arch_sigframe *layout, size_t frame, uint64_t sp,
		      struct ct_sigframe_facts *ret);

/**
 * The crash summary under Python (docs/runtimes.md): when the crashing thread runs Python frames,
 * the summary names the innermost one ("…, called from Python `read_header` at fmt.py:17") and an
 * evidence line gives its Python stack; the blame stays on the native frame. Nothing without them.
 */
void ct_triage_runtime_summary(const struct ct_triage_input *s, struct ct_verdict *r);

/**
 * The innermost Python frame of the crashing thread as a signature part (docs/signature.md, version
 * 3): "py:QUALNAME@FILE" (the file's base name), pooled in @p strings; NULL when it runs no Python.
 */
const char *ct_triage_runtime_key(const struct ct_triage_input *s, struct ct_strpool *strings);

#endif
