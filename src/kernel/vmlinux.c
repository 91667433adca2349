// `coretriage VMLINUX VMCORE`: the vmlinux must be the build that crashed (its GNU build-id equals
// VMCOREINFO's BUILD-ID), and then its DWARF adds file:line to the kernel frames found from the dump.
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "coretriage/coretriage.h"
#include "arch/arch.h"
#include "kernel/vmcore.h"
#include "modules/cu_index.h"
#include "modules/inline_chain.h"
#include "modules/modules.h"
#include "util/cleanup.h"

// GNU build-ids are 20 bytes (sha1); 64 bounds an odd linker's choice.
#define MAX_BUILD_ID 64

static struct ct_error *read_build_id(const char *path, char *hex, size_t hex_size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ct_error_os(errno, "%s", path);
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "%s: not an ELF file: %s", path, elf_errmsg(-1));
	struct ct_error *err = NULL;
	const void *id;
	ssize_t n = elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (n <= 0 || n > MAX_BUILD_ID) {
		err = ct_error_create(CT_ERROR_INVALID_ARGUMENT, "%s: has no GNU build-id note", path);
	} else if ((size_t)n * 2 < hex_size) {
		ct_build_id_hex(id, (size_t)n, hex);
	}
	elf_end(elf);
	return err;
}

struct ct_error *ct_vmlinux_check(struct ct_vmcore *vm, const char *path, const struct ct_sink *out)
{
	char file_id[2 * MAX_BUILD_ID + 1] = "";
	struct ct_error *err = read_build_id(path, file_id, sizeof(file_id));
	if (err)
		return err;
	const char *dump_id = ct_vmcoreinfo_get(&vm->vmcoreinfo, "BUILD-ID");
	if (!dump_id) {
		// Linux < 5.9 publishes no BUILD-ID: nothing to compare, so say so and trust the user.
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_BUILD_ID,
			     "the vmcore has no BUILD-ID in VMCOREINFO; cannot check that %s matches it", path);
		return NULL;
	}
	// VMCOREINFO may carry the id in either case; compare case-insensitively.
	size_t n = strlen(dump_id);
	bool same = n == strlen(file_id);
	for (size_t i = 0; same && i < n; i++)
		same = tolower((unsigned char)dump_id[i]) == file_id[i];
	if (!same)
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT,
				       "%s does not match the vmcore: build-id %s in the vmcore, %s in the file; refusing to "
				       "symbolize with another kernel build",
				       path, dump_id, file_id);
	return NULL;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/** Inline chains deeper than this are cut (as in modules/symbolize.c). */
#define MAX_INLINE_DEPTH CT_MAX_INLINE_DEPTH

/**
 * Symbolizes frame @p f (looked up at module address @p a) and writes the frames it becomes into
 * @p out, innermost first (modules/inline_chain.h): one per inlined call
 * (inlined=true, function from DWARF, file:line where the code is), then @p f itself with the
 * location of the outermost call site. Returns the number written (>= 1).
 */
static size_t expand_frame(struct ct_strpool *strings, struct ct_cu_index *index, Dwfl_Module *mod, bool have_dwarf,
			   const struct ct_frame *f, Dwarf_Addr a, struct ct_frame *out)
{
	struct ct_frame base = *f;
	if (!have_dwarf) {
		out[0] = base;
		return 1;
	}
	struct ct_source_frame chain[CT_MAX_INLINE_DEPTH];
	size_t n = ct_inline_chain(strings, index, mod, a, chain);
	for (size_t i = 0; i < n; i++) {
		struct ct_frame *e = &out[i];
		*e = base;
		e->file = chain[i].file ? chain[i].file : base.file;
		e->line = chain[i].file ? chain[i].line : base.line;
		e->column = chain[i].file ? chain[i].column : base.column;
		e->inlined = chain[i].inlined;
		if (chain[i].inlined) {
			e->function = chain[i].function;
			e->offset = chain[i].offset;
			// Only the physical (outermost) frame was interrupted or is a trampoline.
			e->signal_frame = false;
		}
	}
	return n;
}

/* --- kernel modules (--debug-dir) ------------------------------------------------------------------ */

// A .ko found under --debug-dir, reported to libdwfl with its sections at their addresses in the dump.
#define MAX_KMODS 16
#define MAX_KO_SECTIONS 4096
// DIR/**/<name>.ko: directories deeper than this are not searched (a distribution tree is ~6 deep).
#define MAX_SEARCH_DEPTH 8

