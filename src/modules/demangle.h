/**
 * @file demangle.h
 * Symbol names as gdb prints them, through libiberty's demangler (C++ Itanium ABI, Rust legacy
 * and v0, D): the one place coretriage turns a mangled name into a readable one.
 */
#ifndef CT_DEMANGLE_H
#define CT_DEMANGLE_H

#include "coretriage/report.h"
#include "coretriage/strpool.h"

/** Mangled names longer than this are shown as they are (libiberty's demangler uses stack arrays). */
#define CT_DEMANGLE_MAX_INPUT 16384
/** Demangled text beyond this is cut (ending in "..."). */
#define CT_DEMANGLE_MAX_OUTPUT 8192

/**
 * An ELF symbol's name for display, pooled: demangled as gdb shows a symbol-table-only frame
 * (C++ with its parameter list, Rust without the `::h…` hash and `$u7b$` escapes, D), the ELF
 * symbol version ("__libc_start_main@@GLIBC_2.34") removed; any other name unchanged.
 */
const char *ct_demangle_symbol(struct ct_strpool *strings, const char *name);

/**
 * A function's linkage name (DW_AT_linkage_name) as gdb names a frame with debug info, pooled:
 * qualified, without parameters, return type or `const` ("std::sort<int*>", "ns::C<int>::f",
 * "core::ptr::drop_in_place<alloc::string::String>"). NULL when @p linkage is not a mangled name.
 */
const char *ct_demangle_function(struct ct_strpool *strings, const char *linkage);

#endif
