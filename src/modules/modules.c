// Module discovery: NT_FILE mappings + ELF headers in the dump's memory → build-ids → matching
// files on disk → libdwfl modules.
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/elfview.h"
#include "modules/debug_budget.h"
#include "modules/debugfile.h"
#include "modules/modules.h"
#include "modules/module_index.h"
#include "modules/symbolize.h"
#include "modules/pkgnote.h"
#include "modules/linkmap.h"
#include "modules/sysroot.h"
#include "util/bisect.h"
#include "util/cleanup.h"
#include "util/bytes.h"

void ct_build_id_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = '\0';
}

// Finds NT_GNU_BUILD_ID in a note area; returns its length (0 if none) and copies it to @p id.
static size_t find_build_id_note(const struct ct_bytes *notes, uint8_t *id)
{
	struct ct_bytes desc;
	if (!ct_note_find(notes, "GNU", NT_GNU_BUILD_ID, &desc) || desc.size == 0 || desc.size > CT_MAX_BUILD_ID)
		return 0;
	memcpy(id, desc.data, desc.size);
	return desc.size;
}

/*
 * Reads the ELF header and program headers of a module from the dump's memory at @p start (the
 * kernel dumps the first page of every ELF mapping: coredump_filter bit 4, on by default), computes
 * the load bias and reads the build-id note. Returns false when there is no ELF image there.
 */
static bool read_memory_image(struct ct_module_set *s, uint64_t start, struct ct_module_state *m)
{
	const struct ct_core *core = s->core;
	uint8_t ehdr[sizeof(Elf64_Ehdr)];
	size_t have = sizeof(Elf64_Ehdr);
	// A 32-bit module's header is 52 bytes and may end its mapping's dumped part.
	if (!ct_core_read_fast(core, start, ehdr, have)) {
		have = sizeof(Elf32_Ehdr);
		if (!ct_core_read_fast(core, start, ehdr, have))
			return false;
	}
	struct ct_bytes eb = { ehdr, have, false };
	struct ct_elf_header h;
	struct ct_error *err = ct_elf_header_read(&eb, &h);
	if (err) {
		ct_error_destroy(err);
		return false;
	}
	size_t phent = ct_elf_phdr_size(h.elf_class);
	if (h.phentsize != phent || h.phnum == 0 || h.phnum > 256 || h.phoff > 65536)
		return true; // An ELF image we cannot read further: a module without build-id.
	uint8_t ph[256 * sizeof(Elf64_Phdr)];
	if (!ct_core_read_fast(core, start + h.phoff, ph, (size_t)h.phnum * phent))
		return true;
	struct ct_bytes pb = { ph, (size_t)h.phnum * phent, h.big_endian };
	bool have_first = false;
	uint64_t first_vaddr = 0;
	for (unsigned i = 0; i < h.phnum && !have_first; i++) {
		struct ct_elf_phdr p;
		if (ct_elf_phdr_read(&pb, h.elf_class, (uint64_t)i * phent, &p) && p.type == PT_LOAD) {
			// The mapping at file offset 0 holds the first PT_LOAD (which covers offset 0).
			uint64_t a = p.align > 1 && !(p.align & (p.align - 1)) ? p.align : 4096;
			if (a > core->file_page_size && core->file_page_size)
				a = core->file_page_size;
			first_vaddr = p.vaddr & ~(a - 1);
			have_first = true;
		}
	}
	m->bias = start - first_vaddr;
	for (unsigned i = 0; i < h.phnum; i++) {
		struct ct_elf_phdr p;
		if (!ct_elf_phdr_read(&pb, h.elf_class, (uint64_t)i * phent, &p) || p.type != PT_NOTE)
			continue;
		if (p.filesz == 0 || p.filesz > 65536)
			continue;
		uint8_t notes[65536];
		if (!ct_core_read_fast(core, m->bias + p.vaddr, notes, p.filesz))
			continue;
		struct ct_bytes nb = { notes, p.filesz, h.big_endian }, desc;
		if (!m->build_id_len)
			m->build_id_len = find_build_id_note(&nb, m->build_id);
		// The package note, for a module whose file is not at hand (docs/trail.md).
		if (!m->package_note && ct_note_find(&nb, "FDO", CT_NT_FDO_PACKAGING_METADATA, &desc) &&
		    desc.size <= CT_MAX_PACKAGE_NOTE && (m->package_note = malloc(desc.size + 1))) {
			memcpy(m->package_note, desc.data, desc.size);
			m->package_note_size = desc.size;
		}
	}
	return true;
}

