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
	bool ok = elf && elf_kind(elf) == ELF_K_ELF &&
		  (len == 0 || (n == (ssize_t)len && memcmp(bid, id, len) == 0));
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
	if (out >= 0)
		goto out;
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

static int find_debuglink(struct ct_module_set *s, const char *file_name, const char *debuglink, const uint8_t *id,
			  size_t len, char **path_ret);

static int find_local(struct ct_module_set *s, const char *file_name, const char *debuglink, const uint8_t *id,
		      size_t len, char **path_ret)
{
	char hex[2 * CT_MAX_BUILD_ID + 1];
	const struct ct_options *o = s->opts;
	size_t ndirs = o->num_debug_dirs + 1;
	if (len >= 2) {
		ct_build_id_hex(id, len, hex);
		for (size_t i = 0; i < ndirs; i++) {
			const char *dir = i < o->num_debug_dirs ? o->debug_dirs[i] : "/usr/lib/debug";
			char *p = NULL;
			if (asprintf(&p, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2) < 0)
				return -1;
			int fd = try_path(p, id, len, path_ret);
			if (fd >= 0)
				return fd;
		}
	}
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
		const char *dir = i < o->num_debug_dirs ? o->debug_dirs[i] : "/usr/lib/debug";
		char *d = join(dir, moddir[0] == '/' ? "" : "/", moddir);
		fd = try_path(d ? join(d, "", debuglink) : NULL, id, len, path_ret);
		free(d);
	}
	free(moddir);
	return fd;
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
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len < 0 || len > CT_MAX_BUILD_ID)
		len = 0;
	char *path = NULL;
	int fd = find_local(s, file_name, debuglink_file, bits, (size_t)len, &path);
	if (fd < 0 && len > 0 && !s->debuginfod_failed) {
		struct ct_error *err = ct_debuginfod_find_debuginfo(s->opts, bits, (size_t)len, &fd, &path);
		if (err && (err->code == CT_ERROR_LIMIT || err->code == CT_ERROR_OS)) {
			// One warning per analysis, and no module waits on a dead server again.
			ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_DEBUGINFOD,
				       "%s; frames of modules without local debug info have no source lines",
				       ct_error_message(err));
			s->debuginfod_failed = true;
		}
		if (err)
			fd = -1;
		ct_error_destroy(err);
	}
	if (fd < 0)
		return -1;
	// A debug file's compressed sections are inflated by libdw on first use: counted first.
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool admitted = ct_debug_admit(s, elf, path ? path : modname);
	elf_end(elf);
	if (!admitted) {
		close(fd);
		free(path);
		return -1;
	}
	char *cached = NULL;
	int cfd = cached_copy(s, fd, bits, (size_t)len, &cached);
	if (cfd >= 0) {
		close(fd);
		free(path);
		fd = cfd;
		path = cached;
	}
	*debuginfo_file_name = path;
	return fd;
}
