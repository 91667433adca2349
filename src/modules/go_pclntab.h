/**
 * @file go_pclntab.h
 * Go's own symbol table, the pclntab (the runtime's runtime/symtab.go): function entries, names, and
 * the pc-value tables that give each pc's frame size, file, line and inlined calls. The Go linker
 * keeps it in every executable, -ldflags=-s included (the runtime needs it), so it names the code of
 * a Go binary whose ELF symbol table is gone: the symbolizer uses it for such a module
 * (modules/go_symbols.c), the runtime stage to unwind goroutines (runtime/go.c).
 */
#ifndef CT_GO_PCLNTAB_H
#define CT_GO_PCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Longest pclntab read (bytes). */
#define CT_GO_MAX_PCLNTAB (512u << 20)
/** Words of a data section looked at by a search for a stripped binary's runtime state. */
#define CT_GO_MAX_SEARCH_WORDS (4u << 20)
/** Inlined calls followed at one pc (deeper nesting than the compiler's inliner makes). */
#define CT_GO_MAX_INLINE 64
/**
 * Where moduledata.gofunc (the base of the funcdata offsets, which locate the inline tree) lies in
 * Go 1.18's and 1.19's runtime.moduledata, in pointer-sized words: after pcHeader, six slices and
 * nineteen words of section bounds (runtime/symtab.go).
 */
#define CT_GO118_MD_GOFUNC_WORD 38

/** A pclntab: borrowed bytes of the executable and the header's offsets. */
struct ct_go_pcln {
	const uint8_t *data;
	size_t size;
	uint64_t addr; /**< where the table is mapped */
	unsigned ptr_size, min_lc;
	uint64_t nfunc, text, funcname, cutab, filetab, pctab, pcln;
};

/** One function's _func entry. */
struct ct_go_func {
	uint64_t off; /**< of the _func in the table */
	uint64_t entry;
	int32_t nameoff;
	uint32_t pcsp, pcfile, pcln, npcdata, cu;
	uint8_t funcid, flag, nfuncdata;
};

/** Go 1.19's funcID values (runtime/symtab.go) the walk needs. */
enum {
	CT_GO_FUNCID_ASYNC_PREEMPT = 3,
	CT_GO_FUNCID_DEBUG_CALL_V2 = 5,
	CT_GO_FUNCID_GOEXIT = 7,
	CT_GO_FUNCID_GOPANIC = 9,
	CT_GO_FUNCID_MCALL = 11,
	CT_GO_FUNCID_MORESTACK = 12,
	CT_GO_FUNCID_MSTART = 13,
	CT_GO_FUNCID_PANICWRAP = 14,
	CT_GO_FUNCID_RT0_GO = 15,
	CT_GO_FUNCID_SIGPANIC = 18,
	CT_GO_FUNCID_WRAPPER = 21,
};

/** Go 1.19's funcFlag bits (symtab.go): the top of a stack; a function that writes sp arbitrarily. */
enum { CT_GO_FLAG_TOPFRAME = 1, CT_GO_FLAG_SPWRITE = 2 };

/** Checks the header of the table at @p data (@p size bytes, mapped at @p addr). */
bool ct_go_pcln_init(struct ct_go_pcln *p, const uint8_t *data, size_t size, uint64_t addr);
/** The function holding @p pc. */
bool ct_go_pcln_func(const struct ct_go_pcln *p, uint64_t pc, struct ct_go_func *ret);
/** A name of the function name table (NULL when outside it). */
const char *ct_go_pcln_name(const struct ct_go_pcln *p, int32_t nameoff);
/** The value at @p target of the pc-value table at @p off of pctab (Go's pcvalue). */
bool ct_go_pcln_value(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t off, uint64_t target,
		      int32_t *ret);
/** pcdata table @p index at @p target, -1 when none. */
int32_t ct_go_pcln_pcdata(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t index, uint64_t target);
/** The offset from moduledata.gofunc of funcdata @p index, UINT32_MAX when none. */
uint32_t ct_go_pcln_funcdata(const struct ct_go_pcln *p, const struct ct_go_func *f, uint32_t index);
/** File @p fileno of the function's compilation unit. */
const char *ct_go_pcln_file(const struct ct_go_pcln *p, const struct ct_go_func *f, int32_t fileno);
/** The file and line of @p pc (either may be missing: NULL, 0). */
bool ct_go_pcln_line(const struct ct_go_pcln *p, const struct ct_go_func *f, uint64_t pc, const char **file, int *line);

/**
 * runtime.firstmoduledata of a binary without symbols: the word of .noptrdata (@p bytes, @p size,
 * mapped at @p addr) that points to the pclntab (moduledata.pcHeader, its first field) and is
 * followed by its function-name table's address. 0 when none (at most @p max_words looked at).
 */
uint64_t ct_go_moduledata_search(const struct ct_go_pcln *p, const uint8_t *bytes, uint64_t size, uint64_t addr,
				 uint64_t max_words);

#endif