static char *basename_dup(const char *path)
{
	const char *slash = strrchr(path, '/');
	return strdup(slash ? slash + 1 : path);
}

// Opens @p path (inside @p root when not NULL: --sysroot confinement) and reads its build-id.
// Returns the fd (>= 0) or -1.
static int open_with_build_id(const char *root, const char *path, uint8_t *id, size_t *id_len)
{
	int fd = root ? ct_sysroot_open(root, path) : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return -1;
	}
	const void *bid = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);
	*id_len = 0;
	if (n > 0 && n <= CT_MAX_BUILD_ID) {
		memcpy(id, bid, (size_t)n);
		*id_len = (size_t)n;
	}
	elf_end(elf);
	return fd;
}

static char *join_sysroot(const char *sysroot, const char *path)
{
	char *out = NULL;
	if (!sysroot || !*sysroot)
		return strdup(path);
	if (asprintf(&out, "%s%s%s", sysroot, path[0] == '/' ? "" : "/", path) < 0)
		return NULL;
	return out;
}

// Looks for DIR/.build-id/xx/rest[.debug|""] in the debug directories; returns a malloc'd path.
static char *find_by_build_id(const struct ct_module_set *s, const uint8_t *id, size_t len, const char *suffix)
{
	if (len < 2)
		return NULL;
	char hex[2 * CT_MAX_BUILD_ID + 1];
	ct_build_id_hex(id, len, hex);
	size_t n = s->opts->num_debug_dirs;
	for (size_t i = 0; i <= n; i++) {
		const char *dir = i < n ? s->opts->debug_dirs[i] : "/usr/lib/debug";
		char *p = NULL;
		if (asprintf(&p, "%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix) < 0)
			return NULL;
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

static void describe_mismatch(struct ct_module_set *s, struct ct_module_state *m, const char *file)
{
	char a[2 * CT_MAX_BUILD_ID + 1], b[2 * CT_MAX_BUILD_ID + 1];
	ct_build_id_hex(m->build_id, m->build_id_len, a);
	ct_build_id_hex(m->file_build_id, m->file_build_id_len, b);
	ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_BUILD_ID_MISMATCH,
		       "%s does not match the core: build-id %s in core, %s on disk; not used for symbols", file,
		       a, m->file_build_id_len ? b : "(none)");
}

/*
 * Places a module whose ELF header is not in the dump, from the file's own headers: the main
 * program by its entry point (AT_ENTRY - e_entry), a library by its first PT_LOAD at the start of
 * its first mapping. False when the file is not an ELF object that fits.
 */
static bool place_by_file(struct ct_module_set *s, struct ct_module_state *m, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t phnum;
	bool ok = false;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_machine != s->core->e_machine)
		goto out;
	uint64_t entry;
	if (eh.e_type == ET_EXEC) {
		m->bias = 0;
		ok = true;
	} else if (m->is_main && ct_core_auxv(s->core, AT_ENTRY, &entry) && entry >= eh.e_entry) {
		m->bias = entry - eh.e_entry;
		ok = true;
	} else {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
			if (ph && ph->p_type == PT_LOAD) {
				uint64_t align = ph->p_align > 1 ? ph->p_align : 4096;
				if (align > 4096)
					align = 4096;
				m->bias = m->start - (ph->p_vaddr & ~(align - 1));
				ok = ph->p_offset == 0;
				break;
			}
		}
	}
out:
	elf_end(elf);
	return ok;
}

/*
 * Chooses the file for module @p m: the executable named on the command line for the main
 * program, else the path in the dump (under --sysroot; never with --safe), else a file found by
 * build-id in the debug directories. Reports it to libdwfl.
 */
static void attach_file(struct ct_module_set *s, struct ct_module_state *m)
{
	const struct ct_options *o = s->opts;
	char *candidates[3] = { NULL, NULL, NULL };
	int nc = 0, beside = -1, in_root = -1;
	if (m->is_main && o->executable)
		candidates[nc++] = strdup(o->executable);
	if (m->path && !m->is_main && o->executable && !o->safe) {
		// Libraries shipped beside the executable (a core copied from another machine together
		// with its program and libraries), like gdb's solib-search-path. Only a build-id match
		// is accepted, so a same-named library never slips in.
		const char *slash = strrchr(o->executable, '/');
		char *p = NULL;
		if (asprintf(&p, "%.*s%s", slash ? (int)(slash - o->executable + 1) : 0, o->executable, m->name) >= 0) {
			beside = nc;
			candidates[nc++] = p;
		}
	}
	if (m->path && !o->safe) {
		// Under --sysroot the path is opened inside it (sysroot.h); the joined name is for people.
		if (o->sysroot && *o->sysroot) {
			// Named by its lexical path, so what is looked up beside it (debuglink) is inside too.
			in_root = nc;
			_cleanup_free_ char *rel = ct_sysroot_lexical(m->path);
			candidates[nc++] = rel ? join_sysroot(o->sysroot, rel) : NULL;
		} else {
			candidates[nc++] = join_sysroot(NULL, m->path);
		}
	}
	bool mismatch_seen = false;
	struct stat seen[3];
	int nseen = 0;
	for (int i = 0; i < nc && !m->file; i++) {
		if (!candidates[i])
			continue;
		uint8_t id[CT_MAX_BUILD_ID];
		size_t id_len = 0;
		int fd = i == in_root ? open_with_build_id(o->sysroot, m->path, id, &id_len)
				      : open_with_build_id(NULL, candidates[i], id, &id_len);
		if (fd < 0)
			continue;
		// The same file under two names (./exe and the path in the dump) is tried once.
		struct stat st;
		bool dup = false;
		if (fstat(fd, &st) == 0) {
			for (int k = 0; k < nseen; k++)
				dup |= seen[k].st_dev == st.st_dev && seen[k].st_ino == st.st_ino;
			seen[nseen++] = st;
		}
		if (dup) {
			close(fd);
			continue;
		}
		bool same = m->build_id_len && id_len == m->build_id_len && memcmp(id, m->build_id, id_len) == 0;
		if (i == beside && m->build_id_len && !same) {
			close(fd);
			continue;
		}
		memcpy(m->file_build_id, id, id_len);
		m->file_build_id_len = id_len;
		if (m->build_id_len && !same) {
			describe_mismatch(s, m, candidates[i]);
			mismatch_seen = true;
			close(fd);
			continue;
		}
		if (m->no_header && !place_by_file(s, m, fd)) {
			close(fd);
			continue;
		}
		m->match = m->build_id_len ? 1 : -1;
		m->file = candidates[i];
		candidates[i] = NULL;
		if (m->no_header)
			ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_UNVERIFIED_FILE,
				       "%s: the dump holds no ELF header or build-id for this mapping; %s is used unverified",
				       m->path, m->file);
		m->dwfl_module = dwfl_report_elf(s->dwfl, m->name, m->file, fd, m->bias, true);
		ct_debugfile_attach(s, m->dwfl_module);
		if (!m->dwfl_module) {
			ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_MODULE_UNUSABLE, "%s: %s", m->file,
				       dwfl_errmsg(-1));
			close(fd);
			free(m->file);
			m->file = NULL;
		}
	}
	for (int i = 0; i < nc; i++)
		free(candidates[i]);
	if (m->file)
		return;
	// No usable file at its path: a copy by build-id in the debug directories (an unstripped
	// .debug file also carries the symbols and .debug_frame).
	char *by_id = find_by_build_id(s, m->build_id, m->build_id_len, "");
	bool debug_only = false;
	if (!by_id) {
		by_id = find_by_build_id(s, m->build_id, m->build_id_len, ".debug");
		debug_only = by_id != NULL;
	}
	if (by_id) {
		int fd = open(by_id, O_RDONLY | O_CLOEXEC);
		m->dwfl_module = fd >= 0 ? dwfl_report_elf(s->dwfl, m->name, by_id, fd, m->bias, true) : NULL;
		ct_debugfile_attach(s, m->dwfl_module);
		if (m->dwfl_module) {
			m->file = by_id;
			m->match = 1;
			memcpy(m->file_build_id, m->build_id, m->build_id_len);
			m->file_build_id_len = m->build_id_len;
			// A separate debug file (Debian's -dbg packages) has the symbols but its code and
			// .eh_frame are NOBITS: frames through the module lose their unwind tables.
			if (debug_only && m->path)
				ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_MODULE_DEBUG_FILE_ONLY,
					       "%s: file not found%s; its separate debug file %s gives the symbols, but it has "
					       "no code or unwind tables: frames through it are found by the stack scan",
					       m->path, o->sysroot && *o->sysroot ? " under --sysroot" : "", by_id);
			return;
		}
		if (fd >= 0)
			close(fd);
		free(by_id);
	}
	if (m->no_header)
		return;
	if (mismatch_seen)
		m->match = 0;
	// Without a file libdwfl still knows the range, so frames are attributed to the module.
	m->dwfl_module = dwfl_report_module(s->dwfl, m->name, m->start, m->end);
	if (!mismatch_seen && m->path && m->is_main && !o->safe) {
		// The program itself: without it no frame of its own code has a name (issue 16).
		// Asking for it on the command line is no help to a user who just gave one.
		if (o->executable)
			ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_EXECUTABLE_MISSING,
				       "%s: executable not found, and the one given (%s) could not be used", m->path,
				       o->executable);
		else
			ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_EXECUTABLE_MISSING,
				       "%s: executable not found (moved or deleted since the crash?); give it on the command line",
				       m->path);
	} else if (!mismatch_seen && m->path && !m->is_vdso) {
		ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_MODULE_FILE_MISSING,
			       "%s: file not found%s; frames in it are not symbolized", m->path,
			       o->safe ? " (--safe: files named in the dump are not opened)" : "");
	}
}

