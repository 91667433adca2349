// Separate debug files: search by build-id and debuglink, debuginfod, decompressed cache.
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules/altlink.h"
#include "modules/cache_trim.h"
#include "modules/debug_budget.h"
#include "modules/debugfile.h"
#include "modules/debuginfod.h"
#include "modules/modules.h"

void ct_debugfile_attach(struct ct_module_set *s, Dwfl_Module *mod)
{
	void **userdata = NULL;
	if (mod && dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) && userdata)
		*userdata = s;
}

// Opens @p path when it is an ELF file with build-id @p id (any file when @p len is 0).
static int open_matching(const char *path, const uint8_t *id, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bid = NULL;
	ssize_t n = elf && elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &bid) : -1;
	uint8_t sum[CT_ALTLINK_MAX_ID];
	size_t sum_len = 0;
	// A DWARF 5 supplementary file is known by its .debug_sup checksum instead (altlink.h).
	bool ok = elf && elf_kind(elf) == ELF_K_ELF &&
		  (len == 0 || (n == (ssize_t)len && memcmp(bid, id, len) == 0) ||
		   (n <= 0 && ct_altlink_sup_checksum(elf, sum, &sum_len) && sum_len == len && memcmp(sum, id, len) == 0));
	elf_end(elf);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool has_compressed_sections(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	bool found = false;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
			found = (sh.sh_flags & SHF_COMPRESSED) || (name && strncmp(name, ".zdebug", 7) == 0);
		}
	}
	elf_end(elf);
	return found;
}

static bool copy_file(int from, int to)
{
	struct stat st;
	if (fstat(from, &st) != 0)
		return false;
	off_t off = 0;
	while (off < st.st_size) {
		ssize_t n = sendfile(to, from, &off, (size_t)(st.st_size - off));
		if (n <= 0)
			return false;
	}
	return true;
}

// Decompresses every compressed section of the ELF file open read-write on @p fd, in place.
static bool decompress_in_place(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	size_t shstrndx;
	bool ok = elf && elf_getshdrstrndx(elf, &shstrndx) == 0;
	for (Elf_Scn *scn = ok ? elf_nextscn(elf, NULL) : NULL; scn && ok; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_flags & SHF_COMPRESSED)
			ok = elf_compress(scn, 0, 0) >= 0;
		else if (name && strncmp(name, ".zdebug", 7) == 0)
			ok = elf_compress_gnu(scn, 0, 0) >= 0;
	}
	// libelf lays the sections out again: a debug file's loadable contents are NOBITS, so the
	// program headers' offsets do not matter.
	ok = ok && elf_update(elf, ELF_C_WRITE) >= 0;
	elf_end(elf);
	return ok;
}

/*
 * Returns a descriptor of the decompressed copy of debug file @p fd (build-id @p id), making it
 * when needed, or -1 to keep using @p fd (no compressed sections, no cache, or any failure: the
 * cache only ever saves time).
 */
static int cached_copy(struct ct_module_set *s, int fd, const uint8_t *id, size_t len, char **path_ret)
{
	const char *dir = s->opts->cache_dir;
	if (!dir || !*dir || s->opts->safe || len == 0 || !has_compressed_sections(fd))
		return -1;
	char hex[2 * CT_MAX_BUILD_ID + 1];
	ct_build_id_hex(id, len, hex);
	char *sub = NULL, *path = NULL, *tmp = NULL;
	int out = -1;
	if (asprintf(&sub, "%s/debug", dir) < 0)
		return -1;
	if (asprintf(&path, "%s/%s.debug", sub, hex) < 0)
		goto out;
	out = open_matching(path, id, len);
	if (out >= 0) {
		ct_cache_touch(out); // used now: the last to go when the cache is trimmed
		goto out;
	}
	// Make it: parents first (the cache may not exist yet).
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		goto out;
	if (mkdir(sub, 0700) != 0 && errno != EEXIST)
		goto out;
	if (asprintf(&tmp, "%s/.%s.XXXXXX", sub, hex) < 0)
		goto out;
	int t = mkstemp(tmp);
	if (t < 0)
		goto out;
	if (copy_file(fd, t) && decompress_in_place(t) && fsync(t) == 0 && rename(tmp, path) == 0) {
		close(t);
		out = open_matching(path, id, len);
		// The cache grew: back under its cap (--cache-size), the new copy kept.
		ct_cache_trim(sub, ".debug", s->opts->cache_size ? s->opts->cache_size : CT_CACHE_DEFAULT_SIZE, strrchr(path, '/') + 1);
	} else {
		close(t);
		unlink(tmp);
	}
out:
	if (out >= 0) {
		*path_ret = path;
		path = NULL;
	}
	free(sub);
	free(path);
	free(tmp);
	return out;
}

