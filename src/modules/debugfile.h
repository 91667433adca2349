/**
 * @file debugfile.h
 * Finding a module's separate debug file (libdwfl's find_debuginfo callback), and the cache of
 * decompressed debug files.
 *
 * Search order: the debug directories by build-id (--debug-dir, then /usr/lib/debug), the
 * .gnu_debuglink name beside the module, in its .debug/ and under each debug directory, then
 * debuginfod. A candidate is used only when its build-id is the module's.
 *
 * Debian's debug packages compress their DWARF sections (SHF_COMPRESSED, zlib), and libdw 0.188
 * inflates every one of them each time a file is opened: for libc that is 80 % of the time of a
 * whole analysis. So a debug file with compressed sections is decompressed once into the cache
 * (CACHE/debug/BUILDID.debug, written to a temporary name and renamed, so concurrent runs are safe)
 * and the copy is used from then on. The cache holds nothing that is not derived from files the
 * user already has; --no-cache and --safe turn it off.
 */
#ifndef CT_DEBUGFILE_H
#define CT_DEBUGFILE_H

#include <elfutils/libdwfl.h>

struct ct_module_set;

/** Dwfl_Callbacks.find_debuginfo; the module's userdata must be its struct ct_module_set. */
int ct_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name);

/**
 * The DWARF 5 supplementary file of module @p mod whose DWARF @p dw names one in `.debug_sup`:
 * libdwfl (elfutils 0.188) looks only for `.gnu_debugaltlink`'s, so this one is found as
 * find_debuginfo finds that (modules/altlink.h), opened and set with dwarf_setalt; kept in the
 * module's state until ct_modules_unload. Missing: the dwz-file-missing warning and the module's
 * DWARF names nothing (symbolize.c). Once per module; a module without a state is left alone.
 */
void ct_debugfile_sup(struct ct_module_set *s, Dwfl_Module *mod, Dwarf *dw);

/** Sets the module's libdwfl userdata to the session (needed by ct_find_debuginfo). */
void ct_debugfile_attach(struct ct_module_set *s, Dwfl_Module *mod);

#endif
