/**
 * @file modules.h
 * Module discovery for a process core: which ELF files were mapped where, their build-ids as read
 * from the dump's memory, the files on disk that match them, and the libdwfl session that
 * symbolizes and unwinds with those files.
 *
 * A file whose build-id differs from the one in the dump is never used: the module is reported
 * without a file (unwinding falls back to frame pointers and stack scanning) and a warning names
 * both build-ids.
 */
#ifndef CT_MODULES_H
#define CT_MODULES_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "coretriage/coretriage.h"
#include "dump/elfcore.h"
#include "modules/go_symbols.h"
#include "modules/perfmap.h"
#include "modules/plt.h"
#include "util/budget.h"

/** Modules per process: 200-library programs exist; 65,536 bounds memory against a hostile NT_FILE. */
#define CT_MAX_MODULES 65536
#define CT_MAX_BUILD_ID 64
/**
 * libdwfl's link_map search (dwfl_core_file_report) is quadratic in the core's segments (a core
 * with 131,070 program headers takes minutes); beyond this many it is not attempted.
 */
#define CT_MAX_LINK_MAP_SEGMENTS 8192

struct ct_module_state {
	char *name; /**< owned: basename of path, or "[vdso]" */
	char *path; /**< owned: path recorded in the dump, NULL for the vdso */
	char *file; /**< owned: file used, NULL when none */
	uint64_t start, end; /**< mapped range */
	uint64_t bias; /**< load bias */
	uint8_t build_id[CT_MAX_BUILD_ID];
	size_t build_id_len;
	uint8_t file_build_id[CT_MAX_BUILD_ID];
	size_t file_build_id_len;
	int match; /**< -1 unknown, 0 mismatch, 1 match */
	bool is_main, is_vdso;
	/** The dump holds no ELF header for this mapping: placed from the file's headers, unverified. */
	bool no_header;
	/** Executable segments of the module (from the in-memory or file program headers). */
	Dwfl_Module *dwfl_module; /**< borrowed from the Dwfl */
	/** The vdso image copied out of the dump (owned) and its Elf. */
	uint8_t *image;
	size_t image_size;
	/** The debug file as found (owned), before the decompressed cache copy replaced it: a shared
	 * dwz file is named relative to this one. NULL until libdwfl asked for it. */
	char *debug_found;
	/** The debug file needs a shared dwz file that is not found: its DWARF names nothing
	 * (symbolize.c uses the ELF symbol table), since libdw reads those names as NULL. */
	bool alt_missing;
	/** A DWARF 5 supplementary file (.debug_sup) was looked for (ct_debugfile_sup). */
	bool sup_checked;
	/** That file, opened by us (libdwfl opens only .gnu_debugaltlink's): owned, ended after the
	 * Dwfl (whose Dwarf borrows it through dwarf_setalt). NULL when none. */
	Dwarf *sup_dwarf;
	void *sup_elf; /**< owned Elf * of sup_dwarf */
	int sup_fd; /**< owned descriptor of sup_elf; meaningful only when sup_elf is set */
	/** The FDO package note's descriptor found in the dump's memory (owned), NULL when none. */
	char *package_note;
	size_t package_note_size;
	/**
	 * The source package the module belongs to (module_package.h): the FDO package note's name, or
	 * the dpkg `Source` of the package that installed the file (only when the file used is the
	 * installed one and its build-id matches the dump's). Pooled in the set's sink; NULL when unknown.
	 */
	const char *source_package;
	/** Where source_package came from: ".note.package" or "dpkg". Static; NULL when unknown. */
	const char *source_package_from;
	/** The file's PLT (plt.h), read on the first address symbolized in the module. */
	struct ct_plt_layout plt;
	bool plt_read;
};

/**
 * The module set of a process core: what the modules stage makes (ct_modules_load) and every later
 * stage reads: the Dwfl with the modules reported, their states, the symbolization cache, the
 * debuginfod state and the entry function's range. Debug files are found lazily, as frames land in
 * modules: that is why the set keeps the options, the sink its text goes to (pooled names,
 * diagnostics) and the budget it was made with (all borrowed).
 */
