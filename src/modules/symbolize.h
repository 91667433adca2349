/**
 * @file symbolize.h
 * pc → function, offset, module, file:line:column, with inlined calls expanded into their own
 * entries. Results are cached by address: deep recursion and many threads repeat the same pcs,
 * and libdwfl's symbol lookup scans the whole symbol table on every call.
 */
#ifndef CT_SYMBOLIZE_H
#define CT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_session;

/** One symbolized location; strings are pooled in the session's report. */
struct ct_sym {
	const char *function;
	uint64_t offset;
	const char *module;
	const char *file;
	int line, column;
	/** True for every entry but the last of a chain: it was inlined into the next one. */
	bool inlined;
};

struct ct_symcache *ct_symcache_create(void);
void ct_symcache_destroy(struct ct_symcache *cache);

/**
 * Symbolizes @p addr (already adjusted: pc for the innermost frame and after a signal frame, pc - 1
 * for callers). Sets *@p ret to a cache-owned array of entries, innermost inline first, valid until
 * the cache is destroyed, and returns their count (at least 1; an unknown address gives one entry
 * with NULL function).
 */
size_t ct_symbolize(struct ct_session *s, uint64_t addr, const struct ct_sym **ret);

/** Demangles a C++ name into the report's pool; returns @p name pooled when it is not mangled. */
const char *ct_demangle(struct ct_session *s, const char *name);

#endif