struct kmod {
	char name[64]; /**< as the kernel spells it ("ct_null") */
	char *path; /**< the .ko (or .build-id debug file); malloc'ed */
	Elf *elf;
	int fd;
	size_t num_sections;
	Dwarf_Addr *section_address; /**< per section index; (Dwarf_Addr)-1 when not placed */
	Dwfl_Module *mod;
	bool have_dwarf;
};

struct kmods {
	struct kmod mods[MAX_KMODS];
	size_t num;
	/** The dump's architecture: its table has the module area (NULL: no unnamed frame is a module's). */
	const struct ct_arch_info *arch;
};

// libdwfl asks where each SHF_ALLOC section of an ET_REL module was loaded.
static int kmod_section_address(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
				const char *secname, GElf_Word shndx, const GElf_Shdr *shdr, Dwarf_Addr *addr)
{
	(void)mod, (void)modname, (void)base, (void)secname, (void)shdr;
	const struct kmod *k = *userdata;
	*addr = k && shndx < k->num_sections ? k->section_address[shndx] : (Dwarf_Addr)-1;
	return DWARF_CB_OK;
}

// The file was found by kmod_find() already: hand libdwfl a fresh descriptor on it.
static int kmod_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			 char **file_name, Elf **elfp)
{
	(void)mod, (void)modname, (void)base;
	const struct kmod *k = *userdata;
	*elfp = NULL;
	if (!k || !k->path)
		return -1;
	int fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*file_name = strdup(k->path);
	return fd;
}

static const Dwfl_Callbacks kmod_callbacks = {
	.find_elf = kmod_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = kmod_section_address,
};

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

// DIR/**/<file>, depth first, up to MAX_SEARCH_DEPTH levels; the first hit is returned (malloc'ed).
static char *search_tree(const char *dir, const char *file, int depth)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) < sizeof(path) && file_exists(path))
		return strdup(path);
	if (depth >= MAX_SEARCH_DEPTH)
		return NULL;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *found = NULL;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue; // ".", "..", and .build-id (searched by id)
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			found = search_tree(path, file, depth + 1);
	}
	closedir(d);
	return found;
}

// DIR/<name>.ko, then DIR/**/<name>.ko, with the name as given and with '_' and '-' swapped (module
// names use '_', file names often '-').
static char *kmod_find(const struct ct_options *opts, const char *name)
{
	char variants[3][80];
	snprintf(variants[0], sizeof(variants[0]), "%s.ko", name);
	snprintf(variants[1], sizeof(variants[1]), "%s.ko", name);
	snprintf(variants[2], sizeof(variants[2]), "%s.ko", name);
	for (char *p = variants[1]; *p; p++)
		if (*p == '_')
			*p = '-';
	for (char *p = variants[2]; *p; p++)
		if (*p == '-')
			*p = '_';
	for (size_t i = 0; i < opts->num_debug_dirs; i++) {
		for (int v = 0; v < 3; v++) {
			if (v > 0 && strcmp(variants[v], variants[0]) == 0)
				continue;
			char path[4096];
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", opts->debug_dirs[i], variants[v]) < sizeof(path) &&
			    file_exists(path))
				return strdup(path);
		}
	}
	for (size_t i = 0; i < opts->num_debug_dirs; i++) {
		for (int v = 0; v < 3; v++) {
			if (v > 0 && strcmp(variants[v], variants[0]) == 0)
				continue;
			char *p = search_tree(opts->debug_dirs[i], variants[v], 0);
			if (p)
				return p;
		}
	}
	return NULL;
}