// Modules without a usable file are reported with dwfl_report_module; libdwfl then asks here for
// an ELF, and there is none to give: symbols and CFI are absent for them, on purpose.
static int find_elf_cb(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	*elfp = NULL;
	return -1;
}

static int compare_modules(const void *a, const void *b)
{
	const struct ct_module_state *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

// The vdso: its image lives only in the dump; report it from a copy in memory.
static void add_vdso(struct ct_module_set *s)
{
	uint64_t addr;
	if (!ct_core_auxv(s->core, AT_SYSINFO_EHDR, &addr) || addr == 0)
		return;
	const struct ct_segment *seg = ct_core_find_segment(s->core, addr);
	// The vdso is a few pages; 1 MiB bounds a hostile segment table.
	if (!seg || addr - seg->vaddr >= seg->filesz || seg->filesz - (addr - seg->vaddr) > (1u << 20))
		return;
	size_t size = seg->filesz - (addr - seg->vaddr);
	if (s->num_modules >= CT_MAX_MODULES)
		return;
	struct ct_module_state *m = &s->modules[s->num_modules];
	memset(m, 0, sizeof(*m));
	m->match = -1;
	m->is_vdso = true;
	m->name = strdup("[vdso]");
	m->start = addr;
	m->end = addr + size;
	if (!m->name || !read_memory_image(s, addr, m))
		goto fail;
	m->image = malloc(size);
	if (!m->image || !ct_core_read_fast(s->core, addr, m->image, size))
		goto fail;
	m->image_size = size;
	// The image is the dump's: its compressed debug sections may claim any size.
	ct_debug_admit_image(s, m->image, size, "[vdso] in the dump");
	// dwfl_report_elf wants a file descriptor: give it an anonymous memory file, so nothing is
	// written to disk.
	int fd = memfd_create("coretriage-vdso", MFD_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (write(fd, m->image, size) != (ssize_t)size) {
		close(fd);
		goto fail;
	}
	m->dwfl_module = dwfl_report_elf(s->dwfl, m->name, "[vdso]", fd, m->bias, true);
	ct_debugfile_attach(s, m->dwfl_module);
	if (!m->dwfl_module) {
		close(fd);
		goto fail;
	}
	s->num_modules++;
	return;
fail:
	free(m->name);
	free(m->image);
	memset(m, 0, sizeof(*m));
}

// The program itself: the module holding AT_ENTRY or AT_PHDR (triage tells its linked-in runtime, a
// static libc's abort say, from the program's code by it).
static bool holds_program(const struct ct_core *core, uint64_t start, uint64_t end)
{
	uint64_t entry, phdr;
	return (ct_core_auxv(core, AT_ENTRY, &entry) && entry >= start && entry < end) ||
	       (ct_core_auxv(core, AT_PHDR, &phdr) && phdr >= start && phdr < end);
}

// Module state for a module libdwfl found by itself (link_map mode).
static int collect_module_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	struct ct_module_set *s = arg;
	if (s->num_modules >= CT_MAX_MODULES)
		return DWARF_CB_ABORT;
	struct ct_module_state *m = &s->modules[s->num_modules];
	memset(m, 0, sizeof(*m));
	Dwarf_Addr low, high;
	const char *mainfile = NULL;
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	m->start = low;
	m->end = high;
	m->name = basename_dup(name ? name : "?");
	m->path = name && name[0] == '/' ? strdup(name) : NULL;
	m->dwfl_module = mod;
	m->match = -1;
	m->is_main = holds_program(s->core, m->start, m->end);
	*userdata = s;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len > 0 && len <= CT_MAX_BUILD_ID) {
		memcpy(m->build_id, bits, (size_t)len);
		m->build_id_len = (size_t)len;
	}
	Dwarf_Addr bias;
	if (dwfl_module_getelf(mod, &bias)) {
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
		m->bias = bias;
		if (mainfile)
			m->file = strdup(mainfile);
		// libdwfl accepts a file only when its build-id matches the one in the dump.
		if (m->build_id_len) {
			m->match = 1;
			memcpy(m->file_build_id, m->build_id, m->build_id_len);
			m->file_build_id_len = m->build_id_len;
		}
	}
	if (!m->name) {
		free(m->path);
		free(m->file);
		return DWARF_CB_ABORT;
	}
	s->num_modules++;
	return DWARF_CB_OK;
}

