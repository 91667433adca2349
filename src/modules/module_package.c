// Which package each module came from (module_package.h): the package note, else dpkg's database.
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "modules/module_package.h"
#include "modules/pkgdb.h"
#include "modules/pkgnote.h"

/** The package note's name: the note names the package the module was built in (systemd's spec
 * leaves binary versus source open; Fedora's notes carry the spec's %{name}, the source package). */
static const char *note_name(struct ct_module_set *set, struct ct_module_state *m)
{
	struct ct_package p = { 0 };
	Dwarf_Addr bias;
	Elf *elf = m->dwfl_module && m->match == 1 ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
	if (elf && ct_pkgnote_from_elf(set->out.strings, elf, &p) && p.name)
		return p.name;
	if (m->package_note && ct_pkgnote_parse(set->out.strings, m->package_note, m->package_note_size, &p) && p.name)
		return p.name;
	return NULL;
}

/** The file used is the one installed at the dump's path (the same inode: ./exe may be a link). */
static bool is_installed_file(const struct ct_module_state *m)
{
	struct stat a, b;
	if (!m->path || !m->file)
		return false;
	if (strcmp(m->path, m->file) == 0)
		return true;
	return stat(m->path, &a) == 0 && stat(m->file, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void ct_modules_find_packages(struct ct_module_set *set)
{
	if (set->packages_read)
		return;
	set->packages_read = true;
	struct ct_pkgdb_entry *entries = calloc(set->num_modules ? set->num_modules : 1, sizeof(*entries));
	size_t *which = calloc(set->num_modules ? set->num_modules : 1, sizeof(*which));
	size_t n = 0;
	for (size_t i = 0; i < set->num_modules; i++) {
		struct ct_module_state *m = &set->modules[i];
		if (m->is_vdso)
			continue;
		const char *name = note_name(set, m);
		if (name) {
			m->source_package = name;
			m->source_package_from = ".note.package";
			continue;
		}
		// The database describes the installed file: only when that is the file used and it
		// is the dumped one (build-ids equal).
		if (entries && which && m->match == 1 && is_installed_file(m)) {
			which[n] = i;
			entries[n++].path = m->path;
		}
	}
	struct ct_error *err = entries && which ? ct_dpkg_find_owners_cached(CT_DPKG_ADMINDIR, set->opts->cache_dir, set->out.strings, entries, n) : NULL;
	if (err && err->code == CT_ERROR_LIMIT)
		ct_sink_diag(&set->out, CT_SEVERITY_INFO, 0, CT_DIAG_LIMIT, "package database: %s", err->message);
	// No database (not a Debian system) is no problem: the package rule then only uses notes.
	ct_error_destroy(err);
	for (size_t k = 0; entries && which && k < n; k++) {
		if (entries[k].source) {
			set->modules[which[k]].source_package = entries[k].source;
			set->modules[which[k]].source_package_from = "dpkg";
		}
	}
	free(entries);
	free(which);
}