// DIR/.build-id/xx/rest.debug for a known module build-id (hex); NULL when absent.
static char *kmod_find_build_id(const struct ct_options *opts, const char *hex)
{
	if (!hex || strlen(hex) < 3)
		return NULL;
	for (size_t i = 0; i < opts->num_debug_dirs; i++) {
		char path[4096];
		if ((size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", opts->debug_dirs[i], hex, hex + 2) <
			    sizeof(path) &&
		    file_exists(path))
			return strdup(path);
	}
	return NULL;
}

static struct kmod *kmod_get(struct kmods *ks, const char *name)
{
	for (size_t i = 0; i < ks->num; i++)
		if (strcmp(ks->mods[i].name, name) == 0)
			return &ks->mods[i];
	return NULL;
}

// Opens (once) the debug file of module @p name; NULL when --debug-dir has none or it is unreadable.
static struct kmod *kmod_open(struct kmods *ks, const struct ct_options *opts, const char *spec,
			      const struct ct_sink *out)
{
	// "ct_null" or, with CONFIG_STACKTRACE_BUILD_ID, "ct_null 0123abcd…" (the log's "[mod id]").
	char name[64];
	size_t nl = strcspn(spec, " ");
	if (nl == 0 || nl >= sizeof(name))
		return NULL;
	memcpy(name, spec, nl);
	name[nl] = '\0';
	const char *build_id = spec[nl] == ' ' ? spec + nl + 1 : NULL;
	for (const char *p = build_id; p && *p; p++)
		if (!isxdigit((unsigned char)*p))
			build_id = NULL;
	struct kmod *k = kmod_get(ks, name);
	if (k)
		return k->elf ? k : NULL;
	if (ks->num >= MAX_KMODS || strlen(name) >= sizeof(k->name))
		return NULL;
	k = &ks->mods[ks->num++];
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	snprintf(k->name, sizeof(k->name), "%s", name);
	// The module's build-id is known only when the log prints it (CONFIG_STACKTRACE_BUILD_ID, off in
	// Debian): struct module's layout is not published. By name otherwise.
	k->path = kmod_find_build_id(opts, build_id);
	if (!k->path)
		k->path = kmod_find(opts, name);
	if (!k->path)
		return NULL;
	k->fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0)
		return NULL;
	k->elf = elf_begin(k->fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t n = 0;
	if (!k->elf || !gelf_getehdr(k->elf, &eh) || eh.e_type != ET_REL || elf_getshdrnum(k->elf, &n) < 0 ||
	    n == 0 || n > MAX_KO_SECTIONS || !(k->section_address = malloc(n * sizeof(Dwarf_Addr)))) {
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_MODULE_DEBUG_UNREADABLE,
			     "%s: not a relocatable ELF kernel module; frames of %s keep their kallsyms names", k->path,
			     name);
		if (k->elf)
			elf_end(k->elf);
		k->elf = NULL;
		return NULL;
	}
	k->num_sections = n;
	for (size_t i = 0; i < n; i++)
		k->section_address[i] = (Dwarf_Addr)-1;
	return k;
}

// Places the section holding @p sym of @p k so that the symbol starts at @p addr (sym's address in
// the dump). False when the symbol is not in the .ko or contradicts an earlier placement.
static bool kmod_place(struct kmod *k, const char *sym, uint64_t addr)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= k->num_sections)
				continue;
			const char *nm = elf_strptr(k->elf, sh.sh_link, s.st_name);
			if (!nm || strcmp(nm, sym) != 0)
				continue;
			Dwarf_Addr base = addr - s.st_value;
			Dwarf_Addr *slot = &k->section_address[s.st_shndx];
			if (*slot != (Dwarf_Addr)-1 && *slot != base)
				return false;
			*slot = base;
			return true;
		}
	}
	return false;
}

// "? ct_null_init+0x12/0x1000 [ct_null]" → function, offset, module; false for other lines.
static bool parse_trace_line(const char *line, char *fn, size_t fn_size, uint64_t *off, char *mod, size_t mod_size)
{
	if (strncmp(line, "? ", 2) == 0)
		line += 2;
	size_t n = strcspn(line, "+ ");
	if (n == 0 || n >= fn_size || line[n] != '+')
		return false;
	memcpy(fn, line, n);
	fn[n] = '\0';
	char *end;
	*off = strtoull(line + n + 1, &end, 16);
	const char *b = strchr(end, '[');
	if (!b)
		return false;
	size_t m = strcspn(b + 1, "]");
	if (m == 0 || m >= mod_size || b[1 + m] != ']')
		return false;
	memcpy(mod, b + 1, m);
	mod[m] = '\0';
	return true;
}


/**
 * Finds the debug files of the modules in @p th's frames and places their sections: a frame with a
 * kallsyms/log name (function+offset [module]) places its symbol's section at pc − offset −
 * st_value; an unnamed frame in module space takes the next unused module line of the log's Call
 * Trace ("ct_null_init+0x12/0x1000 [ct_null]", init code has no kallsyms entry in the dump).
 * Unnamed frames so matched are named from the log (the .ko's DWARF then gives file:line).
 */