static char *join(const char *a, const char *b, const char *c)
{
	char *p = NULL;
	return asprintf(&p, "%s%s%s", a, b, c) < 0 ? NULL : p;
}

// Tries one candidate path; on a match sets *path_ret (malloc'd) and returns the fd.
static int try_path(char *path, const uint8_t *id, size_t len, char **path_ret)
{
	if (!path)
		return -1;
	int fd = open_matching(path, id, len);
	if (fd >= 0)
		*path_ret = path;
	else
		free(path);
	return fd;
}

// The debug directories in search order: each --debug-dir, then /usr/lib/debug.
static const char *debug_dir(const struct ct_options *o, size_t i)
{
	return i < o->num_debug_dirs ? o->debug_dirs[i] : "/usr/lib/debug";
}

// DIR/.build-id/xx/rest.debug of build-id @p id under each debug directory.
static int by_build_id(const struct ct_options *o, const uint8_t *id, size_t len, char **path_ret)
{
	char hex[2 * CT_MAX_BUILD_ID + 1];
	if (len < 2 || len > CT_MAX_BUILD_ID)
		return -1;
	ct_build_id_hex(id, len, hex);
	for (size_t i = 0; i < o->num_debug_dirs + 1; i++) {
		char *p = NULL;
		if (asprintf(&p, "%s/.build-id/%.2s/%s.debug", debug_dir(o, i), hex, hex + 2) < 0)
			return -1;
		int fd = try_path(p, id, len, path_ret);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

static int find_debuglink(struct ct_module_set *s, const char *file_name, const char *debuglink, const uint8_t *id,
			  size_t len, char **path_ret);

static int find_local(struct ct_module_set *s, const char *file_name, const char *debuglink, const uint8_t *id,
		      size_t len, char **path_ret)
{
	int found = by_build_id(s->opts, id, len, path_ret);
	if (found >= 0)
		return found;
	// No .gnu_debuglink (objcopy --only-keep-debug, then strip without --add-gnu-debuglink): the
	// module's name with ".debug", the name libdwfl's find_debuginfo_in_path (elfutils 0.188)
	// and so eu-stack assume; only taken on a build-id match.
	char *implied = NULL;
	if ((!debuglink || !*debuglink) && file_name && len >= 2) {
		const char *base = strrchr(file_name, '/');
		debuglink = implied = join(base ? base + 1 : file_name, ".debug", "");
	}
	int fd = find_debuglink(s, file_name, debuglink, id, len, path_ret);
	free(implied);
	return fd;
}

// .gnu_debuglink: beside the module, in .debug/ beside it, and under each debug directory with the
// module's directory appended (GDB's layout). Never for a name with a '/': it is a name, not a
// path, and a hostile one must not lead elsewhere.
static int find_debuglink(struct ct_module_set *s, const char *file_name, const char *debuglink, const uint8_t *id,
			  size_t len, char **path_ret)
{
	const struct ct_options *o = s->opts;
	size_t ndirs = o->num_debug_dirs + 1;
	if (!debuglink || !*debuglink || strchr(debuglink, '/') || !file_name || s->opts->safe)
		return -1;
	const char *slash = strrchr(file_name, '/');
	char *moddir = slash ? strndup(file_name, (size_t)(slash - file_name + 1)) : strdup("./");
	if (!moddir)
		return -1;
	int fd = try_path(join(moddir, "", debuglink), id, len, path_ret);
	if (fd < 0)
		fd = try_path(join(moddir, ".debug/", debuglink), id, len, path_ret);
	for (size_t i = 0; fd < 0 && i < ndirs; i++) {
		const char *dir = debug_dir(o, i);
		char *d = join(dir, moddir[0] == '/' ? "" : "/", moddir);
		fd = try_path(d ? join(d, "", debuglink) : NULL, id, len, path_ret);
		free(d);
	}
	free(moddir);
	return fd;
}

// The debug file of build-id @p id from debuginfod, or -1. A server that does not answer is warned
// about once per analysis and not asked again.
static int from_debuginfod(struct ct_module_set *s, const uint8_t *id, size_t len, char **path_ret)
{
	if (len == 0 || s->debuginfod_failed)
		return -1;
	int fd = -1;
	struct ct_error *err = ct_debuginfod_find_debuginfo(s->opts, id, len, &fd, path_ret);
	if (err && (err->code == CT_ERROR_LIMIT || err->code == CT_ERROR_OS)) {
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_DEBUGINFOD,
			     "%s; frames of modules without local debug info have no source lines",
			     ct_error_message(err));
		s->debuginfod_failed = true;
	}
	if (err)
		fd = -1;
	ct_error_destroy(err);
	return fd;
}

/*
 * Hands debug file @p fd (found at *@p path, build-id @p id) to libdwfl: admitted against the debug
 * budget (libdw inflates its compressed sections on first use), then swapped for its decompressed
 * cache copy. Returns the descriptor, *@p path set to the file libdwfl is given; -1 (fd closed,
 * *@p path freed) when the budget refuses it.
 */
static int admit(struct ct_module_set *s, int fd, char **path, const char *what, const uint8_t *id, size_t len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool admitted = ct_debug_admit(s, elf, *path ? *path : what);
	elf_end(elf);
	if (!admitted) {
		close(fd);
		free(*path);
		*path = NULL;
		return -1;
	}
	char *cached = NULL;
	int cfd = cached_copy(s, fd, id, len, &cached);
	if (cfd >= 0) {
		close(fd);
		free(*path);
		fd = cfd;
		*path = cached;
	}
	return fd;
}

// The part of a shared file's name from ".dwz/" on, to look for under each debug directory; NULL
// when it has none or climbs out ("..").
static const char *dwz_part(const char *name)
{
	const char *p = strncmp(name, ".dwz/", 5) == 0 ? name : strstr(name, "/.dwz/");
	if (p && *p == '/')
		p++;
	return p && !strstr(p, "..") ? p : NULL;
}

/*
 * The shared file @p l on the local disk: the name as written (absolute, as Debian writes it, or
 * relative to the directory of the debug file @p origin that names it, as Fedora writes
 * "../../.dwz/…"; not under --safe, like a debuglink), its .dwz/ part under each debug directory,
 * then by its build-id under each .build-id/. Only a file with the build-id @p l names is taken.
 */
static int find_alt_local(struct ct_module_set *s, const char *origin, const struct ct_altlink *l, char **path_ret)
{
	const struct ct_options *o = s->opts;
	int fd = -1;
	if (!o->safe && l->name[0] == '/') {
		fd = try_path(strdup(l->name), l->id, l->id_len, path_ret);
	} else if (!o->safe && origin) {
		const char *slash = strrchr(origin, '/');
		char *dir = slash ? strndup(origin, (size_t)(slash - origin + 1)) : strdup("./");
		fd = try_path(dir ? join(dir, "", l->name) : NULL, l->id, l->id_len, path_ret);
		free(dir);
	}
	const char *part = dwz_part(l->name);
	for (size_t i = 0; fd < 0 && part && i < o->num_debug_dirs + 1; i++)
		fd = try_path(join(debug_dir(o, i), "/", part), l->id, l->id_len, path_ret);
	return fd >= 0 ? fd : by_build_id(o, l->id, l->id_len, path_ret);
}

// The shared file @p l of module @p mod (state @p m, may be NULL) is not found.
static void alt_missing(struct ct_module_set *s, struct ct_module_state *m, Dwfl_Module *mod, const char *modname,
			const char *origin, const struct ct_altlink *l)
{
	// libdw must not look by itself: elfutils 0.188's dwarf_getalt (libdw/dwarf_getalt.c,
	// find_debug_altlink) opens /usr/lib/debug/.build-id/ of the alt build-id and then the name
	// relative to the debug file, and takes either without checking its build-id, so it would
	// take the very files refused above. (void *)-1 is its own "searched, none found" mark:
	// dwarf_getalt then answers NULL at once (every alt name and reference fails), and dwarf_end
	// frees no alt it did not open. libdwfl has set the module's Dwarf before this second call, so
	// dwfl_module_getdwarf returns it here without loading again.
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	if (dw)
		dwarf_setalt(dw, (Dwarf *)-1);
	// The module is named from its ELF symbol table (symbolize.c), once warned about (libdwfl
	// asks once per module; the mark guards a module it reported by itself, without a state).
	if (!m || !m->alt_missing) {
		char hex[2 * CT_ALTLINK_MAX_ID + 1];
		ct_build_id_hex(l->id, l->id_len, hex);
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_DWZ_FILE_MISSING,
			     "%s: its debug file %s needs the shared dwz file %s (build-id %s), which is not found: "
			     "its frames are named from the ELF symbol table, without inline frames or source lines",
			     modname, origin ? origin : "?", l->name, l->id_len ? hex : "unreadable");
	}
	if (m)
		m->alt_missing = true;
}