struct ct_module_set {
	const struct ct_options *opts; /**< borrowed */
	const struct ct_core *core; /**< borrowed: the dump is not changed after it was opened */
	struct ct_sink out; /**< where names and diagnostics go (borrowed pool and list) */
	/** The analysis' work budget (util/budget.h); borrowed, may be NULL. Symbolization spends
	 * names, debug files their inflated size. */
	struct ct_budget *budget;
	Dwfl *dwfl; /**< owned */
	/** The core as an Elf, for libdwfl's architecture backend; owned, ended after the Dwfl. */
	void *core_elf;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path; /**< owned, for the standard find_debuginfo */
	struct ct_module_state *modules; /**< owned, sorted by start */
	size_t num_modules;
	/** The file mappings the modules come from: the dump's NT_FILE, or for a core without that
	 * note the objects its dynamic linker's link_map names (then owned: link_map_files). */
	const struct ct_file_mapping *files;
	size_t num_files;
	struct ct_file_mapping *link_map_files;
	struct ct_symcache *symcache; /**< owned */
	/** A debuginfod query failed for lack of an answer: do not ask again in this analysis. */
	bool debuginfod_failed;
	/** ct_modules_find_packages() ran (it reads the package database once per analysis). */
	bool packages_read;
	/** The dumped process's perf JIT map (/tmp/perf-PID.map on this machine), read on the first
	 * frame in JIT code; owned. */
	struct ct_perfmap perfmap;
	bool perfmap_read;
	/** The Go executable's pclntab (go_symbols.h), looked for on the first pc no symbol names. */
	struct ct_go_symtab go;
};

/**
 * The modules stage: finds the modules in @p core, matches files, creates the Dwfl, into *@p ret
 * (zeroed first; release with ct_modules_unload() also after an error). Non-fatal problems become
 * diagnostics in @p out.
 */
struct ct_error *ct_modules_load(const struct ct_options *opts, const struct ct_core *core, struct ct_sink out,
				 struct ct_budget *budget, struct ct_module_set *ret);
/** Releases module state and the Dwfl. */
void ct_modules_unload(struct ct_module_set *set);
/** The module containing @p addr, or NULL. */
const struct ct_module_state *ct_modules_find(const struct ct_module_set *set, uint64_t addr);
/** The state of libdwfl module @p mod; NULL for a module libdwfl reported by itself (link_map). */
struct ct_module_state *ct_modules_state_of(struct ct_module_set *set, const Dwfl_Module *mod);
/** The address of the defined symbol @p name of module @p m (its symbol table, .dynsym when stripped). */
bool ct_modules_symbol(const struct ct_module_state *m, const char *name, uint64_t *ret);
/**
 * The addresses of the @p n defined symbols @p names of module @p m in one pass over its symbol
 * table: addrs[k] is set and found[k] true for each one found. Returns how many were found.
 */
size_t ct_modules_symbols(const struct ct_module_state *m, const char *const *names, size_t n, uint64_t *addrs,
			  bool *found);
/** True when @p addr lies in executable memory: a module's code or an executable segment. */
bool ct_modules_is_code(const struct ct_module_set *set, uint64_t addr);
/** Copies module info into @p report's modules (the pipeline's hand-off of the module list). */
void ct_modules_to_report(const struct ct_module_set *set, struct ct_report *report);
/** Lowercase hex of a build-id into @p buf (2*len+1 bytes). */
void ct_build_id_hex(const uint8_t *id, size_t len, char *buf);



/**
 * Reads code bytes at @p addr: from the dump when saved there, else from the module's file (the
 * kernel does not dump unmodified file-backed text). False when neither has them.
 */
bool ct_modules_read_code(struct ct_module_set *set, uint64_t addr, void *buf, size_t len);
#endif