static void kmods_place_thread(struct kmods *ks, const struct ct_options *opts, const struct ct_sink *out,
			       const struct ct_panic_record *rec, struct ct_thread *th, bool use_log)
{
	size_t next_log = 0;
	for (size_t i = 0; i < th->num_frames; i++) {
		struct ct_frame *f = &th->frames[i];
		if (f->inlined || (f->module && strcmp(f->module, "vmlinux") == 0))
			continue;
		if (f->function && f->module) {
			struct kmod *k = kmod_open(ks, opts, f->module, out);
			if (k)
				kmod_place(k, f->function, f->pc - f->offset);
			continue;
		}
		if (f->function || !use_log || !ks->arch || !ct_arch_in_kernel_modules(ks->arch, f->pc))
			continue;
		for (; next_log < rec->num_call_trace; next_log++) {
			char fn[256], mod[64];
			uint64_t off;
			if (!parse_trace_line(rec->call_trace[next_log], fn, sizeof(fn), &off, mod, sizeof(mod)) ||
			    off > f->pc)
				continue;
			struct kmod *k = kmod_open(ks, opts, mod, out);
			if (!k || !kmod_place(k, fn, f->pc - off))
				continue;
			f->function = ct_strpool_intern(out->strings, fn);
			f->offset = off;
			f->module = ct_strpool_intern_len(out->strings, mod, strcspn(mod, " "));
			next_log++;
			break;
		}
	}
}

