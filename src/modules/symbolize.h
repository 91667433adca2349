/**
 * @file symbolize.h
 * pc → function, offset, module, file:line:column, with inlined calls expanded into their own
 * entries. Results are cached by address: deep recursion and many threads repeat the same pcs,
 * and libdwfl's symbol lookup scans the whole symbol table on every call.
 */
#ifndef CT_SYMBOLIZE_H
#define CT_SYMBOLIZE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_module_set;

/** One symbolized location; strings are pooled in the module set's sink. */
struct ct_sym {
	const char *function;
	uint64_t offset;
	const char *module;
	const char *file;
	int line, column;
	/** The file declaring the function (inline_chain.h), NULL when unknown. */
	const char *decl_file;
	/** True for every entry but the last of a chain: it was inlined into the next one. */
	bool inlined;
	/**
	 * Where the name and place come from when neither the symbol table nor the DWARF gave them:
	 * "pclntab" (a Go executable's own table, go_symbols.h); NULL otherwise. Static.
	 */
	const char *source;
};

struct ct_symcache *ct_symcache_create(void);
void ct_symcache_destroy(struct ct_symcache *cache);

/**
 * Symbolizes @p addr (already adjusted: pc for the innermost frame and after a signal frame, pc - 1
 * for callers). Sets *@p ret to a cache-owned array of entries, innermost inline first, valid until
 * the cache is destroyed, and returns their count (at least 1; an unknown address gives one entry
 * with NULL function).
 */
size_t ct_symbolize(struct ct_module_set *s, uint64_t addr, const struct ct_sym **ret);

/**
 * The DWARF compilation unit holding @p addr of @p mod (an address as libdwfl takes it, bias
 * included) from the session's own address → unit index (modules/cu_index.h), which needs no
 * .debug_aranges (clang, rustc and Go emit none). *@p bias: DWARF address = @p addr - *@p bias.
 */
bool ct_symbolize_cu(struct ct_module_set *s, Dwfl_Module *mod, uint64_t addr, Dwarf_Die *cu, Dwarf_Addr *bias);

/**
 * The concrete DWARF scopes at @p addr (modules/scopes.h: innermost first — lexical blocks, inlined
 * calls, the subprogram — and the unit last) in the unit ct_symbolize_cu() finds. Returns their count
 * and sets *@p scopes (malloc'ed, the caller frees it) and *@p bias; 0 and NULL when no DWARF
 * covers @p addr.
 */
int ct_symbolize_scopes(struct ct_module_set *s, uint64_t addr, Dwarf_Die **scopes, Dwarf_Addr *bias);

/**
 * A symbol-table name for display, pooled (modules/demangle.h: C++, Rust and D demangled as gdb
 * shows symbol-only frames, ELF symbol versions removed); other names pooled unchanged.
 */
const char *ct_demangle(struct ct_module_set *s, const char *name);

#endif
