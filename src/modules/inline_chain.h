/**
 * @file inline_chain.h
 * The source location of an address, expanded into its chain of inlined calls (DWARF), shared by
 * the process symbolizer (symbolize.c) and the kernel one (kernel/vmlinux.c).
 */
#ifndef CT_INLINE_CHAIN_H
#define CT_INLINE_CHAIN_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coretriage/report.h"
#include "coretriage/strpool.h"

struct ct_cu_index;

/** Inline chains deeper than this are cut (real code rarely exceeds 10). */
#define CT_MAX_INLINE_DEPTH 32

struct ct_source_frame {
	/**
	 * Name of the function from DWARF (modules/dwarf_name.h), pooled; for the last, physical entry
	 * NULL when no subprogram DIE covers the address (the caller names it from the symbol table).
	 */
	const char *function;
	/** Offset of the address from the start of the function's (or inlined call's) range that holds it. */
	uint64_t offset;
	const char *file; /**< pooled, NULL when unknown */
	int line, column;
	/** The file that declares the function (DW_AT_decl_file through its origin or specification),
	 * pooled; NULL when unknown. A function's line may lie in a header its code inlined without an
	 * inlined-call DIE there: the declaring file says whose function it is. */
	const char *decl_file;
	bool inlined;
	/** The physical entry's offset is known from DWARF (inlined entries always have one). */
	bool has_offset;
};

/**
 * Expands module address @p addr (as dwfl_module_getsrc takes it) of @p mod into @p out (room for
 * CT_MAX_INLINE_DEPTH entries), innermost first: one entry per inlined call around @p addr, with
 * the file:line where its code is, then the physical function's entry (its subprogram's name, or
 * NULL: the caller names it from its symbol table) with the file:line of the outermost call site. The
 * nesting is the concrete one (modules/scopes.h), so inlined origins in other units (LTO) count. Returns the count,
 * at least 1; without DWARF that one entry has no file. The unit is found through @p index
 * (cu_index.h; NULL: libdwfl's aranges lookup).
 */
size_t ct_inline_chain(struct ct_strpool *strings, struct ct_cu_index *index, Dwfl_Module *mod, Dwarf_Addr addr,
		       struct ct_source_frame *out);

#endif