/*
 * A core without NT_FILE whose link_map and headers gave no module at the entry point (a static
 * program dumped by qemu-user, or by an old kernel with its text pages left out) still has
 * AT_ENTRY: the executable given on the command line is placed by it, unverified (there is no
 * build-id to compare). True when placed.
 */
static bool report_given_executable(struct ct_module_set *s)
{
	const char *exe = s->opts->executable;
	uint64_t entry;
	if (!exe || s->opts->safe || !ct_core_auxv(s->core, AT_ENTRY, &entry))
		return false;
	// Reported modules become visible to lookups only at the end of a report round.
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0)
		return false;
	bool found = dwfl_addrmodule(s->dwfl, entry) != NULL;
	dwfl_report_begin_add(s->dwfl);
	if (found)
		return false;
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct ct_module_state m = { .is_main = true, .no_header = true };
	char *name = basename_dup(exe);
	Dwfl_Module *mod = name && place_by_file(s, &m, fd) ? dwfl_report_elf(s->dwfl, name, exe, fd, m.bias, true) : NULL;
	if (mod)
		ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_UNVERIFIED_FILE,
			       "the dump names no module: %s is placed by the entry point and used unverified", exe);
	else
		close(fd);
	free(name);
	return mod != NULL;
}

static char *debuginfo_path_for(const struct ct_options *o)
{
	// Standard libdwfl search path: the module's own dir, .debug beside it, /usr/lib/debug, then
	// every --debug-dir (build-id layout).
	size_t len = 64;
	for (size_t i = 0; i < o->num_debug_dirs; i++)
		len += strlen(o->debug_dirs[i]) + 1;
	char *p = malloc(len);
	if (!p)
		return NULL;
	strcpy(p, "-:.debug:/usr/lib/debug");
	for (size_t i = 0; i < o->num_debug_dirs; i++) {
		strcat(p, ":");
		strcat(p, o->debug_dirs[i]);
	}
	return p;
}

