/**
 * @file dynlib.h
 * Optional libraries loaded on first use (dlopen), for the glue files in src/lazy/: each glue file
 * defines the library's functions the code calls, and each forwards to the real function found by
 * ct_dynlib_sym. Linked in, libkdumpfile, libsystemd and Zydis (and their libstdc++, libgcrypt,
 * snappy, lzo …) were mapped and relocated on every run, half of the CPU time of a small core,
 * although only kernel dumps, --trail and a few x86 instructions use them (issue 28).
 */
#ifndef CT_UTIL_DYNLIB_H
#define CT_UTIL_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>

#include "coretriage/error.h"

/** One optional library: defined once, static, in its glue file. */
struct ct_dynlib {
	const char *soname; /**< "libkdumpfile.so.10": the name the build linked against */
	const char *what; /**< what needs it, for the message: "kernel dumps need" */
	void *handle; /**< dlopen's handle once loaded (accessed atomically) */
	int failed; /**< 1 once dlopen failed: it is not tried again */
};

/**
 * The address of @p name in @p lib, loading the library on the first call; NULL when the library
 * or the symbol is missing. @p slot caches the answer (one per symbol, in the glue file): the
 * resolved address is the dynamic linker's process-wide fact, as a PLT slot is.
 */
void *ct_dynlib_sym(struct ct_dynlib *lib, const char *name, void **slot);

/**
 * NULL when @p lib loads, else a one-line CT_ERROR_UNSUPPORTED error naming the library and what
 * needs it ("kernel dumps need libkdumpfile.so.10, which cannot be loaded: …").
 */
struct ct_error *ct_dynlib_require(struct ct_dynlib *lib);

/**
 * Resolves @p fn (a function of the glue file's library, declared by its header) into local
 * variable @p var, or returns @p fail from the calling glue function when it is missing. Once per
 * glue function: its slot is a static of that function.
 */
#define CT_DYNLIB_RESOLVE(lib, fn, var, fail)                                                  \
	static void *dynlib_slot;                                                              \
	__typeof__(&fn) var = (__typeof__(&fn))ct_dynlib_sym(&(lib), CT_DYNLIB_NAME(fn), &dynlib_slot); \
	if (!var)                                                                              \
		return fail
/** The symbol's name after macro expansion (libunwind's unw_step is _Ux86_64_step). */
#define CT_DYNLIB_NAME(fn) CT_DYNLIB_NAME_(fn)
#define CT_DYNLIB_NAME_(fn) #fn

#endif
