// What to install for symbols: one hint per module whose frames have no function name, naming the
// Debian debug package when dpkg's database knows the module's file, else where a debug file is
// looked for and debuginfod.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "modules/symbol_hints.h"

/** Bytes of one dpkg file list read at most: the largest (linux-image) is about 7 MiB. */
#define DPKG_LIST_MAX (32u << 20)
/** Modules hinted at most: a core with hundreds of stripped libraries gets the first ones. */
#define HINTS_MAX 16

// Debian 12 is merged-/usr, but dpkg still lists libc as /lib/x86_64-linux-gnu/libc.so.6 while
// the kernel records /usr/lib/...: both spellings are looked up.
static const char *unmerged(const char *path)
{
	static const char *const dirs[] = { "/usr/lib/", "/usr/lib64/", "/usr/bin/", "/usr/sbin/", "/usr/lib32/" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return path + 4;
	return NULL;
}

static bool list_has(const char *list, const char *path, const char *alt)
{
	FILE *f = fopen(list, "re");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t n;
	bool found = false;
	while (!found && total < DPKG_LIST_MAX && (n = getline(&line, &cap, f)) > 0) {
		total += (size_t)n;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		found = !strcmp(line, path) || (alt && !strcmp(line, alt));
	}
	free(line);
	fclose(f);
	return found;
}

bool ct_dpkg_owner(const char *root, const char *path, char *pkg, size_t size)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/var/lib/dpkg/info", root ? root : "");
	DIR *d = opendir(dir);
	if (!d)
		return false;
	const char *alt = unmerged(path);
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".list"))
			continue;
		char list[4096 + 256];
		snprintf(list, sizeof(list), "%s/%s", dir, e->d_name);
		if (!list_has(list, path, alt))
			continue;
		// "libc6:amd64.list" → "libc6", "python3.11.list" → "python3.11"
		const char *colon = strchr(e->d_name, ':');
		size_t k = colon ? (size_t)(colon - e->d_name) : len - 5;
		snprintf(pkg, size, "%.*s", (int)k, e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

void ct_modules_hint_symbols(struct ct_module_set *s, const struct ct_thread *threads, size_t num_threads)
{
	const struct ct_options *o = s->opts;
	size_t hinted = 0;
	for (size_t i = 0; i < s->num_modules && hinted < HINTS_MAX; i++) {
		const struct ct_module_state *m = &s->modules[i];
		// A module without its file is said already (module-file-missing); the vdso has no package.
		if (!m->file || m->is_vdso || !m->dwfl_module)
			continue;
		const char *name = ct_strpool_intern(s->out.strings, m->name);
		size_t unnamed = 0;
		for (size_t t = 0; name && t < num_threads; t++)
			for (size_t k = 0; k < threads[t].num_frames; k++)
				unnamed += threads[t].frames[k].module == name && !threads[t].frames[k].function &&
					   !threads[t].frames[k].signal_frame;
		if (!unnamed)
			continue;
		hinted++;
		char pkg[256];
		const char *path = m->path ? m->path : m->file;
		bool known = !o->safe && ct_dpkg_owner(o->sysroot, path, pkg, sizeof(pkg));
		const char *slash = strrchr(m->file, '/');
		const char *base = slash ? slash + 1 : m->file;
		const char *urls = getenv("DEBUGINFOD_URLS");
		bool debuginfod = o->debuginfod && !o->safe && urls && *urls;
		if (known)
			ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_MODULE_NO_SYMBOLS,
				       "%s: %zu frame%s without a function name: install %s-dbgsym (or %s-dbg where the archive "
				       "has it; dpkg says %s owns %s)%s", m->name, unnamed, unnamed == 1 ? "" : "s", pkg, pkg, pkg,
				       path, debuginfod ? "" : ", or set DEBUGINFOD_URLS");
		else
			ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_MODULE_NO_SYMBOLS,
				       "%s: %zu frame%s without a function name: no debug file found (by build-id under "
				       "/usr/lib/debug or --debug-dir, by .gnu_debuglink, or as %s.debug or .debug/%s.debug "
				       "beside it)%s", m->name, unnamed, unnamed == 1 ? "" : "s", base, base,
				       debuginfod ? "; debuginfod has none either" : "; set DEBUGINFOD_URLS to ask a debuginfod server");
	}
}