struct ct_error *ct_modules_load(const struct ct_options *opts, const struct ct_core *core, struct ct_sink out,
				 struct ct_budget *budget, struct ct_module_set *s)
{
	*s = (struct ct_module_set){ .opts = opts, .core = core, .out = out, .budget = budget };
	s->symcache = ct_symcache_create();
	if (!s->symcache)
		return &ct_enomem;
	s->debuginfo_path = debuginfo_path_for(s->opts);
	if (!s->debuginfo_path)
		return &ct_enomem;
	// libdwfl takes the architecture from this Elf's e_machine: the core's, never the host's.
	s->core_elf = elf_memory((char *)core->map, core->size);
	if (!s->core_elf)
		return ct_error_create(CT_ERROR_LIBRARY, "elf_memory: %s", elf_errmsg(-1));
	// Without NT_FILE (qemu-user, old kernels) the dynamic linker's link_map in the dump names the
	// objects (linkmap.c): they then take the NT_FILE path (--sysroot, build-id checks, trust).
	size_t from_link_map = 0;
	s->files = core->files;
	s->num_files = core->num_files;
	if (s->num_files == 0 && !s->opts->safe) {
		struct ct_file_mapping *files;
		from_link_map = ct_linkmap_files(core, s->opts->executable, s->opts->sysroot, CT_MAX_MODULES, &files);
		if (from_link_map) {
			s->link_map_files = files;
			s->files = files;
			s->num_files = from_link_map;
			ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_LINK_MAP,
				       "the core has no NT_FILE note: %zu objects named by the dynamic linker's link_map in the dump",
				       from_link_map);
		}
	}
	// Otherwise the modules come from the dynamic linker's link_map in the dump through libdwfl's
	// core reporting and its build-id checked lookup (objects whose headers the dump lacks).
	bool link_map_mode = s->num_files == 0 && !s->opts->safe && core->num_segments <= CT_MAX_LINK_MAP_SEGMENTS;
	if (s->num_files == 0 && core->num_segments > CT_MAX_LINK_MAP_SEGMENTS)
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_LIMIT,
			       "the core has no NT_FILE note and %zu segments, more than the %u its link_map is searched in",
			       core->num_segments, CT_MAX_LINK_MAP_SEGMENTS);
	s->callbacks.find_elf = link_map_mode ? dwfl_build_id_find_elf : find_elf_cb;
	s->callbacks.find_debuginfo = ct_find_debuginfo;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->dwfl = dwfl_begin(&s->callbacks);
	if (!s->dwfl)
		return ct_error_create(CT_ERROR_LIBRARY, "dwfl_begin: %s", dwfl_errmsg(-1));
	dwfl_report_begin(s->dwfl);

	size_t cap = link_map_mode ? CT_MAX_MODULES + 1 : s->num_files + 2;
	if (cap > CT_MAX_MODULES + 1)
		cap = CT_MAX_MODULES + 1;
	s->modules = calloc(cap, sizeof(*s->modules));
	if (!s->modules)
		return &ct_enomem;

	// One module per distinct path whose mapping at file offset 0 starts with an ELF header, and
	// one per start address: looked up in an index, linear in the NT_FILE entries.
	struct ct_module_index *index = ct_module_index_create(cap);
	if (!index)
		return &ct_enomem;
	size_t aliased = 0;
	for (size_t i = 0; i < s->num_files && s->num_modules < CT_MAX_MODULES; i++) {
		const struct ct_file_mapping *f = &s->files[i];
		if (f->file_offset != 0)
			continue;
		// NT_FILE lists mappings by address: only the last module of a path can contain this one.
		size_t last = ct_module_index_find_path(index, f->path);
		if (last != SIZE_MAX && f->start >= s->modules[last].start && f->start < s->modules[last].end)
			continue;
		// Two files at one address are one module: a second name of the same page is a lie of
		// the dump, and libdwfl would be asked for the same range again and again.
		if (ct_module_index_has_start(index, f->start)) {
			aliased++;
			continue;
		}
		struct ct_module_state *m = &s->modules[s->num_modules];
		memset(m, 0, sizeof(*m));
		m->match = -1;
		if (!read_memory_image(s, f->start, m)) {
			// No ELF header in the dump (coredump_filter without bit 4, or a data file): the
			// module can only come from a file, placed by its own program headers. Only the
			// first mapping of a path at offset 0 is a candidate. Under --safe only the main
			// program can be, from the executable given on the command line (checked below).
			if (last != SIZE_MAX || (s->opts->safe && !s->opts->executable))
				continue;
			memset(m, 0, sizeof(*m));
			m->match = -1;
			m->no_header = true;
		}
		m->path = strdup(f->path);
		m->name = basename_dup(f->path);
		if (!m->path || !m->name) {
			free(m->path);
			free(m->name);
			ct_module_index_destroy(index);
			return &ct_enomem;
		}
		m->start = f->start;
		m->end = f->end;
		// The module extends over the following mappings of the same file.
		for (size_t j = i + 1; j < s->num_files; j++) {
			const struct ct_file_mapping *g = &s->files[j];
			if (strcmp(g->path, f->path) != 0 || g->start < m->end - 1)
				break;
			if (g->start - m->end > (64u << 20))
				break;
			m->end = g->end;
		}
		m->is_main = holds_program(core, m->start, m->end);
		if (m->no_header && s->opts->safe && !m->is_main) {
			free(m->path);
			free(m->name);
			memset(m, 0, sizeof(*m));
			continue;
		}
		ct_module_index_add(index, s->num_modules, m->path, m->start);
		s->num_modules++;
	}
	ct_module_index_destroy(index);
	if (aliased)
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_ALIASED_MAPPINGS,
			       "%zu NT_FILE entries name a file at an address where another one is mapped; ignored", aliased);
	if (s->num_modules >= CT_MAX_MODULES)
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_LIMIT, "more than %u modules; the rest are ignored",
			       CT_MAX_MODULES);
	for (size_t i = 0; i < s->num_modules; i++)
		attach_file(s, &s->modules[i]);
	// Header-less mappings without an ELF file behind them were data, not modules.
	size_t kept = 0;
	for (size_t i = 0; i < s->num_modules; i++) {
		struct ct_module_state *m = &s->modules[i];
		if (m->no_header && !m->file) {
			free(m->name);
			free(m->path);
			continue;
		}
		s->modules[kept++] = *m;
	}
	s->num_modules = kept;
	add_vdso(s);

	if (link_map_mode) {
		int n = dwfl_core_file_report(s->dwfl, s->core_elf, s->opts->executable);
		if (report_given_executable(s))
			n++;
		if (n <= 0)
			ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_FILE_LIST,
				       "the core has no NT_FILE note and its link_map gave no modules%s: frames are not symbolized",
				       s->opts->executable ? "" : " (no executable given)");
		else
			ct_sink_diag(&s->out, CT_SEVERITY_INFO, 0, CT_DIAG_LINK_MAP,
				       "the core has no NT_FILE note: %d modules found from the dynamic linker's link_map", n);
	} else if (s->num_files == 0) {
		ct_sink_diag(&s->out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_FILE_LIST,
			       "the core has no NT_FILE note and --safe forbids reading the paths in its link_map");
	}
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0)
		return ct_error_create(CT_ERROR_LIBRARY, "dwfl_report_end: %s", dwfl_errmsg(-1));
	if (link_map_mode)
		dwfl_getmodules(s->dwfl, collect_module_cb, s, 0);
	qsort(s->modules, s->num_modules, sizeof(*s->modules), compare_modules);
	// Debug files are found lazily, for the modules frames land in (libdw inflates a debug file's
	// compressed sections on opening it): the report names those that were used.
	return NULL;
}

