// `coretriage VMLINUX VMCORE`: the vmlinux must be the build that crashed (its GNU build-id equals
// VMCOREINFO's BUILD-ID), and then its DWARF adds file:line to the kernel frames found from the dump.
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "kernel/vmcore.h"
#include "modules/inline_chain.h"
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
	} else {
		for (ssize_t i = 0; i < n && (size_t)(2 * i + 2) < hex_size; i++)
			snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
	}
	elf_end(elf);
	return err;
}

struct ct_error *ct_vmlinux_check(struct ct_vmcore *vm, const char *path, struct ct_report *report)
{
	char file_id[2 * MAX_BUILD_ID + 1] = "";
	struct ct_error *err = read_build_id(path, file_id, sizeof(file_id));
	if (err)
		return err;
	const char *dump_id = ct_vmcoreinfo_get(&vm->vmcoreinfo, "BUILD-ID");
	if (!dump_id) {
		// Linux < 5.9 publishes no BUILD-ID: nothing to compare, so say so and trust the user.
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, "no-build-id",
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
static size_t expand_frame(struct ct_report *report, Dwfl_Module *mod, bool have_dwarf, const struct ct_frame *f,
			   Dwarf_Addr a, struct ct_frame *out)
{
	struct ct_frame base = *f;
	if (!have_dwarf) {
		out[0] = base;
		return 1;
	}
	struct ct_source_frame chain[CT_MAX_INLINE_DEPTH];
	size_t n = ct_inline_chain(report, mod, a, chain);
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

// Rebuilds @p th's frames with the inline frames of its vmlinux frames. Returns false (frames
// unchanged) when out of memory.
static bool expand_thread(struct ct_report *report, struct ct_thread *th, Dwfl_Module *mod, bool have_dwarf,
			  uint64_t slide, bool blame_here)
{
	size_t cap = th->num_frames + 16, n = 0;
	struct ct_frame *frames = malloc(cap * sizeof(*frames));
	if (!frames)
		return false;
	long blame = report->crash.blame_frame;
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
		// Frames already expanded (inlined) and frames outside vmlinux stay as they are.
		if (!f->function || f->inlined || !f->module || strcmp(f->module, "vmlinux") != 0) {
			frames[n++] = *f;
			continue;
		}
		// Caller frames: look up the call, not the return address (frame 0 and a frame
		// interrupted by an exception are at the instruction itself).
		bool caller = i > 0 && !th->frames[i - 1].signal_frame;
		Dwarf_Addr a = f->pc - slide - (caller ? 1 : 0);
		n += expand_frame(report, mod, have_dwarf, f, a, &frames[n]);
	}
	free(th->frames);
	th->frames = frames;
	th->num_frames = n;
	th->capacity_frames = cap;
	if (blame_here && blame >= 0)
		report->crash.blame_frame = new_blame;
	return true;
}

void ct_vmlinux_symbolize(struct ct_vmcore *vm, const char *path, struct ct_report *report)
{
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl)
		return;
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, "vmlinux", path, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		ct_report_diag(report, CT_SEVERITY_WARNING, 0, "vmlinux-unreadable", "%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return;
	}
	// The dump's addresses are the link-time ones moved by the KASLR offset.
	uint64_t slide = vm->has_kaslr_offset ? vm->kaslr_offset : 0;
	Dwarf_Addr bias;
	bool have_dwarf = dwfl_module_getdwarf(mod, &bias) != NULL;
	if (!have_dwarf)
		ct_report_diag(report, CT_SEVERITY_INFO, 0, "vmlinux-no-dwarf",
			       "%s has no DWARF: kernel frames keep kallsyms names only", path);
	for (size_t t = 0; t < report->num_threads; t++) {
		struct ct_thread *th = &report->threads[t];
		if (!expand_thread(report, th, mod, have_dwarf, slide, th->crashed))
			ct_report_diag(report, CT_SEVERITY_WARNING, th->tid, "out-of-memory",
				       "out of memory: inline frames of CPU %d not expanded", th->tid);
	}
	dwfl_end(dwfl);
}
