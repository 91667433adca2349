/**
 * @file symbol_hints.h
 * Telling the user what would give a module's frames their names (docs/diagnostics.md,
 * module-no-symbols).
 */
#ifndef CT_MODULES_SYMBOL_HINTS_H
#define CT_MODULES_SYMBOL_HINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "coretriage/report.h"

struct ct_module_set;

/**
 * The Debian package whose file list (@p root/var/lib/dpkg/info/PKG.list; @p root NULL for /)
 * holds @p path, with and without the merged /usr, written to @p pkg without its architecture.
 * Returns false when no list holds it or there is no dpkg database.
 */
bool ct_dpkg_owner(const char *root, const char *path, char *pkg, size_t size);

/**
 * One module-no-symbols diagnostic (info) per module with a file whose frames in @p threads have
 * no function name: the -dbgsym/-dbg package when dpkg knows the file (not with --safe), else
 * where debug files are looked for, and DEBUGINFOD_URLS when it is not set.
 */
void ct_modules_hint_symbols(struct ct_module_set *s, const struct ct_thread *threads, size_t num_threads);

#endif