void ct_modules_unload(struct ct_module_set *s)
{
	ct_perfmap_deinit(&s->perfmap);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->dwfl = NULL;
	if (s->core_elf)
		elf_end(s->core_elf);
	s->core_elf = NULL;
	for (size_t i = 0; i < s->num_modules; i++) {
		struct ct_module_state *m = &s->modules[i];
		free(m->name);
		free(m->path);
		free(m->file);
		free(m->image);
		free(m->package_note);
		free(m->debug_found);
		// After dwfl_end: the module's Dwarf pointed at it.
		if (m->sup_dwarf)
			dwarf_end(m->sup_dwarf);
		if (m->sup_elf) {
			elf_end(m->sup_elf);
			close(m->sup_fd);
		}
	}
	free(s->modules);
	s->modules = NULL;
	s->num_modules = 0;
	for (size_t i = 0; s->link_map_files && i < s->num_files; i++)
		free(s->link_map_files[i].path);
	free(s->link_map_files);
	s->link_map_files = NULL;
	s->files = NULL;
	s->num_files = 0;
	free(s->debuginfo_path);
	s->debuginfo_path = NULL;
	ct_symcache_destroy(s->symcache);
	s->symcache = NULL;
}

struct ct_module_state *ct_modules_state_of(struct ct_module_set *s, const Dwfl_Module *mod)
{
	for (size_t i = 0; mod && i < s->num_modules; i++) {
		if (s->modules[i].dwfl_module == mod)
			return &s->modules[i];
	}
	return NULL;
}