// Reports every module that got a placed section to @p dwfl (ET_REL, sections where the dump has them).
static void kmods_report(struct kmods *ks, Dwfl *dwfl)
{
	for (size_t i = 0; i < ks->num; i++) {
		struct kmod *k = &ks->mods[i];
		if (!k->elf)
			continue;
		Dwarf_Addr lo = (Dwarf_Addr)-1, hi = 0;
		for (size_t s = 0; s < k->num_sections; s++) {
			GElf_Shdr sh;
			Elf_Scn *scn = elf_getscn(k->elf, s);
			if (k->section_address[s] == (Dwarf_Addr)-1 || !scn || !gelf_getshdr(scn, &sh))
				continue;
			if (k->section_address[s] < lo)
				lo = k->section_address[s];
			if (k->section_address[s] + sh.sh_size > hi)
				hi = k->section_address[s] + sh.sh_size;
		}
		if (lo >= hi)
			continue;
		k->mod = dwfl_report_module(dwfl, k->name, lo, hi);
		if (!k->mod)
			continue;
		void **ud;
		dwfl_module_info(k->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		*ud = k;
	}
}

static void kmods_free(struct kmods *ks)
{
	for (size_t i = 0; i < ks->num; i++) {
		struct kmod *k = &ks->mods[i];
		if (k->elf)
			elf_end(k->elf);
		if (k->fd >= 0)
			close(k->fd);
		free(k->path);
		free(k->section_address);
	}
	ks->num = 0;
}

static struct kmod *kmod_of_frame(struct kmods *ks, const struct ct_frame *f)
{
	char name[64];
	size_t nl = f->module ? strcspn(f->module, " ") : 0; // "ct_null 0123abcd…" from a RIP line
	if (nl == 0 || nl >= sizeof(name))
		return NULL;
	memcpy(name, f->module, nl);
	name[nl] = '\0';
	struct kmod *k = kmod_get(ks, name);
	return k && k->mod ? k : NULL;
}

// Rebuilds @p th's frames with the inline frames of its vmlinux frames (and of module frames whose
// debug file was found). Returns false (frames unchanged) when out of memory.
static bool expand_thread(struct ct_strpool *strings, long *blame_frame, struct ct_thread *th, struct ct_cu_index *const index[2],
			  Dwfl_Module *mod, bool have_dwarf, uint64_t slide, struct kmods *ks, bool blame_here)
{
	size_t cap = th->num_frames + 16, n = 0;
	struct ct_frame *frames = malloc(cap * sizeof(*frames));
	if (!frames)
		return false;
	long blame = *blame_frame;
	long new_blame = -1;
	for (size_t i = 0; i < th->num_frames; i++) {
		const struct ct_frame *f = &th->frames[i];
		if (n + MAX_INLINE_DEPTH > cap) {
			size_t c = cap * 2 + MAX_INLINE_DEPTH;
			struct ct_frame *p = realloc(frames, c * sizeof(*p));
			if (!p) {
				free(frames);
				return false;
			}
			frames = p;
			cap = c;
		}
		// A blamed frame becomes the innermost of the frames it expands to (where the code is).
		if (blame_here && (long)i == blame)
			new_blame = (long)n;
		// Caller frames: look up the call, not the return address (frame 0 and a frame
		// interrupted by an exception are at the instruction itself).
		bool caller = i > 0 && !th->frames[i - 1].signal_frame;
		struct kmod *k = f->function && !f->inlined ? kmod_of_frame(ks, f) : NULL;
		if (k) {
			// ET_REL modules are reported at their real addresses: no slide.
			n += expand_frame(strings, index[1], k->mod, k->have_dwarf, f, f->pc - (caller ? 1 : 0), &frames[n]);
			continue;
		}
		// Frames already expanded (inlined) and frames outside vmlinux stay as they are.
		if (!f->function || f->inlined || !f->module || strcmp(f->module, "vmlinux") != 0) {
			frames[n++] = *f;
			continue;
		}
		Dwarf_Addr a = f->pc - slide - (caller ? 1 : 0);
		n += expand_frame(strings, index[0], mod, have_dwarf, f, a, &frames[n]);
	}
	free(th->frames);
	th->frames = frames;
	th->num_frames = n;
	th->capacity_frames = cap;
	if (blame_here && blame >= 0)
		*blame_frame = new_blame;
	return true;
}

void ct_vmlinux_symbolize(struct ct_vmcore *vm, const struct ct_options *opts, const struct ct_panic_record *rec,
			  struct ct_thread *threads, size_t num_threads, long *blame_frame, struct ct_sink out_sink)
{
	const struct ct_sink *out = &out_sink;
	const char *path = opts->executable;
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl)
		return;
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, "vmlinux", path, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_VMLINUX_UNREADABLE, "%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return;
	}
	// The dump's addresses are the link-time ones moved by the KASLR offset.
	uint64_t slide = vm->has_kaslr_offset ? vm->kaslr_offset : 0;
	Dwarf_Addr bias;
	bool have_dwarf = dwfl_module_getdwarf(mod, &bias) != NULL;
	if (!have_dwarf)
		ct_sink_diag(out, CT_SEVERITY_INFO, 0, CT_DIAG_VMLINUX_NO_DWARF,
			     "%s has no DWARF: kernel frames keep kallsyms names only", path);
	// Modules (--debug-dir): found by name, placed from the frames' symbols, in a Dwfl of their own
	// (ET_REL with real section addresses through kmod_section_address).
	struct kmods ks = { .num = 0, .arch = vm->arch };
	Dwfl *kdwfl = NULL;
	if (opts->num_debug_dirs) {
		for (size_t t = 0; t < num_threads; t++)
			kmods_place_thread(&ks, opts, out, rec, &threads[t], threads[t].crashed);
		kdwfl = dwfl_begin(&kmod_callbacks);
		if (kdwfl) {
			dwfl_report_begin(kdwfl);
			kmods_report(&ks, kdwfl);
			dwfl_report_end(kdwfl, NULL, NULL);
			for (size_t i = 0; i < ks.num; i++) {
				struct kmod *k = &ks.mods[i];
				Dwarf_Addr kbias;
				if (k->mod && !(k->have_dwarf = dwfl_module_getdwarf(k->mod, &kbias) != NULL))
					ct_sink_diag(out, CT_SEVERITY_INFO, 0, CT_DIAG_MODULE_NO_DWARF,
						     "%s has no DWARF: frames of %s keep their names only", k->path, k->name);
			}
		}
	}
	// Units found by their own ranges, not .debug_aranges (modules/cu_index.h): one index per Dwfl,
	// vmlinux's and the modules'. Without memory for one, libdwfl's aranges lookup (NULL) serves.
	struct ct_cu_index *index[2] = { ct_cu_index_create(), ct_cu_index_create() };
	for (size_t t = 0; t < num_threads; t++) {
		struct ct_thread *th = &threads[t];
		if (!expand_thread(out->strings, blame_frame, th, index, mod, have_dwarf, slide, &ks, th->crashed))
			ct_sink_diag(out, CT_SEVERITY_WARNING, th->tid, CT_DIAG_NO_MEMORY,
				     "out of memory: inline frames of CPU %d not expanded", th->tid);
	}
	ct_cu_index_destroy(index[0]);
	ct_cu_index_destroy(index[1]);
	if (kdwfl)
		dwfl_end(kdwfl);
	kmods_free(&ks);
	dwfl_end(dwfl);
}