/*
 * libdwfl's second call for a module (elfutils 0.188 libdwfl/dwfl_module_getdwarf.c,
 * find_debug_altlink): @p file_name is the debug file libdwfl opened, @p l what it names. The
 * module's own build-id must not be searched for here: that finds the module's debug file again,
 * whose .debug_str then answers every alt offset with a wrong string.
 */
static int find_alt(struct ct_module_set *s, Dwfl_Module *mod, const char *modname, const char *file_name,
		    const struct ct_altlink *l, char **debuginfo_file_name)
{
	struct ct_module_state *m = ct_modules_state_of(s, mod);
	// The cache copy lives elsewhere: a relative name is relative to the file as it was found.
	const char *origin = m && m->debug_found ? m->debug_found : file_name;
	char *path = NULL;
	int fd = find_alt_local(s, origin, l, &path);
	if (fd < 0)
		fd = from_debuginfod(s, l->id, l->id_len, &path);
	if (fd >= 0)
		fd = admit(s, fd, &path, l->name, l->id, l->id_len);
	if (fd >= 0) {
		*debuginfo_file_name = path;
		return fd;
	}
	alt_missing(s, m, mod, modname, origin, l);
	return -1;
}

int ct_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name)
{
	struct ct_module_set *s = userdata ? *userdata : NULL;
	if (!s) {
		// A module libdwfl reported by itself before we could attach: its standard search.
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
						    debuglink_crc, debuginfo_file_name);
	}
	// The shared-file request: no CRC, and the name is the one the opened file's altlink gives.
	// One whose altlink does not parse here (an id longer than CT_ALTLINK_MAX_ID) gets nothing:
	// the module's own search below would hand back the module's debug file.
	struct ct_altlink link;
	int alt = debuglink_crc == 0 && debuglink_file ? ct_altlink_read_path(file_name, &link) : -1;
	if (alt == 1 && strcmp(link.name, debuglink_file) == 0)
		return find_alt(s, mod, modname, file_name, &link, debuginfo_file_name);
	if (alt == 0) {
		snprintf(link.name, sizeof(link.name), "%s", debuglink_file);
		link.id_len = 0;
		alt_missing(s, ct_modules_state_of(s, mod), mod, modname, file_name, &link);
		return -1;
	}
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len < 0 || len > CT_MAX_BUILD_ID)
		len = 0;
	char *path = NULL;
	int fd = find_local(s, file_name, debuglink_file, bits, (size_t)len, &path);
	if (fd < 0)
		fd = from_debuginfod(s, bits, (size_t)len, &path);
	if (fd < 0)
		return -1;
	// Where the file was found, before the cache copy replaces it (find_alt's origin).
	struct ct_module_state *m = ct_modules_state_of(s, mod);
	if (m && path && !m->debug_found)
		m->debug_found = strdup(path);
	fd = admit(s, fd, &path, modname, bits, (size_t)len);
	if (fd >= 0)
		*debuginfo_file_name = path;
	return fd;
}

void ct_debugfile_sup(struct ct_module_set *s, Dwfl_Module *mod, Dwarf *dw)
{
	struct ct_module_state *m = ct_modules_state_of(s, mod);
	struct ct_altlink l;
	if (!m || m->sup_checked)
		return;
	m->sup_checked = true;
	if (!ct_altlink_read(dwarf_getelf(dw), &l) || !l.dwarf5 || dwarf_getalt(dw))
		return;
	const char *origin = m->debug_found ? m->debug_found : m->file;
	char *path = NULL;
	int fd = find_alt_local(s, origin, &l, &path);
	if (fd < 0)
		fd = from_debuginfod(s, l.id, l.id_len, &path);
	if (fd >= 0)
		fd = admit(s, fd, &path, l.name, l.id, l.id_len);
	free(path);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Dwarf *alt = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (alt) {
		dwarf_setalt(dw, alt);
		m->sup_dwarf = alt;
		m->sup_elf = elf;
		m->sup_fd = fd;
		return;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	alt_missing(s, m, mod, m->name, origin, &l);
}