struct module_key {
	const struct ct_module_set *s;
	uint64_t addr;
};

static bool module_starts_at_or_below(const void *ctx, size_t i)
{
	const struct module_key *k = ctx;
	return k->s->modules[i].start <= k->addr;
}

const struct ct_module_state *ct_modules_find(const struct ct_module_set *s, uint64_t addr)
{
	size_t lo = ct_bisect(s->num_modules, module_starts_at_or_below, &(struct module_key){ s, addr });
	if (lo == 0)
		return NULL;
	const struct ct_module_state *m = &s->modules[lo - 1];
	return addr < m->end ? m : NULL;
}

bool ct_modules_is_code(const struct ct_module_set *s, uint64_t addr)
{
	const struct ct_segment *seg = ct_core_find_segment(s->core, addr);
	if (seg)
		return (seg->flags & PF_X) != 0;
	// gdb's gcore leaves unmodified file-backed text out of the core entirely: ask the module's
	// own program headers.
	Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, addr) : NULL;
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t phnum;
	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		if (ph && ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr - bias >= ph->p_vaddr &&
		    addr - bias - ph->p_vaddr < ph->p_memsz)
			return true;
	}
	return false;
}

void ct_modules_to_report(const struct ct_module_set *s, struct ct_report *r)
{
	for (size_t i = 0; i < s->num_modules; i++) {
		const struct ct_module_state *m = &s->modules[i];
		struct ct_module *rm = ct_report_add_module(r);
		if (!rm)
			return;
		char hex[2 * CT_MAX_BUILD_ID + 1];
		rm->name = ct_report_strdup(r, m->name);
		rm->path = ct_report_strdup(r, m->path);
		rm->base = m->start;
		rm->end = m->end;
		if (m->build_id_len) {
			ct_build_id_hex(m->build_id, m->build_id_len, hex);
			rm->build_id = ct_report_strdup(r, hex);
		}
		if (m->file_build_id_len) {
			ct_build_id_hex(m->file_build_id, m->file_build_id_len, hex);
			rm->file_build_id = ct_report_strdup(r, hex);
		}
		rm->build_id_match = m->match;
		rm->file = ct_report_strdup(r, m->is_vdso ? "[dump memory]" : m->file);
		const char *debugfile = NULL;
		if (m->dwfl_module)
			dwfl_module_info(m->dwfl_module, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
		rm->debug_info = ct_report_strdup(r, debugfile);
		Dwarf_Addr bias;
		Elf *elf = m->dwfl_module && !m->is_vdso ? dwfl_module_getelf(m->dwfl_module, &bias) : NULL;
		if (!(elf && ct_pkgnote_from_elf(&r->strings, elf, &rm->package)) && m->package_note)
			ct_pkgnote_parse(&r->strings, m->package_note, m->package_note_size, &rm->package);
	}
}

bool ct_modules_read_code(struct ct_module_set *s, uint64_t addr, void *buf, size_t len)
{
	if (ct_core_read_fast(s->core, addr, buf, len))
		return true;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	if (!mod)
		return false;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return false;
	size_t raw_size;
	const char *raw = elf_rawfile(elf, &raw_size);
	size_t phnum;
	if (!raw || elf_getphdrnum(elf, &phnum) != 0)
		return false;
	uint64_t vaddr = addr - bias;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		if (!ph || ph->p_type != PT_LOAD || vaddr < ph->p_vaddr || vaddr - ph->p_vaddr >= ph->p_filesz)
			continue;
		uint64_t off = ph->p_offset + (vaddr - ph->p_vaddr);
		if (!ct_in_bounds(raw_size, off, len) || vaddr - ph->p_vaddr + len > ph->p_filesz)
			return false;
		memcpy(buf, raw + off, len);
		return true;
	}
	return false;
}
